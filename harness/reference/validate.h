/* Tolerances and comparison of GPU results against the CPU reference.
 *
 * Floating-point sums: a sum of n terms in precision u (2^-24 for f32, 2^-53
 * for f64) computed in ANY order has error sum_k delta_k * s_k, where s_k are
 * the partial sums (|s_k| <= sum|x_i|) and |delta_k| <= u. Treating the
 * rounding errors as independent and zero-mean (Higham & Mary, SIAM J. Sci.
 * Comput. 2019), |error| <= lambda * sqrt(n) * u * sum|x_i| holds with
 * probability at least 1 - 2 exp(-lambda^2 / 2); lambda = 7 makes a false
 * failure rarer than 1 in 10^10 checks. One more u*|result| covers the final
 * rounding to the output type. Max and min are exact (tolerance 0); i32 is
 * exact modulo 2^32. NaN or Inf never passes. */
#ifndef HARNESS_VALIDATE_H
#define HARNESS_VALIDATE_H

#include <stddef.h>

#include "harness/reference/reference.h"
#include "harness/reference/tolerance.h"
#include "kernels/variant.h"

double unit_roundoff(dtype_t d);

/* Absolute tolerance for a result of `terms` terms with magnitude sum abs_sum
 * and reference value ref. */
double tolerance_for(dtype_t d, op_t op, size_t terms, double abs_sum, double ref);

typedef struct validate_result {
    int ok;
    size_t bad_index;    /* first failing element (scans); 0 for reductions */
    size_t bad_count;    /* how many elements failed */
    double expected, got, error, tolerance;
    char message[512];   /* filled on failure: expected, got, error, tolerance */
} validate_result;

/* Compare one GPU value (host copy, dtype d) with the reference. */
validate_result validate_reduce(const void *got, dtype_t d, op_t op, size_t n, ref_value ref, double abs_sum);

/* Compare every element of a GPU scan (host copy) with the reference. */
validate_result validate_scan(const void *got, dtype_t d, op_t op, scan_mode_t mode, size_t n,
                              const ref_value *ref, const double *abs_prefix);

/* The same over elements [begin, end) only, with no message: lets the checker
 * compare a large scan on several threads and merge. */
validate_result validate_scan_range(const void *got, dtype_t d, op_t op, scan_mode_t mode, size_t begin, size_t end,
                                    const ref_value *ref, const double *abs_prefix);
/* One element: the value at `got` (dtype d) against ref and abs_sum, a
 * result of `terms` terms. Returns 1 when it passes; *g, *err, *tol and
 * *expected as validate_result reports them. The device comparison's
 * report of its first bad element comes from here. */
int validate_element(const void *got, dtype_t d, op_t op, size_t terms, ref_value ref, double abs_sum, double *g,
                     double *err, double *tol, double *expected);
/* Fill r->message for a failed scan of n elements. */
void validate_scan_message(validate_result *r, dtype_t d, op_t op, scan_mode_t mode, size_t n);

#endif
