/* scan_cub (baseline; not from the seeds)
 *
 * Demonstrates: what a tuned library reaches. cub::DeviceScan is a single-pass
 * decoupled look-back scan (the technique of scan_decoupled_lookback) with its
 * own tile size, items per thread, vector loads and look-back tuning for the
 * GPU it was compiled for. Sums use InclusiveSum / ExclusiveSum; max and min
 * use InclusiveScan / ExclusiveScan with cuda::maximum / cuda::minimum, the
 * exclusive ones seeded with the operator's identity (out[0] = identity, as
 * for every scan here). Block dim and items per thread are CUB's own: the axes
 * accept only the sweep's nominal 256 x 1.
 *
 * C++ because CUB is a C++ template library; the launcher is plain C.
 *
 * Run: bazel run //harness:sweep -- --variants scan_cub
 */
#include <climits>
#include <cstdint>

#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include "kernels/common.cuh"

template <typename Op> struct cub_op;
template <> struct cub_op<op_max> { typedef cuda::maximum<> type; };
template <> struct cub_op<op_min> { typedef cuda::minimum<> type; };

/* With ws == NULL the calls only report the bytes they need. The count's
 * type picks CUB's offset type (cub/detail/choose_offset.cuh): int gives
 * 32-bit offsets, int64_t 64-bit ones. Below 2^31 we pass int, as every
 * earlier run measured (64-bit offsets cost ~6 % for 8-bit items at 2^28,
 * cccl PR #2171); from 2^31 on, int64_t. The workspace query goes through the
 * same choice, so its size matches the launch's. */
template <typename T, typename Op> struct cub_scan {
    template <typename N>
    static cudaError_t call(void *ws, size_t &bytes, const T *in, T *out, N n, scan_mode_t mode, cudaStream_t s)
    {
        typename cub_op<Op>::type op;
        if (mode == SCAN_EXCLUSIVE)
            return cub::DeviceScan::ExclusiveScan(ws, bytes, in, out, op, Op::template identity<T>(), n, s);
        return cub::DeviceScan::InclusiveScan(ws, bytes, in, out, op, n, s);
    }
};
template <typename T> struct cub_scan<T, op_sum> {
    template <typename N>
    static cudaError_t call(void *ws, size_t &bytes, const T *in, T *out, N n, scan_mode_t mode, cudaStream_t s)
    {
        if (mode == SCAN_EXCLUSIVE) return cub::DeviceScan::ExclusiveSum(ws, bytes, in, out, n, s);
        return cub::DeviceScan::InclusiveSum(ws, bytes, in, out, n, s);
    }
};

template <typename T, typename Op>
static cudaError_t cub_scan_run(void *ws, size_t &bytes, const T *in, T *out, size_t n, scan_mode_t mode,
                                cudaStream_t s)
{
    if (n <= (size_t)INT_MAX) return cub_scan<T, Op>::call(ws, bytes, in, out, (int)n, mode, s);
    return cub_scan<T, Op>::call(ws, bytes, in, out, (int64_t)n, mode, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    size_t bytes = a->workspace_bytes;
    if (!a->workspace) return cudaErrorInvalidValue; /* CUB would take a NULL workspace as a size query and do nothing */
    return cub_scan_run<T, Op>(a->workspace, bytes, (const T *)a->in, (T *)a->out, a->n, a->scan_mode, s);
}

template <typename T, typename Op> static cudaError_t workspace_query(const kernel_args *a, size_t *bytes)
{
    *bytes = 0;
    return cub_scan_run<T, Op>(NULL, *bytes, NULL, NULL, a->n, a->scan_mode, 0);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static cudaError_t query(const kernel_args *a, size_t *bytes) { DISPATCH_DTYPE_OP(a, workspace_query, a, bytes); }
static size_t workspace(const kernel_args *a)
{
    size_t bytes = 0;
    return query(a, &bytes) == cudaSuccess ? bytes : 0;
}
/* n read, n written; CUB's tile status words are not counted. */
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_cub_variant = SCAN_VARIANT(
    .name = "scan_cub",
    .alias = "cub::DeviceScan",
    .family = "cub",
    .description = "cub::DeviceScan Inclusive/ExclusiveSum, Inclusive/ExclusiveScan with max/min: the library baseline",
    .limits = "block dim and items per thread are CUB's own choice: only the nominal 256 x 1 is accepted",
    .block_dims = AXIS_BIT(256));
