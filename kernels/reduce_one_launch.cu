/* reduce_one_launch (a reduction at launch speed; not in the seeds)
 *
 * Demonstrates: a whole reduction in exactly one kernel launch per call, the
 * step past reduce_vectorized_single_pass (one kernel, but a memset launch
 * before it to zero its ticket) and CUB (two kernels: block partials, then
 * one block). Below about 2^22 elements a launch costs more than the data, so
 * the launches are what is left to save:
 *   - no set-up launch: the block that draws the last ticket folds the
 *     partials and puts the ticket back to 0 for the next call;
 *     workspace_init zeroes it once, when the workspace is handed over;
 *   - no fence on a block's way out (f32, i32): partials are epoch-tagged
 *     words the last block polls (kernels/reduce_one_launch.cuh);
 *   - the grid from n: enough blocks for every thread to have its U vectors
 *     (U = the coarse factor: independent 16-byte loads in flight per thread
 *     and step), never more than fill the chip once (resident_blocks); a
 *     grid of one block writes its result directly, no ticket at all;
 *   - 16-byte loads in a grid-stride loop (vector_fold), shuffle block fold;
 *   - a dependent launch (kernels/dependent_launch.cuh): the next call's
 *     blocks are placed while this one finishes and wait on the hardware for
 *     its end, so back-to-back calls do not pay a launch each.
 * Partials are folded in block order by one block, so float results do not
 * depend on which block finishes first (unlike an atomic per block, whose
 * float sums change with the order the blocks arrive in).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_one_launch --sizes 65536,4194304 --axis vectors_in_flight=1,2,4,8
 */
#include "kernels/dependent_launch.cuh"
#include "kernels/reduce_block.cuh"
#include "kernels/reduce_one_launch.cuh"

template <typename T, typename Op, unsigned U>
__global__ void reduce_one_launch_kernel(const T *in, T *out, size_t n, unsigned long long *header,
                                         unsigned long long *partials)
{
    __shared__ T warp_totals[32];
    dependent_launch_wait(); /* the kernel before has finished: its ticket reset and its writes are in */
    dependent_launch_trigger();
    T v = block_reduce<T, Op>(vector_fold<T, Op, U>(in, n), warp_totals);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = v;
        return;
    }
    finish_one_launch<T, Op>(v, header, partials, out, warp_totals);
}

/* ---- launcher ------------------------------------------------------------ */

static unsigned grid_for(const kernel_args *a)
{
    size_t vectors = ceil_div(a->n, 16 / dtype_size(a->dtype));
    return capped_grid(ceil_div(vectors, (size_t)a->block_dim * a->axis[0]), a->block_dim);
}

static size_t workspace(const kernel_args *a) { return one_launch_workspace(a, grid_for(a)); }
static cudaError_t workspace_init(const kernel_args *a, cudaStream_t s)
{
    return one_launch_workspace_init(a, grid_for(a), s);
}

template <typename T, typename Op, unsigned U> static cudaError_t launch_unrolled(const kernel_args *a, cudaStream_t s)
{
    unsigned long long *header, *partials;
    if (!a->workspace || a->workspace_bytes < one_launch_layout(a, grid_for(a), &header, &partials))
        return cudaErrorInvalidValue;
    return launch_dependent(reduce_one_launch_kernel<T, Op, U>, grid_for(a), a->block_dim, 0, s, (const T *)a->in,
                            (T *)a->out, a->n, header, partials);
}

/* Vectors in flight per thread (the variant's axis): the compile-time instances,
 * also the values of the descriptor's axis. */
#define VECTORS_IN_FLIGHT_LIST(X, ...) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(4, __VA_ARGS__) X(8, __VA_ARGS__)

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(VECTORS_IN_FLIGHT_LIST, a->axis[0], launch_unrolled, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }

static double bytes(const kernel_args *a) { return one_launch_bytes(a, grid_for(a)); }

extern "C" const variant reduce_one_launch_variant = REDUCE_VARIANT(
    .name = "reduce_one_launch",
    .alias = "one_launch",
    .family = "single_pass",
    .description = "one launch per call: 16-byte loads, U in flight, grid from n, last block folds the partials "
                   "and resets its ticket; a dependent launch overlaps the next call's start",
    .limits = "vectors_in_flight: 1, 2, 4, 8",
    .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"vectors_in_flight", "16-byte vectors per thread",
              "16-byte loads each thread issues before it adds any of them (memory-level parallelism)",
              AXIS_SET(VECTORS_IN_FLIGHT_LIST)}},
    .max_n = VARIANT_GRID_MAX_N,
    .workspace_init = workspace_init);
