/* reduce_vectorized_single_pass (vectorized loads + last-block finish; not in the seeds)
 *
 * Demonstrates: two things the seeds stop short of. (1) 16-byte loads: the
 * grid-stride loop reads float4 / int4 / double2, a quarter (half for f64) of
 * the load instructions of scalar loads for the same bytes. (2) One kernel,
 * no atomics on the data: each block folds its values by shuffles (block_reduce)
 * and writes its partial to the workspace, makes it visible with
 * __threadfence(), then takes a ticket from an atomic counter; the block that
 * draws the last ticket knows every partial is written, reduces them in a
 * fixed order and writes the result (the CUDA threadFenceReduction pattern).
 * Unlike the atomic finish, float results do not depend on block order.
 *
 * The counter lives in the workspace and is zeroed by the launcher on every
 * call (cudaMemsetAsync, part of the call): a counter left at gridDim.x by the
 * previous call would make no block last. The grid is capped at
 * resident_blocks() (see reduce_multi_element).
 *
 * Tail and alignment: the input is split into a scalar head up to the first
 * 16-byte boundary (empty for cudaMalloc'd input), a vector body, and a scalar
 * tail of fewer than one vector's elements; the head and tail are read by the
 * first threads of the grid, so any n >= 1 and any element-aligned pointer
 * work and nothing past n is read.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_vectorized_single_pass
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op>
__global__ void reduce_vectorized_single_pass_kernel(const T *in, T *out, size_t n, T *partials, unsigned *counter)
{
    __shared__ T warp_totals[32];
    T v = block_reduce<T, Op>(vector_fold<T, Op, 1>(in, n), warp_totals);
    last_block_finish<T, Op>(v, partials, counter, out, warp_totals);
}

static unsigned grid_for(const kernel_args *a)
{
    size_t vectors = ceil_div(a->n, 16 / dtype_size(a->dtype));
    return capped_grid(ceil_div(vectors, a->block_dim), a->block_dim);
}

/* Workspace: the counter, then one partial per block. Returns the size. */
static size_t layout(const kernel_args *a, unsigned **counter, void **partials)
{
    workspace_layout w = {(char *)a->workspace, 0};
    *counter = (unsigned *)workspace_take(&w, sizeof(unsigned));
    *partials = workspace_take(&w, grid_for(a) * dtype_size(a->dtype));
    return w.size;
}

static size_t workspace(const kernel_args *a)
{
    unsigned *counter;
    void *partials;
    return layout(a, &counter, &partials);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    unsigned *counter;
    void *partials;
    if (!a->workspace || a->workspace_bytes < layout(a, &counter, &partials)) return cudaErrorInvalidValue;
    RETURN_IF_ERROR(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
    reduce_vectorized_single_pass_kernel<T, Op><<<grid_for(a), a->block_dim, 0, s>>>((const T *)a->in, (T *)a->out,
                                                                                    a->n, (T *)partials, counter);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }

/* n elements read, one partial per block written and read back, one result. */
static double bytes(const kernel_args *a) { return (a->n + 2.0 * grid_for(a) + 1) * dtype_size(a->dtype); }

extern "C" const variant reduce_vectorized_single_pass_variant = REDUCE_VARIANT(
    .name = "reduce_vectorized_single_pass",
    .alias = "vectorized",
    .family = "single_pass",
    .description = "16-byte vector loads in a grid-stride loop, shuffle block reduce, last block reduces the partials",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
