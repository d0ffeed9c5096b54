/* reduce_atomic_shared (seed 003 "shared atomic op", sum_shared.cu)
 *
 * Demonstrates: moving the contention into shared memory. Each thread combines
 * its element into one shared-memory accumulator with a block-scope atomic
 * (atomicAdd_block), then one thread per block combines the block's total into
 * the global result: n/blockDim global atomics instead of n.
 *
 * Departs from the seed: the result is reset by the launcher on every call, and
 * the shared accumulator is initialised by one thread before a barrier (the
 * seed initialises it without ordering the other threads' atomics after it).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_atomic_shared
 */
#include "kernels/common.cuh"

template <typename T, typename Op>
__global__ void reduce_atomic_shared_kernel(const T *in, T *out, size_t n)
{
    __shared__ T block_total;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) block_total = Op::template identity<T>();
    __syncthreads();
    if (i < n) atomic_combine_block(&block_total, in[i], Op());
    __syncthreads();
    if (threadIdx.x == 0) atomic_combine(out, block_total, Op());
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    T *out = (T *)a->out;
    fill_identity_kernel<T, Op><<<1, 1, 0, s>>>(out);
    RETURN_IF_LAUNCH_FAILED();
    reduce_atomic_shared_kernel<T, Op><<<(unsigned)ceil_div(a->n, a->block_dim), a->block_dim, 0, s>>>(
        (const T *)a->in, out, a->n);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

/* Only the (dtype, op) pairs with block-scope atomics are instantiated. */
template <typename T, typename Op> static cudaError_t launch_supported(const kernel_args *a, cudaStream_t s)
{
    return launch_typed<T, Op>(a, s);
}
template <> cudaError_t launch_supported<float, op_max>(const kernel_args *, cudaStream_t) { return cudaErrorInvalidValue; }
template <> cudaError_t launch_supported<float, op_min>(const kernel_args *, cudaStream_t) { return cudaErrorInvalidValue; }
template <> cudaError_t launch_supported<double, op_max>(const kernel_args *, cudaStream_t) { return cudaErrorInvalidValue; }
template <> cudaError_t launch_supported<double, op_min>(const kernel_args *, cudaStream_t) { return cudaErrorInvalidValue; }

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_supported, a, s); }
static size_t workspace(const kernel_args *a) { (void)a; return 0; }
static double bytes(const kernel_args *a) { return (a->n + 1.0) * dtype_size(a->dtype); }

extern "C" const variant reduce_atomic_shared_variant = REDUCE_VARIANT(
    .name = "reduce_atomic_shared",
    .alias = "sum_shared",
    .family = "atomic",
    .description = "block-scope shared-memory atomic per element, then one global atomic per block",
    .excluded_pairs = FLOAT_MAX_MIN_PAIRS,
    .limits = "max/min only for i32: there is no native float atomicMax_block/atomicMin_block",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
