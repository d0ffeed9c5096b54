/* The tolerance formula (validate.h explains it), in one place for the host
 * and the device: the CPU comparison (validate.c) and the device comparison
 * (harness/check/check_device.cu) both call tolerance_formula, so they cannot
 * disagree. Plain C; under nvcc the functions are __host__ __device__. */
#ifndef HARNESS_TOLERANCE_H
#define HARNESS_TOLERANCE_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define TOLERANCE_HD __host__ __device__
#else
#define TOLERANCE_HD
#endif

#define VALIDATE_LAMBDA 7.0
#define UNIT_ROUNDOFF_F32 5.9604644775390625e-08   /* 2^-24 */
#define UNIT_ROUNDOFF_F64 1.1102230246251565e-16   /* 2^-53 */

/* Absolute tolerance of a float sum of `terms` terms with magnitude sum
 * abs_sum and reference value ref, in precision u; 0 where exact (u == 0:
 * integers, or an op other than sum). */
static inline TOLERANCE_HD double tolerance_formula(double u, size_t terms, double abs_sum, double ref)
{
    if (u == 0.0) return 0.0;
    double adds = terms > 1 ? (double)(terms - 1) : 0.0;
    return VALIDATE_LAMBDA * sqrt(adds) * u * abs_sum + u * fabs(ref);
}

#endif
