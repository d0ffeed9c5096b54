/* CPU references: trusted, simple, slow. Reductions and scans in double with
 * compensated (Kahan-Babuska/Neumaier) summation for f32/f64; exact 64-bit
 * integers for i32 (reported modulo 2^32, as the GPU's i32 sums wrap). */
#ifndef HARNESS_REFERENCE_H
#define HARNESS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/variant.h"

/* A value of any dtype as the reference sees it. For i32, `i` holds the exact
 * 64-bit result and `d` its double. */
typedef struct ref_value {
    double d;
    int64_t i;
} ref_value;

/* Reduce n elements of `in` (host memory, dtype d) with op. Also returns the
 * sum of magnitudes (for tolerances) in *abs_sum when non-NULL. */
ref_value reference_reduce(const void *in, size_t n, dtype_t d, op_t op, double *abs_sum);

/* Scan n elements into out_val[n] (and out_abs[n], the running sum of
 * magnitudes of the terms each prefix contains; may be NULL). Exclusive scans
 * start with the operator's identity. */
void reference_scan(const void *in, size_t n, dtype_t d, op_t op, scan_mode_t mode, ref_value *out_val,
                    double *out_abs);

/* The state of a fold after some prefix, to continue it elsewhere: lets the
 * checker split a large reference across threads (fold chunks, combine the
 * chunk states in order, scan each chunk from its carry). */
typedef struct ref_carry {
    ref_value value; /* the prefix's result */
    double sum, comp; /* compensated float sum state (value.d == sum + comp) */
    double abs;       /* sum of |x| over the prefix */
} ref_carry;

ref_carry reference_fold(const void *in, size_t n, dtype_t d, op_t op);
/* The state after prefix a then block b (b folded from the identity). */
ref_carry reference_combine(ref_carry a, ref_carry b, dtype_t d, op_t op);
/* reference_scan continuing from `carry` (NULL: from the identity). */
void reference_scan_from(const void *in, size_t n, dtype_t d, op_t op, scan_mode_t mode, const ref_carry *carry,
                         ref_value *out_val, double *out_abs);

/* The identity of op for dtype d, as a ref_value. */
ref_value reference_identity(dtype_t d, op_t op);

#endif
