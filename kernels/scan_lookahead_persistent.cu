/* scan_lookahead_persistent (decoupled look-ahead, persistent blocks; not in
 * the seeds; after CCCL's single-pass "warpspeed" scan, cccl PR #6811)
 *
 * Demonstrates: the step past scan_lookback_vectorized, whose tiles wait on
 * each other's look-backs: a tile can publish INCLUSIVE only once its own
 * look-back is done, so with hundreds of tiles in flight the nearest
 * INCLUSIVE tile falls far behind and every look-back walks many windows.
 * Here no tile ever waits on another's look-back:
 *   - persistent blocks: the grid holds as many blocks as fit on the chip at
 *     once (the occupancy query), each takes tile after tile from the counter;
 *   - the next tile in flight while this one waits: a block knows its next
 *     tile one iteration ahead and copies it with cp.async into the second of
 *     two shared-memory stages (bytes in flight without registers), then
 *     draws the ticket after it. Without this, every block loads, then waits
 *     for the others' aggregates, then stores, all in step (a convoy that kept
 *     the register-only version at 0.73x CUB at 2^28: FINDINGS);
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

#include "kernels/scan_hierarchical.cuh"
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

/* The next tile's full vectors into this thread's own slots of a shared
 * stage with cp.async (16 bytes each, L2 only): the bytes are in flight
 * without holding registers, and since each thread later reads back only what
 * it copied, waiting for its own copies is enough (no barrier). */
template <typename T, unsigned R>
__device__ inline void stage_copy(T *stage, const T *seg_in, unsigned warp_offset)
{
    const unsigned lane = threadIdx.x & 31;
    typedef typename vec16<T>::type V;
#pragma unroll
    for (unsigned j = 0; j < R; j++) {
        unsigned dst = (unsigned)__cvta_generic_to_shared((V *)(stage + warp_offset) + j * 32 + lane);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"((const V *)seg_in + j * 32 + lane)
                     : "memory");
    }
}

__device__ inline void stage_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ inline void stage_wait_previous() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }

/* Tile t is full and vector-aligned: it comes through a stage. */
__device__ inline bool staged(unsigned t, unsigned tiles, size_t n, size_t tile_elems, int aligned)
{
    return t < tiles && aligned && ((size_t)t + 1) * tile_elems <= n;
}

/* Thread 0 draws the block's next ticket while the last one it drew was a
 * tile (so each block makes exactly one draw past the end: tiles + grid draws
 * in all), else marks the end. */
__device__ inline void draw_next(unsigned long long *header, unsigned last_draw, unsigned tiles, unsigned prev,
                                 unsigned *slot)
{
    unsigned e;
    if (prev < tiles) draw_tile(header, last_draw, slot, &e);
    else *slot = tiles;
}

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(256)
    scan_lookahead_persistent_kernel(const T *in, T *out, size_t n, unsigned tiles, int exclusive, int aligned,
                                     tile_status<T> status, unsigned long long *header, unsigned backoff_ns)
{
    const unsigned VEC = sizeof(typename vec16<T>::type) / sizeof(T), R = C / VEC;
    __shared__ T warp_totals[32], warp_prefix[32];
    __shared__ unsigned ticket[3], epoch_shared;
    T *stages = shared_array<T>(); /* two tiles */
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, last_draw = tiles + gridDim.x - 1;
    const size_t tile_elems = (size_t)blockDim.x * C;
    const unsigned warp_offset = warp * 32 * C;
    if (threadIdx.x == 0) {
        draw_tile(header, last_draw, &ticket[0], &epoch_shared);
        draw_next(header, last_draw, tiles, ticket[0], &ticket[1]);
    }
    __syncthreads();
    status.epoch = epoch_shared;
    if (staged(ticket[0], tiles, n, tile_elems, aligned))
        stage_copy<T, R>(stages, in + ticket[0] * tile_elems + warp_offset, warp_offset);
    stage_commit();
    T carry = Op::template identity<T>(); /* warp 0: everything through this block's previous tile */
    unsigned next_unseen = 0;             /* warp 0: the first tile carry does not cover */

    for (unsigned it = 0;; it++) {
        const unsigned tile = ticket[it % 3], next = ticket[(it + 1) % 3];
        if (tile >= tiles) break;
        if (staged(next, tiles, n, tile_elems, aligned)) /* the next tile's loads fly while this one waits */
            stage_copy<T, R>(stages + ((it + 1) & 1) * tile_elems, in + next * tile_elems + warp_offset, warp_offset);
        stage_commit();
        if (threadIdx.x == 0) draw_next(header, last_draw, tiles, next, &ticket[(it + 2) % 3]); /* read after two barriers */

        const size_t seg = (size_t)tile * tile_elems + warp_offset;
        const size_t left = seg < n ? n - seg : 0;
        const bool full = staged(tile, tiles, n, tile_elems, aligned);
        T x[R][VEC], off[R];
        stage_wait_previous();
        if (full) rows_load<T, Op, R, VEC>(x, stages + (it & 1) * tile_elems + warp_offset, tile_elems, true);
        else rows_load<T, Op, R, VEC>(x, in + seg, left, false);
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
static unsigned resident_grid(const void *kernel, unsigned block_dim, size_t smem)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block_dim, smem) != cudaSuccess) {
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
    size_t smem = 2 * tile_of(a) * sizeof(T); /* two stages */
    RETURN_IF_ERROR(scan_smem_opt_in(kernel, smem));
    unsigned grid = resident_grid(kernel, a->block_dim, smem);
    if (grid > tiles) grid = (unsigned)tiles;
    char *ws = (char *)a->workspace;
    int aligned = (((uintptr_t)a->in | (uintptr_t)a->out) & 15) == 0;
    scan_lookahead_persistent_kernel<T, Op, C><<<grid, a->block_dim, smem, s>>>(
        (const T *)a->in, (T *)a->out, a->n, (unsigned)tiles, a->scan_mode == SCAN_EXCLUSIVE, aligned,
        lookback_status_at<T>(ws, LOOKBACK_HEADER, tiles, 0, (tile_status<T> *)NULL), (unsigned long long *)ws,
        lookahead_backoff_ns);
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
    .limits = "items per thread (coarse) 8, 16, 32; block dims 128, 256 (two tile stages in shared memory: "
              "f64 256 x 32 takes 128 KB)",
    .block_dims = AXIS_BIT(128) | AXIS_BIT(256),
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
