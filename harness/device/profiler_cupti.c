/* See profiler_cupti.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness/device/profiler_cupti.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cupti/metrics.h"
#include "harness/device/l2_flush.h"

/* The workspaces of queued configurations are held while the next
 * configurations are timed, up to sweep_profile_workspace_cap (profiler.h says why). */

/* One queued configuration: shared in/out, its own workspace. */
typedef struct queued {
    const variant *v;
    kernel_args a;
    void *ws;
} queued;

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
    /* the batch */
    queued q[SWEEP_PROFILE_QUEUE_MAX];
    size_t n_queued, ws_held, ws_cap; /* ws_cap: sweep_profile_workspace_cap of the device */
    double frees_s; /* the workspaces given back after the batches (plug_times) */
    const sweep_profile_hooks *hooks;
    size_t cur;         /* the slot being measured one at a time */
    char no_batches[512]; /* why batches failed once: one configuration a session from then on */
    double batch_raw[SWEEP_PROFILE_QUEUE_MAX * 2 * METRIC_PLAN_MAX];
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

/* The queued configurations' workspaces, freed; the queue empty. */
static void queue_clear(cupti_plug *c)
{
    for (size_t k = 0; k < c->n_queued; k++)
        if (c->q[k].ws) cudaFree(c->q[k].ws);
    c->n_queued = 0;
    c->ws_held = 0;
}

static void release(cupti_plug *c)
{
    queue_clear(c);
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

    c->ws_cap = sweep_profile_workspace_cap(s->device ? s->device->global_mem_bytes : 0);
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
                 "ok: CUPTI range profiler on %s, %d pass%s a configuration, one range over its whole launcher, a "
                 "group's configurations a session (up to [profile] batch, at most %d), L2 flushed and emptied (%zu "
                 "MiB of clean scratch read) before each range",
                 profiler_chip(c->prof), passes, passes == 1 ? "" : "es", PROFILER_BATCH_MAX, c->flush_bytes >> 20);
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

/* ---- batches (harness/device/profiler.h, 2b) ---------------------------------------------------------- */

/* Slot k: the configuration's buffers with a workspace of its own, made
 * ready as a fresh one is (kernels/variant.h): the shared one is the next
 * configuration's by the time the batch runs. */
static int plug_queue(void *state, size_t k, const variant *v, const kernel_args *a, cudaStream_t stream, char *err,
                      size_t errlen)
{
    cupti_plug *c = state;
    if (k != c->n_queued || k >= SWEEP_PROFILE_QUEUE_MAX) {
        snprintf(err, errlen, "queue: slot %zu out of order (%zu queued)", k, c->n_queued);
        return -1;
    }
    queued *q = &c->q[k];
    *q = (queued){v, *a, NULL};
    cudaError_t e = cudaSuccess;
    if (a->workspace_bytes) e = cudaMalloc(&q->ws, a->workspace_bytes);
    if (e != cudaSuccess) {
        q->ws = NULL;
        (void)cudaGetLastError();
        set_cuda_err(err, errlen, "allocating the profile phase's workspace", e);
        return -1;
    }
    q->a.workspace = q->ws;
    if (v->workspace_init) {
        e = v->workspace_init(&q->a, stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    }
    if (e != cudaSuccess) {
        if (q->ws) cudaFree(q->ws);
        set_cuda_err(err, errlen, "setting up the profile phase's workspace", e);
        return -1;
    }
    c->n_queued++;
    c->ws_held += a->workspace_bytes;
    return c->ws_held >= c->ws_cap ? SWEEP_PROFILE_QUEUE_FULL : 0;
}

static int batch_launch(void *user, size_t k)
{
    cupti_plug *c = user;
    const queued *q = &c->q[k];
    if (c->hooks && c->hooks->enter) c->hooks->enter(c->hooks->user, k);
    c->err = q->v->launch(&q->a, c->stream);
    c->err_what = "launch";
    /* Measuring, the NVTX range closes after the work; under an attached
     * profiler the range holds the launch alone, as before batches (ncu's
     * range replay), and the wait comes after it. */
    if (c->err == cudaSuccess && !c->unavailable) {
        c->err = cudaStreamSynchronize(c->stream);
        c->err_what = "kernel execution";
    }
    if (c->hooks && c->hooks->leave) c->hooks->leave(c->hooks->user, k);
    if (c->err == cudaSuccess && c->unavailable) {
        c->err = cudaStreamSynchronize(c->stream);
        c->err_what = "kernel execution";
    }
    return c->err != cudaSuccess;
}

/* The L2 written back and emptied before every range, not once per pass:
 * each range's DRAM columns (dram__bytes_read/write) and its L2 hit rates must
 * not see the previous range's lines or write-backs, and its time must not
 * gain from them. Metrics of instructions, warps and shared memory would not
 * need it, but a set holding any of the others does, and the flush (~30 us)
 * is small against what a batch saves, so it is always done. */
static int batch_restore(void *user, size_t k)
{
    (void)k;
    return restore_cb(user);
}

/* Unavailable mode: each configuration launched once in its range, for the
 * attached profiler; the flush and the waits outside it. */
static int run_queue_unavailable(cupti_plug *c, size_t count, char *err, size_t errlen)
{
    for (size_t k = 0; k < count; k++) {
        cudaError_t e = flush_l2(c, c->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
        if (e != cudaSuccess) {
            set_cuda_err(err, errlen, "flushing L2", e);
            return -1;
        }
        if (batch_launch(c, k)) {
            set_cuda_err(err, errlen, c->err_what, c->err);
            return -1;
        }
    }
    return 0;
}

static int slot_launch(void *user) { return batch_launch(user, ((cupti_plug *)user)->cur); }

/* The fallback: each queued configuration in its own session (profiler_measure). */
static profiler_status measure_one_by_one(cupti_plug *c, size_t count, char *msg, size_t len)
{
    size_t nraw = profiler_num_values(c->prof);
    for (size_t k = 0; k < count; k++) {
        c->cur = k;
        profiler_status ps = profiler_measure(c->prof, "config", slot_launch, restore_cb, c, c->batch_raw + k * nraw,
                                              msg, len);
        if (ps != PROFILER_OK) return ps;
    }
    return PROFILER_OK;
}

static int plug_run_queue(void *state, size_t count, const sweep_profile_hooks *hooks, cudaStream_t stream,
                          double *values, size_t stride, char *err, size_t errlen)
{
    cupti_plug *c = state;
    int rc = 0;
    c->hooks = hooks;
    c->stream = stream;
    c->err = cudaSuccess;
    c->err_what = "";
    if (count != c->n_queued) {
        snprintf(err, errlen, "run_queue: %zu configurations asked, %zu queued", count, c->n_queued);
        rc = -1;
    } else if (c->unavailable) {
        rc = run_queue_unavailable(c, count, err, errlen);
    } else if (!c->prof || !c->plan || stride < c->plan->ncolumns) {
        snprintf(err, errlen, "the CUPTI profiler is not open");
        rc = -1;
    } else {
        char msg[1024] = "";
        size_t nraw = profiler_num_values(c->prof);
        profiler_status ps = c->no_batches[0] ? measure_one_by_one(c, count, msg, sizeof msg)
                                              : profiler_measure_batch(c->prof, count, batch_launch, batch_restore, c,
                                                                       c->batch_raw, msg, sizeof msg);
        if (ps != PROFILER_OK && c->err == cudaSuccess && count > 1 && !c->no_batches[0]) {
            /* CUPTI refused the batch itself (not the launcher): one session a configuration from here on,
             * as before batches, said once */
            snprintf(c->no_batches, sizeof c->no_batches, "%.500s", msg[0] ? msg : profiler_status_text(ps));
            fprintf(stderr, "sweep: profiling in batches failed (%s); one configuration a session from here on\n",
                    c->no_batches);
            msg[0] = '\0';
            ps = measure_one_by_one(c, count, msg, sizeof msg);
        }
        if (ps != PROFILER_OK) {
            if (c->err != cudaSuccess) set_cuda_err(err, errlen, c->err_what, c->err);
            else snprintf(err, errlen, "%s", msg[0] ? msg : profiler_status_text(ps));
            rc = -1;
        }
        for (size_t k = 0; rc == 0 && k < count; k++) metric_plan_eval(c->plan, c->batch_raw + k * nraw, values + k * stride);
    }
    c->hooks = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    queue_clear(c);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c->frees_s += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc;
}

static void plug_end(void *state) { release(state); }

static void plug_times(void *state, sweep_profile_times *out)
{
    const cupti_plug *c = state;
    profiler_times t;
    profiler_get_times(c->prof, &t);
    *out = (sweep_profile_times){.session = t.session, .restore = t.restore, .ranges = t.ranges, .passes = t.passes,
                                 .decode = t.decode, .evaluate = t.evaluate, .frees = c->frees_s,
                                 .push = t.push, .launch = t.fn, .wait = t.wait, .pop = t.pop,
                                 .sessions = t.n_sessions, .pass_count = t.n_passes, .range_count = t.n_ranges};
}

static cupti_plug plug_state;

const char *profiler_cupti_batches_failed(void) { return plug_state.no_batches; }

const sweep_profiler *sweep_profiler_cupti(void)
{
    static const sweep_profiler prof = {
        .name = "cupti",
        .state = &plug_state,
        .begin = plug_begin,
        .profile = plug_profile,
        .end = plug_end,
        .before = plug_before,
        .after = plug_after,
        .queue = plug_queue,
        .run_queue = plug_run_queue,
        .times = plug_times,
    };
    return &prof;
}
