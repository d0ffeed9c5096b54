/* One configuration, checked end to end on the GPU: fresh random input drawn
 * on the device, a poisoned output, the variant's launcher, and every output
 * element compared with the CPU reference. The reference is computed on the
 * host, chunk by chunk (check_reference.h), once per input; a scan's is
 * uploaded once and every configuration's output compared with it on the
 * device (check_device.h). Where the whole reference (16 bytes an element)
 * does not fit beside the configuration, it is streamed: computed and
 * uploaded a segment at a time into CHECK_DEVICE_SCRATCH_BYTES of device
 * scratch and compared there, again for each configuration. Host memory
 * stays a few segments whatever n. Used by the GPU tests and by the sweep's
 * validate phase; it owns reusable device buffers so checks do not reallocate. */
#ifndef HARNESS_CHECK_H
#define HARNESS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "harness/reference/validate.h"
#include "harness/check/check_scratch.h"
#include "kernels/variant.h"

typedef struct check_ctx check_ctx;

check_ctx *check_create(void);
void check_destroy(check_ctx *c);

/* Fill host buffer `dst` with n random values of dtype d drawn from `seed`:
 * floats uniform in [-0.5, 1.5) (both signs, a positive mean so sums do not
 * cancel to noise), i32 uniform in [-100, 300]. Never constant, never
 * zero-filled. The device draws the same values (harness/reference/random_input.h). */
void random_fill(void *dst, size_t n, dtype_t d, uint64_t seed);

typedef struct check_result {
    int ok;                  /* 1: valid; 0: wrong result or CUDA error */
    cudaError_t cuda_error;  /* cudaSuccess unless the launch or a copy failed */
    validate_result v;       /* the comparison (when cuda_error == cudaSuccess) */
    char message[768];       /* on failure: what went wrong, human-readable */
    double seconds;          /* the check's wall time, reference included */
    int streamed;            /* 1: a scan compared segment by segment (the reference did not fit) */
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

/* Compare what the context's output holds now (check_prepare's a->out for
 * cfg, as the last launch or a caller left it) with the reference of the
 * input drawn from seed, without drawing or launching anything: the GPU
 * tests corrupt chosen elements and check that exactly those are found. */
check_result check_compare_output(check_ctx *c, const variant *v, const kernel_args *cfg, uint64_t seed);

/* For tests: the device scratch of a streamed comparison (0: the default,
 * CHECK_DEVICE_SCRATCH_BYTES; at least 2 MiB, two segments of one reference
 * chunk, are used whatever is asked) and whether to stream even where the
 * whole reference would fit. */
void check_set_scratch(check_ctx *c, size_t scratch_bytes, int force_streamed);

#endif
