/* Shared driver for the GPU tests: every variant of one kind, over every axis
 * value it accepts and the test sizes, validated with harness/check. */
#ifndef TESTS_GPU_VARIANTS_H
#define TESTS_GPU_VARIANTS_H

#include "kernels/variant.h"

/* main() of a GPU test binary for `kind`: prints `SKIPPED: no CUDA device (...)`
 * and skips every test where there is no device. Sizes per block dim b:
 * {1, 2, 31, b-1, b, b+1, 1000003, 2^24} plus `extra_n` (0 = none) for the
 * variants whose name is in `extra_n_for` (NULL-terminated; NULL = all).
 * Environment filters (for sanitizer runs and quick checks):
 *   GPU_TEST_VARIANTS=a,b   only these variants
 *   GPU_TEST_SIZES=n1,n2    these sizes instead of the list above
 *   GPU_TEST_BLOCK_DIMS=... only these block dims
 *   GPU_TEST_DTYPES=f32,... GPU_TEST_OPS=sum,...   only these
 *   GPU_TEST_FIRST_AXES=1   first accepted coarse/finish/mode only
 *   GPU_TEST_LARGE_ALL=1    every op and coarse factor at 2^24 and the extra n too
 *                           (by default those sizes run op sum, the extra n one coarse) */
int gpu_variants_main(kind_t kind, size_t extra_n, const char *const *extra_n_for);

#endif
