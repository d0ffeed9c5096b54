/* See profiler_cupti.h. */
#include "harness/run/profiler_cupti.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cupti/metrics.h"
#include "harness/run/l2_flush.h"

typedef struct cupti_plug {
    metric_plan *plan;
    profiler *prof;  /* NULL while unavailable */
    int unavailable; /* columns kept and left empty; the profile phase launches once */
    void *flush;     /* 2 x L2 bytes of scratch; NULL when it could not be had */
    size_t flush_bytes;
    /* the configuration being measured, for the callbacks */
    const variant *v;
    const kernel_args *a;
    cudaStream_t stream;
    cudaError_t err;
    const char *err_what;
    double raw[2 * METRIC_PLAN_MAX];
} cupti_plug;

int profiler_cupti_answer(profiler_status s, const char *msg, char *status, size_t len)
{
    const char *m = msg && *msg ? msg : profiler_status_text(s);
    switch (s) {
    case PROFILER_OK:
        return SWEEP_PROFILER_READY;
    case PROFILER_UNKNOWN_METRIC:
        snprintf(status, len, "%s", m);
        return SWEEP_PROFILER_BAD_METRIC;
    case PROFILER_UNAVAILABLE_OTHER_PROFILER:
        snprintf(status, len, "%s", SWEEP_PROFILER_TEXT_OTHER_PROFILER);
        return SWEEP_PROFILER_UNAVAILABLE;
    case PROFILER_INSUFFICIENT_PRIVILEGES:
        snprintf(status, len, "%s", SWEEP_PROFILER_TEXT_PRIVILEGES);
        return SWEEP_PROFILER_UNAVAILABLE;
    case PROFILER_NO_DEVICE:
    case PROFILER_ERROR:
    default:
        snprintf(status, len, "CUPTI: %.*s; metric columns left empty", len > 64 ? (int)(len - 60) : 1, m);
        return SWEEP_PROFILER_UNAVAILABLE;
    }
}

static void release(cupti_plug *c)
{
    profiler_close(c->prof);
    if (c->flush) cudaFree(c->flush);
    metric_plan_free(c->plan);
    memset(c, 0, sizeof *c);
}

/* Unavailable mode (another profiler attached): a plain flush; the attached
 * profiler does its own cache control. */
static cudaError_t flush_l2(cupti_plug *c, cudaStream_t stream)
{
    if (!c->flush) return cudaSuccess;
    return l2_flush(c->flush, c->flush_bytes, stream);
}

static int plug_begin(void *state, sweep_profiler_setup *s)
{
    cupti_plug *c = state;
    release(c);
    s->metric_count = 0;
    s->passes = 0;
    char msg[1024] = "";
    c->plan = s->requested_count ? metric_plan_new(s->requested, s->requested_count, msg, sizeof msg)
                                 : metric_plan_default();
    if (!c->plan) {
        snprintf(s->status, sizeof s->status, "%.250s", msg[0] ? msg : "out of memory for the metric plan");
        return s->requested_count ? SWEEP_PROFILER_BAD_METRIC : SWEEP_PROFILER_OFF;
    }
    for (size_t i = 0; i < c->plan->ncolumns && i < SWEEP_MAX_METRICS; i++) {
        snprintf(s->metrics[i].name, SWEEP_METRIC_NAME_LEN, "%s", c->plan->columns[i].key);
        snprintf(s->metrics[i].unit, SWEEP_METRIC_UNIT_LEN, "%s", c->plan->columns[i].unit);
        s->metric_count++;
    }

    int ordinal = s->device ? s->device->ordinal : 0;
    int passes = 0;
    profiler_status ps = profiler_open(ordinal, c->plan->raw, c->plan->nraw, &c->prof, &passes, msg, sizeof msg);
    /* A tool injected into CUDA (ncu and nsys set CUDA_INJECTION64_PATH) is the likely
     * cause of any failure to take the counters, whatever code CUPTI gave. */
    const char *injected = getenv("CUDA_INJECTION64_PATH");
    if ((ps == PROFILER_ERROR || ps == PROFILER_NO_DEVICE) && injected && *injected)
        ps = PROFILER_UNAVAILABLE_OTHER_PROFILER;
    int answer = profiler_cupti_answer(ps, msg, s->status, sizeof s->status);
    if (answer == SWEEP_PROFILER_BAD_METRIC) {
        release(c);
        s->metric_count = 0;
        return answer;
    }

    size_t l2 = s->device && s->device->l2_bytes ? s->device->l2_bytes : ((size_t)64 << 20);
    c->flush_bytes = (2 * l2 + 127) / 128 * 128; /* l2_flush_empty works in whole 128-byte lines */
    cudaError_t e = l2_flush_alloc(&c->flush, c->flush_bytes);
    if (e != cudaSuccess) {
        c->flush = NULL;
        (void)cudaGetLastError();
        if (answer == SWEEP_PROFILER_READY) {
            /* without the flush the DRAM columns would measure the cache */
            profiler_close(c->prof);
            c->prof = NULL;
            answer = SWEEP_PROFILER_UNAVAILABLE;
            snprintf(s->status, sizeof s->status,
                     "allocating the L2 flush buffer (%zu MiB): %s (%s); metric columns left empty",
                     c->flush_bytes >> 20, cudaGetErrorString(e), cudaGetErrorName(e));
        }
    }
    if (answer == SWEEP_PROFILER_READY) {
        s->passes = passes;
        snprintf(s->status, sizeof s->status,
                 "ok: CUPTI range profiler on %s, %d pass%s per configuration, one range over the whole "
                 "launcher, L2 flushed and emptied (%zu MiB of clean scratch read, then discarded) in each "
                 "pass before the range opens",
                 profiler_chip(c->prof), passes, passes == 1 ? "" : "es", c->flush_bytes >> 20);
    } else {
        c->unavailable = 1;
        profiler_close(c->prof);
        c->prof = NULL;
    }
    return answer;
}

static void set_cuda_err(char *err, size_t len, const char *what, cudaError_t e)
{
    snprintf(err, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

static int launch_cb(void *user)
{
    cupti_plug *c = user;
    c->err = c->v->launch(c->a, c->stream);
    c->err_what = "launch";
    return c->err != cudaSuccess;
}

/* Runs in each pass after the profiler has started it (cupti/profiler.h):
 * writes back what starting the pass dirtied and leaves the L2 empty, as
 * ncu --cache-control all does, so the DRAM columns count the launcher's
 * traffic alone. */
static int restore_cb(void *user)
{
    cupti_plug *c = user;
    c->err = c->flush ? l2_flush_empty(c->flush, c->flush_bytes, c->stream) : cudaSuccess;
    c->err_what = "flushing L2";
    return c->err != cudaSuccess;
}

static int plug_profile(void *state, const char *label, const variant *v, const kernel_args *a, cudaStream_t stream,
                        double *values, char *err, size_t errlen)
{
    cupti_plug *c = state;
    if (c->unavailable) {
        /* one launch, for an attached profiler to see; before() and after() wait outside the range */
        cudaError_t e = v->launch(a, stream);
        if (e != cudaSuccess) {
            set_cuda_err(err, errlen, "launch", e);
            return -1;
        }
        return 0;
    }
    if (!c->prof || !c->plan) {
        snprintf(err, errlen, "the CUPTI profiler is not open");
        return -1;
    }
    c->v = v;
    c->a = a;
    c->stream = stream;
    c->err = cudaSuccess;
    c->err_what = "";
    char msg[1024] = "";
    /* The configuration's label names the NVTX range around this call; CUPTI's
     * range gets a short fixed name (a long one with spaces crashed the counter
     * decoder in libnvperf_host on CUDA 13.0 / driver 580). */
    (void)label;
    profiler_status ps = profiler_measure(c->prof, "config", launch_cb, restore_cb, c, c->raw, msg, sizeof msg);
    if (ps != PROFILER_OK) {
        if (c->err != cudaSuccess) set_cuda_err(err, errlen, c->err_what, c->err);
        else snprintf(err, errlen, "%s", msg[0] ? msg : profiler_status_text(ps));
        return -1;
    }
    metric_plan_eval(c->plan, c->raw, values);
    return 0;
}

/* Unavailable mode only: the L2 flushed and idle before the "profile" range opens. */
static int plug_before(void *state, const variant *v, const kernel_args *a, cudaStream_t stream, char *err,
                       size_t errlen)
{
    cupti_plug *c = state;
    (void)v;
    (void)a;
    if (!c->unavailable) return 0; /* profiler_measure() flushes before each pass itself */
    cudaError_t e = flush_l2(c, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        set_cuda_err(err, errlen, "flushing L2", e);
        return -1;
    }
    return 0;
}

/* Unavailable mode only: wait for the one launch after the range has closed. */
static int plug_after(void *state, const variant *v, const kernel_args *a, cudaStream_t stream, char *err,
                      size_t errlen)
{
    cupti_plug *c = state;
    (void)v;
    (void)a;
    if (!c->unavailable) return 0;
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        set_cuda_err(err, errlen, "kernel execution", e);
        return -1;
    }
    return 0;
}

static void plug_end(void *state) { release(state); }

const sweep_profiler *sweep_profiler_cupti(void)
{
    static cupti_plug state;
    static const sweep_profiler prof = {
        .name = "cupti",
        .state = &state,
        .begin = plug_begin,
        .profile = plug_profile,
        .end = plug_end,
        .before = plug_before,
        .after = plug_after,
    };
    return &prof;
}
