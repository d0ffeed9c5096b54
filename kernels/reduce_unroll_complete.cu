/* reduce_unroll_complete (Harris reduce5; seed 001 reduce_v5; seed 000 "complete unrolling")
 *
 * Demonstrates: making the block size a compile-time constant. The kernel is a
 * template on BLOCK, so every `BLOCK >= k` test of the tree folds away and no
 * loop, counter or stride computation is left (tree_unrolled in
 * reduce_block.cuh); the launcher picks the instance for the runtime block dim
 * (64..1024), the way Harris's switch on blockSize does. Loads are those of
 * reduce_first_add; shared memory is sized statically by BLOCK.
 *
 * Departs from the seeds: seed 000's listing already has reduce6's grid-stride
 * loop (that is reduce_multi_element here); this rung keeps two elements per
 * thread so that only the unrolling changes. The last warp is volatile plus
 * __syncwarp() (see reduce_unroll_last_warp), not volatile alone; elements past
 * n load the identity; shared memory has the data's type (seed 000 uses `int`).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_unroll_complete
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op, unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_unroll_complete_kernel(const T *in, T *out, size_t n, int atomic)
{
    __shared__ T sdata[BLOCK];
    unsigned tid = threadIdx.x;
    sdata[tid] = load_first_add<T, Op>(in, (size_t)blockIdx.x * (2 * BLOCK) + tid, BLOCK, n);
    __syncthreads();

    T v = tree_unrolled<BLOCK, T, Op>(sdata, tid);
    if (tid == 0) block_result<T, Op>(out, v, atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, 2 * a->block_dim); }

template <typename T, typename Op, unsigned BLOCK>
static cudaError_t stage_block(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                               cudaStream_t s)
{
    return launch_stage<T>(reduce_unroll_complete_kernel<T, Op, BLOCK>, grid, a->block_dim, 0, src, dst, count, atomic,
                           s);
}

/* The block dims: BLOCKS_64_TO_1024_LIST, also the descriptor's set. */
template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    DISPATCH_AXIS(BLOCKS_64_TO_1024_LIST, a->block_dim, stage_block, T, Op, a, src, dst, count, grid, atomic,
                  s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_unroll_complete_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_unroll_complete",
    .alias = "reduce5, reduce_v5",
    .family = "harris",
    .description = "first add, tree completely unrolled for a compile-time block size (template on BLOCK)",
    .limits = "block dims from 64: the unrolled warp step reads 64 shared values",
    .block_dims = BLOCKS_64_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
