/* reduce_interleaved_divergent (Harris reduce0; seed 001 reduce_v0; seed 003 "tree")
 *
 * Demonstrates: the first tree reduction in shared memory. Each thread loads one
 * element; at step s, threads whose id is a multiple of 2s add the element s
 * away. The `tid % (2*s)` test leaves most lanes of every warp idle (divergent
 * warps) and `%` is slow: this is the baseline the ladder improves on.
 *
 * Departs from the seeds: elements past n load the operator's identity (the
 * seeds assume n is a multiple of the block size), and shared memory has the
 * data's type (seed 000 declares it `int` while adding floats).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_interleaved_divergent
 */
#include "kernels/reduce_finish.cuh"

template <typename T, typename Op>
__global__ void reduce_interleaved_divergent_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : Op::template identity<T>();
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] = Op::apply(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }

    if (tid == 0) {
        if (atomic) atomic_combine(out, sdata[0], Op());
        else out[blockIdx.x] = sdata[0];
    }
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, a->block_dim); }

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                        cudaStream_t s)
{
    reduce_interleaved_divergent_kernel<T, Op><<<grid, a->block_dim, a->block_dim * sizeof(T), s>>>(src, dst, count,
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

extern "C" const variant reduce_interleaved_divergent_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_interleaved_divergent",
    .alias = "reduce0, reduce_v0, sum_reduce",
    .family = "harris",
    .description = "interleaved addressing, divergent tid % (2*s) branch; one element per thread",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
