/* reduce_warp_shuffle (seed 001 reduce_v6; seed 003 "warp shuffle")
 *
 * Demonstrates: reducing inside a warp with register shuffles instead of shared
 * memory. Each thread first reduces two elements (first add during load), each
 * warp folds its 32 values with __shfl_down_sync, warp leaders meet in shared
 * memory, and the first warp folds those the same way. One __syncthreads() in
 * all, no shared-memory tree.
 *
 * Departs from the seeds: seed 003 uses __shfl_xor_sync on the last warp of a
 * shared-memory tree; here the shuffle replaces the tree at both levels, which
 * is the form CUB's warp reduction takes.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_warp_shuffle
 */
#include "kernels/reduce_finish.cuh"

template <typename T, typename Op>
__global__ void reduce_warp_shuffle_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *warp_totals = shared_array<T>();
    unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    T v = i < n ? in[i] : Op::template identity<T>();
    if (i + blockDim.x < n) v = Op::apply(v, in[i + blockDim.x]);

    v = warp_reduce<T, Op>(v); /* warp.cuh: the __shfl_down_sync fold */
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_totals[lane] : Op::template identity<T>();
        v = warp_reduce<T, Op>(v);
        if (lane == 0) {
            if (atomic) atomic_combine(out, v, Op());
            else out[blockIdx.x] = v;
        }
    }
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, 2 * a->block_dim); }

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                        cudaStream_t s)
{
    reduce_warp_shuffle_kernel<T, Op><<<grid, a->block_dim, (a->block_dim / 32) * sizeof(T), s>>>(src, dst, count,
                                                                                                 atomic);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_warp_shuffle_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_warp_shuffle",
    .alias = "reduce_v6, sum_shuffle",
    .family = "shuffle",
    .description = "first add during load, then __shfl_down_sync within warps and across warp leaders",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
