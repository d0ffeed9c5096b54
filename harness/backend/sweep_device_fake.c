/* A device layer without a device, for tests and for trying the sweep on a
 * machine without a GPU (SWEEP_FAKE_DEVICE=1 or --fake-device). It makes no
 * CUDA call. Times are synthetic (the variant's bytes model at 3 TB/s plus
 * 3 us, with a little deterministic noise) and run through the same stopping
 * rule; validation passes unless asked to fail. Knobs, all optional:
 *   SWEEP_FAKE_FAIL=GLOBS      validation of matching variants fails (status invalid)
 *   SWEEP_FAKE_ERROR=GLOBS     ... fails with a CUDA error (status error)
 *   SWEEP_FAKE_DELAY_MS=N      each configuration takes N ms longer (interrupt tests)
 *   SWEEP_FAKE_NO_DEVICE=1     open fails as it does on a host without a GPU
 *   SWEEP_FAKE_MEM_BYTES=N     the device's memory (K/M/G suffixes; default 141G); the
 *                              L2 flush buffer (120 MiB) is held from open on
 *   SWEEP_FAKE_OOM_N=N         buffers for n >= N fail to allocate (cudaErrorMemoryAllocation),
 *                              as if another process held the memory
 *   SWEEP_FAKE_STICKY=GLOBS    validation of matching variants hits an illegal address and
 *                              the context is lost: recover() fails, the run stops
 *   SWEEP_FAKE_SPREAD=GLOBS    samples of matching variants spread +-4 % at the first batch,
 *                              shrinking as 1/sqrt(batch) (per-launch jitter), so the
 *                              sweep's spread rule takes them again with larger batches
 *   SWEEP_FAKE_LAUNCH_ERROR=GLOBS  the warm-up launch of matching variants fails
 *                              (cudaErrorLaunchOutOfResources, not sticky)
 *   SWEEP_FAKE_DEVICES=N       N fake devices, ordinals 0..N-1 (default 1), each with its own
 *                              fake PCI bus id (0000:N+1:00.0); others are out of range (-2)
 *   SWEEP_FAKE_THROTTLE=GLOBS  every 4th sample of matching variants runs at 900 MHz (below
 *                              75 % of the fake's 1980 MHz default clock), so the throttle
 *                              rule discards and takes it again; the others run at 1980 MHz
 *   SWEEP_FAKE_THROTTLE_ALL=GLOBS  every sample of matching variants runs at 900 MHz (a device
 *                              held down for good: the rule gives up after its retries)
 *   SWEEP_FAKE_SLOW_AFTER=K    configurations measured after the K-th run 4 % slower (drift)
 *   SWEEP_FAKE_DIE_AFTER=K     the process running device SWEEP_FAKE_DIE_DEVICE (default 1)
 *                              raises SIGKILL in the warm-up of its K+1st measured
 *                              configuration (--devices worker faults)
 * A built-in profiler reports the requested metrics (or two default ones)
 * with synthetic values, so the metric columns and the profile phase can be
 * exercised too. Requested names become columns as the CUPTI profiler names
 * them (cupti/metrics.h: study keys and their units). Its knob:
 *   SWEEP_FAKE_PROFILER=unavailable  begin() answers UNAVAILABLE as under ncu/nsys
 *                      privileges    ... as without permission for the GPU counters
 *                      unknown       ... BAD_METRIC, as for a name the chip does not know
 *                      off           ... OFF (no metric columns)
 *                      batch-fail    ... READY, but every batch fails (its rows' error)
 * It batches as the CUPTI one does (harness/device/profiler.h, 2b); two more knobs:
 *   SWEEP_FAKE_PROFILE_LOG=PATH  one line per batch appended to PATH: "batch<TAB>count",
 *                              then per slot "slot<TAB>k<TAB>variant<TAB>n<TAB>block dim"
 *   SWEEP_FAKE_INTERRUPT_QUEUED=K  SIGINT to this process when the K-th configuration of
 *                              the run is queued (an interrupt with a batch half full) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti/metrics.h"
#include "harness/config/axes.h"
#include "harness/backend/sweep_device.h"

typedef struct fake_impl {
    uint64_t counter;
    int lost; /* a sticky error happened: the context is gone */
    int ordinal;
    unsigned long started; /* measured configurations begun (SWEEP_FAKE_DIE_AFTER) */
    unsigned long warmups; /* warm-ups, every measured configuration's (SWEEP_FAKE_SLOW_AFTER) */
} fake_impl;

/* "1073741824", "1G", "512M", "64K"; 0 when unset or unreadable. */
static unsigned long long env_bytes(const char *var)
{
    const char *s = getenv(var);
    if (!s || !*s) return 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return 0;
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M') v <<= 20;
    else if (*end == 'G') v <<= 30;
    return v;
}

#define FAKE_L2_BYTES ((size_t)60 << 20)
#define FAKE_FLUSH_BYTES (2 * FAKE_L2_BYTES)
#define FAKE_CLOCK_MHZ 1980.0
#define FAKE_THROTTLED_MHZ 900.0

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int env_matches(const char *var, const char *name)
{
    const char *g = getenv(var);
    if (!g || !*g) return 0;
    glob_list list;
    char err[256];
    if (parse_globs(g, &list, err, sizeof err) != 0) return 0;
    return globs_match(&list, name);
}

static void delay(void)
{
    const char *s = getenv("SWEEP_FAKE_DELAY_MS");
    long ms = s ? atol(s) : 0;
    if (ms <= 0) return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* SWEEP_FAKE_DEVICES, 1 unless set to a count >= 1. */
static int fake_count(sweep_device *d, char *msg, size_t len)
{
    (void)d, (void)msg, (void)len;
    const char *s = getenv("SWEEP_FAKE_DEVICES");
    long n = s && *s ? atol(s) : 1;
    return n >= 1 && n <= 1024 ? (int)n : 1;
}

/* SWEEP_FAKE_DIE_AFTER: the worker of one device dies as if the driver had
 * taken the process down, after K measured configurations. */
static void maybe_die(fake_impl *f)
{
    const char *k = getenv("SWEEP_FAKE_DIE_AFTER"), *dev = getenv("SWEEP_FAKE_DIE_DEVICE");
    if (!k || !*k || f->ordinal != (dev && *dev ? atoi(dev) : 1)) return;
    if (f->started++ >= (unsigned long)atol(k)) raise(SIGKILL);
}

static int fake_open(sweep_device *d, int ordinal, device_info *info, char *msg, size_t len)
{
    (void)d;
    const char *none = getenv("SWEEP_FAKE_NO_DEVICE");
    if (none && *none && strcmp(none, "0")) {
        snprintf(msg, len, "no CUDA device: the fake device layer was told there is none");
        return -1;
    }
    int count = fake_count(d, msg, len);
    if (ordinal < 0 || ordinal >= count) {
        snprintf(msg, len, "--device: %d is out of range (the fake device layer has %d device%s: 0..%d)", ordinal,
                 count, count == 1 ? "" : "s", count - 1);
        return -2;
    }
    ((fake_impl *)d->impl)->lost = 0;
    ((fake_impl *)d->impl)->ordinal = ordinal;
    memset(info, 0, sizeof *info);
    info->ordinal = ordinal;
    snprintf(info->name, sizeof info->name, "fake device (no GPU used)");
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "0000:%02x:00.0", (unsigned)(ordinal + 1) & 0xffu);
    info->sm_major = 9;
    info->sm_minor = 0;
    info->sm_count = 132;
    info->l2_bytes = FAKE_L2_BYTES;
    unsigned long long mem = env_bytes("SWEEP_FAKE_MEM_BYTES");
    info->global_mem_bytes = mem ? (size_t)mem : (size_t)141 << 30;
    info->mem_clock_khz = 3125000; /* 4800 GB/s over 6144 bits, like an H200 */
    info->mem_bus_bits = 6144;
    info->sm_clock_khz = (int)(FAKE_CLOCK_MHZ * 1000);
    info->peak_bandwidth_GBps = 2.0 * info->mem_clock_khz * 1e3 * (info->mem_bus_bits / 8.0) / 1e9;
    info->driver_version = 13000;
    info->runtime_version = 13000;
    return 0;
}

static int fake_memory(sweep_device *d, size_t *free_bytes, size_t *total_bytes, size_t *held_bytes, char *msg,
                       size_t len)
{
    (void)d;
    (void)msg;
    (void)len;
    unsigned long long mem = env_bytes("SWEEP_FAKE_MEM_BYTES");
    *total_bytes = mem ? (size_t)mem : (size_t)141 << 30;
    *held_bytes = FAKE_FLUSH_BYTES;
    *free_bytes = *total_bytes > FAKE_FLUSH_BYTES ? *total_bytes - FAKE_FLUSH_BYTES : 0;
    return 0;
}

static int fake_out_of_memory(const kernel_args *a)
{
    unsigned long long from = env_bytes("SWEEP_FAKE_OOM_N");
    return from && a->n >= from;
}

static double fake_copy_bandwidth(sweep_device *d, char *msg, size_t len)
{
    (void)d;
    (void)msg;
    (void)len;
    return 4000.0;
}

static double fake_launch_cost(sweep_device *d, char *msg, size_t len)
{
    (void)d;
    (void)msg;
    (void)len;
    return 2.0;
}

static dev_status fake_validate(sweep_device *d, const variant *v, const kernel_args *cfg, uint64_t seed,
                                sweep_validation *out)
{
    (void)seed;
    memset(out, 0, sizeof *out);
    delay();
    if (fake_out_of_memory(cfg)) {
        out->ok = 0;
        out->cuda_error = 1;
        out->error_abs = out->tolerance_abs = NAN;
        snprintf(out->message, sizeof out->message,
                 "allocating device buffers: out of memory (cudaErrorMemoryAllocation) [fake]");
        return DEV_NO_MEMORY;
    }
    if (env_matches("SWEEP_FAKE_STICKY", v->name)) {
        ((fake_impl *)d->impl)->lost = 1;
        out->ok = 0;
        out->cuda_error = 1;
        out->error_abs = out->tolerance_abs = NAN;
        snprintf(out->message, sizeof out->message,
                 "kernel execution: an illegal memory access was encountered (cudaErrorIllegalAddress) [fake]");
        return DEV_FAILED;
    }
    if (env_matches("SWEEP_FAKE_ERROR", v->name)) {
        out->ok = 0;
        out->cuda_error = 1;
        out->error_abs = out->tolerance_abs = NAN;
        snprintf(out->message, sizeof out->message,
                 "launch: an illegal memory access was encountered (cudaErrorIllegalAddress) [fake]");
        return DEV_FAILED;
    }
    double tol = cfg->op == OP_SUM && cfg->dtype != DTYPE_I32 ? 7.0 * sqrt((double)cfg->n) * 0x1p-24 * cfg->n : 0.0;
    if (env_matches("SWEEP_FAKE_FAIL", v->name)) {
        out->ok = 0;
        out->error_abs = tol + 1.0;
        out->tolerance_abs = tol;
        snprintf(out->message, sizeof out->message, "%s: expected %.9g, got %.9g (error %.3g > tolerance %.3g) [fake]",
                 v->name, 1.0 * cfg->n, 1.0 * cfg->n + tol + 1.0, tol + 1.0, tol);
        return DEV_FAILED;
    }
    out->ok = 1;
    out->error_abs = 0.0;
    out->tolerance_abs = tol;
    return DEV_OK;
}

static dev_status fake_prepare(sweep_device *d, const variant *v, kernel_args *a, char *msg, size_t len)
{
    (void)d;
    (void)v;
    if (fake_out_of_memory(a)) {
        snprintf(msg, len, "preparing buffers: out of memory (cudaErrorMemoryAllocation) [fake]");
        return DEV_NO_MEMORY;
    }
    a->in = a->out = a->workspace = NULL;
    a->workspace_bytes = 0;
    return DEV_OK;
}

static double fake_time_ms(const variant *v, const kernel_args *a, int cold);

static dev_status fake_warmup(sweep_device *d, const variant *v, const kernel_args *a, double *launch_ms, char *msg,
                              size_t len)
{
    maybe_die(d->impl);
    ((fake_impl *)d->impl)->warmups++;
    *launch_ms = fake_time_ms(v, a, 1);
    if (env_matches("SWEEP_FAKE_LAUNCH_ERROR", v->name)) {
        snprintf(msg, len, "launch: too many resources requested for launch (cudaErrorLaunchOutOfResources) [fake]");
        return DEV_FAILED;
    }
    return DEV_OK;
}

typedef struct fake_sample {
    fake_impl *f;
    double base_ms;
    double amplitude; /* full width, a fraction of base_ms */
    int throttle;     /* 0 none, 1 every 4th sample, 2 every sample */
} fake_sample;

static int fake_sample_fn(void *p, double *ms, double *mhz)
{
    fake_sample *s = p;
    uint64_t k = s->f->counter++;
    uint64_t r = mix(k);
    double u = (double)(r >> 11) * 0x1p-53; /* [0, 1) */
    int slow = s->throttle == 2 || (s->throttle == 1 && k % 4 == 3);
    *mhz = slow ? FAKE_THROTTLED_MHZ : FAKE_CLOCK_MHZ;
    /* A throttled sample takes longer in proportion, as a real one would. */
    *ms = s->base_ms * (1.0 + s->amplitude * (u - 0.5)) * (FAKE_CLOCK_MHZ / *mhz);
    return 0;
}

static int fake_throttle(const variant *v)
{
    return env_matches("SWEEP_FAKE_THROTTLE_ALL", v->name) ? 2 : env_matches("SWEEP_FAKE_THROTTLE", v->name);
}

/* SWEEP_FAKE_SLOW_AFTER: the device drifts 4 % slower after K configurations. */
static double fake_drift(const fake_impl *f)
{
    const char *k = getenv("SWEEP_FAKE_SLOW_AFTER");
    return k && *k && f->warmups > (unsigned long)atol(k) ? 1.04 : 1.0;
}

static double fake_time_ms(const variant *v, const kernel_args *a, int cold)
{
    double bytes = v->bytes_moved ? v->bytes_moved(a) : 0;
    double ms = bytes / 3e12 * 1e3 + 0.003;
    return cold ? ms : ms * 0.8;
}

/* The samples' full width: 2 %, or SWEEP_FAKE_SPREAD's 8 % at the first
 * batch for this time, over sqrt(batch / first batch). */
static double fake_amplitude(const variant *v, double ms, unsigned batch)
{
    if (!env_matches("SWEEP_FAKE_SPREAD", v->name)) return 0.02;
    double first = sample_batch_for(ms);
    return 0.08 * sqrt(first / (batch ? batch : 1));
}

static dev_status fake_measure_cold(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                                    unsigned *batch, double budget_s, volatile sig_atomic_t *interrupt, timing_stats *out, char *msg,
                                    size_t len)
{
    (void)msg;
    (void)len;
    double ms = fake_time_ms(v, a, 1);
    fake_sample s = {d->impl, ms * fake_drift(d->impl), fake_amplitude(v, ms, *batch), fake_throttle(v)};
    timing_measure_clocked(p, FAKE_CLOCK_MHZ, budget_s, fake_sample_fn, &s, interrupt, out);
    return DEV_OK;
}

static dev_status fake_measure_hot(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                                   unsigned batch, unsigned warm, double budget_s, volatile sig_atomic_t *interrupt,
                                   timing_stats *out, char *msg, size_t len)
{
    (void)msg;
    (void)len;
    (void)warm;
    double ms = fake_time_ms(v, a, 0);
    fake_sample s = {d->impl, ms * fake_drift(d->impl), fake_amplitude(v, ms, batch), fake_throttle(v)};
    timing_measure_clocked(p, FAKE_CLOCK_MHZ, budget_s, fake_sample_fn, &s, interrupt, out);
    return DEV_OK;
}

static int fake_recover(sweep_device *d, char *msg, size_t len)
{
    if (((fake_impl *)d->impl)->lost) {
        snprintf(msg, len, "the CUDA context is lost (sticky error: an illegal memory access was encountered, "
                           "cudaErrorIllegalAddress) [fake]");
        return -1;
    }
    return 0;
}

static cudaStream_t fake_stream(sweep_device *d)
{
    (void)d;
    return NULL;
}

/* ---- the fake profiler ---------------------------------------------------------------- */

typedef struct fake_prof {
    size_t count;
    int unavailable; /* columns kept, values left empty */
    int batch_fail;
    const variant *queued_v[SWEEP_PROFILE_QUEUE_MAX];
    kernel_args queued_a[SWEEP_PROFILE_QUEUE_MAX];
    size_t n_queued, total_queued;
} fake_prof;

static int fake_prof_begin(void *state, sweep_profiler_setup *s)
{
    fake_prof *fp = state;
    const char *mode = getenv("SWEEP_FAKE_PROFILER");
    if (!mode) mode = "";
    s->metric_count = 0;
    fp->unavailable = 0;
    fp->batch_fail = !strcmp(mode, "batch-fail");
    fp->n_queued = fp->total_queued = 0;
    if (!strcmp(mode, "off")) {
        snprintf(s->status, sizeof s->status, "the fake profiler was told to decline [fake]");
        return SWEEP_PROFILER_OFF;
    }
    if (s->requested_count == 0) {
        snprintf(s->metrics[0].name, SWEEP_METRIC_NAME_LEN, "dram__bytes.sum");
        snprintf(s->metrics[0].unit, SWEEP_METRIC_UNIT_LEN, "byte");
        snprintf(s->metrics[1].name, SWEEP_METRIC_NAME_LEN, "gpu__time_duration.sum");
        snprintf(s->metrics[1].unit, SWEEP_METRIC_UNIT_LEN, "ns");
        s->metric_count = 2;
    } else {
        char why[1024];
        metric_plan *plan = metric_plan_new(s->requested, s->requested_count, why, sizeof why);
        if (!plan) {
            snprintf(s->status, sizeof s->status, "%.250s", why);
            return SWEEP_PROFILER_BAD_METRIC;
        }
        for (size_t i = 0; i < plan->ncolumns && i < SWEEP_MAX_METRICS; i++) {
            snprintf(s->metrics[i].name, SWEEP_METRIC_NAME_LEN, "%s", plan->columns[i].key);
            snprintf(s->metrics[i].unit, SWEEP_METRIC_UNIT_LEN, "%s", plan->columns[i].unit);
            s->metric_count++;
        }
        metric_plan_free(plan);
    }
    fp->count = s->metric_count;
    if (!strcmp(mode, "unknown")) {
        snprintf(s->status, sizeof s->status, "unknown metric '%.100s': GH100 has no such metric [fake]; closest: "
                 "dram__bytes_read.sum", s->requested_count ? s->requested[0] : s->metrics[0].name);
        return SWEEP_PROFILER_BAD_METRIC;
    }
    if (!strcmp(mode, "unavailable") || !strcmp(mode, "privileges")) {
        snprintf(s->status, sizeof s->status, "%s",
                 !strcmp(mode, "unavailable") ? SWEEP_PROFILER_TEXT_OTHER_PROFILER : SWEEP_PROFILER_TEXT_PRIVILEGES);
        s->passes = 0;
        fp->unavailable = 1;
        return SWEEP_PROFILER_UNAVAILABLE;
    }
    s->passes = 1;
    snprintf(s->status, sizeof s->status, "ok: fake profiler (synthetic values)");
    return SWEEP_PROFILER_READY;
}

/* The synthetic values: the variant's bytes, then each column's index. */
static void fake_values(const fake_prof *fp, const variant *v, const kernel_args *a, double *values)
{
    for (size_t i = 0; i < fp->count; i++) values[i] = i == 0 && v->bytes_moved ? v->bytes_moved(a) : (double)i;
}

static int fake_prof_profile(void *state, const char *label, const variant *v, const kernel_args *a,
                             cudaStream_t stream, double *values, char *err, size_t errlen)
{
    fake_prof *fp = state;
    (void)label;
    (void)stream;
    (void)err;
    (void)errlen;
    if (fp->unavailable) return 0; /* the real one launches once here, for the attached tool */
    fake_values(fp, v, a, values);
    return 0;
}

static int fake_prof_queue(void *state, size_t k, const variant *v, const kernel_args *a, cudaStream_t stream,
                           char *err, size_t errlen)
{
    fake_prof *fp = state;
    (void)stream;
    if (k != fp->n_queued || k >= SWEEP_PROFILE_QUEUE_MAX) {
        snprintf(err, errlen, "queue: slot %zu out of order (%zu queued) [fake]", k, fp->n_queued);
        return -1;
    }
    fp->queued_v[k] = v;
    fp->queued_a[k] = *a;
    fp->n_queued++;
    fp->total_queued++;
    const char *at = getenv("SWEEP_FAKE_INTERRUPT_QUEUED");
    if (at && *at && strtoull(at, NULL, 10) == fp->total_queued) raise(SIGINT);
    return 0;
}

static void fake_log_batch(const fake_prof *fp)
{
    const char *path = getenv("SWEEP_FAKE_PROFILE_LOG");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "batch\t%zu\n", fp->n_queued);
    for (size_t k = 0; k < fp->n_queued; k++)
        fprintf(f, "slot\t%zu\t%s\t%zu\t%u\n", k, fp->queued_v[k]->name, (size_t)fp->queued_a[k].n,
                (unsigned)fp->queued_a[k].block_dim);
    fclose(f);
}

static int fake_prof_run_queue(void *state, size_t count, const sweep_profile_hooks *hooks, cudaStream_t stream,
                               double *values, size_t stride, char *err, size_t errlen)
{
    fake_prof *fp = state;
    (void)stream;
    int rc = 0;
    if (count != fp->n_queued || stride < fp->count) {
        snprintf(err, errlen, "run_queue: %zu asked, %zu queued [fake]", count, fp->n_queued);
        rc = -1;
    } else if (fp->batch_fail) {
        snprintf(err, errlen, "the fake profiler was told to fail its batches [fake]");
        rc = -1;
    }
    if (rc == 0) fake_log_batch(fp);
    for (size_t k = 0; rc == 0 && k < count; k++) {
        if (hooks && hooks->enter) hooks->enter(hooks->user, k);
        if (!fp->unavailable) fake_values(fp, fp->queued_v[k], &fp->queued_a[k], values + k * stride);
        if (hooks && hooks->leave) hooks->leave(hooks->user, k);
    }
    fp->n_queued = 0;
    return rc;
}

static void fake_prof_end(void *state) { (void)state; }

static const sweep_profiler *fake_builtin_profiler(sweep_device *d)
{
    (void)d;
    static fake_prof state;
    static const sweep_profiler prof = {.name = "fake",
                                        .state = &state,
                                        .begin = fake_prof_begin,
                                        .profile = fake_prof_profile,
                                        .end = fake_prof_end,
                                        .queue = fake_prof_queue,
                                        .run_queue = fake_prof_run_queue};
    return &prof;
}

static void fake_close(sweep_device *d) { (void)d; }

static const sweep_device_ops fake_ops = {
    .name = "fake",
    .open = fake_open,
    .count = fake_count,
    .memory = fake_memory,
    .copy_bandwidth = fake_copy_bandwidth,
    .launch_cost = fake_launch_cost,
    .validate = fake_validate,
    .prepare = fake_prepare,
    .warmup = fake_warmup,
    .measure_cold = fake_measure_cold,
    .measure_hot = fake_measure_hot,
    .recover = fake_recover,
    .stream = fake_stream,
    .builtin_profiler = fake_builtin_profiler,
    .close = fake_close,
};

sweep_device *sweep_device_fake(void)
{
    static fake_impl impl;
    static sweep_device dev = {&fake_ops, &impl};
    return &dev;
}
