/* The checker's host side (harness/check/check_reference.h) against the plain
 * references: a range of the input drawn alone equals the same elements of
 * random_fill; the chunked fold's total and the chunked scan over ranges that
 * cross chunk boundaries equal reference_reduce and reference_scan of the
 * whole input (exactly for i32 and max/min; for float sums within the
 * compensated sums' own error, far below any tolerance; the magnitude sums
 * within their rounding); one element's
 * reference equals its range's. Fresh random input every run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "harness/reference/reference.h"
#include "harness/reference/validate.h"
#include "harness/check/check.h"
#include "harness/check/check_reference.h"

#define N (3 * REF_CHUNK + 777)

static uint64_t fresh_seed(void) { return (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)clock(); }

static void test_fill_range_matches_fill(void **state)
{
    (void)state;
    uint64_t seed = fresh_seed();
    for (int d = 0; d < DTYPE_COUNT; d++) {
        size_t elem = dtype_size((dtype_t)d), b = REF_CHUNK - 3, e = 2 * REF_CHUNK + 5;
        char *all = malloc(N * elem), *part = malloc((e - b) * elem);
        assert_true(all && part);
        random_fill(all, N, (dtype_t)d, seed);
        random_fill_range(part, b, e, (dtype_t)d, seed);
        assert_memory_equal(all + b * elem, part, (e - b) * elem);
        free(all);
        free(part);
    }
}

/* The chunked reference and the whole one agree: exactly where the
 * reference is exact, else within 4 double roundings of the magnitude sum. */
static void assert_same_ref(double chunked, double whole, double abs, dtype_t d, op_t op, size_t i)
{
    if (d == DTYPE_I32 || op != OP_SUM || isinf(whole)) {
        if (chunked != whole) fail_msg("[%zu] %s %s: chunked %.17g, whole %.17g", i, dtype_name(d), op_name(op),
                                       chunked, whole);
        return;
    }
    double bound = 4 * 0x1p-53 * abs + 1e-300;
    if (fabs(chunked - whole) > bound)
        fail_msg("[%zu] %s sum: chunked %.17g, whole %.17g, apart by more than %.3g", i, dtype_name(d), chunked,
                 whole, bound);
}

static void test_chunked_matches_whole(void **state)
{
    (void)state;
    for (int d = 0; d < DTYPE_COUNT; d++) {
        for (int op = 0; op < OP_COUNT; op++) {
            uint64_t seed = fresh_seed() + (uint64_t)(d * OP_COUNT + op);
            char *in = malloc(N * dtype_size((dtype_t)d));
            ref_value *ref = malloc(N * sizeof *ref);
            double *abs = malloc(N * sizeof *abs), *val = malloc(N * sizeof *val), *cabs = malloc(N * sizeof *cabs);
            assert_true(in && ref && abs && val && cabs);
            random_fill(in, N, (dtype_t)d, seed);
            ref_chunks rc;
            assert_int_equal(ref_chunks_build(&rc, seed, (dtype_t)d, (op_t)op, N), 0);
            double total_abs = 0;
            ref_value total = reference_reduce(in, N, (dtype_t)d, (op_t)op, &total_abs);
            assert_same_ref(rc.total.value.d, total.d, total_abs, (dtype_t)d, (op_t)op, N);
            if (d == DTYPE_I32) assert_true(rc.total.value.i == total.i);
            for (int m = 0; m < SCAN_MODE_COUNT; m++) {
                reference_scan(in, N, (dtype_t)d, (op_t)op, (scan_mode_t)m, ref, abs);
                /* Two ranges: from the first chunk, and from the second to the end. */
                assert_int_equal(ref_chunks_scan(&rc, (scan_mode_t)m, 0, REF_CHUNK + 9, val, cabs), 0);
                assert_int_equal(
                    ref_chunks_scan(&rc, (scan_mode_t)m, REF_CHUNK, N, val + REF_CHUNK, cabs + REF_CHUNK), 0);
                for (size_t i = 0; i < N; i++) {
                    double whole = d == DTYPE_I32 ? (double)(int32_t)(uint32_t)(uint64_t)ref[i].i : ref[i].d;
                    assert_same_ref(val[i], whole, abs[i], (dtype_t)d, (op_t)op, i);
                    /* The magnitude sum is a plain running sum (it only scales the
                     * tolerance): chunked, its roundings differ, by n u at most. */
                    if (fabs(cabs[i] - abs[i]) > (double)N * 0x1p-53 * abs[i])
                        fail_msg("[%zu] magnitude sum: chunked %.17g, whole %.17g", i, cabs[i], abs[i]);
                }
                size_t picks[] = {0, REF_CHUNK - 1, REF_CHUNK, N - 1};
                for (size_t k = 0; k < 4; k++) {
                    ref_value one;
                    double one_abs;
                    assert_int_equal(ref_chunks_element(&rc, (scan_mode_t)m, picks[k], &one, &one_abs), 0);
                    double v = d == DTYPE_I32 ? (double)(int32_t)(uint32_t)(uint64_t)one.i : one.d;
                    assert_true(v == val[picks[k]] || (isnan(v) && isnan(val[picks[k]])));
                    assert_true(one_abs == cabs[picks[k]]);
                }
            }
            ref_chunks_free(&rc);
            free(in);
            free(ref);
            free(abs);
            free(val);
            free(cabs);
        }
    }
}

/* The device's formula is validate.c's: one header, the same numbers. */
static void test_tolerance_formula_is_validates(void **state)
{
    (void)state;
    assert_true(tolerance_formula(UNIT_ROUNDOFF_F32, 1000, 812.5, 400.25) ==
                tolerance_for(DTYPE_F32, OP_SUM, 1000, 812.5, 400.25));
    assert_true(tolerance_formula(UNIT_ROUNDOFF_F64, 1, 0.75, 0.75) ==
                tolerance_for(DTYPE_F64, OP_SUM, 1, 0.75, 0.75));
    assert_true(unit_roundoff(DTYPE_F32) == ldexp(1.0, -24) && unit_roundoff(DTYPE_F64) == ldexp(1.0, -53));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_range_matches_fill),
        cmocka_unit_test(test_chunked_matches_whole),
        cmocka_unit_test(test_tolerance_formula_is_validates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
