#include "harness/run/check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run/device.h"
#include "kernels/registry.h"

typedef struct {
    void *ptr;
    size_t cap;
} dbuf;

struct check_ctx {
    dbuf in, out, ws;
    void *h_in, *h_out, *h_poison;
    size_t h_in_cap, h_out_cap, h_poison_cap;
    ref_value *ref;
    double *abs;
    size_t ref_cap;
    /* What the host buffers hold now, so consecutive checks of one input (the
     * sweep validates every variant and axis value on the same seeded input)
     * draw it and fold its reference once. */
    int input_valid;
    uint64_t input_seed;
    dtype_t input_dtype;
    size_t input_n;
    int ref_valid; /* c->ref/c->abs (scans) or ref_total (reductions) match the input */
    kind_t ref_kind;
    op_t ref_op;
    scan_mode_t ref_mode;
    ref_carry ref_total;
};

check_ctx *check_create(void) { return calloc(1, sizeof(check_ctx)); }

void check_destroy(check_ctx *c)
{
    if (!c) return;
    cudaFree(c->in.ptr);
    cudaFree(c->out.ptr);
    cudaFree(c->ws.ptr);
    cudaFreeHost(c->h_in);
    cudaFreeHost(c->h_out);
    cudaFreeHost(c->h_poison);
    free(c->ref);
    free(c->abs);
    free(c);
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

/* Pinned host memory: copies of a few hundred MB run at full PCIe speed. */
static int host_reserve(void **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap) return 0;
    cudaFreeHost(*p);
    *p = NULL;
    *cap = 0;
    if (cudaMallocHost(p, bytes) != cudaSuccess) {
        *p = NULL;
        return -1;
    }
    *cap = bytes;
    return 0;
}

/* ---- host work split over the CPU's cores ----------------------------------
 * A 2^27-element check spends most of its time on the host (filling, the
 * reference, comparing every element); chunks of it run on all cores. Chunk
 * boundaries do not change any result: the reference folds chunks in order. */

#define MAX_THREADS 32
#define MIN_CHUNK ((size_t)1 << 16)

typedef struct {
    void (*fn)(void *ctx, size_t chunk, size_t begin, size_t end);
    void *ctx;
    size_t chunk, begin, end;
} task;

static void *task_main(void *p)
{
    task *t = p;
    t->fn(t->ctx, t->chunk, t->begin, t->end);
    return NULL;
}

static size_t chunk_count(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = cpus > 0 ? (size_t)cpus : 1;
    if (k > MAX_THREADS) k = MAX_THREADS;
    size_t by_size = n / MIN_CHUNK ? n / MIN_CHUNK : 1;
    return k < by_size ? k : by_size;
}

/* Run fn over `chunks` equal ranges of [0, n), one thread each. */
static void parallel_chunks(size_t n, size_t chunks, void (*fn)(void *, size_t, size_t, size_t), void *ctx)
{
    task tasks[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    if (chunks < 1 || chunks > MAX_THREADS) chunks = 1;
    for (size_t c = 0; c < chunks; c++) {
        tasks[c] = (task){fn, ctx, c, n * c / chunks, n * (c + 1) / chunks};
        started[c] = c > 0 && pthread_create(&threads[c], NULL, task_main, &tasks[c]) == 0;
    }
    task_main(&tasks[0]);
    for (size_t c = 1; c < chunks; c++) {
        if (started[c]) pthread_join(threads[c], NULL);
        else task_main(&tasks[c]); /* no thread to be had: do it here */
    }
}

/* splitmix64 of (seed, index): a counter-based generator, so any element can be
 * drawn independently and a seed reproduces its input exactly. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct {
    void *dst;
    dtype_t d;
    uint64_t base;
} fill_job;

static void fill_range(void *p, size_t chunk, size_t begin, size_t end)
{
    fill_job *j = p;
    void *dst = j->dst;
    dtype_t d = j->d;
    uint64_t base = j->base;
    (void)chunk;
    for (size_t i = begin; i < end; i++) {
        uint64_t x = mix(base + i);
        switch (d) {
        case DTYPE_F32: ((float *)dst)[i] = (float)((double)(x >> 40) * 0x1p-24 * 2.0 - 0.5); break;
        case DTYPE_F64: ((double *)dst)[i] = (double)(x >> 11) * 0x1p-53 * 2.0 - 0.5; break;
        default: ((int32_t *)dst)[i] = (int32_t)(x % 401) - 100; break;
        }
    }
}

void random_fill(void *dst, size_t n, dtype_t d, uint64_t seed)
{
    fill_job j = {dst, d, mix(seed)};
    parallel_chunks(n, chunk_count(n), fill_range, &j);
}

/* ---- the reference and the comparison, chunked ----------------------------- */

typedef struct {
    const void *in;
    const void *got;
    dtype_t d;
    op_t op;
    scan_mode_t mode;
    size_t elem;
    ref_carry part[MAX_THREADS];  /* each chunk folded from the identity */
    ref_carry carry[MAX_THREADS]; /* the state before each chunk */
    ref_value *ref;
    double *abs;
    validate_result res[MAX_THREADS];
} ref_job;

static void fold_range(void *p, size_t c, size_t begin, size_t end)
{
    ref_job *j = p;
    j->part[c] = reference_fold((const char *)j->in + begin * j->elem, end - begin, j->d, j->op);
}

static void scan_range(void *p, size_t c, size_t begin, size_t end)
{
    ref_job *j = p;
    reference_scan_from((const char *)j->in + begin * j->elem, end - begin, j->d, j->op, j->mode, &j->carry[c],
                        j->ref + begin, j->abs + begin);
}

static void compare_range(void *p, size_t c, size_t begin, size_t end)
{
    ref_job *j = p;
    j->res[c] = validate_scan_range(j->got, j->d, j->op, j->mode, begin, end, j->ref, j->abs);
}

/* Fold all chunks, then carry[c] = state before chunk c; returns the total. */
static ref_carry fold_chunks(ref_job *j, size_t n, size_t chunks)
{
    parallel_chunks(n, chunks, fold_range, j);
    ref_carry acc = reference_fold(j->in, 0, j->d, j->op);
    for (size_t c = 0; c < chunks; c++) {
        j->carry[c] = acc;
        acc = reference_combine(acc, j->part[c], j->d, j->op);
    }
    return acc;
}

static int ref_cached(const check_ctx *c, kind_t kind, const kernel_args *a)
{
    return c->ref_valid && c->ref_kind == kind && c->ref_op == a->op &&
           (kind == KIND_REDUCE || c->ref_mode == a->scan_mode);
}

static void ref_remember(check_ctx *c, kind_t kind, const kernel_args *a)
{
    c->ref_valid = 1;
    c->ref_kind = kind;
    c->ref_op = a->op;
    c->ref_mode = a->scan_mode;
}

static validate_result check_scan_result(check_ctx *cx, const kernel_args *a, const void *in, const void *got)
{
    ref_job *j = calloc(1, sizeof *j);
    validate_result r;
    memset(&r, 0, sizeof r);
    if (!j) {
        snprintf(r.message, sizeof r.message, "out of host memory");
        return r;
    }
    size_t chunks = chunk_count(a->n);
    *j = (ref_job){.in = in, .got = got, .d = a->dtype, .op = a->op, .mode = a->scan_mode,
                   .elem = dtype_size(a->dtype), .ref = cx->ref, .abs = cx->abs};
    if (!ref_cached(cx, KIND_SCAN, a)) {
        fold_chunks(j, a->n, chunks);
        parallel_chunks(a->n, chunks, scan_range, j);
        ref_remember(cx, KIND_SCAN, a);
    }
    parallel_chunks(a->n, chunks, compare_range, j);
    r = j->res[0];
    r.ok = 1;
    r.bad_count = 0;
    for (size_t c = 0; c < chunks; c++) {
        if (j->res[c].ok) continue;
        if (r.ok) r = j->res[c]; /* chunks are in order: the first failing one has the first bad index */
        else r.bad_count += j->res[c].bad_count;
        r.ok = 0;
    }
    validate_scan_message(&r, a->dtype, a->op, a->scan_mode, a->n);
    free(j);
    return r;
}

static validate_result check_reduce_result(check_ctx *c, const kernel_args *a, const void *in, const void *got)
{
    validate_result r;
    memset(&r, 0, sizeof r);
    if (!ref_cached(c, KIND_REDUCE, a)) {
        ref_job *j = calloc(1, sizeof *j);
        if (!j) {
            snprintf(r.message, sizeof r.message, "out of host memory");
            return r;
        }
        *j = (ref_job){.in = in, .d = a->dtype, .op = a->op, .elem = dtype_size(a->dtype)};
        c->ref_total = fold_chunks(j, a->n, chunk_count(a->n));
        free(j);
        ref_remember(c, KIND_REDUCE, a);
    }
    return validate_reduce(got, a->dtype, a->op, a->n, c->ref_total.value, c->ref_total.abs);
}

/* Poison: NaN for floats (never passes validation), an implausible constant
 * for i32, so an element the kernel never wrote cannot match its reference. */
static void fill_poison(void *dst, size_t n, dtype_t d)
{
    if (d == DTYPE_I32) {
        for (size_t i = 0; i < n; i++) ((int32_t *)dst)[i] = (int32_t)0x80003039;
    } else {
        memset(dst, 0xff, n * dtype_size(d));
    }
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

check_result check_run(check_ctx *c, const variant *v, const kernel_args *cfg, uint64_t seed)
{
    check_result r;
    memset(&r, 0, sizeof r);
    const char *why = NULL;
    if (variant_accepts(v, cfg, &why) != 0) {
        snprintf(r.message, sizeof r.message, "configuration not accepted by %s: %s", v->name, why);
        r.cuda_error = cudaErrorInvalidValue;
        return r;
    }
    kernel_args a = *cfg;
    cudaError_t err = check_prepare(c, v, &a);
    if (err != cudaSuccess) return fail_cuda(r, err, "allocating device buffers");

    size_t elem = dtype_size(a.dtype), nout = out_count(v, &a);
    if (host_reserve(&c->h_in, &c->h_in_cap, a.n * elem) || host_reserve(&c->h_out, &c->h_out_cap, nout * elem) ||
        host_reserve(&c->h_poison, &c->h_poison_cap, nout * elem)) {
        snprintf(r.message, sizeof r.message, "out of host memory for n=%zu", a.n);
        return r;
    }
    if (!(c->input_valid && c->input_seed == seed && c->input_dtype == a.dtype && c->input_n == a.n)) {
        c->input_valid = 0;
        c->ref_valid = 0;
        random_fill(c->h_in, a.n, a.dtype, seed);
        c->input_valid = 1;
        c->input_seed = seed;
        c->input_dtype = a.dtype;
        c->input_n = a.n;
    }
    if (a.dtype == DTYPE_I32) fill_poison(c->h_poison, nout, a.dtype);
    if ((err = cudaMemcpy(c->in.ptr, c->h_in, a.n * elem, cudaMemcpyHostToDevice)) != cudaSuccess)
        return fail_cuda(r, err, "copying input to the device");
    /* Workspace poisoned too: a launcher must not rely on zeroed scratch. */
    if (a.workspace_bytes && (err = cudaMemset(a.workspace, 0xa5, a.workspace_bytes)) != cudaSuccess)
        return fail_cuda(r, err, "poisoning the workspace");
    if ((err = workspace_ready(v, &a)) != cudaSuccess) return fail_cuda(r, err, "setting up the workspace");

    /* A launcher that leaves its workspace ready for the next call is checked
     * on its second call: the state its first call left is what every timed
     * launch starts from. */
    for (int call = 0; call < (v->workspace_init ? 2 : 1); call++) {
        /* Float poison (all bits set: NaN) is a device memset; the i32 pattern is copied. */
        err = a.dtype == DTYPE_I32 ? cudaMemcpy(c->out.ptr, c->h_poison, nout * elem, cudaMemcpyHostToDevice)
                                   : cudaMemset(c->out.ptr, 0xff, nout * elem);
        if (err != cudaSuccess) return fail_cuda(r, err, "poisoning the output");
        if ((err = v->launch(&a, 0)) != cudaSuccess) return fail_cuda(r, err, "launch");
        if ((err = cudaDeviceSynchronize()) != cudaSuccess) return fail_cuda(r, err, "kernel execution");
    }
    if ((err = cudaMemcpy(c->h_out, c->out.ptr, nout * elem, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return fail_cuda(r, err, "copying the result back");

    if (v->kind == KIND_REDUCE) {
        r.v = check_reduce_result(c, &a, c->h_in, c->h_out);
    } else {
        if (a.n > c->ref_cap) {
            ref_value *rv = realloc(c->ref, a.n * sizeof *rv);
            double *ab = rv ? realloc(c->abs, a.n * sizeof *ab) : NULL;
            if (rv) c->ref = rv;
            if (ab) c->abs = ab;
            if (!rv || !ab) {
                snprintf(r.message, sizeof r.message, "out of host memory for the scan reference, n=%zu", a.n);
                return r;
            }
            c->ref_cap = a.n;
            c->ref_valid = 0;
        }
        r.v = check_scan_result(c, &a, c->h_in, c->h_out);
    }
    r.ok = r.v.ok;
    if (!r.ok) snprintf(r.message, sizeof r.message, "%s: %s", v->name, r.v.message);
    return r;
}
