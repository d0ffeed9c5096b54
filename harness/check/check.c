#define _POSIX_C_SOURCE 200809L
#include "harness/check/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/check/check_device.h"
#include "harness/check/check_reference.h"
#include "kernels/registry.h"

/* Margin left free beside a resident reference: the streamed path's scratch,
 * and at least as much again for the timing phase's input copies (below). */
#define RESIDENT_MARGIN CHECK_DEVICE_SCRATCH_BYTES

typedef struct {
    void *ptr;
    size_t cap;
} dbuf;

struct check_ctx {
    dbuf in, out, ws;
    cudaStream_t stream; /* the reference's copies and the comparison */
    cudaEvent_t slot_done[2];
    int stream_ready;
    check_tally *tally; /* device */
    /* The input's chunk carries (seed, dtype, n, op): what every reference needs. */
    ref_chunks chunks;
    int chunks_valid;
    /* A scan's whole reference on the device (val[cap], then abs[cap]), for
     * the chunks above and resident_mode. */
    dbuf resident;
    int resident_valid;
    scan_mode_t resident_mode;
    /* Streamed: two segments of val + abs on the device and pinned on the host. */
    dbuf scratch;
    double *stage;
    size_t stage_bytes;
    size_t scratch_limit; /* bytes; 0: CHECK_DEVICE_SCRATCH_BYTES */
    int force_streamed;
};

check_ctx *check_create(void) { return calloc(1, sizeof(check_ctx)); }

void check_destroy(check_ctx *c)
{
    if (!c) return;
    cudaFree(c->in.ptr);
    cudaFree(c->out.ptr);
    cudaFree(c->ws.ptr);
    cudaFree(c->resident.ptr);
    cudaFree(c->scratch.ptr);
    cudaFree(c->tally);
    cudaFreeHost(c->stage);
    if (c->stream_ready) {
        cudaEventDestroy(c->slot_done[0]);
        cudaEventDestroy(c->slot_done[1]);
        cudaStreamDestroy(c->stream);
    }
    ref_chunks_free(&c->chunks);
    free(c);
}

void check_set_scratch(check_ctx *c, size_t scratch_bytes, int force_streamed)
{
    c->scratch_limit = scratch_bytes;
    c->force_streamed = force_streamed;
}

/* Grow a device buffer; contents are not kept. */
static cudaError_t dbuf_reserve(dbuf *b, size_t bytes)
{
    if (bytes <= b->cap) return cudaSuccess;
    cudaFree(b->ptr);
    b->ptr = NULL;
    b->cap = 0;
    cudaError_t err = cudaMalloc(&b->ptr, bytes);
    if (err == cudaSuccess) b->cap = bytes;
    return err;
}

static void dbuf_release(dbuf *b)
{
    cudaFree(b->ptr);
    b->ptr = NULL;
    b->cap = 0;
}

static cudaError_t stream_ready(check_ctx *c)
{
    if (c->stream_ready) return cudaSuccess;
    cudaError_t err = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&c->slot_done[0], cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&c->slot_done[1], cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaMalloc((void **)&c->tally, sizeof *c->tally);
    c->stream_ready = err == cudaSuccess;
    return err;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The chunk carries of the input (seed, a's dtype, n, op), folded once per input. */
static int chunks_ready(check_ctx *c, const kernel_args *a, uint64_t seed)
{
    ref_chunks *rc = &c->chunks;
    if (c->chunks_valid && rc->seed == seed && rc->d == a->dtype && rc->op == a->op && rc->n == a->n) return 0;
    c->chunks_valid = 0;
    c->resident_valid = 0;
    ref_chunks_free(rc);
    if (ref_chunks_build(rc, seed, a->dtype, a->op, a->n)) return -1;
    c->chunks_valid = 1;
    return 0;
}

/* Elements of one streamed segment: half the scratch holds a segment's val
 * and abs (16 bytes an element); a power of two, whole chunks. */
static size_t segment_elems(const check_ctx *c, size_t n)
{
    size_t limit = c->scratch_limit ? c->scratch_limit : CHECK_DEVICE_SCRATCH_BYTES;
    size_t seg = REF_CHUNK;
    while (seg * 2 * 2 * 2 * sizeof(double) <= limit) seg *= 2;
    size_t whole = (n + REF_CHUNK - 1) / REF_CHUNK * REF_CHUNK;
    return seg < whole ? seg : whole;
}

/* Whether a scan's whole reference stays on the device: it does when it
 * fits in half of what is free beside the configuration's buffers after
 * RESIDENT_MARGIN, so the timing phase's input copies still find room. */
static int resident_fits(check_ctx *c, size_t n)
{
    if (c->force_streamed) return 0;
    if (c->resident.cap >= 2 * n * sizeof(double)) return 1;
    dbuf_release(&c->resident);
    c->resident_valid = 0;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return free_b > RESIDENT_MARGIN && 2 * n * sizeof(double) <= (free_b - RESIDENT_MARGIN) / 2;
}

/* The reference segment by segment: computed on the host into one of two
 * pinned staging slots (while the device copies and compares the other),
 * copied into the resident reference (`resident`) or into a scratch slot
 * and compared at once. *host_failed: out of host memory. */
static cudaError_t reference_pipeline(check_ctx *c, const kernel_args *a, int resident, int *host_failed)
{
    size_t n = a->n, seg = segment_elems(c, n), elem = dtype_size(a->dtype);
    size_t cap = c->resident.cap / (2 * sizeof(double));
    cudaError_t err = cudaSuccess;
    *host_failed = 0;
    for (size_t k = 0, b = 0; b < n && err == cudaSuccess; k++, b += seg) {
        size_t e = b + seg < n ? b + seg : n, len = e - b;
        int s = (int)(k & 1);
        if (k >= 2 && (err = cudaEventSynchronize(c->slot_done[s])) != cudaSuccess) break;
        double *hv = c->stage + (size_t)s * 2 * seg, *ha = hv + seg;
        if (ref_chunks_scan(&c->chunks, a->scan_mode, b, e, hv, ha)) {
            *host_failed = 1;
            break;
        }
        double *dv = resident ? (double *)c->resident.ptr + b : (double *)c->scratch.ptr + (size_t)s * 2 * seg;
        double *da = resident ? (double *)c->resident.ptr + cap + b : dv + seg;
        err = cudaMemcpyAsync(dv, hv, len * sizeof(double), cudaMemcpyHostToDevice, c->stream);
        if (err == cudaSuccess) err = cudaMemcpyAsync(da, ha, len * sizeof(double), cudaMemcpyHostToDevice, c->stream);
        if (err == cudaSuccess && !resident)
            err = check_device_compare((const char *)a->out + b * elem, dv, da, len, b, a->dtype, a->op,
                                       a->scan_mode, c->tally, c->stream);
        if (err == cudaSuccess) err = cudaEventRecord(c->slot_done[s], c->stream);
    }
    cudaError_t sync = cudaStreamSynchronize(c->stream); /* the staging slots are free again */
    return err != cudaSuccess ? err : sync;
}

static cudaError_t staging_ready(check_ctx *c, size_t n, int streamed)
{
    size_t seg = segment_elems(c, n), bytes = 2 * 2 * seg * sizeof(double);
    if (bytes > c->stage_bytes) {
        cudaFreeHost(c->stage);
        c->stage = NULL;
        c->stage_bytes = 0;
        cudaError_t err = cudaMallocHost((void **)&c->stage, bytes);
        if (err != cudaSuccess) return err;
        c->stage_bytes = bytes;
    }
    return streamed ? dbuf_reserve(&c->scratch, bytes) : cudaSuccess;
}

/* The first bad element's report, as the host comparison writes it: its
 * reference regenerated on the host (one chunk), its value copied back. */
static void report_first_bad(check_ctx *c, const kernel_args *a, const check_tally *t, validate_result *r)
{
    size_t i = (size_t)t->first_bad, elem = dtype_size(a->dtype);
    double got[1]; /* room and alignment for any dtype */
    ref_value ref;
    double abs = 0;
    r->ok = 0;
    r->bad_index = i;
    r->bad_count = (size_t)t->bad_count;
    size_t terms = a->scan_mode == SCAN_EXCLUSIVE ? i : i + 1;
    if (cudaMemcpy(got, (const char *)a->out + i * elem, elem, cudaMemcpyDeviceToHost) == cudaSuccess &&
        ref_chunks_element(&c->chunks, a->scan_mode, i, &ref, &abs) == 0)
        validate_element(got, a->dtype, a->op, terms, ref, abs, &r->got, &r->error, &r->tolerance, &r->expected);
    validate_scan_message(r, a->dtype, a->op, a->scan_mode, a->n);
}

/* Every element of a's scan output against the reference, on the device. */
static cudaError_t compare_scan(check_ctx *c, const kernel_args *a, check_result *r)
{
    cudaError_t err = stream_ready(c);
    int host_failed = 0, resident = resident_fits(c, a->n);
    if (err == cudaSuccess && resident && !(c->resident_valid && c->resident_mode == a->scan_mode)) {
        c->resident_valid = 0;
        if ((err = dbuf_reserve(&c->resident, 2 * a->n * sizeof(double))) == cudaErrorMemoryAllocation) {
            cudaGetLastError(); /* not sticky: stream instead */
            err = cudaSuccess;
            resident = 0;
        } else if (err == cudaSuccess && (err = staging_ready(c, a->n, 0)) == cudaSuccess &&
                   (err = reference_pipeline(c, a, 1, &host_failed)) == cudaSuccess && !host_failed) {
            c->resident_valid = 1;
            c->resident_mode = a->scan_mode;
        }
    }
    r->streamed = !resident;
    if (err == cudaSuccess && !host_failed) err = staging_ready(c, a->n, !resident);
    if (err == cudaSuccess && !host_failed) err = check_device_tally_reset(c->tally, c->stream);
    if (err == cudaSuccess && !host_failed) {
        if (resident) {
            size_t cap = c->resident.cap / (2 * sizeof(double));
            const double *val = c->resident.ptr;
            err = check_device_compare(a->out, val, val + cap, a->n, 0, a->dtype, a->op, a->scan_mode, c->tally,
                                       c->stream);
        } else {
            err = reference_pipeline(c, a, 0, &host_failed);
        }
    }
    check_tally t = {0, 0};
    if (err == cudaSuccess && !host_failed)
        err = cudaMemcpyAsync(&t, c->tally, sizeof t, cudaMemcpyDeviceToHost, c->stream);
    if (err == cudaSuccess && !host_failed) err = cudaStreamSynchronize(c->stream);
    if (err != cudaSuccess) return err;
    if (host_failed) {
        snprintf(r->v.message, sizeof r->v.message, "out of host memory for the scan reference, n=%zu", a->n);
        return cudaSuccess;
    }
    r->v.ok = t.bad_count == 0;
    if (!r->v.ok) report_first_bad(c, a, &t, &r->v);
    return cudaSuccess;
}

/* A reduction's one value against the reference total, on the host. */
static cudaError_t compare_reduce(check_ctx *c, const kernel_args *a, check_result *r)
{
    double got[1]; /* room and alignment for any dtype */
    cudaError_t err = cudaMemcpy(got, a->out, dtype_size(a->dtype), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) return err;
    r->v = validate_reduce(got, a->dtype, a->op, a->n, c->chunks.total.value, c->chunks.total.abs);
    return cudaSuccess;
}

static size_t out_count(const variant *v, const kernel_args *a) { return v->kind == KIND_SCAN ? a->n : 1; }

/* The workspace's content was not left by this configuration's launcher:
 * a variant that keeps state between calls sets it up (kernels/variant.h).
 * Synchronous, so the next launch on any stream sees it. */
static cudaError_t workspace_ready(const variant *v, const kernel_args *a)
{
    if (!v->workspace_init) return cudaSuccess;
    cudaError_t err = v->workspace_init(a, 0);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

cudaError_t check_prepare(check_ctx *c, const variant *v, kernel_args *a)
{
    size_t elem = dtype_size(a->dtype);
    size_t ws = v->workspace_size(a);
    cudaError_t err;
    if ((err = dbuf_reserve(&c->in, a->n * elem)) != cudaSuccess) return err;
    if ((err = dbuf_reserve(&c->out, out_count(v, a) * elem)) != cudaSuccess) return err;
    if ((err = dbuf_reserve(&c->ws, ws ? ws : 1)) != cudaSuccess) return err;
    a->in = c->in.ptr;
    a->out = c->out.ptr;
    a->workspace = c->ws.ptr;
    a->workspace_bytes = ws;
    return workspace_ready(v, a);
}

static check_result fail_cuda(check_result r, cudaError_t err, const char *what)
{
    r.ok = 0;
    r.cuda_error = err;
    snprintf(r.message, sizeof r.message, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
    return r;
}

/* Poison: NaN for floats (never passes validation), an implausible constant
 * for i32, so an element the kernel never wrote cannot match its reference. */
static cudaError_t poison_output(const kernel_args *a, size_t nout)
{
    if (a->dtype == DTYPE_I32) return check_device_poison_i32(a->out, nout, (int32_t)0x80003039, 0);
    return cudaMemset(a->out, 0xff, nout * dtype_size(a->dtype));
}

/* Draw the input on the device, poison, launch (twice for a variant that
 * keeps its workspace ready: its second call starts from the state its first
 * left, as every timed launch does), and wait. */
static check_result run_variant(const variant *v, const kernel_args *a, uint64_t seed, check_result r)
{
    cudaError_t err;
    if ((err = check_device_fill((void *)a->in, a->n, a->dtype, seed, 0)) != cudaSuccess)
        return fail_cuda(r, err, "drawing the input on the device");
    /* Workspace poisoned too: a launcher must not rely on zeroed scratch. */
    if (a->workspace_bytes && (err = cudaMemset(a->workspace, 0xa5, a->workspace_bytes)) != cudaSuccess)
        return fail_cuda(r, err, "poisoning the workspace");
    if ((err = workspace_ready(v, a)) != cudaSuccess) return fail_cuda(r, err, "setting up the workspace");
    for (int call = 0; call < (v->workspace_init ? 2 : 1); call++) {
        if ((err = poison_output(a, out_count(v, a))) != cudaSuccess) return fail_cuda(r, err, "poisoning the output");
        if ((err = v->launch(a, 0)) != cudaSuccess) return fail_cuda(r, err, "launch");
        if ((err = cudaDeviceSynchronize()) != cudaSuccess) return fail_cuda(r, err, "kernel execution");
    }
    return r;
}

/* The output in c's buffers against the reference of the input from seed. */
static check_result compare_output(check_ctx *c, const variant *v, const kernel_args *a, uint64_t seed,
                                   check_result r)
{
    if (chunks_ready(c, a, seed)) {
        snprintf(r.message, sizeof r.message, "out of host memory for the reference, n=%zu", a->n);
        return r;
    }
    cudaError_t err = v->kind == KIND_REDUCE ? compare_reduce(c, a, &r) : compare_scan(c, a, &r);
    if (err != cudaSuccess) return fail_cuda(r, err, "comparing on the device");
    r.ok = r.v.ok;
    if (!r.ok && r.v.message[0] && !strncmp(r.v.message, "out of host memory", 18))
        snprintf(r.message, sizeof r.message, "%s", r.v.message);
    else if (!r.ok)
        snprintf(r.message, sizeof r.message, "%s: %s", v->name, r.v.message);
    return r;
}

static int accepted(const variant *v, const kernel_args *cfg, check_result *r)
{
    const char *why = NULL;
    if (variant_accepts(v, cfg, &why) == 0) return 1;
    snprintf(r->message, sizeof r->message, "configuration not accepted by %s: %s", v->name, why);
    r->cuda_error = cudaErrorInvalidValue;
    return 0;
}

/* check_run (launch: draw, poison, launch, compare) and check_compare_output
 * (compare what the buffers hold): one path, the launch the only difference. */
static check_result check_path(check_ctx *c, const variant *v, const kernel_args *cfg, uint64_t seed, int launch)
{
    check_result r;
    memset(&r, 0, sizeof r);
    double t0 = now_s();
    if (!accepted(v, cfg, &r)) return r;
    kernel_args a = *cfg;
    cudaError_t err = check_prepare(c, v, &a);
    if (err != cudaSuccess) return fail_cuda(r, err, "allocating device buffers");
    if (launch) r = run_variant(v, &a, seed, r);
    if (r.cuda_error == cudaSuccess) r = compare_output(c, v, &a, seed, r);
    r.seconds = now_s() - t0;
    return r;
}

check_result check_run(check_ctx *c, const variant *v, const kernel_args *cfg, uint64_t seed)
{
    return check_path(c, v, cfg, seed, 1);
}

check_result check_compare_output(check_ctx *c, const variant *v, const kernel_args *cfg, uint64_t seed)
{
    return check_path(c, v, cfg, seed, 0);
}
