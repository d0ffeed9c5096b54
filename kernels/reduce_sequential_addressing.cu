/* reduce_sequential_addressing (Harris reduce2; seed 001 reduce_v2; seed 003 "reversed", sum_reversed)
 *
 * Demonstrates: reversing the stride loop. At stride s (blockDim.x/2 down to 1)
 * thread tid < s adds the element s away: active threads stay consecutive and
 * a warp reads 32 consecutive words, so the bank conflicts of
 * reduce_interleaved_strided are gone (the loop is tree_sequential in
 * reduce_block.cuh, which later rungs reuse). What is left: half the threads
 * are idle from the first step on, after only loading one element.
 *
 * Departs from the seeds: elements past n load the operator's identity (the
 * seeds assume n is a multiple of the block size); seed 003 ends every block
 * with a global atomicAdd, which is one of the three finishes here.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_sequential_addressing
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op>
__global__ void reduce_sequential_addressing_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    sdata[tid] = load_or_identity<T, Op>(in, (size_t)blockIdx.x * blockDim.x + tid, n);
    __syncthreads();

    tree_sequential<T, Op>(sdata, tid, 0);

    if (tid == 0) block_result<T, Op>(out, sdata[0], atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, a->block_dim); }

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    return launch_stage<T>(reduce_sequential_addressing_kernel<T, Op>, grid, a->block_dim, a->block_dim * sizeof(T),
                           src, dst, count, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_sequential_addressing_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_sequential_addressing",
    .alias = "reduce2, reduce_v2, sum_reversed",
    .family = "harris",
    .description = "sequential addressing, reversed stride loop (tid < s): no divergence, no bank conflicts",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
