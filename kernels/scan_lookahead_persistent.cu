/* scan_lookahead_persistent (decoupled look-ahead, persistent blocks; not in
 * the seeds; after CCCL's single-pass "warpspeed" scan, cccl PR #6811)
 *
 * Demonstrates: the step past scan_lookback_vectorized, whose tiles wait on
 * each other's look-backs: a tile can publish INCLUSIVE only once its own
 * look-back is done, so with hundreds of tiles in flight the nearest
 * INCLUSIVE tile falls far behind and every look-back walks many windows.
 * Here no tile ever waits on another's look-back:
 *   - persistent blocks: the grid holds as many blocks as fit on the chip at
 *     once (the occupancy query), each takes tile after tile from the counter
 *     and draws its next ticket while it works on the current tile;
 *   - look-ahead instead of look-back: a tile publishes only its AGGREGATE;
 *     the block carries the prefix of everything up to its previous tile, and
 *     for the next one folds the aggregates of the tiles drawn in between
 *     (lookahead_warp: up to 256 tiles per L2 round trip), which wait only
 *     for those tiles' loads;
 *   - the tile itself as in scan_lookback_vectorized (kernels/scan_rows.cuh:
 *     16-byte loads and stores, warp-row scans in registers), the fold of the
 *     tile's total before its scan, warp 0 looking ahead while the other warps
 *     scan their rows;
 *   - one launch per call: the launch's last draw (tiles + grid draws in all:
 *     each block draws once more than it has tiles) resets the counter and
 *     advances the epoch of the status words (kernels/scan_lookback.cuh).
 *
 * Run: bazel run //harness:sweep -- --variants scan_lookahead_persistent --sizes 268435456 --coarse 8,16,32
 */
#include <stdint.h>
#include <stdlib.h> /* PROBE */

#include "kernels/scan_lookback.cuh"
#include "kernels/scan_rows.cuh"

/* Polling back-off of the look-ahead, nanoseconds (measured: FINDINGS, "Beyond CUB"). */
static const unsigned lookahead_backoff_ns = 0;

/* Warp 0: publishes the tile's AGGREGATE, folds the tiles drawn since its
 * block's previous one into *carry (everything before this tile, then through
 * it), and leaves in warp_prefix[w] everything before warp w of the tile. */
template <typename T, typename Op>
__device__ inline void tile_prefix_ahead(tile_status<T> status, unsigned tile, unsigned *next_unseen, T *carry,
                                         const T *warp_totals, T *warp_prefix, unsigned backoff_ns)
{
    const unsigned lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    const T id = Op::template identity<T>();
    T inc = warp_scan_inclusive<T, Op>(lane < warps ? warp_totals[lane] : id);
    T exc = __shfl_up_sync(0xffffffffu, inc, 1);
    T total = __shfl_sync(0xffffffffu, inc, 31);
    if (lane == 0) status.publish(tile, TILE_AGGREGATE, total);
    T before = Op::apply(*carry, lookahead_warp<T, Op>(status, *next_unseen, tile, backoff_ns));
    if (lane < warps) warp_prefix[lane] = lane ? Op::apply(before, exc) : before;
    *carry = Op::apply(before, total);
    *next_unseen = tile + 1;
}

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(512)
    scan_lookahead_persistent_kernel(const T *in, T *out, size_t n, unsigned tiles, int exclusive, int aligned,
                                     tile_status<T> status, unsigned long long *header, unsigned backoff_ns)
{
    const unsigned VEC = sizeof(typename vec16<T>::type) / sizeof(T), R = C / VEC;
    __shared__ T warp_totals[32], warp_prefix[32];
    __shared__ unsigned ticket[2], epoch_shared;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, last_draw = tiles + gridDim.x - 1;
    if (threadIdx.x == 0) draw_tile(header, last_draw, &ticket[0], &epoch_shared);
    __syncthreads();
    status.epoch = epoch_shared;
    T carry = Op::template identity<T>(); /* warp 0: everything through this block's previous tile */
    unsigned next_unseen = 0;             /* warp 0: the first tile carry does not cover */

    for (unsigned it = 0;; it++) {
        const unsigned tile = ticket[it & 1];
        if (tile >= tiles) break;
        unsigned e;
        if (threadIdx.x == 0) draw_tile(header, last_draw, &ticket[(it + 1) & 1], &e); /* read after two barriers */

        const size_t start = (size_t)tile * blockDim.x * C, seg = start + (size_t)warp * 32 * C;
        const size_t left = seg < n ? n - seg : 0;
        const bool full = aligned && start + (size_t)blockDim.x * C <= n;
        T x[R][VEC], off[R];
        rows_load<T, Op, R, VEC>(x, in + seg, left, full);
        T total = rows_scan_local<T, Op, R, VEC>(x);
        for (int d = 16; d > 0; d >>= 1) total = Op::apply(total, __shfl_xor_sync(0xffffffffu, total, d));
        if (lane == 0) warp_totals[warp] = total;
        __syncthreads();
        if (warp == 0) tile_prefix_ahead<T, Op>(status, tile, &next_unseen, &carry, warp_totals, warp_prefix, backoff_ns);
        rows_offsets<T, Op, R, VEC>(x, off); /* the other warps: while warp 0 looks ahead */
        __syncthreads();
        rows_apply<T, Op, R, VEC>(x, off, warp_prefix[warp], exclusive);
        rows_store<T, R, VEC>(out + seg, x, left, full);
    }
}

/* ---- launcher ------------------------------------------------------------ */

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->coarse; }
static size_t tiles_of(const kernel_args *a) { return ceil_div(a->n, tile_of(a)); }

static size_t workspace(const kernel_args *a)
{
    return lookback_layout(LOOKBACK_HEADER, tiles_of(a), dtype_size(a->dtype), NULL);
}

/* Counter, epoch and every status word to 0 (status 0 is INVALID in any epoch). */
static cudaError_t workspace_init(const kernel_args *a, cudaStream_t s)
{
    size_t status_end;
    size_t need = lookback_layout(LOOKBACK_HEADER, tiles_of(a), dtype_size(a->dtype), &status_end);
    if (!a->workspace || a->workspace_bytes < need) return cudaErrorInvalidValue;
    return cudaMemsetAsync(a->workspace, 0, status_end, s);
}

/* Blocks of block_dim threads of this kernel instance the chip holds at once. */
static unsigned resident_grid(const void *kernel, unsigned block_dim)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block_dim, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 132u;
    }
    return (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_items(const kernel_args *a, cudaStream_t s)
{
    size_t tiles = tiles_of(a);
    if (!a->workspace || a->workspace_bytes < workspace(a) || tiles >= 0x7fffffffu) return cudaErrorInvalidValue;
    const void *kernel = (const void *)scan_lookahead_persistent_kernel<T, Op, C>;
    unsigned grid = resident_grid(kernel, a->block_dim);
    if (grid > tiles) grid = (unsigned)tiles;
    char *ws = (char *)a->workspace;
    int aligned = (((uintptr_t)a->in | (uintptr_t)a->out) & 15) == 0;
    scan_lookahead_persistent_kernel<T, Op, C><<<grid, a->block_dim, 0, s>>>(
        (const T *)a->in, (T *)a->out, a->n, (unsigned)tiles, a->scan_mode == SCAN_EXCLUSIVE, aligned,
        lookback_status_at<T>(ws, LOOKBACK_HEADER, tiles, 0, (tile_status<T> *)NULL), (unsigned long long *)ws,
        getenv("SCAN_BACKOFF_NS") ? (unsigned)atoi(getenv("SCAN_BACKOFF_NS")) : lookahead_backoff_ns); /* PROBE */
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

/* Items per thread: the compile-time instances (coarse_factors below). */
template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    switch (a->coarse) {
    case 8: return launch_items<T, Op, 8>(a, s);
    case 16: return launch_items<T, Op, 16>(a, s);
    case 32: return launch_items<T, Op, 32>(a, s);
    default: return cudaErrorInvalidValue;
    }
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_lookahead_persistent_variant = {
    .name = "scan_lookahead_persistent",
    .alias = "lookahead",
    .family = "single_pass",
    .description = "single pass, one launch, persistent blocks: tiles publish aggregates only, each block carries "
                   "its prefix forward (decoupled look-ahead)",
    .kind = KIND_SCAN,
    .dtypes = DTYPES_ALL,
    .ops = OPS_ALL,
    .excluded_pairs = 0,
    .limits = "items per thread (coarse) 8, 16, 32; block dims 128-512 (registers: 32 items x 512 threads)",
    .block_dims = AXIS_BIT(128) | AXIS_BIT(256) | AXIS_BIT(512),
    .coarse_factors = AXIS_BIT(8) | AXIS_BIT(16) | AXIS_BIT(32),
    .finishes = 0,
    .scan_modes = SCAN_BOTH,
    .max_n = 0,
    .bytes_model = "2n elements (reads n, writes n); status words and the look-ahead's reads of them not counted",
    .bytes_moved = bytes,
    .workspace_size = workspace,
    .launch = launch,
    .workspace_init = workspace_init,
};
