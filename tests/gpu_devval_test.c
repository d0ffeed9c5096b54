/* Validation on the device (harness/check/check.c), checked against the CPU:
 *   fill      the input the device draws equals random_fill's, bit for bit;
 *   agree     a scan and a reduce of each dtype: the device's verdict equals
 *             the host path's (validate_scan / validate_reduce over the whole
 *             output copied back, against reference_scan / reference_reduce);
 *   corrupt   chosen output elements (first, a quarter, middle, last) moved
 *             past the tolerance, a NaN, and one moved within it: the device
 *             finds exactly the bad ones, with the host's expected, got and
 *             tolerance;
 *   streamed  a small scratch forces the streamed path over several segments:
 *             it agrees with the resident path on good and corrupted outputs.
 * One summary line per case, `devval ...: ok`; a failure says what differed.
 * Skips (exit 0) without a CUDA device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "harness/reference/reference.h"
#include "harness/reference/validate.h"
#include "harness/check/check.h"
#include "harness/check/check_device.h"
#include "harness/device/device.h"
#include "kernels/registry.h"

#define ODD_N ((size_t)1000003)
/* 2 MiB of scratch: segments of 2^16 elements; STREAM_N spans six of them. */
#define SMALL_SCRATCH ((size_t)2 << 20)
#define SEGMENT ((size_t)1 << 16)
#define STREAM_N (5 * SEGMENT + 12345)

static int have_device;
static uint64_t seed_base;
static size_t cases_ok; /* summary lines printed */

/* One case's summary line: `devval ...: ok`. */
static void case_ok(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    cases_ok++;
}

static uint64_t fresh_seed(void) { return seed_base++ * 0x9e3779b97f4a7c15ull + 1; }

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) fail_msg("%s: %s", #call, cudaGetErrorString(e_));                  \
    } while (0)

/* A configuration of v for (d, op, n, mode) with the first block dim, own
 * axis value and finish it accepts; 0 when it takes none. */
static int first_config(const variant *v, dtype_t d, op_t op, size_t n, scan_mode_t mode, kernel_args *a)
{
    for (unsigned block = 32; block <= 1024; block *= 2) {
        for (int f = 0; f < FINISH_COUNT; f++) {
            memset(a, 0, sizeof *a);
            a->dtype = d;
            a->op = op;
            a->n = n;
            a->block_dim = block;
            a->axis[0] = 1u << __builtin_ctz(variant_axis_set(v, 0));
            a->axis[1] = 1u << __builtin_ctz(variant_axis_set(v, 1));
            a->scan_mode = mode;
            a->finish = (finish_t)f;
            if (variant_accepts(v, a, NULL) == 0) return 1;
        }
    }
    return 0;
}

static const variant *need_variant(const char *name)
{
    const variant *v = registry_find(name);
    if (!v) fail_msg("variant %s not in the registry", name);
    return v;
}

/* ---- fill ------------------------------------------------------------------- */

static void test_fill_bit_identical(void **state)
{
    (void)state;
    if (!have_device) skip();
    for (int d = 0; d < DTYPE_COUNT; d++) {
        size_t bytes = ODD_N * dtype_size((dtype_t)d);
        uint64_t seed = fresh_seed();
        void *dev = NULL, *got = malloc(bytes), *want = malloc(bytes);
        assert_non_null(got);
        assert_non_null(want);
        CUDA_OK(cudaMalloc(&dev, bytes));
        CUDA_OK(check_device_fill(dev, ODD_N, (dtype_t)d, seed, 0));
        CUDA_OK(cudaMemcpy(got, dev, bytes, cudaMemcpyDeviceToHost));
        random_fill(want, ODD_N, (dtype_t)d, seed);
        size_t elem = dtype_size((dtype_t)d), first_diff = ODD_N;
        for (size_t i = 0; i < ODD_N && first_diff == ODD_N; i++)
            if (memcmp((char *)got + i * elem, (char *)want + i * elem, elem)) first_diff = i;
        if (first_diff != ODD_N)
            fail_msg("devval fill %s n=%zu: element %zu differs from random_fill", dtype_name((dtype_t)d), ODD_N,
                     first_diff);
        case_ok("devval fill %s n=%zu: bit-identical to random_fill: ok\n", dtype_name((dtype_t)d), ODD_N);
        cudaFree(dev);
        free(got);
        free(want);
    }
}

/* ---- the host path on the device's output ------------------------------------ */

/* The whole output of a's configuration, as the context holds it now. */
static void *copy_output(check_ctx *c, const variant *v, kernel_args *a, size_t nout)
{
    void *h = malloc(nout * dtype_size(a->dtype));
    assert_non_null(h);
    CUDA_OK(check_prepare(c, v, a));
    CUDA_OK(cudaMemcpy(h, a->out, nout * dtype_size(a->dtype), cudaMemcpyDeviceToHost));
    return h;
}

typedef struct {
    void *in;
    ref_value *ref;
    double *abs;
} host_ref;

static host_ref host_reference(const kernel_args *a, uint64_t seed)
{
    host_ref h = {malloc(a->n * dtype_size(a->dtype)), malloc(a->n * sizeof(ref_value)),
                  malloc(a->n * sizeof(double))};
    assert_true(h.in && h.ref && h.abs);
    random_fill(h.in, a->n, a->dtype, seed);
    reference_scan(h.in, a->n, a->dtype, a->op, a->scan_mode, h.ref, h.abs);
    return h;
}

static void host_ref_free(host_ref *h)
{
    free(h->in);
    free(h->ref);
    free(h->abs);
}

/* The device's reference is folded in chunks, the host's in one pass: their
 * compensated sums may differ in the last bits, and the magnitude sums that
 * scale the tolerance (plain sums) by n u at most, relatively. */
static int close_to(double x, double y, double rel)
{
    if (x == y || (isnan(x) && isnan(y))) return 1;
    return fabs(x - y) <= rel * fmax(fabs(x), fabs(y));
}

/* The device's report and the host's on the same output must agree. */
static void assert_agree(const char *what, const check_result *dev, const validate_result *host)
{
    if (dev->cuda_error != cudaSuccess) fail_msg("%s: CUDA error: %s", what, dev->message);
    if (dev->ok != host->ok || dev->v.bad_count != host->bad_count ||
        (!host->ok && dev->v.bad_index != host->bad_index))
        fail_msg("%s: device ok=%d bad=%zu first=%zu, host ok=%d bad=%zu first=%zu (%s | %s)", what, dev->ok,
                 dev->v.bad_count, dev->v.bad_index, host->ok, host->bad_count, host->bad_index, dev->message,
                 host->message);
    if (!host->ok && (!close_to(dev->v.expected, host->expected, 1e-12) || !close_to(dev->v.got, host->got, 0) ||
                      !close_to(dev->v.tolerance, host->tolerance, 1e-9)))
        fail_msg("%s: at [%zu] device expected %.17g got %.17g tol %.3g, host %.17g %.17g %.3g", what,
                 host->bad_index, dev->v.expected, dev->v.got, dev->v.tolerance, host->expected, host->got,
                 host->tolerance);
}

static void test_scan_agrees(void **state)
{
    (void)state;
    if (!have_device) skip();
    const variant *v = need_variant("scan_cub");
    check_ctx *c = check_create();
    for (int d = 0; d < DTYPE_COUNT; d++) {
        kernel_args a;
        if (!first_config(v, (dtype_t)d, OP_SUM, ODD_N, SCAN_INCLUSIVE, &a))
            fail_msg("scan_cub takes no %s sum", dtype_name((dtype_t)d));
        uint64_t seed = fresh_seed();
        check_result r = check_run(c, v, &a, seed);
        void *got = copy_output(c, v, &a, a.n);
        host_ref h = host_reference(&a, seed);
        validate_result hv = validate_scan(got, a.dtype, a.op, a.scan_mode, a.n, h.ref, h.abs);
        char what[96];
        snprintf(what, sizeof what, "devval agree scan %s sum n=%zu", dtype_name(a.dtype), a.n);
        assert_agree(what, &r, &hv);
        if (!r.ok) fail_msg("%s: both say invalid: %s", what, r.message);
        case_ok("%s: device and host both ok (%.3f s): ok\n", what, r.seconds);
        host_ref_free(&h);
        free(got);
    }
    check_destroy(c);
}

static void test_reduce_agrees(void **state)
{
    (void)state;
    if (!have_device) skip();
    const variant *v = need_variant("reduce_cub");
    check_ctx *c = check_create();
    for (int d = 0; d < DTYPE_COUNT; d++) {
        kernel_args a;
        if (!first_config(v, (dtype_t)d, OP_SUM, ODD_N, SCAN_INCLUSIVE, &a))
            fail_msg("reduce_cub takes no %s sum", dtype_name((dtype_t)d));
        uint64_t seed = fresh_seed();
        check_result r = check_run(c, v, &a, seed);
        void *got = copy_output(c, v, &a, 1);
        void *in = malloc(a.n * dtype_size(a.dtype));
        assert_non_null(in);
        random_fill(in, a.n, a.dtype, seed);
        double abs = 0;
        ref_value ref = reference_reduce(in, a.n, a.dtype, a.op, &abs);
        validate_result hv = validate_reduce(got, a.dtype, a.op, a.n, ref, abs);
        char what[96];
        snprintf(what, sizeof what, "devval agree reduce %s sum n=%zu", dtype_name(a.dtype), a.n);
        assert_agree(what, &r, &hv);
        if (!r.ok) fail_msg("%s: both say invalid: %s", what, r.message);
        case_ok("%s: device and host both ok, error %.3g within %.3g: ok\n", what, r.v.error, r.v.tolerance);
        free(in);
        free(got);
    }
    check_destroy(c);
}

/* ---- corruption ---------------------------------------------------------------- */

/* Element i of a scan output moved by `how`: 1 past the tolerance, 0 within
 * it (half), 2 NaN; i32: +1 (past: exact) for 1 and 2, unchanged for 0. */
static void corrupt(void *out, size_t i, dtype_t d, ref_value ref, double tol, int how)
{
    if (d == DTYPE_I32) {
        if (how) ((int32_t *)out)[i] += 1;
        return;
    }
    if (how == 2) {
        if (d == DTYPE_F32) ((float *)out)[i] = NAN;
        else ((double *)out)[i] = NAN;
        return;
    }
    /* Past: twice the tolerance (1 where it is 0: an empty prefix's sum);
     * within: half of it. Rounding to the dtype must not undo either. */
    double target = how ? ref.d + (tol > 0 ? 2 * tol : 1.0) : ref.d + tol / 2;
    if (d == DTYPE_F32) {
        float f = (float)target;
        while (how && !(fabs((double)f - ref.d) > tol)) f = nextafterf(f, INFINITY);
        while (!how && fabs((double)f - ref.d) > tol) f = nextafterf(f, (float)ref.d);
        ((float *)out)[i] = f;
    } else {
        while (how && !(fabs(target - ref.d) > tol)) target = nextafter(target, INFINITY);
        while (!how && fabs(target - ref.d) > tol) target = nextafter(target, ref.d);
        ((double *)out)[i] = target;
    }
}

/* Write the host output to the device, compare there and on the host. */
static void compare_both(check_ctx *c, const variant *v, kernel_args *a, uint64_t seed, const void *out,
                         const host_ref *h, check_result *dev, validate_result *host)
{
    CUDA_OK(check_prepare(c, v, a));
    CUDA_OK(cudaMemcpy(a->out, out, a->n * dtype_size(a->dtype), cudaMemcpyHostToDevice));
    *dev = check_compare_output(c, v, a, seed);
    *host = validate_scan(out, a->dtype, a->op, a->scan_mode, a->n, h->ref, h->abs);
}

/* Each chosen element alone, then all at once: the device finds exactly them. */
static void corrupt_and_compare(check_ctx *c, const variant *v, kernel_args *a, uint64_t seed, const char *tag)
{
    size_t n = a->n, elem = dtype_size(a->dtype);
    size_t idx[] = {0, n / 4, n / 3, n / 2, n - 1};
    int how[] = {1, 2, 0, 1, 1}; /* n/3 moved within the tolerance: must pass */
    if (a->dtype == DTYPE_I32) how[1] = 1;
    size_t expect_bad = 0;
    for (size_t k = 0; k < 5; k++) expect_bad += how[k] != 0;
    host_ref h = host_reference(a, seed);
    void *good = copy_output(c, v, a, n), *out = malloc(n * elem);
    assert_non_null(out);
    check_result dev;
    validate_result host;
    char what[160];
    for (size_t k = 0; k <= 5; k++) {
        memcpy(out, good, n * elem);
        for (size_t j = 0; j < 5; j++) {
            if (k < 5 && j != k) continue;
            size_t terms = a->scan_mode == SCAN_EXCLUSIVE ? idx[j] : idx[j] + 1;
            double tol = tolerance_for(a->dtype, a->op, terms, h.abs[idx[j]], h.ref[idx[j]].d);
            corrupt(out, idx[j], a->dtype, h.ref[idx[j]], tol, how[j]);
        }
        compare_both(c, v, a, seed, out, &h, &dev, &host);
        size_t want = k < 5 ? (how[k] != 0) : expect_bad;
        size_t want_first = k < 5 ? idx[k] : 0;
        const char *change = k == 5 ? "all at once" : how[k] == 2 ? "NaN" : how[k] ? "past tolerance" : "within tolerance";
        snprintf(what, sizeof what, "devval %s %s %s n=%zu %s", tag, dtype_name(a->dtype),
                 scan_mode_name(a->scan_mode), n, change);
        assert_agree(what, &dev, &host);
        if (dev.v.bad_count != want || (want && dev.v.bad_index != want_first))
            fail_msg("%s at [%zu]: device found %zu bad, first [%zu]; expected %zu, first [%zu]", what,
                     k < 5 ? idx[k] : 0, dev.v.bad_count, dev.v.bad_index, want, want_first);
        case_ok("%s at [%zu]: %zu bad found, first [%zu], as the host: ok\n", what, k < 5 ? idx[k] : 0,
               dev.v.bad_count, want ? dev.v.bad_index : 0);
    }
    host_ref_free(&h);
    free(good);
    free(out);
}

static void test_corruptions_found(void **state)
{
    (void)state;
    if (!have_device) skip();
    const variant *v = need_variant("scan_cub");
    check_ctx *c = check_create();
    for (int d = 0; d < DTYPE_COUNT; d++) {
        kernel_args a;
        scan_mode_t mode = d == DTYPE_F64 ? SCAN_EXCLUSIVE : SCAN_INCLUSIVE;
        if (!first_config(v, (dtype_t)d, OP_SUM, ODD_N, mode, &a))
            fail_msg("scan_cub takes no %s sum", dtype_name((dtype_t)d));
        uint64_t seed = fresh_seed();
        check_result r = check_run(c, v, &a, seed);
        if (!r.ok) fail_msg("devval corrupt: the uncorrupted output fails: %s", r.message);
        corrupt_and_compare(c, v, &a, seed, "corrupt resident");
    }
    check_destroy(c);
}

/* ---- streamed -------------------------------------------------------------------- */

static void test_streamed_agrees(void **state)
{
    (void)state;
    if (!have_device) skip();
    const variant *v = need_variant("scan_cub");
    check_ctx *resident = check_create(), *streamed = check_create();
    check_set_scratch(streamed, SMALL_SCRATCH, 1);
    for (int d = 0; d < DTYPE_COUNT; d++) {
        for (int op = 0; op < OP_COUNT; op++) {
            kernel_args a;
            scan_mode_t mode = (d + op) % 2 ? SCAN_EXCLUSIVE : SCAN_INCLUSIVE;
            if (!first_config(v, (dtype_t)d, (op_t)op, STREAM_N, mode, &a)) continue;
            uint64_t seed = fresh_seed();
            check_result rr = check_run(resident, v, &a, seed), rs = check_run(streamed, v, &a, seed);
            if (!rr.ok || !rs.ok || rr.streamed || !rs.streamed)
                fail_msg("devval streamed %s %s: resident ok=%d streamed=%d (%s), streamed ok=%d streamed=%d (%s)",
                         dtype_name(a.dtype), op_name(a.op), rr.ok, rr.streamed, rr.message, rs.ok, rs.streamed,
                         rs.message);
            case_ok("devval streamed %s %s %s n=%zu: resident and streamed (%zu segments) both ok: ok\n",
                   dtype_name(a.dtype), op_name(a.op), scan_mode_name(a.scan_mode), a.n,
                   (a.n + SEGMENT - 1) / SEGMENT);
            if (op == OP_SUM) corrupt_and_compare(streamed, v, &a, seed, "corrupt streamed");
        }
    }
    check_destroy(resident);
    check_destroy(streamed);
}

int main(void)
{
    have_device = !device_skip_if_absent();
    seed_base = (uint64_t)time(NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_bit_identical),   cmocka_unit_test(test_scan_agrees),
        cmocka_unit_test(test_reduce_agrees),        cmocka_unit_test(test_corruptions_found),
        cmocka_unit_test(test_streamed_agrees),
    };
    int failed = cmocka_run_group_tests_name("gpu_devval", tests, NULL, NULL);
    if (have_device)
        printf("GPU devval checks: %zu cases ok, %d test(s) failed\n", cases_ok, failed);
    return failed;
}
