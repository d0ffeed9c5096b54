/* scan_lookahead_bulk (decoupled look-ahead over a ring of bulk copies; not in
 * the seeds; after CCCL's single-pass "warpspeed" scan, cccl PR #6811)
 *
 * Demonstrates: what keeps scan_lookback_vectorized below copy speed is that
 * a block's bytes stop flowing while it waits: for its predecessors (the
 * look-back) and for its tile's loads. Here loads never wait on the scan
 * (FINDINGS, "Beyond CUB", measures each step):
 *   - persistent blocks, as many as fit on the chip at once; block b takes
 *     tiles b, b + G, b + 2G, ... (G blocks, b drawn from a counter at start);
 *   - a ring of S tile-sized shared-memory stages per block, filled by the
 *     copy engine (TMA bulk copies, kernels/bulk_copy.cuh): no thread or
 *     register holds the tiles in flight;
 *   - each data warp refills its own segment of a stage (a copy and a
 *     barrier of its own) the moment its rows of the round are in registers,
 *     at the round's start: the copy then has a whole round to land, where a
 *     refill between the block's barriers left it part of one (5 % of the
 *     time at 2^28);
 *   - look-ahead instead of look-back: a tile publishes only its AGGREGATE
 *     (fence-free tagged words for every type: aggregate_words), the block
 *     carries the prefix through its previous tile and folds the G - 1
 *     aggregates in between (lookahead_fold, up to 512 per L2 round trip). No
 *     tile waits for another's look-back, so no chain of INCLUSIVE tiles forms;
 *   - aggregates published `ahead` rounds before their scan: the data warps
 *     fold a tile as soon as its copy lands, so a round's look-ahead finds
 *     its window published instead of waiting on the others' previous round;
 *   - a look-ahead warp beside the data warps: it folds the round's window
 *     while they load and scan, then hands out the prefixes and publishes,
 *     between two barriers. 8-byte types at 8 or 16 items per thread take
 *     two look-ahead warps, a round each in turn: a fold is an L2 round trip
 *     or more (1.4-5 us under the data's load), and with one warp it was the
 *     short rounds' critical path;
 *   - the tile in registers as in scan_lookback_vectorized (kernels/scan_rows.cuh:
 *     warp rows of 16-byte vectors, read from the stage without bank
 *     conflicts), 16-byte stores from registers;
 *   - one launch per call: the last block to draw its number resets the
 *     counter and advances the epoch of the status words; a dependent launch
 *     (kernels/dependent_launch.cuh) lets the next call's blocks start while
 *     this call's last blocks finish.
 * The last (partial) tile, unaligned pointers and targets before sm_90 take
 * guarded loads from global memory in the same layout, so any n >= 1 works.
 *
 * Every block must be resident at once (a block waits for tiles of blocks
 * with higher numbers from the previous round): the grid is the occupancy
 * query's count, never more.
 *
 * Run: bazel run //harness:sweep -- --variants scan_lookahead_bulk --sizes 268435456 --axis items_per_thread=16,32
 */
#include <stdint.h>

#include "kernels/bulk_copy.cuh"
#include "kernels/dependent_launch.cuh"
#include "kernels/scan_hierarchical.cuh"
#include "kernels/scan_lookback.cuh"
#include "kernels/scan_rows.cuh"

/* Ring policy (measured: FINDINGS, "Beyond CUB"): shared memory per block for
 * the stages (two blocks fit an SM's 228 KB), and the stage count's bounds.
 * At least three stages, so that a block publishes two rounds ahead: f64
 * 256 x 32 (64 KB tiles) then takes 192 KB, still one block an SM, where
 * two stages held it to one round ahead. Measured (JOURNAL §6, "A third
 * stage for f64 x 32"; both builds in alternating processes on one H200):
 * 3.0-5.0 % faster at 2^26-2^31, 1.23-1.25x CUB where it was 1.19-1.20x.
 * A 192 KB ring (f32 256 x 32 one block an SM, six stages) keeps the blocks
 * in step but is 1.0-1.1 % slower at 2^30-2^31 publishing two rounds ahead
 * (JOURNAL §6, "The next window's polls in flight across the barriers");
 * three rounds ahead it is the large inputs' ring (ring_policy_of below). */
static const size_t ring_bytes = 96 * 1024;
#define RING_MIN_STAGES 3
#define RING_MAX_STAGES 8
#define RING_MAX_DATA_WARPS 8 /* block dims up to 256 */
/* Look-ahead: 32 x LOOKAHEAD_WINDOW_K aggregates per L2 round trip for 4-byte
 * types (the grid is 264 blocks at 256 x 32 f32, so one round trip covers a
 * round), half as many for 8-byte ones (two words each: the same registers). */
#define LOOKAHEAD_WINDOW_K 16
/* Aggregates each lane polls per round trip: LOOKAHEAD_WINDOW_K over the
 * words per aggregate, and half that for 8-byte types at 16 items per thread
 * or fewer. Those run two blocks of 256 + 32 threads per SM, which leaves 96
 * registers a thread, and the full window made ptxas spill there (f64 x 16:
 * 296 bytes; x 8: 64); the half window leaves f64 x 16 at 24 bytes, x 8 at
 * none (nvcc -Xptxas -v, sm_90). */
template <typename T, unsigned C> struct lookahead_lane_k {
    static const unsigned K = LOOKAHEAD_WINDOW_K / aggregate_words<T>::WORDS / (sizeof(T) == 8 && C <= 16 ? 2 : 1);
};
/* Look-ahead warps per block (policy, by type and items per thread C). Two
 * for 8-byte types at C <= 16, which take rounds in turn: a fold has a round
 * more to land and the data warps do not wait at the first barrier. One
 * elsewhere. Measured (JOURNAL §6, "Two look-ahead warps taking rounds in
 * turn"; one card, old and new builds in one call): f64 256 x 16 8-10 %
 * faster at 2^26-2^33 on an H200 and now the fastest f64 configuration,
 * 128 x 16 30-36 %; with two, f64 128 x 32 was 16-17 % slower (it spilled
 * 32 bytes), 256 x 32 5-9 % and f32 256 x 32 2.6 points of cudaMemcpy, so
 * those keep one. */
template <typename T, unsigned C> struct lookahead_warps {
    static const unsigned N = sizeof(T) == 8 && C <= 16 ? 2 : 1;
};
template <typename T, unsigned C> __device__ inline unsigned data_warps()
{
    return (blockDim.x >> 5) - lookahead_warps<T, C>::N;
}

/* Round i's two barriers between the data warps and its look-ahead warp:
 * the data warps' totals are in (1), the prefixes are out (2). Named
 * barriers of n threads, 1 + i % LW and 3 + i % LW: the data warps only
 * arrive at the first and go on to their scan, the look-ahead warp only
 * arrives at the second and goes on to its next fold. Against the block's
 * barrier for both (one look-ahead warp; JOURNAL §6, "What the fixed tiles
 * cost", q1n; each build in three alternating processes on one card): f32
 * 256 x 32 +0.5-0.6 points of cudaMemcpy at 2^28-2^30 on an H200, a tie on
 * an H100; f64 128 x 32 +1.0-1.2 on both; in the harness f64's best is now
 * 256 x 32. A bar.arrive orders the arriving warp's shared-memory writes
 * before the reads after the matching bar.sync (PTX memory model); racecheck
 * does not read it so and reports these hand-offs (docs/reliability.md).
 * Policy: named where two look-ahead warps take rounds in turn (they need
 * them) and at 32 items per thread; the block's barrier at 8 and 16 items
 * with one look-ahead warp, the launch-bound sizes' instances, where the
 * named ones cost f32 128 x 16 4-6 % at 2^10-2^16 (JOURNAL §6, "Small n
 * and the named barriers"; both builds in alternating processes on one
 * H200). */
template <typename T, unsigned C> struct named_round_barriers {
    static const bool ON = lookahead_warps<T, C>::N > 1 || C >= 32;
};
__device__ inline void named_arrive(unsigned id, unsigned n) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ inline void named_sync(unsigned id, unsigned n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
template <bool NAMED> __device__ inline void round_barrier(unsigned which, bool looker, unsigned p, unsigned n)
{
    if (!NAMED) __syncthreads();
    else if (looker == (which == 1)) named_sync(which * 2 - 1 + p, n);
    else named_arrive(which * 2 - 1 + p, n);
}

/* Rounds a block publishes ahead of the round it scans (at most stages - 1),
 * and the look-ahead's pause between two polls of a tile not yet published. */
static const unsigned publish_ahead_rounds = 2;
static const unsigned lookahead_backoff_ns = 0;

/* Large inputs of 4-byte types in 32 KB tiles (256 x 32): a 192 KB ring, one
 * block an SM with six stages, publishing three rounds ahead. Measured
 * against the 96 KB ring two rounds ahead in rotating processes on one card
 * of each part: from 2^30 0.15-0.3 % faster on an H200 (f32, i32; 2^30-2^31:
 * JOURNAL §6, "The next window's polls in flight across the barriers") and
 * 0.35-0.40 % on an H100 (f32 2^30-2^32: "Each shape's data path, f32 at
 * f64's shape, and f32's stores paced"); at 2^28 a tie on the H100 and
 * 0.4-3.3 % slower on the H200, so below 2^30 the two-block ring stays.
 * Since it shipped, on two more H100s: 0.8-1.0 % and 0.3-0.5 % faster from
 * 2^30, and 0.7 % and 0.2 % at 2^29 ("The large inputs' ring"); the H200's
 * 2^29 is not measured. */
static const size_t one_block_ring_bytes = 192 * 1024, one_block_tile_bytes = 32 * 1024;
static const unsigned one_block_ahead_rounds = 3;
static const size_t one_block_from_n = (size_t)1 << 30;

typedef struct {
    unsigned stages, ahead;
} ring_policy;
static ring_policy ring_policy_of(size_t n, size_t type_bytes, size_t tile_bytes)
{
    const int one_block = type_bytes == 4 && tile_bytes >= one_block_tile_bytes && n >= one_block_from_n;
    const unsigned stages = bulk_ring_stages(one_block ? one_block_ring_bytes : ring_bytes, tile_bytes,
                                             RING_MIN_STAGES, RING_MAX_STAGES);
    const unsigned ahead = one_block ? one_block_ahead_rounds : publish_ahead_rounds;
    return ring_policy{stages, ahead < stages - 1 ? ahead : stages - 1};
}

/* Tile t comes through the ring: whole, both pointers 16-byte aligned, sm_90. */
__device__ inline bool ring_tile(unsigned t, unsigned tiles, size_t n, size_t tile_elems, int aligned)
{
    return BULK_COPY_AVAILABLE && t < tiles && aligned && ((size_t)t + 1) * tile_elems <= n;
}

/* Lane 0 of data warp w: its segment of tile t into stage s, if the tile
 * comes through the ring. Each warp reads only its own segment of a stage, so
 * each segment has its own copy and barrier (bar[s * warps + w]): a warp
 * refills as soon as its rows are in registers, waiting for no other warp. */
template <typename T, unsigned C>
__device__ inline void ring_fill(T *ring, unsigned long long *bar, unsigned s, unsigned t, const T *in,
                                 unsigned tiles, size_t n, size_t tile_elems, int aligned)
{
#if BULK_COPY_AVAILABLE
    const unsigned warp = threadIdx.x >> 5, warps = data_warps<T, C>();
    const size_t seg_elems = tile_elems / warps, at = s * tile_elems + warp * seg_elems;
    if (ring_tile(t, tiles, n, tile_elems, aligned))
        bulk_load(ring + at, in + (size_t)t * tile_elems + warp * seg_elems, (unsigned)(seg_elems * sizeof(T)),
                  &bar[s * warps + warp]);
#endif
}

/* The look-ahead warp: the fold of the data warps' totals published as tile
 * t's AGGREGATE. Published by the data warps instead, as soon as their folds
 * are in, it ties; the look-ahead warp polling a round's window a step
 * earlier finds more of it unpublished and is 6.5 % slower (JOURNAL §6, "The
 * next window's polls in flight across the barriers"). */
template <typename T, typename Op>
__device__ inline void publish_ahead(aggregate_words<T> status, unsigned t, const T *totals, unsigned warps)
{
    const unsigned lane = threadIdx.x & 31;
    T total = warp_reduce_all<T, Op>(lane < warps ? totals[lane] : Op::template identity<T>());
    if (lane == 0) status.publish(t, TILE_AGGREGATE, total);
}

/* The look-ahead warp, once the round's `fold` (everything between this
 * block's previous tile and this one) is in: warp_prefix[w] gets everything
 * before data warp w of the tile, *carry everything through the tile. */
template <typename T, typename Op>
__device__ inline void tile_prefix_ahead(T fold, T *carry, const T *warp_totals, T *warp_prefix, unsigned warps)
{
    const unsigned lane = threadIdx.x & 31;
    T inc = warp_scan_inclusive<T, Op>(lane < warps ? warp_totals[lane] : Op::template identity<T>());
    T exc = __shfl_up_sync(0xffffffffu, inc, 1);
    T before = Op::apply(*carry, fold);
    if (lane < warps) warp_prefix[lane] = lane ? Op::apply(before, exc) : before;
    *carry = Op::apply(before, __shfl_sync(0xffffffffu, inc, 31));
}

/* A data warp's rows of this block's round-r tile: from its ring stage
 * (waiting for the copy; a phase already complete returns at once), else
 * guarded from global memory. */
template <typename T, typename Op, unsigned R, unsigned VEC>
__device__ inline void ring_rows(T (&x)[R][VEC], const T *ring, unsigned long long *bar, unsigned stages,
                                 unsigned r, unsigned t, const T *in, unsigned tiles, size_t n, size_t tile_elems,
                                 int aligned)
{
    const unsigned warp_offset = (threadIdx.x >> 5) * 32 * R * VEC;
    const size_t seg = (size_t)t * tile_elems + warp_offset;
#if BULK_COPY_AVAILABLE
    if (ring_tile(t, tiles, n, tile_elems, aligned)) {
        bulk_wait(&bar[(r % stages) * data_warps<T, R * VEC>() + (threadIdx.x >> 5)], (r / stages) & 1u);
        rows_load<T, Op, R, VEC>(x, ring + (r % stages) * tile_elems + warp_offset, tile_elems, true);
        return;
    }
#endif
    rows_load<T, Op, R, VEC>(x, in + seg, seg < n ? n - seg : 0, false);
}

/* A data warp's fold of its rows of this block's round-q tile, read from its
 * ring stage (waiting for the copy) or guarded from global memory. */
template <typename T, typename Op, unsigned R, unsigned VEC>
__device__ inline T ring_fold(const T *ring, unsigned long long *bar, unsigned stages, unsigned q, unsigned t,
                              const T *in, unsigned tiles, size_t n, size_t tile_elems, int aligned)
{
    const unsigned warp_offset = (threadIdx.x >> 5) * 32 * R * VEC;
    const size_t seg = (size_t)t * tile_elems + warp_offset;
#if BULK_COPY_AVAILABLE
    if (ring_tile(t, tiles, n, tile_elems, aligned)) {
        bulk_wait(&bar[(q % stages) * data_warps<T, R * VEC>() + (threadIdx.x >> 5)], (q / stages) & 1u);
        return rows_fold<T, Op, R, VEC>(ring + (q % stages) * tile_elems + warp_offset, tile_elems, true);
    }
#endif
    return rows_fold<T, Op, R, VEC>(in + seg, seg < n ? n - seg : 0, false);
}

/* Blocks of `warps` data warps and LW look-ahead warps (the last). Iteration
 * i: each data warp takes its rows of round i into registers and at once
 * refills their place with round i + stages (so a copy has a whole round to
 * land), folds its rows of round i + ahead and scans round i; the look-ahead
 * warp meanwhile folds round i's window of aggregates, published `ahead`
 * rounds earlier, so its L2 round trip overlaps the data warps' work; between
 * the two barriers it hands out the prefixes and publishes round i + ahead.
 * With two look-ahead warps, warp warps + i % 2 takes round i and the carry
 * goes from one to the other through shared memory, ordered by the data
 * warps' barriers between. */
template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(256 + 32 * lookahead_warps<T, C>::N, sizeof(T) * C <= 128 ? 2 : 1) /* two blocks an SM, but f64 x 32 */
    scan_lookahead_bulk_kernel(const T *in, T *out, size_t n, unsigned tiles, unsigned stages, unsigned ahead,
                               int exclusive, int aligned, aggregate_words<T> status, unsigned long long *header,
                               unsigned backoff_ns)
{
    const unsigned VEC = sizeof(typename vec16<T>::type) / sizeof(T), R = C / VEC;
    const unsigned LW = lookahead_warps<T, C>::N;
    __shared__ T warp_totals[32], ahead_totals[32], warp_prefix[32], carry_shared;
    __shared__ unsigned block_shared, epoch_shared;
    __shared__ __align__(8) unsigned long long full[RING_MAX_STAGES * RING_MAX_DATA_WARPS];
    T *ring = shared_array<T>();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, grid = gridDim.x;
    const unsigned warps = data_warps<T, C>(), round_threads = (warps + 1) * 32; /* at a round barrier */
    /* with one look-ahead warp the two tests agree; warp == warps is the code measured there */
    const bool looker = LW == 1 ? warp == warps : warp >= warps;
    const size_t tile_elems = (size_t)warps * 32 * C;
#if BULK_COPY_AVAILABLE
    if (threadIdx.x == 0) { /* shared memory only: overlaps the kernel before */
        for (unsigned s = 0; s < stages * warps; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
    }
#endif
    dependent_launch_wait(); /* the kernel before has finished: its counter reset, its writes visible */
    dependent_launch_trigger();
    if (threadIdx.x == 0) draw_tile(header, grid - 1, &block_shared, &epoch_shared);
    __syncthreads();
    status.epoch = epoch_shared;
    const unsigned b = block_shared, rounds = (tiles - b + grid - 1) / grid;
#if BULK_COPY_AVAILABLE
    if (!looker && lane == 0)
        for (unsigned s = 0; s < stages; s++) ring_fill<T, C>(ring, full, s, b + s * grid, in, tiles, n, tile_elems, aligned);
#endif
    T carry = Op::template identity<T>(); /* one look-ahead warp: everything through the previous tile */

    for (int i = -(int)ahead; i < (int)rounds; i++) {
        const unsigned q = (unsigned)(i + (int)ahead), r = (unsigned)i, t = b + r * grid, p = (unsigned)i % LW;
        if (LW > 1 && looker && warp - warps != p) continue; /* the other look-ahead warp's round */
        T x[R][VEC], off[R], fold;
        if (!looker) {
            if (i >= 0) {
                ring_rows<T, Op, R, VEC>(x, ring, full, stages, r, t, in, tiles, n, tile_elems, aligned);
#if BULK_COPY_AVAILABLE
                __syncwarp(); /* every lane's rows are read before the copy engine overwrites them */
                if (lane == 0) {
                    bulk_reuse_fence();
                    ring_fill<T, C>(ring, full, r % stages, t + stages * grid, in, tiles, n, tile_elems, aligned);
                }
#endif
            }
            if (q < rounds) {
                T a = ring_fold<T, Op, R, VEC>(ring, full, stages, q, b + q * grid, in, tiles, n, tile_elems, aligned);
                a = warp_reduce_all<T, Op>(a);
                if (lane == 0) ahead_totals[warp] = a;
            }
            if (i >= 0) {
                T total = warp_reduce_all<T, Op>(rows_scan_local<T, Op, R, VEC>(x));
                if (lane == 0) warp_totals[warp] = total;
            }
        } else if (i >= 0) {
            fold = lookahead_fold<lookahead_lane_k<T, C>::K, T, Op>(status, r ? t - grid + 1 : 0, t, backoff_ns);
        }
        round_barrier<named_round_barriers<T, C>::ON>(1, looker, p, round_threads);
        if (looker) { /* the prefixes first: the data warps wait for them at the next barrier */
            /* with two, the carry is the other look-ahead warp's, a round before */
            T c = LW == 1 ? carry : i > 0 ? carry_shared : Op::template identity<T>();
            if (i >= 0) tile_prefix_ahead<T, Op>(fold, &c, warp_totals, warp_prefix, warps);
            if (LW == 1) carry = c;
            else if (lane == 0) carry_shared = c;
            if (q < rounds) publish_ahead<T, Op>(status, b + q * grid, ahead_totals, warps);
        } else if (i >= 0) {
            rows_offsets<T, Op, R, VEC>(x, off);
        }
        round_barrier<named_round_barriers<T, C>::ON>(2, looker, p, round_threads);
        if (!looker && i >= 0) {
            const size_t seg = (size_t)t * tile_elems + warp * 32 * C;
            rows_apply<T, Op, R, VEC>(x, off, warp_prefix[warp], exclusive);
            rows_store<T, R, VEC>(out + seg, x, seg < n ? n - seg : 0, ring_tile(t, tiles, n, tile_elems, aligned));
        }
    }
}

/* ---- launcher ------------------------------------------------------------ */

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }
static size_t tiles_of(const kernel_args *a) { return ceil_div(a->n, tile_of(a)); }

/* The header word (block counter and epoch), then the aggregate words: one
 * per tile per 4 bytes of the type. */
static size_t words_offset(void) { return WORKSPACE_ALIGN; }
static size_t workspace(const kernel_args *a)
{
    return words_offset() + tiles_of(a) * (dtype_size(a->dtype) / 4) * sizeof(unsigned long long);
}

/* Counter, epoch and every status word to 0 (tag 0 is INVALID in any epoch). */
static cudaError_t workspace_init(const kernel_args *a, cudaStream_t s)
{
    if (!a->workspace || a->workspace_bytes < workspace(a)) return cudaErrorInvalidValue;
    return cudaMemsetAsync(a->workspace, 0, workspace(a), s);
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_items(const kernel_args *a, cudaStream_t s)
{
    size_t tiles = tiles_of(a);
    if (!a->workspace || a->workspace_bytes < workspace(a) || tiles >= 0x7fffffffu) return cudaErrorInvalidValue;
    void (*kernel)(const T *, T *, size_t, unsigned, unsigned, unsigned, int, int, aggregate_words<T>,
                   unsigned long long *, unsigned) =
        scan_lookahead_bulk_kernel<T, Op, C>;
    const ring_policy ring = ring_policy_of(a->n, sizeof(T), tile_of(a) * sizeof(T));
    size_t smem = ring.stages * tile_of(a) * sizeof(T);
    RETURN_IF_ERROR(smem_opt_in((const void *)kernel, smem));
    unsigned threads = a->block_dim + 32 * lookahead_warps<T, C>::N; /* the data warps and the look-ahead warps */
    unsigned grid = resident_grid((const void *)kernel, threads, smem);
    if (grid == 0) return cudaErrorInvalidConfiguration;
    if (grid > tiles) grid = (unsigned)tiles;
    char *ws = (char *)a->workspace;
    int aligned = (((uintptr_t)a->in | (uintptr_t)a->out) & 15) == 0;
    return launch_dependent(kernel, grid, threads, smem, s, (const T *)a->in, (T *)a->out, a->n, (unsigned)tiles,
                            ring.stages, ring.ahead, a->scan_mode == SCAN_EXCLUSIVE, aligned,
                            aggregate_words<T>{(unsigned long long *)(ws + words_offset()), 0},
                            (unsigned long long *)ws, lookahead_backoff_ns);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(ROWS_ITEMS_LIST, a->axis[0], launch_items, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
/* n read, n written; the status words are not counted. */
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_lookahead_bulk_variant = SCAN_VARIANT(
    .name = "scan_lookahead_bulk",
    .alias = "lookahead_tma",
    .family = "single_pass",
    .description = "single pass, one launch, persistent blocks: TMA bulk copies into a ring of shared-memory "
                   "stages, aggregates only, each block carries its prefix forward (decoupled look-ahead); a "
                   "dependent launch overlaps the next call's start",
    .limits = "items_per_thread 8, 16, 32; block dims 128, 256 (a 96 KB ring of at least three tile "
              "stages per block: f64 256 x 32 takes 192 KB, as 4-byte types at 256 x 32 do from n = 2^30, "
              "one block an SM publishing three rounds ahead); bulk copies on sm_90 and later",
    .block_dims = AXIS_BIT(128) | AXIS_BIT(256),
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers (whole 16-byte rows) before the tile scan",
              AXIS_SET(ROWS_ITEMS_LIST)}},
    .max_n = VARIANT_GRID_MAX_N,
    .workspace_init = workspace_init);
