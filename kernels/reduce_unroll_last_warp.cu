/* reduce_unroll_last_warp (Harris reduce4; seed 001 reduce_v4; seed 003 "last warp", sum_lastwarp)
 *
 * Demonstrates: dropping the barriers once one warp is left. As
 * reduce_first_add, but the shared-memory tree stops at stride 64; the last
 * six steps (strides 32..1) are run by the first warp alone, unrolled, with no
 * __syncthreads() and no `if (tid < s)` (warp_unrolled in reduce_block.cuh).
 *
 * Departs from the seeds: their last warp is `volatile` alone and relies on the
 * lanes of a warp executing in lockstep ("instructions are synchronous within a
 * warp"). Volta and later schedule lanes independently, so one lane can
 * overwrite a value before another has read it. Here each step reads,
 * __syncwarp()s, writes and __syncwarp()s again; volatile still keeps the
 * compiler from holding shared values in registers. Elements past n load the
 * identity. The warp step reads sdata[tid + 32], so block dims start at 64.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_unroll_last_warp
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op>
__global__ void reduce_unroll_last_warp_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    sdata[tid] = load_first_add<T, Op>(in, (size_t)blockIdx.x * (2 * blockDim.x) + tid, blockDim.x, n);
    __syncthreads();

    tree_sequential<T, Op>(sdata, tid, 32);

    if (tid < 32) {
        T v = warp_unrolled<T, Op>(sdata, tid);
        if (tid == 0) block_result<T, Op>(out, v, atomic);
    }
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, 2 * a->block_dim); }

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    return launch_stage<T>(reduce_unroll_last_warp_kernel<T, Op>, grid, a->block_dim, a->block_dim * sizeof(T), src,
                           dst, count, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_unroll_last_warp_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_unroll_last_warp",
    .alias = "reduce4, reduce_v4, sum_lastwarp",
    .family = "harris",
    .description = "first add, tree down to 64 values, then the last warp unrolled (volatile + __syncwarp)",
    .limits = "block dims from 64: the unrolled warp step reads 64 shared values",
    .block_dims = BLOCKS_64_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
