/* See check_reference.h. */
#include "harness/check/check_reference.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/reference/random_input.h"
#include "harness/check/check.h"

/* ---- host work split over the CPU's cores ---------------------------------- */

#define MAX_THREADS 32
#define MIN_PART ((size_t)1 << 16)

typedef struct {
    void (*fn)(void *ctx, size_t part, size_t begin, size_t end);
    void *ctx;
    size_t part, begin, end;
} task;

static void *task_main(void *p)
{
    task *t = p;
    t->fn(t->ctx, t->part, t->begin, t->end);
    return NULL;
}

size_t check_threads(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = cpus > 0 ? (size_t)cpus : 1;
    if (k > MAX_THREADS) k = MAX_THREADS;
    size_t by_size = n / MIN_PART ? n / MIN_PART : 1;
    return k < by_size ? k : by_size;
}

void parallel_chunks(size_t n, size_t parts, void (*fn)(void *, size_t, size_t, size_t), void *ctx)
{
    task tasks[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    if (parts < 1 || parts > MAX_THREADS) parts = 1;
    for (size_t c = 0; c < parts; c++) {
        tasks[c] = (task){fn, ctx, c, n * c / parts, n * (c + 1) / parts};
        started[c] = c > 0 && pthread_create(&threads[c], NULL, task_main, &tasks[c]) == 0;
    }
    task_main(&tasks[0]);
    for (size_t c = 1; c < parts; c++) {
        if (started[c]) pthread_join(threads[c], NULL);
        else task_main(&tasks[c]); /* no thread to be had: do it here */
    }
}

/* ---- the input --------------------------------------------------------------- */

void random_fill_range(void *dst, size_t begin, size_t end, dtype_t d, uint64_t seed)
{
    uint64_t base = random_mix(seed);
    size_t n = end - begin;
    switch (d) { /* outside the loops: each one vectorises */
    case DTYPE_F32:
        for (size_t i = 0; i < n; i++) ((float *)dst)[i] = random_f32(random_mix(base + begin + i));
        break;
    case DTYPE_F64:
        for (size_t i = 0; i < n; i++) ((double *)dst)[i] = random_f64(random_mix(base + begin + i));
        break;
    default:
        for (size_t i = 0; i < n; i++) ((int32_t *)dst)[i] = random_i32(random_mix(base + begin + i));
        break;
    }
}

typedef struct {
    void *dst;
    dtype_t d;
    uint64_t seed;
} fill_job;

static void fill_part(void *p, size_t part, size_t begin, size_t end)
{
    fill_job *j = p;
    (void)part;
    random_fill_range((char *)j->dst + begin * dtype_size(j->d), begin, end, j->d, j->seed);
}

void random_fill(void *dst, size_t n, dtype_t d, uint64_t seed)
{
    fill_job j = {dst, d, seed};
    parallel_chunks(n, check_threads(n), fill_part, &j);
}

/* ---- the reference, chunk by chunk ------------------------------------------- */

typedef struct {
    const ref_chunks *rc;
    ref_carry *part;  /* build: each chunk folded from the identity */
    scan_mode_t mode; /* scan: */
    size_t first;     /* the first chunk of the range */
    size_t begin, end; /* the range, elements */
    double *val, *abs;
    int failed;       /* a thread ran out of memory */
} chunk_job;

static size_t chunk_end(const ref_chunks *rc, size_t k)
{
    size_t e = (k + 1) * REF_CHUNK;
    return e < rc->n ? e : rc->n;
}

/* Chunks [kb, ke): fold each from the identity. */
static void fold_part(void *p, size_t part, size_t kb, size_t ke)
{
    chunk_job *j = p;
    const ref_chunks *rc = j->rc;
    void *in = malloc(REF_CHUNK * dtype_size(rc->d));
    (void)part;
    if (!in) {
        j->failed = 1;
        return;
    }
    for (size_t k = kb; k < ke; k++) {
        size_t b = k * REF_CHUNK, e = chunk_end(rc, k);
        random_fill_range(in, b, e, rc->d, rc->seed);
        j->part[k] = reference_fold(in, e - b, rc->d, rc->op);
    }
    free(in);
}

int ref_chunks_build(ref_chunks *rc, uint64_t seed, dtype_t d, op_t op, size_t n)
{
    memset(rc, 0, sizeof *rc);
    rc->seed = seed;
    rc->d = d;
    rc->op = op;
    rc->n = n;
    rc->count = (n + REF_CHUNK - 1) / REF_CHUNK;
    rc->carry = malloc(rc->count * sizeof *rc->carry);
    chunk_job j = {.rc = rc, .part = malloc(rc->count * sizeof(ref_carry))};
    if (!rc->carry || !j.part) goto fail;
    parallel_chunks(rc->count, check_threads(n), fold_part, &j);
    if (j.failed) goto fail;
    ref_carry acc = reference_fold(NULL, 0, d, op);
    for (size_t k = 0; k < rc->count; k++) {
        rc->carry[k] = acc;
        acc = reference_combine(acc, j.part[k], d, op);
    }
    rc->total = acc;
    free(j.part);
    return 0;
fail:
    free(j.part);
    ref_chunks_free(rc);
    return -1;
}

void ref_chunks_free(ref_chunks *rc)
{
    free(rc->carry);
    rc->carry = NULL;
    rc->count = 0;
}

/* The device's expected value: i32 as its wrapped 32-bit result. */
static double expected_of(ref_value r, dtype_t d)
{
    return d == DTYPE_I32 ? (double)(int32_t)(uint32_t)(uint64_t)r.i : r.d;
}

/* Chunks [first + kb, first + ke) of a scan range, each from its carry. */
static void scan_part(void *p, size_t part, size_t kb, size_t ke)
{
    chunk_job *j = p;
    const ref_chunks *rc = j->rc;
    void *in = malloc(REF_CHUNK * dtype_size(rc->d));
    ref_value *rv = malloc(REF_CHUNK * sizeof *rv);
    (void)part;
    if (!in || !rv) j->failed = 1;
    for (size_t k = j->first + kb; k < j->first + ke && in && rv; k++) {
        size_t b = k * REF_CHUNK, e = chunk_end(rc, k);
        if (e > j->end) e = j->end;
        random_fill_range(in, b, e, rc->d, rc->seed);
        double *abs = j->abs + (b - j->begin);
        reference_scan_from(in, e - b, rc->d, rc->op, j->mode, &rc->carry[k], rv, abs);
        double *val = j->val + (b - j->begin);
        for (size_t i = 0; i < e - b; i++) val[i] = expected_of(rv[i], rc->d);
    }
    free(in);
    free(rv);
}

int ref_chunks_scan(const ref_chunks *rc, scan_mode_t mode, size_t begin, size_t end, double *val, double *abs)
{
    if (begin % REF_CHUNK || end > rc->n || begin >= end) return -1;
    chunk_job j = {.rc = rc, .mode = mode, .first = begin / REF_CHUNK, .begin = begin, .end = end,
                   .val = val, .abs = abs};
    size_t chunks = (end - begin + REF_CHUNK - 1) / REF_CHUNK;
    parallel_chunks(chunks, check_threads(end - begin), scan_part, &j);
    return j.failed ? -1 : 0;
}

int ref_chunks_element(const ref_chunks *rc, scan_mode_t mode, size_t i, ref_value *ref, double *abs)
{
    size_t k = i / REF_CHUNK, b = k * REF_CHUNK, e = chunk_end(rc, k);
    void *in = malloc(REF_CHUNK * dtype_size(rc->d));
    ref_value *rv = malloc(REF_CHUNK * sizeof *rv);
    double *ab = malloc(REF_CHUNK * sizeof *ab);
    int rc_ok = in && rv && ab ? 0 : -1;
    if (rc_ok == 0) {
        random_fill_range(in, b, e, rc->d, rc->seed);
        reference_scan_from(in, e - b, rc->d, rc->op, mode, &rc->carry[k], rv, ab);
        *ref = rv[i - b];
        *abs = ab[i - b];
    }
    free(in);
    free(rv);
    free(ab);
    return rc_ok;
}
