/* reduce_cooperative_groups (cg::reduce; not in the seeds' code)
 *
 * Demonstrates: the warp step through Cooperative Groups instead of hand-written
 * shuffles. The block is split with cg::tiled_partition<32>, each tile folds its
 * values with cg::reduce (cg::plus / cg::greater / cg::less), tile leaders meet
 * in shared memory and the first tile folds those the same way. On sm_80 and
 * later cg::reduce compiles 32-bit integer sum/max/min to one redux.sync
 * instruction; floating point falls back to a shuffle tree. Loads are a
 * grid-stride loop over a grid capped at resident_blocks() (see
 * reduce_multi_element), so each thread first folds many elements in a register.
 *
 * The seeds mention warp-level functions (seed 003's shuffles) but no
 * Cooperative Groups code; what is new here is only the API. i32 sums are
 * reduced as unsigned (cg::plus<unsigned>) so that their wrap is defined
 * behaviour, as op_sum does.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_cooperative_groups
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "kernels/reduce_block.cuh"

namespace cg = cooperative_groups;
typedef cg::thread_block_tile<32> warp_tile;

/* cg::reduce with the functor for each operator; returned to every lane. */
__device__ inline float tile_fold(const warp_tile &w, float v, op_sum)
{
    return cg::reduce(w, v, cg::plus<float>());
}
__device__ inline double tile_fold(const warp_tile &w, double v, op_sum)
{
    return cg::reduce(w, v, cg::plus<double>());
}
__device__ inline int tile_fold(const warp_tile &w, int v, op_sum)
{
    return (int)cg::reduce(w, (unsigned)v, cg::plus<unsigned>());
}
template <typename T> __device__ inline T tile_fold(const warp_tile &w, T v, op_max)
{
    return cg::reduce(w, v, cg::greater<T>());
}
template <typename T> __device__ inline T tile_fold(const warp_tile &w, T v, op_min)
{
    return cg::reduce(w, v, cg::less<T>());
}

template <typename T, typename Op>
__global__ void reduce_cooperative_groups_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *tile_totals = shared_array<T>();
    cg::thread_block block = cg::this_thread_block();
    warp_tile tile = cg::tiled_partition<32>(block);
    unsigned tid = threadIdx.x;

    T v = Op::template identity<T>();
    size_t grid_size = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + tid; i < n; i += grid_size) v = Op::apply(v, in[i]);

    v = tile_fold(tile, v, Op());
    if (tile.thread_rank() == 0) tile_totals[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? tile_totals[tile.thread_rank()] : Op::template identity<T>();
        v = tile_fold(tile, v, Op());
        if (tile.thread_rank() == 0) block_result<T, Op>(out, v, atomic);
    }
}

static unsigned grid_for(const kernel_args *a, size_t count)
{
    return capped_grid(ceil_div(count, a->block_dim), a->block_dim);
}

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    return launch_stage<T>(reduce_cooperative_groups_kernel<T, Op>, grid, a->block_dim,
                           (a->block_dim / 32) * sizeof(T), src, dst, count, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_cooperative_groups_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_cooperative_groups",
    .alias = "cg::reduce",
    .family = "shuffle",
    .description = "grid-stride loads, then cg::reduce over tiled_partition<32> tiles and across tile leaders",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
