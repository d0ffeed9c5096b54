/* reduce_cub (baseline; not from the seeds)
 *
 * Demonstrates: what a tuned library reaches. cub::DeviceReduce picks its own
 * block size, items per thread and vector loads for the GPU it was compiled
 * for, and for large n runs two kernels (per-tile partials, then one tile).
 * Every sweep measures it at each n beside the hand-written variants. Block dim
 * and coarse factor are CUB's own: the axes accept only the sweep's nominal 256.
 *
 * C++ because CUB is a C++ template library; the launcher is plain C.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_cub
 */
#include <climits>
#include <cstdint>

#include <cub/device/device_reduce.cuh>

#include "kernels/common.cuh"

/* The count's type picks CUB's offset type (cub/detail/choose_offset.cuh):
 * int gives 32-bit offsets, int64_t 64-bit ones. Below 2^31 we pass int,
 * as CUB's users mostly do and as every earlier run measured (64-bit offsets
 * cost ~6 % for 8-bit items at 2^28, cccl PR #2171); from 2^31 on, int64_t.
 * The workspace query goes through the same choice, so its size matches. */
template <typename T, typename Op> struct cub_call;
template <typename T> struct cub_call<T, op_sum> {
    template <typename N> static cudaError_t call(void *ws, size_t &bytes, const T *in, T *out, N n, cudaStream_t s)
    {
        return cub::DeviceReduce::Sum(ws, bytes, in, out, n, s);
    }
};
template <typename T> struct cub_call<T, op_max> {
    template <typename N> static cudaError_t call(void *ws, size_t &bytes, const T *in, T *out, N n, cudaStream_t s)
    {
        return cub::DeviceReduce::Max(ws, bytes, in, out, n, s);
    }
};
template <typename T> struct cub_call<T, op_min> {
    template <typename N> static cudaError_t call(void *ws, size_t &bytes, const T *in, T *out, N n, cudaStream_t s)
    {
        return cub::DeviceReduce::Min(ws, bytes, in, out, n, s);
    }
};

template <typename T, typename Op>
static cudaError_t cub_run(void *ws, size_t &bytes, const T *in, T *out, size_t n, cudaStream_t s)
{
    if (n <= (size_t)INT_MAX) return cub_call<T, Op>::call(ws, bytes, in, out, (int)n, s);
    return cub_call<T, Op>::call(ws, bytes, in, out, (int64_t)n, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    size_t bytes = a->workspace_bytes;
    return cub_run<T, Op>(a->workspace, bytes, (const T *)a->in, (T *)a->out, a->n, s);
}

/* CUB's query: with a NULL workspace it only reports the bytes it needs. */
template <typename T, typename Op> static size_t workspace_typed(const kernel_args *a)
{
    size_t bytes = 0;
    if (cub_run<T, Op>(NULL, bytes, NULL, NULL, a->n, 0) != cudaSuccess) return 0;
    return bytes;
}

template <typename T, typename Op> static cudaError_t workspace_query(const kernel_args *a, size_t *bytes)
{
    *bytes = workspace_typed<T, Op>(a);
    return cudaSuccess;
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a)
{
    size_t bytes = 0;
    struct query {
        static cudaError_t run(const kernel_args *a, size_t *b) { DISPATCH_DTYPE_OP(a, workspace_query, a, b); }
    };
    query::run(a, &bytes);
    return bytes;
}
/* n read, one result written; CUB's partials are not counted. */
static double bytes(const kernel_args *a) { return (a->n + 1.0) * dtype_size(a->dtype); }

extern "C" const variant reduce_cub_variant = REDUCE_VARIANT(
    .name = "reduce_cub",
    .alias = "cub::DeviceReduce",
    .family = "cub",
    .description = "cub::DeviceReduce::Sum/Max/Min, the library baseline",
    .limits = "block dim and items per thread are CUB's own choice: only the nominal 256 x 1 is accepted",
    .block_dims = AXIS_BIT(256));
