/* scan_lookback_vectorized (decoupled look-back at copy speed; not in the seeds)
 *
 * Demonstrates: what scan_decoupled_lookback (the textbook single pass) lacks
 * to move bytes as fast as a copy, one change per bullet (FINDINGS, "Beyond
 * CUB", measures each):
 *   - 16-byte loads and stores straight between global memory and registers,
 *     no shared-memory staging: warp w of a tile owns 32 x C consecutive
 *     elements; in row j lane l holds the 4 (f64: 2) elements of vector
 *     j*32 + l, so every load and store instruction of a warp covers 512
 *     contiguous bytes. Tiles are B x C elements, C (the variant's axis) 8 to
 *     32 items per thread.
 *   - the tile's total first, its scan later: each thread folds its items,
 *     warps fold by shuffles, warp 0 publishes the total and looks back
 *     (kernels/scan_lookback.cuh) while the other warps scan their rows
 *     (thread-local scan of each vector, one warp scan per row), so the
 *     look-back's latency hides behind the in-tile work;
 *   - no reset launch: the tile counter is put back to 0 by the block that
 *     draws the last ticket, and the status words carry the launch's epoch,
 *     which that block advances; last call's words are then simply stale.
 *     workspace_init zeroes the counter, the epoch and the words once, when
 *     the workspace is handed over. One kernel launch per call.
 *   - the last (partial) tile and unaligned pointers take guarded scalar loads
 *     and stores in the same layout, so any n >= 1 works.
 *
 * The counter and the epoch share one 64-bit word: a block reads its epoch in
 * the same atomic that draws its tile, so the last drawer's reset (which
 * follows every draw in that word's order) cannot be seen by this launch.
 *
 * Run: bazel run //harness:sweep -- --variants scan_lookback_vectorized --sizes 67108864 --axis items_per_thread=8,16,32
 */
#include <cuda/atomic>
#include <stdint.h>
#include <string.h>

#include "kernels/scan_lookback.cuh"
#include "kernels/scan_rows.cuh"

/* Look-back policy (measured: FINDINGS, "Beyond CUB"): a window of 32 x
 * LOOKBACK_WINDOW_K predecessors per L2 round trip, and the polling back-off
 * in nanoseconds. */
#define LOOKBACK_WINDOW_K 1
static const unsigned lookback_backoff_ns = 0;

/* Warp 0: the warps' totals scanned, the tile published and looked back;
 * warp_prefix[w] gets everything before warp w of this tile. */
template <unsigned K, typename T, typename Op>
__device__ inline void tile_prefix(tile_status<T> status, unsigned tile, const T *warp_totals, T *warp_prefix,
                                   unsigned backoff_ns)
{
    const unsigned lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    const T id = Op::template identity<T>();
    T inc = warp_scan_inclusive<T, Op>(lane < warps ? warp_totals[lane] : id);
    T exc = __shfl_up_sync(0xffffffffu, inc, 1);
    T before = lookback_warp<K, T, Op>(status, tile, __shfl_sync(0xffffffffu, inc, 31), backoff_ns);
    if (lane < warps) warp_prefix[lane] = lane ? Op::apply(before, exc) : before;
}

template <typename T, typename Op, unsigned C, unsigned K>
__global__ void __launch_bounds__(512)
    scan_lookback_vectorized_kernel(const T *in, T *out, size_t n, int exclusive, int aligned, tile_status<T> status,
                                    unsigned long long *header, unsigned backoff_ns)
{
    const unsigned VEC = sizeof(typename vec16<T>::type) / sizeof(T), R = C / VEC;
    __shared__ T warp_totals[32], warp_prefix[32];
    __shared__ unsigned tile_shared, epoch_shared;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) draw_tile(header, gridDim.x - 1, &tile_shared, &epoch_shared);
    __syncthreads();
    const unsigned tile = tile_shared;
    status.epoch = epoch_shared;

    const size_t start = (size_t)tile * blockDim.x * C, seg = start + (size_t)warp * 32 * C;
    const size_t left = seg < n ? n - seg : 0;
    const bool full = aligned && start + (size_t)blockDim.x * C <= n;
    T x[R][VEC], off[R];
    rows_load<T, Op, R, VEC>(x, in + seg, left, full);

    T total = rows_scan_local<T, Op, R, VEC>(x);
    total = warp_reduce_all<T, Op>(total);
    if (lane == 0) warp_totals[warp] = total;
    __syncthreads();
    if (warp == 0) tile_prefix<K, T, Op>(status, tile, warp_totals, warp_prefix, backoff_ns);
    rows_offsets<T, Op, R, VEC>(x, off); /* the other warps: while warp 0 looks back */
    __syncthreads();
    rows_apply<T, Op, R, VEC>(x, off, warp_prefix[warp], exclusive);
    rows_store<T, R, VEC>(out + seg, x, left, full);
}

/* ---- launcher ------------------------------------------------------------ */

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }
static size_t tiles_of(const kernel_args *a) { return ceil_div(a->n, tile_of(a)); }

static size_t workspace(const kernel_args *a)
{
    return lookback_layout(LOOKBACK_HEADER, tiles_of(a), dtype_size(a->dtype), NULL);
}

/* Counter, epoch and every status word to 0 (scan_lookback.cuh). */
static cudaError_t workspace_init(const kernel_args *a, cudaStream_t s)
{
    return lookback_workspace_init(a->workspace, a->workspace_bytes, tiles_of(a), dtype_size(a->dtype), s);
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_items(const kernel_args *a, cudaStream_t s)
{
    size_t tiles = tiles_of(a);
    if (!a->workspace || a->workspace_bytes < workspace(a) || tiles > 0xffffffffu) return cudaErrorInvalidValue;
    char *ws = (char *)a->workspace;
    int aligned = (((uintptr_t)a->in | (uintptr_t)a->out) & 15) == 0;
    void (*kernel)(const T *, T *, size_t, int, int, tile_status<T>, unsigned long long *, unsigned) =
        scan_lookback_vectorized_kernel<T, Op, C, LOOKBACK_WINDOW_K>;
    kernel<<<(unsigned)tiles, a->block_dim, 0, s>>>(
        (const T *)a->in, (T *)a->out, a->n, a->scan_mode == SCAN_EXCLUSIVE, aligned,
        lookback_status_at<T>(ws, LOOKBACK_HEADER, tiles, 0, (tile_status<T> *)NULL), (unsigned long long *)ws,
        lookback_backoff_ns);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(ROWS_ITEMS_LIST, a->axis[0], launch_items, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
/* n read, n written; the status words are not counted. */
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_lookback_vectorized_variant = SCAN_VARIANT(
    .name = "scan_lookback_vectorized",
    .alias = "single_pass_vectorized",
    .family = "single_pass",
    .description = "single pass, one launch: 16-byte loads to registers, warp-row scans, total published "
                   "before the tile scan, epoch-tagged status words",
    .limits = "items_per_thread 8, 16, 32; block dims 128-512 (registers: 32 items x 512 threads)",
    .block_dims = AXIS_BIT(128) | AXIS_BIT(256) | AXIS_BIT(512),
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers (whole 16-byte rows) before the tile scan",
              AXIS_SET(ROWS_ITEMS_LIST)}},
    .max_n = VARIANT_GRID_MAX_N,
    .workspace_init = workspace_init);
