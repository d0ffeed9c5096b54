/* One configuration, checked end to end on the GPU: fresh random input, a
 * poisoned output, the variant's launcher, and every output element compared
 * with the CPU reference. Used by the GPU tests and by the sweep's validate
 * phase; it owns reusable device buffers so checks do not reallocate. */
#ifndef HARNESS_CHECK_H
#define HARNESS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "harness/reference/validate.h"
#include "kernels/variant.h"

typedef struct check_ctx check_ctx;

check_ctx *check_create(void);
void check_destroy(check_ctx *c);

/* Fill host buffer `dst` with n random values of dtype d drawn from `seed`:
 * floats uniform in [-0.5, 1.5) (both signs, a positive mean so sums do not
 * cancel to noise), i32 uniform in [-100, 300]. Never constant, never zero-filled. */
void random_fill(void *dst, size_t n, dtype_t d, uint64_t seed);

typedef struct check_result {
    int ok;                  /* 1: valid; 0: wrong result or CUDA error */
    cudaError_t cuda_error;  /* cudaSuccess unless the launch or a copy failed */
    validate_result v;       /* the comparison (when cuda_error == cudaSuccess) */
    char message[768];       /* on failure: what went wrong, human-readable */
} check_result;

/* Check variant v on configuration `cfg` (axes only: dtype, op, n, block_dim,
 * coarse, finish, scan_mode; buffers are the context's). The configuration
 * must be accepted by variant_accepts(). */
check_result check_run(check_ctx *c, const variant *v, const kernel_args *cfg, uint64_t seed);

/* Device buffers sized for cfg (input, output, workspace), reused across calls;
 * the sweep times launches on these after check_run validated them; a
 * workspace_init the variant names has run on the workspace. Returns
 * cudaSuccess and fills a->in/out/workspace/workspace_bytes. */
cudaError_t check_prepare(check_ctx *c, const variant *v, kernel_args *a);

#endif
