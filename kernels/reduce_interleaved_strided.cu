/* reduce_interleaved_strided (Harris reduce1; seed 001 reduce_v1; seed 000 "divergence execution")
 *
 * Demonstrates: the first fix of the ladder. The same interleaved pairs as
 * reduce_interleaved_divergent, but thread tid works on index 2*s*tid, so the
 * active threads at every step are the lowest-numbered ones: whole warps are
 * either busy or idle (no divergence inside a warp) and the `%` is gone. The
 * cost it exposes: at step s a warp touches words 2*s apart, so several lanes
 * hit the same shared-memory bank (bank conflicts), which reduce_sequential_addressing
 * removes next.
 *
 * Departs from the seeds: elements past n load the operator's identity (the
 * seeds assume n is a multiple of the block size), and shared memory has the
 * data's type (seed 000 declares it `int` while adding floats).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_interleaved_strided
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op>
__global__ void reduce_interleaved_strided_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    sdata[tid] = load_or_identity<T, Op>(in, (size_t)blockIdx.x * blockDim.x + tid, n);
    __syncthreads();

    /* blockDim.x is a power of two, so idx < blockDim.x implies idx + s < blockDim.x. */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned idx = 2 * s * tid;
        if (idx < blockDim.x) sdata[idx] = Op::apply(sdata[idx], sdata[idx + s]);
        __syncthreads();
    }

    if (tid == 0) block_result<T, Op>(out, sdata[0], atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, a->block_dim); }

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    return launch_stage<T>(reduce_interleaved_strided_kernel<T, Op>, grid, a->block_dim, a->block_dim * sizeof(T), src,
                           dst, count, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_interleaved_strided_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_interleaved_strided",
    .alias = "reduce1, reduce_v1",
    .family = "harris",
    .description = "interleaved addressing with strided index 2*s*tid: no divergence, but shared-memory bank conflicts",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
