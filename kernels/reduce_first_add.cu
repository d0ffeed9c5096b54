/* reduce_first_add (Harris reduce3; seed 001 reduce_v3; seed 003 "add first", sum_addfirst)
 *
 * Demonstrates: putting the idle half to work during the load. Each block
 * covers 2*blockDim.x elements and each thread combines two of them (blockDim.x
 * apart, so both loads coalesce) before the reduce_sequential_addressing tree:
 * half the blocks for the same n, and no thread only loads.
 *
 * Departs from the seeds: seed 000 adds g_idata[i] + g_idata1[i+blockDim.x]
 * (two arrays, and no bounds check); here both elements come from the one
 * input, and the second is combined only if it is below n (the first loads the
 * identity when it is not). The recursive finish halves the grid at every
 * level too, as seed 001 warns.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_first_add
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op>
__global__ void reduce_first_add_kernel(const T *in, T *out, size_t n, int atomic)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    sdata[tid] = load_first_add<T, Op>(in, (size_t)blockIdx.x * (2 * blockDim.x) + tid, blockDim.x, n);
    __syncthreads();

    tree_sequential<T, Op>(sdata, tid, 0);

    if (tid == 0) block_result<T, Op>(out, sdata[0], atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, 2 * a->block_dim); }

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    return launch_stage<T>(reduce_first_add_kernel<T, Op>, grid, a->block_dim, a->block_dim * sizeof(T), src, dst,
                           count, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_first_add_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_first_add",
    .alias = "reduce3, reduce_v3, sum_addfirst",
    .family = "harris",
    .description = "first add during load (two elements per thread, half the blocks), then sequential addressing",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
