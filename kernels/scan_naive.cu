/* scan_naive (seed 002 naive_scan_gpu)
 *
 * Demonstrates: the scan that parallelises the sequential loop the wrong way.
 * Thread i combines every element before it (and, inclusive, element i itself)
 * on its own: n(n+1)/2 operations and loads instead of n, and the last thread
 * runs a loop of n. Kept as the cautionary baseline for the curves of the
 * work-efficient scans; its time grows as n^2.
 *
 * Departs from the seed: threads past n return (the seed writes output[index]
 * for every launched thread), the loop index is 64-bit, and there is an
 * inclusive mode (the seed's loop stops before element i: exclusive only).
 *
 * max_n: at 2^18 elements the kernel makes 2^35 loads, which on one large GPU
 * is a few milliseconds (every warp reads the same element at the same step, so
 * the loads are broadcasts from L1); every doubling of n multiplies that by 4,
 * so 2^20 is already tens of milliseconds per launch and a sweep of 50 timed
 * launches per point would stall on it.
 *
 * Run: bazel run //harness:sweep -- --variants scan_naive --sizes 1024,65536,262144
 */
#include "kernels/common.cuh"

template <typename T, typename Op> __global__ void scan_naive_kernel(const T *in, T *out, size_t n, int exclusive)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t end = exclusive ? i : i + 1;
    T acc = Op::template identity<T>();
    for (size_t k = 0; k < end; k++) acc = Op::apply(acc, in[k]);
    out[i] = acc;
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    scan_naive_kernel<T, Op><<<(unsigned)ceil_div(a->n, a->block_dim), a->block_dim, 0, s>>>(
        (const T *)a->in, (T *)a->out, a->n, a->scan_mode == SCAN_EXCLUSIVE);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { (void)a; return 0; }
/* n read, n written; the n(n-1)/2 repeated loads hit the caches and are not counted. */
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_naive_variant = SCAN_VARIANT(
    .name = "scan_naive",
    .alias = "naive_scan_gpu",
    .family = "naive",
    .description = "each thread combines all its predecessors: O(n^2) work, the cautionary baseline",
    .limits = "n up to 2^18: n(n+1)/2 loads, a few ms at 2^18 and 4x more per doubling",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = (size_t)1 << 18);
