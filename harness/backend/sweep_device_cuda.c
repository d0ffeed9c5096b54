/* The sweep's device layer on CUDA.
 *
 * Validation is check_run (fresh random input, poisoned output, the CPU
 * reference); timing launches on check_prepare's buffers on a non-blocking
 * stream, between two CUDA events:
 *   cold: the L2 flushed before each sample (outside the events; l2_flush.h:
 *         2x L2 bytes of clean scratch read, so dirty lines are written back
 *         now, not inside the sample), then `batch` launches, each on its own
 *         copy of the input
 *         (and of a scan's output), so every launch starts with its input out
 *         of L2 -- sizes that fit in L2 included. Copies are reused only after
 *         2x L2 bytes of other inputs have been read since;
 *   hot:  untimed launches for WARM_TARGET_MS, then `batch` launches back
 *         to back between one pair of events, the same buffers, so the input
 *         stays in L2 where it fits, from the first sample on.
 * Every batch is queued behind a spinning kernel (stream_block.h) and let go
 * once queued: the events time the GPU's work, not the host's launch rate.
 * Every timed batch is bracketed, outside its events, by two clock probes
 * (clock_probe.h): the SM clock over the batch, which the throttle rule
 * (timing_measure_clocked) checks and the row records.
 * Batches keep a sample at least SAMPLE_TARGET_MS long (timing.h says
 * why); a time is the sample's over its launches.
 * Waiting polls the stop event, so a kernel that never finishes is reported
 * (and stops the run) instead of hanging it. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "harness/check/check.h"
#include "harness/check/check_device.h"
#include "harness/check/check_scratch.h"
#include "harness/device/clock_probe.h"
#include "harness/device/l2_flush.h"
#include "harness/device/launch_probe.h"
#include "harness/device/stream_block.h"
#include "harness/backend/sweep_device.h"

typedef struct cuda_impl {
    int ordinal;
    device_info info;
    check_ctx *check;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush;
    size_t flush_bytes;
    /* Cold batches: slots 1..rot_slots-1 are copies of the input (and room
     * for a scan's output) in `rot`, rot_stride bytes apart; slot 0 is the
     * configuration's own buffers. Allocated per configuration. */
    void *rot;
    size_t rot_stride;
    unsigned rot_slots;
    size_t rot_bytes; /* rot's allocation, kept from one configuration to the next (an input's piece reuses it) */
    double hang_limit_s;
    /* Holds each batch's stream until the batch is queued; NULL: unheld.
     * block_off: the hold expired once in this configuration (the launch
     * queue filled before the batch was in), so its batches run unheld. */
    stream_block *block;
    int block_off;
    clock_probe *probe;
    double batch_mhz; /* the last timed batch's SM clock (NaN: not measured) */
    unsigned long block_expired; /* holds that expired, this run */
    /* The variant cuda_validate just ran and passed: its module is loaded,
     * so cuda_warmup needs no untimed first launch (at 2^30 one launch is
     * about a twelfth of a screened configuration's). NULL after warmup. */
    const variant *validated;
} cuda_impl;

/* Enough to queue SAMPLE_MAX_BATCH calls of any launcher many times over. */
#define BLOCK_LIMIT_MS 100.0

static void set_msg(char *msg, size_t len, const char *what, cudaError_t err)
{
    snprintf(msg, len, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Wait for an event; cudaErrorNotReady after the hang limit. */
static cudaError_t wait_event(cudaEvent_t e, double limit_s)
{
    double start = timing_now();
    for (;;) {
        cudaError_t err = cudaEventQuery(e);
        if (err != cudaErrorNotReady) return err;
        double waited = timing_now() - start;
        if (waited > limit_s) return cudaErrorNotReady;
        if (waited > 2e-3) sleep_us(100);
    }
}

/* The harness's own kernels (the hold, the flushes) launched once, unheld,
 * before any configuration. Why: a kernel's first launch loads its module,
 * and the load waits for the device to go idle; inside a hold that is the
 * hold's whole time limit, so the first configuration of every run was timed
 * unheld (host-bound: 3.4x too slow at 2^10, H200, beyond-cub run 22). */
static int load_own_kernels(cuda_impl *c, char *msg, size_t len)
{
    cudaError_t err;
    if ((err = stream_block_hold(c->block, c->stream, BLOCK_LIMIT_MS)) != cudaSuccess) {
        set_msg(msg, len, "holding the stream", err);
        return -1;
    }
    stream_block_release(c->block);
    if ((err = l2_flush(c->flush, c->flush_bytes, c->stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(c->stream)) != cudaSuccess) {
        set_msg(msg, len, "flushing L2", err);
        return -1;
    }
    return 0;
}

static int create_resources(cuda_impl *c, char *msg, size_t len)
{
    cudaError_t err;
    if ((err = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        set_msg(msg, len, "creating a stream", err);
        return -1;
    }
    if ((err = cudaEventCreate(&c->start)) != cudaSuccess || (err = cudaEventCreate(&c->stop)) != cudaSuccess) {
        set_msg(msg, len, "creating events", err);
        return -1;
    }
    c->flush_bytes = 2 * (c->info.l2_bytes ? c->info.l2_bytes : ((size_t)64 << 20));
    if ((err = l2_flush_alloc(&c->flush, c->flush_bytes)) != cudaSuccess) {
        set_msg(msg, len, "allocating the L2 flush buffer", err);
        return -1;
    }
    c->block = stream_block_create(&err);
    if (!c->block) {
        set_msg(msg, len, "allocating the stream hold's flags", err);
        return -1;
    }
    c->probe = clock_probe_create(c->info.sm_count, &err);
    if (!c->probe) {
        set_msg(msg, len, "allocating the clock probe's records", err);
        return -1;
    }
    c->check = check_create();
    if (!c->check) {
        snprintf(msg, len, "out of host memory");
        return -1;
    }
    return load_own_kernels(c, msg, len);
}

static void free_rotation(cuda_impl *c);

static void release_resources(cuda_impl *c)
{
    free_rotation(c);
    if (c->check) check_destroy(c->check);
    if (c->block) {
        if (c->block_expired)
            fprintf(stderr,
                    "sweep: note: %lu timed batch%s started before fully queued (launch queue full); "
                    "those configurations were timed without the hold\n",
                    c->block_expired, c->block_expired == 1 ? "" : "es");
        stream_block_destroy(c->block);
    }
    c->block = NULL;
    c->block_expired = 0;
    clock_probe_destroy(c->probe);
    c->probe = NULL;
    if (c->flush) cudaFree(c->flush);
    if (c->start) cudaEventDestroy(c->start);
    if (c->stop) cudaEventDestroy(c->stop);
    if (c->stream) cudaStreamDestroy(c->stream);
    c->check = NULL;
    c->flush = NULL;
    c->start = c->stop = NULL;
    c->stream = NULL;
}

static int cuda_open(sweep_device *d, int ordinal, device_info *info, char *msg, size_t len)
{
    cuda_impl *c = d->impl;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && (ordinal < 0 || ordinal >= count)) {
        snprintf(msg, len, "--device: %d is out of range (this host has %d CUDA device%s: 0..%d)", ordinal, count,
                 count == 1 ? "" : "s", count - 1);
        return -2;
    }
    cudaGetLastError();
    if (device_open(ordinal, info, msg, len) != 0) return -1;
    c->ordinal = ordinal;
    c->info = *info;
    c->hang_limit_s = 120.0;
    if (create_resources(c, msg, len) != 0) return -1;
    return 0;
}

static int cuda_count(sweep_device *d, char *msg, size_t len)
{
    (void)d;
    int count = 0;
    if (device_count(&count, msg, len)) return -1;
    return count;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The copy bandwidth that "% of copy" divides by: cudaMemcpy of 1 GiB, timed
 * as a cold sample is (the L2 flushed before each copy, outside the events),
 * so that both sides leave the same dirty tail of their output in L2 when
 * the stop event fires. Timed back to back instead, each copy also wrote back
 * the previous one's tail: on two H200s that read 1.4-1.6 % under the figure
 * timed cold, lifting every row's % of copy by as much (JOURNAL §6, "The
 * scan's data path alone"). The source is random, as the kernels' inputs are. */
static double cuda_copy_bandwidth(sweep_device *d, char *msg, size_t len)
{
    cuda_impl *c = d->impl;
    size_t bytes = (size_t)1 << 30;
    if (c->info.global_mem_bytes && c->info.global_mem_bytes < ((size_t)8 << 30)) bytes = (size_t)256 << 20;
    void *src = NULL, *dst = NULL;
    cudaError_t err;
    double result = -1;
    if ((err = cudaMalloc(&src, bytes)) != cudaSuccess || (err = cudaMalloc(&dst, bytes)) != cudaSuccess) {
        set_msg(msg, len, "allocating the copy buffers", err);
        goto out;
    }
    if ((err = check_device_fill(src, bytes / 4, DTYPE_F32, 1, c->stream)) != cudaSuccess ||
        (err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c->stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(c->stream)) != cudaSuccess) {
        set_msg(msg, len, "warming up the copy", err);
        goto out;
    }
    enum { REPS = 10 };
    double ms[REPS];
    for (int i = 0; i < REPS; i++) {
        float t = 0;
        if ((err = l2_flush(c->flush, c->flush_bytes, c->stream)) != cudaSuccess ||
            (err = cudaEventRecord(c->start, c->stream)) != cudaSuccess ||
            (err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c->stream)) != cudaSuccess ||
            (err = cudaEventRecord(c->stop, c->stream)) != cudaSuccess ||
            (err = wait_event(c->stop, c->hang_limit_s)) != cudaSuccess ||
            (err = cudaEventElapsedTime(&t, c->start, c->stop)) != cudaSuccess) {
            set_msg(msg, len, "timing the copy", err);
            goto out;
        }
        ms[i] = t;
    }
    qsort(ms, REPS, sizeof ms[0], cmp_double);
    double median = 0.5 * (ms[REPS / 2 - 1] + ms[REPS / 2]);
    result = 2.0 * (double)bytes / (median * 1e-3) / 1e9;
out:
    cudaFree(src);
    cudaFree(dst);
    return result;
}

static double cuda_launch_cost(sweep_device *d, char *msg, size_t len)
{
    cuda_impl *c = d->impl;
    double us = -1;
    cudaError_t err = launch_probe_us(c->stream, c->start, c->stop, c->block, &us);
    if (err != cudaSuccess) {
        set_msg(msg, len, "timing the launch probe", err);
        return -1;
    }
    return us;
}

static int cuda_memory(sweep_device *d, size_t *free_bytes, size_t *total_bytes, size_t *held_bytes, char *msg,
                       size_t len)
{
    cuda_impl *c = d->impl;
    cudaError_t err = cudaMemGetInfo(free_bytes, total_bytes);
    if (err != cudaSuccess) {
        set_msg(msg, len, "cudaMemGetInfo", err);
        return -1;
    }
    *held_bytes = c->flush_bytes;
    return 0;
}

/* check_run's buffers only grow: after a large configuration they hold more
 * than a smaller one needs. Before calling an allocation failure final, let
 * them all go and allocate afresh. */
static int renew_check(cuda_impl *c)
{
    cudaGetLastError(); /* cudaErrorMemoryAllocation is not sticky */
    check_destroy(c->check);
    c->check = check_create();
    return c->check ? 0 : -1;
}

static int check_out_of_memory(const check_result *r)
{
    return !r->ok && (r->cuda_error == cudaErrorMemoryAllocation ||
                      (r->cuda_error == cudaSuccess && !strncmp(r->message, "out of host memory", 18)));
}

static dev_status cuda_validate(sweep_device *d, const variant *v, const kernel_args *cfg, uint64_t seed,
                                sweep_validation *out)
{
    cuda_impl *c = d->impl;
    memset(out, 0, sizeof *out);
    check_result r = check_run(c->check, v, cfg, seed);
    if (check_out_of_memory(&r) && renew_check(c) == 0) r = check_run(c->check, v, cfg, seed);
    if (check_out_of_memory(&r)) {
        out->ok = 0;
        out->cuda_error = r.cuda_error != cudaSuccess;
        out->error_abs = out->tolerance_abs = NAN;
        snprintf(out->message, sizeof out->message, "%s", r.message);
        return DEV_NO_MEMORY;
    }
    out->ok = r.ok;
    c->validated = r.ok ? v : NULL;
    out->cuda_error = r.cuda_error != cudaSuccess;
    out->error_abs = r.cuda_error == cudaSuccess ? r.v.error : NAN;
    out->tolerance_abs = r.cuda_error == cudaSuccess ? r.v.tolerance : NAN;
    snprintf(out->message, sizeof out->message, "%s", r.message);
    if (!r.ok && !out->cuda_error && !r.message[0]) snprintf(out->message, sizeof out->message, "validation failed");
    return r.ok ? DEV_OK : DEV_FAILED;
}

static dev_status cuda_prepare(sweep_device *d, const variant *v, kernel_args *a, char *msg, size_t len)
{
    cuda_impl *c = d->impl;
    cudaError_t err = check_prepare(c->check, v, a);
    if (err == cudaErrorMemoryAllocation) free_rotation(c);
    if (err == cudaErrorMemoryAllocation && renew_check(c) == 0) err = check_prepare(c->check, v, a);
    if (err != cudaSuccess) {
        set_msg(msg, len, "preparing buffers", err);
        return err == cudaErrorMemoryAllocation ? DEV_NO_MEMORY : DEV_FAILED;
    }
    return DEV_OK;
}

/* Slot k's arguments: a's own buffers for slot 0, else copy k in c->rot. */
static kernel_args slot_args(const cuda_impl *c, const variant *v, const kernel_args *a, unsigned k)
{
    kernel_args s = *a;
    if (k == 0 || !c->rot) return s;
    char *base = (char *)c->rot + (size_t)(k - 1) * c->rot_stride;
    s.in = base;
    if (v->kind == KIND_SCAN) s.out = base + c->rot_stride / 2;
    return s;
}

/* One batch: [hold the stream] -> [flush L2] -> [start event] -> `count`
 * launches (rotating through the input copies when `rotate`) -> stop event ->
 * [release] -> wait. The hold is always released, errors included. */
static dev_status run_batch(cuda_impl *c, const variant *v, const kernel_args *a, unsigned count, int rotate,
                            int flush, int timed, char *msg, size_t len)
{
    cudaError_t err = cudaSuccess;
    const char *what = NULL;
    int held = 0;
    if (c->block && !c->block_off) {
        if ((err = stream_block_hold(c->block, c->stream, BLOCK_LIMIT_MS)) != cudaSuccess) what = "holding the stream";
        else held = 1;
    }
    if (!what && flush && (err = l2_flush(c->flush, c->flush_bytes, c->stream)) != cudaSuccess)
        what = "flushing L2";
    if (!what && timed && c->probe && (err = clock_probe_record(c->probe, c->stream, 0)) != cudaSuccess)
        what = "probing the clock";
    if (!what && timed && (err = cudaEventRecord(c->start, c->stream)) != cudaSuccess) what = "recording an event";
    for (unsigned i = 0; !what && i < count; i++) {
        kernel_args s = rotate && c->rot_slots > 1 ? slot_args(c, v, a, i % c->rot_slots) : *a;
        if ((err = v->launch(&s, c->stream)) != cudaSuccess) what = "launch";
    }
    if (!what && (err = cudaEventRecord(c->stop, c->stream)) != cudaSuccess) what = "recording an event";
    if (!what && timed && c->probe && (err = clock_probe_record(c->probe, c->stream, 1)) != cudaSuccess)
        what = "probing the clock";
    if (held) stream_block_release(c->block);
    if (what) {
        set_msg(msg, len, what, err);
        return DEV_FAILED;
    }
    err = wait_event(c->stop, c->hang_limit_s);
    if (err == cudaErrorNotReady) {
        snprintf(msg, len, "kernel still running after %.0f s: the device is stuck", c->hang_limit_s);
        return DEV_FATAL;
    }
    if (err != cudaSuccess) {
        set_msg(msg, len, "kernel execution", err);
        return DEV_FAILED;
    }
    if (held && stream_block_expired(c->block)) {
        c->block_off = 1;
        c->block_expired++;
    }
    c->batch_mhz = NAN;
    if (timed && c->probe) {
        /* The closing probe runs after the stop event: a few microseconds. */
        if ((err = cudaStreamSynchronize(c->stream)) != cudaSuccess) {
            set_msg(msg, len, "probing the clock", err);
            return DEV_FAILED;
        }
        c->batch_mhz = clock_probe_mhz(c->probe);
    }
    return DEV_OK;
}

/* One unheld launch (loads the module, touches the buffers; not after the
 * variant's validation, which did both), then one held and timed: the GPU's
 * time for a call, which sizes the batches. */
static dev_status cuda_warmup(sweep_device *d, const variant *v, const kernel_args *a, double *launch_ms, char *msg,
                              size_t len)
{
    cuda_impl *c = d->impl;
    *launch_ms = NAN;
    int loaded = c->validated == v;
    c->validated = NULL;
    c->block_off = 1; /* unheld: a first launch may load a module, longer than a hold lasts */
    dev_status st = loaded ? DEV_OK : run_batch(c, v, a, 1, 0, 0, 0, msg, len);
    c->block_off = 0; /* a new configuration: held again */
    if (st != DEV_OK) return st;
    if ((st = run_batch(c, v, a, 1, 0, 0, 1, msg, len)) != DEV_OK) return st;
    float t = 0;
    if (cudaEventElapsedTime(&t, c->start, c->stop) == cudaSuccess) *launch_ms = t;
    return DEV_OK;
}

typedef struct sample_ctx {
    cuda_impl *c;
    const variant *v;
    const kernel_args *a;
    unsigned batch;
    int cold; /* also: rotate through c's input copies */
    dev_status status;
    char *msg;
    size_t len;
} sample_ctx;

static int sample(void *p, double *ms, double *mhz)
{
    sample_ctx *s = p;
    cuda_impl *c = s->c;
    dev_status st = run_batch(c, s->v, s->a, s->batch, s->cold, s->cold, 1, s->msg, s->len);
    if (st != DEV_OK) {
        s->status = st;
        return -1;
    }
    float t = 0;
    cudaError_t err;
    if ((err = cudaEventElapsedTime(&t, c->start, c->stop)) != cudaSuccess) {
        set_msg(s->msg, s->len, "reading events", err);
        s->status = DEV_FAILED;
        return -1;
    }
    *ms = (double)t / s->batch;
    *mhz = c->batch_mhz;
    return 0;
}

static dev_status cuda_measure(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                               int cold, unsigned batch, double budget_s, volatile sig_atomic_t *interrupt,
                               timing_stats *out, char *msg, size_t len)
{
    sample_ctx s = {d->impl, v, a, batch ? batch : 1, cold, DEV_OK, msg, len};
    double default_mhz = s.c->info.sm_clock_khz / 1e3;
    if (timing_measure_clocked(p, default_mhz, budget_s, sample, &s, interrupt, out) != 0)
        return s.status != DEV_OK ? s.status : DEV_FAILED;
    return DEV_OK;
}

/* The input copies stay allocated for the next configuration up to this
 * size (cudaMalloc and cudaFree of them cost about a millisecond a
 * configuration, more than the screen's samples at small n); larger ones
 * (inputs over about 2 x L2) go back at once, as the device needs the room. */
#define ROTATION_KEEP_BYTES ((size_t)1 << 30)

static void free_rotation(cuda_impl *c)
{
    if (c->rot) cudaFree(c->rot);
    c->rot = NULL;
    c->rot_bytes = 0;
    c->rot_stride = 0;
    c->rot_slots = 1;
}

/* Copies of a's input for a cold batch of `batch` launches: one per launch,
 * or fewer when the input is large -- enough that 2x L2 bytes of other
 * inputs are read between two uses of one copy. Returns the batch to use:
 * 1 (no copies) when they do not fit in device memory. */
static unsigned alloc_rotation(cuda_impl *c, const variant *v, const kernel_args *a, unsigned batch, char *msg,
                               size_t len, dev_status *st)
{
    *st = DEV_OK;
    c->rot_slots = 1; /* until filled below; the allocation stays for the next configuration */
    if (batch <= 1) return 1;
    size_t l2 = c->info.l2_bytes ? c->info.l2_bytes : ((size_t)64 << 20);
    size_t in_bytes = a->n * dtype_size(a->dtype);
    size_t apart = 1 + (2 * l2 + in_bytes - 1) / in_bytes;
    unsigned slots = batch < apart ? batch : (unsigned)apart;
    size_t half = (in_bytes + 255) & ~(size_t)255;
    size_t stride = v->kind == KIND_SCAN ? 2 * half : half;
    /* Only the copies that fit beside a headroom of CHECK_DEVICE_SCRATCH_BYTES:
     * at large n (2^33 f32 and up) none does, and every launch of the batch
     * reads the one input (which overflows L2 many times anyway). */
    size_t need = (size_t)(slots - 1) * stride;
    cudaError_t err = cudaSuccess;
    if (need > c->rot_bytes) { /* a larger one: the last configuration's is given back first */
        free_rotation(c);
        size_t free_b = 0, total_b = 0;
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
            size_t room = free_b > CHECK_DEVICE_SCRATCH_BYTES ? (free_b - CHECK_DEVICE_SCRATCH_BYTES) / stride : 0;
            if (room + 1 < slots) slots = (unsigned)(room + 1);
            if (slots <= 1) return 1;
        }
        need = (size_t)(slots - 1) * stride;
        err = cudaMalloc(&c->rot, need);
        if (err == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            c->rot = NULL;
            return 1;
        }
        if (err != cudaSuccess) {
            c->rot = NULL;
            set_msg(msg, len, "allocating input copies", err);
            *st = DEV_FAILED;
            return 1;
        }
        c->rot_bytes = need;
    }
    c->rot_stride = stride;
    c->rot_slots = slots;
    for (unsigned k = 1; k < slots && err == cudaSuccess; k++)
        err = cudaMemcpyAsync((char *)c->rot + (size_t)(k - 1) * stride, a->in, in_bytes, cudaMemcpyDeviceToDevice,
                              c->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(c->stream);
    if (err != cudaSuccess) {
        set_msg(msg, len, "copying the input", err);
        *st = DEV_FAILED;
        free_rotation(c);
        return 1;
    }
    return batch;
}

static dev_status cuda_measure_cold(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                                    unsigned *batch, double budget_s, volatile sig_atomic_t *interrupt,
                                    timing_stats *out, char *msg, size_t len)
{
    cuda_impl *c = d->impl;
    dev_status st;
    *batch = alloc_rotation(c, v, a, *batch ? *batch : 1, msg, len, &st);
    if (st != DEV_OK) return st;
    st = cuda_measure(d, v, a, p, 1, *batch, budget_s, interrupt, out, msg, len);
    if (c->rot_bytes > ROTATION_KEEP_BYTES) free_rotation(c);
    return st;
}

static dev_status cuda_measure_hot(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                                   unsigned batch, unsigned warm, double budget_s, volatile sig_atomic_t *interrupt,
                                   timing_stats *out, char *msg, size_t len)
{
    /* Untimed, unheld, WARM_TARGET_MS long (timing.h says why): brings the
     * input into L2 where it fits and lets the device settle after the cold
     * phase, so the first sample is as hot as the last. */
    cuda_impl *c = d->impl;
    int off = c->block_off;
    c->block_off = 1;
    dev_status st = run_batch(c, v, a, warm, 0, 0, 0, msg, len);
    c->block_off = off;
    if (st != DEV_OK) return st;
    return cuda_measure(d, v, a, p, 0, batch, budget_s, interrupt, out, msg, len);
}

/* A launch error (a bad configuration, too many resources) is returned once
 * and cleared; an error inside a kernel (an illegal address, a trap) is
 * sticky: every later call returns it, and only a new process gets a working
 * context. No cudaDeviceReset here: it would also pull the profiler's state
 * out from under it. */
static int cuda_recover(sweep_device *d, char *msg, size_t len)
{
    (void)d;
    cudaGetLastError();
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err == cudaSuccess) return 0;
    snprintf(msg, len, "the CUDA context is lost (sticky error: %s, %s)", cudaGetErrorString(err),
             cudaGetErrorName(err));
    return -1;
}

static cudaStream_t cuda_stream(sweep_device *d) { return ((cuda_impl *)d->impl)->stream; }

static const sweep_profiler *cuda_builtin_profiler(sweep_device *d)
{
    (void)d;
    return NULL;
}

static void cuda_close(sweep_device *d)
{
    cuda_impl *c = d->impl;
    if (c->stream) cudaStreamSynchronize(c->stream);
    release_resources(c);
}

static const sweep_device_ops cuda_ops = {
    .name = "cuda",
    .open = cuda_open,
    .count = cuda_count,
    .memory = cuda_memory,
    .copy_bandwidth = cuda_copy_bandwidth,
    .launch_cost = cuda_launch_cost,
    .validate = cuda_validate,
    .prepare = cuda_prepare,
    .warmup = cuda_warmup,
    .measure_cold = cuda_measure_cold,
    .measure_hot = cuda_measure_hot,
    .recover = cuda_recover,
    .stream = cuda_stream,
    .builtin_profiler = cuda_builtin_profiler,
    .close = cuda_close,
};

sweep_device *sweep_device_cuda(void)
{
    static cuda_impl impl;
    static sweep_device dev = {&cuda_ops, &impl};
    return &dev;
}
