/* The CPU references and tolerances: checked against closed forms, exact
 * integer arithmetic and deliberate corruptions, on random data. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "harness/check/check.h"
#include "harness/reference/reference.h"
#include "harness/reference/validate.h"

static uint64_t fresh_seed(void) { return (uint64_t)time(NULL) ^ (uint64_t)clock() << 20; }

/* sum of k for k in 1..n, as floats: exact in double for these n. */
static void test_reduce_closed_form(void **state)
{
    (void)state;
    size_t n = 100000;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (float)(i + 1);
    double abs_sum = 0;
    ref_value r = reference_reduce(x, n, DTYPE_F32, OP_SUM, &abs_sum);
    assert_true(r.d == (double)n * (n + 1) / 2);
    assert_true(abs_sum == r.d);
    assert_true(reference_reduce(x, n, DTYPE_F32, OP_MAX, NULL).d == (double)n);
    assert_true(reference_reduce(x, n, DTYPE_F32, OP_MIN, NULL).d == 1.0);
    free(x);
}

/* Compensated summation recovers what naive double summation loses. */
static void test_reduce_compensated(void **state)
{
    (void)state;
    double x[4] = {1e16, 1.0, -1e16, 1.0};
    ref_value r = reference_reduce(x, 4, DTYPE_F64, OP_SUM, NULL);
    assert_true(r.d == 2.0);
}

/* i32 sums are exact in 64 bits; chunked folding equals one fold. */
static void test_reduce_i32_exact_and_chunked(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    int32_t *x = malloc(n * sizeof *x);
    random_fill(x, n, DTYPE_I32, fresh_seed());
    int64_t expect = 0;
    for (size_t i = 0; i < n; i++) expect += x[i];
    ref_value r = reference_reduce(x, n, DTYPE_I32, OP_SUM, NULL);
    assert_true(r.i == expect);
    ref_carry a = reference_fold(x, n / 3, DTYPE_I32, OP_SUM);
    ref_carry b = reference_fold(x + n / 3, n - n / 3, DTYPE_I32, OP_SUM);
    assert_true(reference_combine(a, b, DTYPE_I32, OP_SUM).value.i == expect);
    free(x);
}

static void test_chunked_float_matches(void **state)
{
    (void)state;
    size_t n = 1 << 18;
    float *x = malloc(n * sizeof *x);
    random_fill(x, n, DTYPE_F32, fresh_seed());
    for (int op = 0; op < OP_COUNT; op++) {
        ref_value whole = reference_reduce(x, n, DTYPE_F32, (op_t)op, NULL);
        ref_carry acc = reference_fold(x, 0, DTYPE_F32, (op_t)op);
        for (size_t c = 0; c < 7; c++) {
            size_t b = n * c / 7, e = n * (c + 1) / 7;
            acc = reference_combine(acc, reference_fold(x + b, e - b, DTYPE_F32, (op_t)op), DTYPE_F32, (op_t)op);
        }
        assert_true(fabs(acc.value.d - whole.d) <= 1e-9 * fabs(whole.d) + 1e-12);
    }
    free(x);
}

static void test_scan_inclusive_exclusive(void **state)
{
    (void)state;
    size_t n = 5000;
    int32_t *x = malloc(n * sizeof *x);
    random_fill(x, n, DTYPE_I32, fresh_seed());
    ref_value *inc = malloc(n * sizeof *inc), *exc = malloc(n * sizeof *exc), *mx = malloc(n * sizeof *mx);
    reference_scan(x, n, DTYPE_I32, OP_SUM, SCAN_INCLUSIVE, inc, NULL);
    reference_scan(x, n, DTYPE_I32, OP_SUM, SCAN_EXCLUSIVE, exc, NULL);
    reference_scan(x, n, DTYPE_I32, OP_MAX, SCAN_EXCLUSIVE, mx, NULL);
    int64_t run = 0, best = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        assert_true(exc[i].i == run);
        assert_true(mx[i].i == best);
        run += x[i];
        best = x[i] > best ? x[i] : best;
        assert_true(inc[i].i == run);
    }
    /* a scan continued from a carry equals the whole scan */
    ref_carry head = reference_fold(x, 1234, DTYPE_I32, OP_SUM);
    ref_value *tail = malloc(n * sizeof *tail);
    reference_scan_from(x + 1234, n - 1234, DTYPE_I32, OP_SUM, SCAN_INCLUSIVE, &head, tail, NULL);
    for (size_t i = 1234; i < n; i++) assert_true(tail[i - 1234].i == inc[i].i);
    free(x), free(inc), free(exc), free(mx), free(tail);
}

static void test_random_fill_properties(void **state)
{
    (void)state;
    size_t n = 1 << 16;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    uint64_t s = fresh_seed();
    random_fill(a, n, DTYPE_F32, s);
    random_fill(b, n, DTYPE_F32, s + 1);
    size_t neg = 0, zero = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i] >= -0.5f && a[i] < 1.5f);
        neg += a[i] < 0;
        zero += a[i] == 0;
        same += a[i] == b[i];
    }
    assert_true(neg > n / 8 && neg < n / 2); /* both signs, mostly positive */
    assert_true(zero < 4);
    assert_true(same < 16); /* another seed is another input */
    free(a), free(b);
}

/* The tolerance grows like sqrt(n) and with magnitude; exact cases are 0. */
static void test_tolerance_shape(void **state)
{
    (void)state;
    assert_true(tolerance_for(DTYPE_I32, OP_SUM, 1000, 1e6, 5) == 0);
    assert_true(tolerance_for(DTYPE_F32, OP_MAX, 1000, 1e6, 5) == 0);
    double t1 = tolerance_for(DTYPE_F32, OP_SUM, 1 << 10, 512, 0);
    double t4 = tolerance_for(DTYPE_F32, OP_SUM, 1 << 12, 512, 0);
    assert_true(t4 > 1.9 * t1 && t4 < 2.1 * t1);
    assert_true(tolerance_for(DTYPE_F64, OP_SUM, 1 << 12, 512, 0) < t4 * 1e-8);
    assert_true(tolerance_for(DTYPE_F32, OP_SUM, 1, 0.3, 0.3) > 0); /* final rounding */
}

/* A float sum computed naively in float passes; one element dropped or added
 * twice fails (at sizes where one element is above the tolerance). */
static void test_validate_reduce_catches_errors(void **state)
{
    (void)state;
    size_t n = 4096;
    float *x = malloc(n * sizeof *x);
    random_fill(x, n, DTYPE_F32, fresh_seed());
    double abs_sum;
    ref_value ref = reference_reduce(x, n, DTYPE_F32, OP_SUM, &abs_sum);
    float naive = 0;
    for (size_t i = 0; i < n; i++) naive += x[i];
    assert_true(validate_reduce(&naive, DTYPE_F32, OP_SUM, n, ref, abs_sum).ok);
    size_t big = 0;
    for (size_t i = 1; i < n; i++) big = fabsf(x[i]) > fabsf(x[big]) ? i : big;
    float dropped = naive - x[big];
    validate_result r = validate_reduce(&dropped, DTYPE_F32, OP_SUM, n, ref, abs_sum);
    assert_false(r.ok);
    assert_non_null(strstr(r.message, "expected"));
    assert_non_null(strstr(r.message, "tolerance"));
    float nan = NAN;
    assert_false(validate_reduce(&nan, DTYPE_F32, OP_SUM, n, ref, abs_sum).ok);
    free(x);
}

/* i32 sums compare modulo 2^32 (the GPU's wrap), exactly. */
static void test_validate_i32_wrap(void **state)
{
    (void)state;
    ref_value ref = {0, (int64_t)INT32_MAX + 10};
    int32_t wrapped = (int32_t)(uint32_t)(uint64_t)ref.i;
    assert_true(validate_reduce(&wrapped, DTYPE_I32, OP_SUM, 2, ref, 0).ok);
    int32_t off = wrapped + 1;
    assert_false(validate_reduce(&off, DTYPE_I32, OP_SUM, 2, ref, 0).ok);
}

/* Every element of a scan is checked: one poisoned element fails, and the
 * report names it. */
static void test_validate_scan_every_element(void **state)
{
    (void)state;
    size_t n = 3000;
    float *x = malloc(n * sizeof *x), *got = malloc(n * sizeof *got);
    random_fill(x, n, DTYPE_F32, fresh_seed());
    ref_value *ref = malloc(n * sizeof *ref);
    double *abs = malloc(n * sizeof *abs);
    reference_scan(x, n, DTYPE_F32, OP_SUM, SCAN_EXCLUSIVE, ref, abs);
    float run = 0;
    for (size_t i = 0; i < n; i++) got[i] = run, run += x[i];
    assert_true(validate_scan(got, DTYPE_F32, OP_SUM, SCAN_EXCLUSIVE, n, ref, abs).ok);
    size_t k = (size_t)(fresh_seed() % (n - 1)) + 1;
    float keep = got[k];
    memset(&got[k], 0xff, sizeof got[k]); /* the poison: NaN */
    validate_result r = validate_scan(got, DTYPE_F32, OP_SUM, SCAN_EXCLUSIVE, n, ref, abs);
    assert_false(r.ok);
    assert_int_equal(r.bad_index, k);
    assert_int_equal(r.bad_count, 1);
    got[k] = keep;
    got[0] = x[0]; /* inclusive value where exclusive was asked: wrong */
    assert_false(validate_scan(got, DTYPE_F32, OP_SUM, SCAN_EXCLUSIVE, n, ref, abs).ok);
    free(x), free(got), free(ref), free(abs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_closed_form),
        cmocka_unit_test(test_reduce_compensated),
        cmocka_unit_test(test_reduce_i32_exact_and_chunked),
        cmocka_unit_test(test_chunked_float_matches),
        cmocka_unit_test(test_scan_inclusive_exclusive),
        cmocka_unit_test(test_random_fill_properties),
        cmocka_unit_test(test_tolerance_shape),
        cmocka_unit_test(test_validate_reduce_catches_errors),
        cmocka_unit_test(test_validate_i32_wrap),
        cmocka_unit_test(test_validate_scan_every_element),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
