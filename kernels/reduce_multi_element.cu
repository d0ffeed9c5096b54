/* reduce_multi_element (Harris reduce6; seed 000 "unroll first iteration", last listing)
 *
 * Demonstrates: many elements per thread (algorithm cascading). The grid is
 * capped, and each thread walks the input with a grid-stride loop, combining
 * in[i] and in[i + BLOCK] per step (both loads coalesce) in a register; only
 * then does the block meet in shared memory for the completely unrolled tree
 * of reduce_unroll_complete. The work per element becomes a load and an add;
 * the tree's cost is paid once per block instead of once per 2*BLOCK elements.
 *
 * The cap is resident_blocks() (reduce_block.cuh): SM count x (resident
 * threads per SM / block dim), queried once and cached. That is one full wave
 * of blocks: every SM is busy and each thread reduces about n / (grid*BLOCK)
 * elements, whereas a larger grid would only add block start-ups and partials.
 *
 * Departs from the seeds: seed 000 adds g_idata[i] + g_idata[i + blockSize]
 * with no bounds check on the second element (out of bounds whenever n is not
 * a multiple of 2*blockSize) and accumulates in shared memory; here the second
 * load is checked, the sum stays in a register, and elements are combined
 * with the operator starting from its identity. The last warp is volatile plus
 * __syncwarp() (see reduce_unroll_last_warp).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_multi_element
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op, unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_multi_element_kernel(const T *in, T *out, size_t n, int atomic)
{
    __shared__ T sdata[BLOCK];
    unsigned tid = threadIdx.x;
    size_t grid_size = (size_t)(2 * BLOCK) * gridDim.x;
    T v = Op::template identity<T>();
    for (size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid; i < n; i += grid_size) {
        v = Op::apply(v, in[i]);
        if (i + BLOCK < n) v = Op::apply(v, in[i + BLOCK]);
    }
    sdata[tid] = v;
    __syncthreads();

    v = tree_unrolled<BLOCK, T, Op>(sdata, tid);
    if (tid == 0) block_result<T, Op>(out, v, atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count)
{
    return capped_grid(ceil_div(count, 2 * a->block_dim), a->block_dim);
}

template <typename T, typename Op, unsigned BLOCK>
static cudaError_t stage_block(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                               cudaStream_t s)
{
    return launch_stage<T>(reduce_multi_element_kernel<T, Op, BLOCK>, grid, a->block_dim, 0, src, dst, count, atomic,
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

extern "C" const variant reduce_multi_element_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_multi_element",
    .alias = "reduce6",
    .family = "harris",
    .description = "grid-stride loop, many elements per thread in a register, grid capped at one wave; complete unroll",
    .limits = "block dims from 64: the unrolled warp step reads 64 shared values",
    .block_dims = BLOCKS_64_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
