/* The checker's device side: the random input drawn on the device (the same
 * generator as the host's random_fill, harness/reference/random_input.h:
 * bit-identical values), and a scan's output compared on the device with its
 * reference, element by element, with the tolerances of
 * harness/reference/validate.c (the one formula, harness/reference/tolerance.h).
 * C interface over CUDA; every function only enqueues on `stream`. */
#ifndef HARNESS_CHECK_DEVICE_H
#define HARNESS_CHECK_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "kernels/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[0..n) = the input drawn from seed (random_fill's values). */
cudaError_t check_device_fill(void *dst, size_t n, dtype_t d, uint64_t seed, cudaStream_t stream);

/* dst[0..n) = value: an output poisoned where a memset's byte pattern cannot say it. */
cudaError_t check_device_poison_i32(int32_t *dst, size_t n, int32_t value, cudaStream_t stream);

/* What the comparison found, in device memory: reset it before a check. */
typedef struct check_tally {
    unsigned long long bad_count;
    unsigned long long first_bad; /* smallest failing index; ~0 when none */
} check_tally;

cudaError_t check_device_tally_reset(check_tally *t, cudaStream_t stream);

/* Compare got[0..count) (elements first..first+count of a scan of dtype d,
 * op, mode) with val/abs[0..count) (ref_chunks_scan's layout); failures are
 * added to *t. */
cudaError_t check_device_compare(const void *got, const double *val, const double *abs, size_t count, size_t first,
                                 dtype_t d, op_t op, scan_mode_t mode, check_tally *t, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
