/* reduce_coarsened (seed 002 reduce_coarsening_gpu)
 *
 * Demonstrates: thread coarsening with a compile-time coarse factor. Each block
 * owns COARSE * blockDim.x consecutive elements; thread t combines the COARSE
 * elements t, t + blockDim.x, ... of its block's segment (each step a
 * coalesced load) in a register, then the block reduces in shared memory with
 * the tree of reduce_sequential_addressing. The block count falls by COARSE;
 * registers are cheaper than shared memory, but a large COARSE means fewer
 * blocks to hide latency with. The coarse axis (1..64) is args->axis[0]; the
 * launcher picks the template instance for it, so the loop unrolls fully.
 *
 * Departs from the seed: seed 002 reads input[t + tile*BLOCK_DIM] with no
 * bounds check (out of bounds unless n is a multiple of COARSE*BLOCK_DIM) and
 * sizes shared memory by a BLOCK_DIM macro that must match the launch; here
 * elements past n are skipped (combining the identity), and shared memory is
 * dynamic, sized by the launch's block dim. Partials are written per block
 * (or combined atomically under the atomic finish, which the seed mentions).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_coarsened --axis items_per_thread=1,4,16,64
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op, unsigned COARSE>
__global__ void reduce_coarsened_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * blockDim.x * COARSE + tid;
    T v = Op::template identity<T>();
#pragma unroll
    for (unsigned tile = 0; tile < COARSE; tile++) {
        size_t i = base + (size_t)tile * blockDim.x;
        if (i < n) v = Op::apply(v, in[i]);
    }
    sdata[tid] = v;
    __syncthreads();

    tree_sequential<T, Op>(sdata, tid, 0);

    if (tid == 0) block_result<T, Op>(out, sdata[0], atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count)
{
    return (unsigned)ceil_div(count, (size_t)a->block_dim * a->axis[0]);
}

template <typename T, typename Op, unsigned COARSE>
static cudaError_t stage_coarse(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                                cudaStream_t s)
{
    return launch_stage<T>(reduce_coarsened_kernel<T, Op, COARSE>, grid, a->block_dim, a->block_dim * sizeof(T), src,
                           dst, count, atomic, s);
}

/* The coarse factors: COARSE_1_TO_64_LIST, also the descriptor's set. */
template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    DISPATCH_AXIS(COARSE_1_TO_64_LIST, a->axis[0], stage_coarse, T, Op, a, src, dst, count, grid, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_coarsened_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_coarsened",
    .alias = "reduce_coarsening_gpu (seed 002)",
    .family = "coarsening",
    .description = "thread coarsening: COARSE elements per thread summed in registers, then a shared-memory tree",
    .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread adds in registers before the block's shared-memory tree",
              COARSE_1_TO_64}},
    .max_n = VARIANT_GRID_MAX_N);
