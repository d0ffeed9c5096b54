#include "harness/reference/validate.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

double unit_roundoff(dtype_t d)
{
    switch (d) {
    case DTYPE_F32: return UNIT_ROUNDOFF_F32;
    case DTYPE_F64: return UNIT_ROUNDOFF_F64;
    default: return 0.0; /* integers: exact */
    }
}

double tolerance_for(dtype_t d, op_t op, size_t terms, double abs_sum, double ref)
{
    if (d == DTYPE_I32 || op != OP_SUM) return 0.0; /* exact */
    return tolerance_formula(unit_roundoff(d), terms, abs_sum, ref);
}

static double load_got(const void *got, size_t i, dtype_t d)
{
    switch (d) {
    case DTYPE_F32: return ((const float *)got)[i];
    case DTYPE_F64: return ((const double *)got)[i];
    default: return ((const int32_t *)got)[i];
    }
}

/* Compare one element: returns 1 when it passes; fills err/tol. */
static int compare_one(const void *got, size_t i, dtype_t d, op_t op, size_t terms, ref_value ref, double abs_sum,
                       double *g, double *err, double *tol)
{
    *g = load_got(got, i, d);
    if (d == DTYPE_I32) {
        /* i32 sums wrap modulo 2^32 on the GPU; max/min never overflow. */
        int32_t expect = (int32_t)(uint32_t)(uint64_t)ref.i;
        int32_t have = ((const int32_t *)got)[i];
        *err = fabs((double)have - (double)expect);
        *tol = 0;
        return have == expect;
    }
    *tol = tolerance_for(d, op, terms, abs_sum, ref.d);
    if (!isfinite(*g)) {
        /* Only max/min of an empty prefix (exclusive scan's identity) is infinite. */
        *err = INFINITY;
        return !isfinite(ref.d) && *g == ref.d;
    }
    *err = fabs(*g - ref.d);
    return *err <= *tol;
}

int validate_element(const void *got, dtype_t d, op_t op, size_t terms, ref_value ref, double abs_sum, double *g,
                     double *err, double *tol, double *expected)
{
    *expected = d == DTYPE_I32 ? (double)(int32_t)(uint32_t)(uint64_t)ref.i : ref.d;
    return compare_one(got, 0, d, op, terms, ref, abs_sum, g, err, tol);
}

validate_result validate_reduce(const void *got, dtype_t d, op_t op, size_t n, ref_value ref, double abs_sum)
{
    validate_result r;
    memset(&r, 0, sizeof r);
    r.expected = d == DTYPE_I32 ? (double)(int32_t)(uint32_t)(uint64_t)ref.i : ref.d;
    r.ok = compare_one(got, 0, d, op, n, ref, abs_sum, &r.got, &r.error, &r.tolerance);
    if (!r.ok) {
        r.bad_count = 1;
        snprintf(r.message, sizeof r.message,
                 "%s %s n=%zu: expected %.17g, got %.17g, error %.3g, tolerance %.3g", dtype_name(d), op_name(op), n,
                 r.expected, r.got, r.error, r.tolerance);
    }
    return r;
}

validate_result validate_scan_range(const void *got, dtype_t d, op_t op, scan_mode_t mode, size_t begin, size_t end,
                                    const ref_value *ref, const double *abs_prefix)
{
    validate_result r;
    memset(&r, 0, sizeof r);
    r.ok = 1;
    for (size_t i = begin; i < end; i++) {
        size_t terms = mode == SCAN_EXCLUSIVE ? i : i + 1;
        double g, err, tol;
        if (compare_one(got, i, d, op, terms, ref[i], abs_prefix[i], &g, &err, &tol)) continue;
        if (r.bad_count++ == 0) {
            r.ok = 0;
            r.bad_index = i;
            r.expected = d == DTYPE_I32 ? (double)(int32_t)(uint32_t)(uint64_t)ref[i].i : ref[i].d;
            r.got = g;
            r.error = err;
            r.tolerance = tol;
        }
    }
    return r;
}

void validate_scan_message(validate_result *r, dtype_t d, op_t op, scan_mode_t mode, size_t n)
{
    if (r->ok) return;
    snprintf(r->message, sizeof r->message,
             "%s %s %s scan n=%zu: %zu of %zu elements wrong; first at [%zu]: expected %.17g, got %.17g, "
             "error %.3g, tolerance %.3g",
             dtype_name(d), op_name(op), scan_mode_name(mode), n, r->bad_count, n, r->bad_index, r->expected, r->got,
             r->error, r->tolerance);
}

validate_result validate_scan(const void *got, dtype_t d, op_t op, scan_mode_t mode, size_t n, const ref_value *ref,
                              const double *abs_prefix)
{
    validate_result r = validate_scan_range(got, d, op, mode, 0, n, ref, abs_prefix);
    validate_scan_message(&r, d, op, mode, n);
    return r;
}
