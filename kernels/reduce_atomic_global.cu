/* reduce_atomic_global (seed 003 "atomic op", sum_atomic.cu)
 *
 * Demonstrates: the most direct parallel reduction - every thread combines its
 * one element into a single global result with an atomic. Correct, but all n
 * atomics serialize on one address: the cautionary baseline of seed 003
 * (25.9 ms for 16M floats there, slower than the CPU).
 *
 * Departs from the seed: the result is reset to the operator's identity by the
 * launcher on every call (the seed's `__device__ float dev_sum = 0` is zero only
 * at module load, so a second call would add to the first call's sum).
 *
 * Run: bazel run //harness:sweep -- --variants reduce_atomic_global
 */
#include "kernels/common.cuh"

template <typename T, typename Op>
__global__ void reduce_atomic_global_kernel(const T *in, T *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_combine(out, in[i], Op());
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    T *out = (T *)a->out;
    fill_identity_kernel<T, Op><<<1, 1, 0, s>>>(out);
    RETURN_IF_LAUNCH_FAILED();
    reduce_atomic_global_kernel<T, Op><<<(unsigned)ceil_div(a->n, a->block_dim), a->block_dim, 0, s>>>(
        (const T *)a->in, out, a->n);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { (void)a; return 0; }
static double bytes(const kernel_args *a) { return (a->n + 1.0) * dtype_size(a->dtype); }

extern "C" const variant reduce_atomic_global_variant = REDUCE_VARIANT(
    .name = "reduce_atomic_global",
    .alias = "sum_atomic",
    .family = "atomic",
    .description = "one global atomic per element into a single result",
    .excluded_pairs = FLOAT_MAX_MIN_PAIRS,
    .limits = "max/min only for i32: f32/f64 have no native atomicMax/atomicMin, and a compare-and-swap "
              "loop per element would measure CAS contention, not this technique; n up to 2^26: beyond, an f32 "
              "running sum stalls at 2^25 (addends below half an ulp) and one launch takes over 100 ms",
    .block_dims = BLOCKS_32_TO_1024,
    /* Past about 2^26 elements of [-0.5, 1.5) an f32 running sum reaches 2^25,
     * where every addend is below half an ulp: the sum stops growing (measured
     * on an H200: 2^28 elements summed to 33554432 = 2^25, 4x too small), and
     * one launch takes over 100 ms. */
    .max_n = (size_t)1 << 26);
