/* scan_path: the data path of scan_lookahead_bulk alone, without the scan.
 *
 * Demonstrates: how fast the bytes of the flagship scan move when nothing is
 * scanned, and whether bulk stores would move them faster. The scan
 * (kernels/scan_lookahead_bulk.cu) runs a few percent below cudaMemcpy while
 * moving exactly the minimum bytes; these copies keep its block shape (data
 * warps + one idle warp, 96 KB of shared memory: two blocks per SM), its ring
 * of 32 KB tile stages filled per warp segment by bulk copies
 * (kernels/bulk_copy.cuh), its rows in registers (kernels/scan_rows.cuh) and
 * its two block barriers a round, and leave out only the fold, the scan and
 * the look-ahead. If a copy is as slow as the scan, the gap is in the data
 * path; if it reaches memcpy, the gap is the scan's own work.
 *
 *   memcpy                cudaMemcpyAsync device to device (the reference)
 *   ring_regs3            3 stages, registers, 16-byte stores (the scan's path)
 *   ring_regs2            the same with 2 stages: the control for the next
 *   ring_regs_bulk_store  2 stages; registers to an output stage, bulk-stored
 *   ring_bulk_store3      3 stages, bulk-stored straight from the stage (no
 *                         registers, no block barriers: the bound of a bulk copy)
 *   ring_regs3_cs         ring_regs3 with streaming stores (st.global.cs)
 *   ring_ticket3          ring_regs3 with its tiles taken in address order from a
 *                         global counter, not fixed per block (b + r x grid)
 *   ring_regs3_w4         ring_regs3 at f64 128 x 32's shape: 4 data warps x 256 bytes
 *   ring_regs3_64k        ring_regs3 with 64 KB tiles (8 data warps x 256 bytes,
 *                         three stages, one block an SM): f64 256 x 32's shape
 *   grid_copy             no ring: 16-byte loads and stores from registers, four
 *                         words in flight a thread, grid-stride over the resident
 *                         grid (what a plain copy kernel reaches)
 *   grid_copy8            the same, eight words in flight a thread
 *   grid_copy_cs          grid_copy with loads that skip L1 (ld.global.nc) and
 *                         streaming stores (st.global.cs)
 *   blocked_copy          grid_copy's loop over one contiguous share per block:
 *                         the blocks' accesses as far apart as they can be
 *   ticket_copy           32 KB tiles through registers, each block taking the
 *                         next tile from a global counter: the grid's accesses
 *                         kept together in address order, as the look-back's
 *                         chain keeps the scan's
 *   scan_lookahead_bulk, scan_cub   the scans themselves, through the registry
 * Every 32 KB-tile ring copy asks for the whole 96 KB, used or not, so each
 * runs two blocks per SM as the scan does below 2^30 (from there the f32
 * scan runs one block an SM: ring_policy_of in scan_lookahead_bulk.cu). Before the rows, one probe says where
 * cudaMemcpy runs: timed beside a kernel that holds every SM's threads, it
 * takes its usual time on a copy engine and waits for the SMs otherwise. Each n: --rounds interleaved rounds (forward,
 * then reversed), --samples cold samples (L2 flushed) per entrant a round;
 * printed per entrant: the median over rounds, GB/s, and the percentage of its
 * dtype's memcpy speed (geometric mean of the rounds' ratios, bootstrap 95 %
 * interval, as the sweep's confirmation).
 *
 * Run (sm_90): bazel run //tools/scan_path -- --sizes 2^28,2^30
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/check/check_device.h"
#include "harness/device/l2_flush.h"
#include "harness/reference/random_input.h"
#include "harness/reference/tolerance.h"
extern "C" { /* a C header without its own linkage guard */
#include "harness/run/confirm_stats.h"
}
#include "kernels/bulk_copy.cuh"
#include "kernels/common.cuh"
#include "kernels/registry.h"
#include "kernels/scan_rows.cuh"

#define RING_BYTES (96u * 1024u)  /* scan_lookahead_bulk's ring_bytes */
#define TILE_BYTES (32u * 1024u)  /* f32 256 x 32 and f64 128 x 32 alike */
#define WIDE_TILE_BYTES (64u * 1024u) /* f64 256 x 32: three stages, 192 KB, one block an SM */
#define MAX_STAGES 3
#define MAX_DATA_WARPS 8
#define SIZE_STEP (WIDE_TILE_BYTES / 4) /* every n is a multiple: whole tiles of either size for both types */

/* A ring copy's tile: WARPS data warps of 32 lanes x BYTES. */
#define RING_TILE(WARPS, BYTES) ((WARPS) * 32u * (BYTES))

/* ---- the copy kernels ---------------------------------------------------- */

/* Lane 0 of data warp w: its segment (32 x BYTES) of tile t into stage s,
 * completing barrier s * WARPS + w, as the scan's ring_fill. */
template <unsigned WARPS, unsigned BYTES>
__device__ inline void segment_fill(char *ring, unsigned long long *bar, unsigned s, unsigned t, const char *in,
                                    unsigned tiles)
{
    const unsigned TILE = RING_TILE(WARPS, BYTES);
    static_assert((TILE == TILE_BYTES || TILE == WIDE_TILE_BYTES) && WARPS <= MAX_DATA_WARPS,
                  "a 32 or 64 KB tile of data warps");
#if BULK_COPY_AVAILABLE
    const unsigned w = threadIdx.x >> 5, seg = 32 * BYTES;
    if (t < tiles) bulk_load(ring + s * TILE + w * seg, in + (size_t)t * TILE + w * seg, seg, &bar[s * WARPS + w]);
#endif
}

/* Barriers initialised, then every stage filled with the block's first rounds. */
template <unsigned WARPS, unsigned BYTES>
__device__ inline void ring_start(char *ring, unsigned long long *bar, unsigned stages, const char *in,
                                  unsigned tiles)
{
#if BULK_COPY_AVAILABLE
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages * WARPS; s++) bulk_barrier_init(&bar[s]);
        bulk_barrier_init_fence();
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && (threadIdx.x >> 5) < WARPS)
        for (unsigned s = 0; s < stages; s++)
            segment_fill<WARPS, BYTES>(ring, bar, s, blockIdx.x + s * gridDim.x, in, tiles);
#endif
}

/* A data warp's rows of round r into registers (a carrier type: the bits
 * move, nothing is added), and its segment of the stage refilled with round
 * r + stages at once, as the scan does. */
template <unsigned WARPS, unsigned BYTES>
__device__ inline void rows_take(int (&x)[BYTES / 16][4], char *ring, unsigned long long *bar, unsigned stages,
                                 unsigned r, const char *in, unsigned tiles)
{
#if BULK_COPY_AVAILABLE
    const unsigned w = threadIdx.x >> 5, s = r % stages;
    bulk_wait(&bar[s * WARPS + w], (r / stages) & 1u);
    rows_load<int, op_sum, BYTES / 16, 4>(x, (const int *)(ring + s * RING_TILE(WARPS, BYTES) + w * 32 * BYTES), 0,
                                          true);
    __syncwarp(); /* every lane's rows are read before the copy engine overwrites them */
    if ((threadIdx.x & 31) == 0) {
        bulk_reuse_fence();
        segment_fill<WARPS, BYTES>(ring, bar, s, blockIdx.x + (r + stages) * gridDim.x, in, tiles);
    }
#endif
}

/* A data warp's registers to its segment of an output stage (the layout they
 * were read in), which lane 0 bulk-stores to dst. */
template <unsigned BYTES> __device__ inline void staged_store(char *dst, char *staged, const int (&x)[BYTES / 16][4])
{
#if BULK_COPY_AVAILABLE
    const unsigned lane = threadIdx.x & 31;
    if (lane == 0) bulk_store_wait_read<0>(); /* last round's store has read the segment */
    __syncwarp();
    rows_store<int, BYTES / 16, 4>((int *)staged, x, 0, true);
    bulk_reuse_fence(); /* this lane's stores, before the copy engine reads them */
    __syncwarp();
    if (lane == 0) {
        bulk_store(dst, staged, 32 * BYTES);
        bulk_store_commit();
    }
#endif
}

/* How a ring copy's data warps write their rows. */
typedef enum { STORE_REGS, STORE_REGS_STREAMING, STORE_BULK } store_kind;

/* A data warp's rows to dst with streaming stores (st.global.cs: lines the
 * L2 may evict first), in rows_store's layout. */
template <unsigned BYTES> __device__ inline void streaming_store(char *dst, const int (&x)[BYTES / 16][4])
{
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned j = 0; j < BYTES / 16; j++)
        __stcs((int4 *)dst + j * 32 + lane, make_int4(x[j][0], x[j][1], x[j][2], x[j][3]));
}

/* The scan's path: ring to registers, then 16-byte stores from registers
 * (STORE_REGS, or STORE_REGS_STREAMING with the streaming hint), or through
 * an output stage after the load stages (STORE_BULK: that stage after
 * `stages` load stages must fit the 96 KB, so 2). Only the store differs.
 * 64 KB tiles run one block an SM, as f64 256 x 32 does.
 * Every ring kernel takes the ticket counter; only ring_ticket uses it. */
template <unsigned WARPS, unsigned BYTES, store_kind STORE>
__global__ void __launch_bounds__(WARPS * 32 + 32, RING_TILE(WARPS, BYTES) > TILE_BYTES ? 1 : 2)
    ring_regs_kernel(const char *in, char *out, unsigned tiles, unsigned stages, unsigned *)
{
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[MAX_STAGES * MAX_DATA_WARPS];
    char *ring = shared_array<char>();
    const unsigned w = threadIdx.x >> 5, b = blockIdx.x, grid = gridDim.x, rounds = (tiles - b + grid - 1) / grid;
    const size_t tile = RING_TILE(WARPS, BYTES);
    char *staged = ring + stages * tile + w * 32 * BYTES;
    ring_start<WARPS, BYTES>(ring, full, stages, in, tiles);
    for (unsigned r = 0; r < rounds; r++) {
        int x[BYTES / 16][4];
        if (w < WARPS) rows_take<WARPS, BYTES>(x, ring, full, stages, r, in, tiles);
        __syncthreads(); /* the scan's two barriers a round, its work between them left out */
        __syncthreads();
        if (w >= WARPS) continue;
        char *dst = out + (b + (size_t)r * grid) * tile + w * 32 * BYTES;
        if (STORE == STORE_BULK) staged_store<BYTES>(dst, staged, x);
        else if (STORE == STORE_REGS_STREAMING) streaming_store<BYTES>(dst, x);
        else rows_store<int, BYTES / 16, 4>((int *)dst, x, 0, true);
    }
    if (STORE == STORE_BULK && w < WARPS && (threadIdx.x & 31) == 0) bulk_store_wait_all();
#else
    __trap();
#endif
}

/* tickets[0]: the next tile; tickets[1]: blocks done. The last block of a
 * launch to finish sets both back to 0 for the next launch (every block has
 * taken its last tile by then: its fence orders that before its count). */
__device__ inline void tickets_reset_by_last(unsigned *tickets)
{
    if (threadIdx.x) return;
    __threadfence();
    if (atomicAdd(&tickets[1], 1u) == gridDim.x - 1) {
        tickets[0] = 0;
        tickets[1] = 0;
    }
}

/* ring_regs3 with tiles taken in order from tickets[0] instead of b + r x
 * grid: thread 0 takes stage s's next tile between the round's two barriers,
 * after every warp has read the stage and its tile number, and the data warps
 * refill their segments after the second. Tiles come in increasing order, so
 * a block that meets a tile past the end has no later load in flight. */
template <unsigned WARPS, unsigned BYTES>
__global__ void __launch_bounds__(WARPS * 32 + 32, 2)
    ring_ticket_kernel(const char *in, char *out, unsigned tiles, unsigned stages, unsigned *tickets)
{
    static_assert(RING_TILE(WARPS, BYTES) == TILE_BYTES, "32 KB tiles");
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[MAX_STAGES * MAX_DATA_WARPS];
    __shared__ unsigned tile_of[MAX_STAGES];
    char *ring = shared_array<char>();
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31, seg = 32 * BYTES;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < stages * WARPS; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
        for (unsigned s = 0; s < stages; s++) tile_of[s] = atomicAdd(tickets, 1u);
    }
    __syncthreads();
    if (lane == 0 && w < WARPS)
        for (unsigned s = 0; s < stages; s++)
            segment_fill<WARPS, BYTES>(ring, full, s, tile_of[s], in, tiles);
    for (unsigned r = 0;; r++) {
        const unsigned s = r % stages, t = tile_of[s];
        if (t >= tiles) break;
        int x[BYTES / 16][4];
        if (w < WARPS) {
            bulk_wait(&full[s * WARPS + w], (r / stages) & 1u);
            rows_load<int, op_sum, BYTES / 16, 4>(x, (const int *)(ring + s * TILE_BYTES + w * seg), 0, true);
        }
        __syncthreads(); /* stage s and tile_of[s] read by every thread */
        if (threadIdx.x == 0) tile_of[s] = atomicAdd(tickets, 1u);
        __syncthreads();
        if (w >= WARPS) continue;
        if (lane == 0) {
            bulk_reuse_fence();
            segment_fill<WARPS, BYTES>(ring, full, s, tile_of[s], in, tiles);
        }
        rows_store<int, BYTES / 16, 4>((int *)(out + (size_t)t * TILE_BYTES + w * seg), x, 0, true);
    }
    tickets_reset_by_last(tickets);
#else
    __trap();
#endif
}

/* Lane 0 of each data warp only: a landed segment bulk-stored from its stage,
 * its read awaited, the stage refilled. No thread touches the bytes. */
template <unsigned WARPS, unsigned BYTES>
__global__ void __launch_bounds__(WARPS * 32 + 32, 2)
    ring_bulk_store_kernel(const char *in, char *out, unsigned tiles, unsigned stages, unsigned *)
{
    static_assert(RING_TILE(WARPS, BYTES) == TILE_BYTES, "32 KB tiles");
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[MAX_STAGES * MAX_DATA_WARPS];
    char *ring = shared_array<char>();
    const unsigned w = threadIdx.x >> 5, b = blockIdx.x, grid = gridDim.x, rounds = (tiles - b + grid - 1) / grid;
    ring_start<WARPS, BYTES>(ring, full, stages, in, tiles);
    if (w >= WARPS || (threadIdx.x & 31)) return;
    for (unsigned r = 0; r < rounds; r++) {
        const unsigned s = r % stages, seg = 32 * BYTES;
        bulk_wait(&full[s * WARPS + w], (r / stages) & 1u);
        bulk_reuse_fence(); /* the landed bytes, as this thread sees them, to the store's read */
        bulk_store(out + (size_t)(b + r * grid) * TILE_BYTES + w * seg, ring + s * TILE_BYTES + w * seg, seg);
        bulk_store_commit();
        bulk_store_wait_read<0>();
        segment_fill<WARPS, BYTES>(ring, full, s, b + (r + stages) * grid, in, tiles);
    }
    bulk_store_wait_all();
#else
    __trap();
#endif
}

/* Plain copies, for comparison: each thread streams 16-byte words through
 * registers, WORDS loads in flight before their stores. No shared memory, no
 * barriers, no copy engine. All take (in, out, words, tickets). */
#define GRID_COPY_THREADS 256
#define TICKET_TILE_WORDS (TILE_BYTES / 16) /* a 32 KB tile: 8 words a thread */

/* One step of a grid-stride or blocked loop: WORDS words a thread from i. */
template <unsigned WORDS, bool STREAMING>
__device__ inline void copy_step(const uint4 *in, uint4 *out, size_t i, size_t end)
{
    uint4 v[WORDS];
#pragma unroll
    for (unsigned k = 0; k < WORDS; k++)
        if (i + k * GRID_COPY_THREADS < end) v[k] = STREAMING ? __ldcs(in + i + k * GRID_COPY_THREADS)
                                                               : in[i + k * GRID_COPY_THREADS];
#pragma unroll
    for (unsigned k = 0; k < WORDS; k++) {
        if (i + k * GRID_COPY_THREADS >= end) continue;
        if (STREAMING) __stcs(out + i + k * GRID_COPY_THREADS, v[k]);
        else out[i + k * GRID_COPY_THREADS] = v[k];
    }
}

/* Grid-stride over the resident grid. */
template <unsigned WORDS, bool STREAMING>
__global__ void __launch_bounds__(GRID_COPY_THREADS) grid_copy_kernel(const uint4 *in, uint4 *out, size_t words,
                                                                      unsigned *)
{
    const size_t step = (size_t)gridDim.x * GRID_COPY_THREADS * WORDS;
    for (size_t i = (size_t)blockIdx.x * GRID_COPY_THREADS * WORDS + threadIdx.x; i < words; i += step)
        copy_step<WORDS, STREAMING>(in, out, i, words);
}

/* One contiguous share per block (whole steps of 4 words a thread). */
__global__ void __launch_bounds__(GRID_COPY_THREADS) blocked_copy_kernel(const uint4 *in, uint4 *out, size_t words,
                                                                         unsigned *)
{
    const size_t unit = GRID_COPY_THREADS * 4, units = (words + unit - 1) / unit;
    const size_t share = (units + gridDim.x - 1) / gridDim.x * unit, lo = blockIdx.x * share;
    const size_t hi = lo + share < words ? lo + share : words;
    for (size_t i = lo + threadIdx.x; i < hi; i += unit) copy_step<4, false>(in, out, i, hi);
}

/* 32 KB tiles taken in order from tickets[0]; words is a whole number of them. */
__global__ void __launch_bounds__(GRID_COPY_THREADS) ticket_copy_kernel(const uint4 *in, uint4 *out, size_t words,
                                                                        unsigned *tickets)
{
    __shared__ unsigned tile[2]; /* two slots: a round's tile is read before the next is written */
    const size_t tiles = words / TICKET_TILE_WORDS;
    for (unsigned r = 0;; r++) {
        if (threadIdx.x == 0) tile[r & 1] = atomicAdd(tickets, 1u);
        __syncthreads();
        const size_t t = tile[r & 1];
        if (t >= tiles) break;
        copy_step<TICKET_TILE_WORDS / GRID_COPY_THREADS, false>(in, out, t * TICKET_TILE_WORDS + threadIdx.x,
                                                                 words);
    }
    tickets_reset_by_last(tickets);
}

/* Every SM's threads held for ns nanoseconds, touching no memory. */
__global__ void hold_sms(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

/* 16-byte words where a and b differ, added to *bad. */
__global__ void count_mismatches(const uint4 *a, const uint4 *b, size_t words, unsigned long long *bad)
{
    unsigned long long local = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
        uint4 x = a[i], y = b[i];
        local += x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w;
    }
    if (local) atomicAdd(bad, local);
}

/* ---- the entrants and their launchers ------------------------------------ */

typedef enum { RUN_MEMCPY, RUN_RING, RUN_GRID, RUN_SCAN } run_kind;

typedef struct entrant {
    const char *name;
    dtype_t dtype;
    run_kind kind;
    const void *kernel;         /* ring, grid: one of the kernels above */
    unsigned warps, stages;     /* ring: data warps, load stages */
    unsigned tile;              /* ring: bytes a tile (RING_TILE of its kernel) */
    unsigned block, items;      /* scan: block dim, items per thread; grid: threads, words in flight a thread */
    unsigned grid;              /* ring, grid: resident blocks (the occupancy query) */
    const variant *v;           /* scan */
    kernel_args args;           /* scan: for the current n */
    double *round_us;           /* the current n's value of each round */
} entrant;

static entrant entrants[] = {
    {"memcpy", DTYPE_F32, RUN_MEMCPY},
    {"grid_copy", DTYPE_F32, RUN_GRID, (const void *)grid_copy_kernel<4, false>, 0, 0, 0, GRID_COPY_THREADS, 4},
    {"grid_copy8", DTYPE_F32, RUN_GRID, (const void *)grid_copy_kernel<8, false>, 0, 0, 0, GRID_COPY_THREADS, 8},
    {"grid_copy_cs", DTYPE_F32, RUN_GRID, (const void *)grid_copy_kernel<4, true>, 0, 0, 0, GRID_COPY_THREADS, 4},
    {"blocked_copy", DTYPE_F32, RUN_GRID, (const void *)blocked_copy_kernel, 0, 0, 0, GRID_COPY_THREADS, 4},
    {"ticket_copy", DTYPE_F32, RUN_GRID, (const void *)ticket_copy_kernel, 0, 0, 0, GRID_COPY_THREADS,
     TICKET_TILE_WORDS / GRID_COPY_THREADS},
    {"ring_regs3", DTYPE_F32, RUN_RING, (const void *)ring_regs_kernel<8, 128, STORE_REGS>, 8, 3, TILE_BYTES},
    {"ring_regs3_cs", DTYPE_F32, RUN_RING, (const void *)ring_regs_kernel<8, 128, STORE_REGS_STREAMING>, 8, 3,
     TILE_BYTES},
    {"ring_ticket3", DTYPE_F32, RUN_RING, (const void *)ring_ticket_kernel<8, 128>, 8, 3, TILE_BYTES},
    {"ring_regs2", DTYPE_F32, RUN_RING, (const void *)ring_regs_kernel<8, 128, STORE_REGS>, 8, 2, TILE_BYTES},
    {"ring_regs_bulk_store", DTYPE_F32, RUN_RING, (const void *)ring_regs_kernel<8, 128, STORE_BULK>, 8, 2, TILE_BYTES},
    {"ring_bulk_store3", DTYPE_F32, RUN_RING, (const void *)ring_bulk_store_kernel<8, 128>, 8, 3, TILE_BYTES},
    {"ring_regs3_64k", DTYPE_F32, RUN_RING, (const void *)ring_regs_kernel<8, 256, STORE_REGS>, 8, 3, WIDE_TILE_BYTES},
    {"scan_lookahead_bulk", DTYPE_F32, RUN_SCAN, NULL, 0, 0, 0, 256, 32},
    {"scan_cub", DTYPE_F32, RUN_SCAN, NULL, 0, 0, 0, 256, 1},
    {"memcpy", DTYPE_F64, RUN_MEMCPY},
    {"grid_copy", DTYPE_F64, RUN_GRID, (const void *)grid_copy_kernel<4, false>, 0, 0, 0, GRID_COPY_THREADS, 4},
    {"ring_regs3_w4", DTYPE_F64, RUN_RING, (const void *)ring_regs_kernel<4, 256, STORE_REGS>, 4, 3, TILE_BYTES},
    {"ring_regs3_64k", DTYPE_F64, RUN_RING, (const void *)ring_regs_kernel<8, 256, STORE_REGS>, 8, 3, WIDE_TILE_BYTES},
    {"scan_lookahead_bulk", DTYPE_F64, RUN_SCAN, NULL, 0, 0, 0, 256, 32},
    {"scan_cub", DTYPE_F64, RUN_SCAN, NULL, 0, 0, 0, 256, 1},
};
#define ENTRANTS (sizeof entrants / sizeof entrants[0])

static void check_cuda(cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return;
    fprintf(stderr, "scan_path: %s: %s\n", what, cudaGetErrorString(err));
    exit(1);
}

/* A ring copy's shared memory: the whole 96 KB for 32 KB tiles, used or not,
 * so that each runs two blocks an SM as the scan does; its stages alone for
 * 64 KB tiles (192 KB, one block an SM, as f64 256 x 32). */
static unsigned ring_smem(const entrant *e) { return e->tile > TILE_BYTES ? e->stages * e->tile : RING_BYTES; }

/* Ring kernels: their shared memory allowed, the resident grid, sm_90 code present. */
static void ring_setup(entrant *e)
{
    cudaFuncAttributes f;
    check_cuda(cudaFuncGetAttributes(&f, e->kernel), e->name);
    if (f.ptxVersion < 90) {
        fprintf(stderr, "scan_path: %s: built for sm_%d; bulk copies need sm_90 (--cuda_archs=sm_90)\n", e->name,
                f.ptxVersion);
        exit(1);
    }
    check_cuda(smem_opt_in(e->kernel, ring_smem(e)), e->name);
    e->grid = resident_grid(e->kernel, e->warps * 32 + 32, ring_smem(e));
    if (e->grid == 0) check_cuda(cudaErrorInvalidConfiguration, e->name);
}

/* The plain copy: its resident grid, no shared memory. */
static void grid_setup(entrant *e)
{
    e->grid = resident_grid(e->kernel, GRID_COPY_THREADS, 0);
    if (e->grid == 0) check_cuda(cudaErrorInvalidConfiguration, e->name);
}

/* Scans: the registry's variant, its arguments for n, its workspace ready. */
static void scan_setup(entrant *e, size_t n, const void *in, void *out, void **ws, cudaStream_t s)
{
    kernel_args a = {e->dtype, OP_SUM, n, e->block, {e->items, 1}, FINISH_NONE, SCAN_INCLUSIVE, in, out, NULL, 0};
    const char *reason = NULL;
    if (!e->v || variant_accepts(e->v, &a, &reason)) {
        fprintf(stderr, "scan_path: %s: %s\n", e->name, e->v ? reason : "not in the registry");
        exit(1);
    }
    a.workspace_bytes = e->v->workspace_size(&a);
    *ws = NULL;
    if (a.workspace_bytes) check_cuda(cudaMalloc(ws, a.workspace_bytes), "workspace");
    a.workspace = *ws;
    if (e->v->workspace_init) check_cuda(e->v->workspace_init(&a, s), "workspace_init");
    e->args = a;
}

/* The ticket kernels' two counters, zero between launches (each launch's
 * last block sets them back). */
static unsigned *tickets;

static cudaError_t launch(entrant *e, const void *in, void *out, size_t bytes, cudaStream_t s)
{
    if (e->kind == RUN_MEMCPY) return cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s);
    if (e->kind == RUN_SCAN) return e->v->launch(&e->args, s);
    if (e->kind == RUN_GRID) {
        size_t words = bytes / 16;
        void *args[] = {&in, &out, &words, &tickets};
        return cudaLaunchKernel(e->kernel, e->grid, GRID_COPY_THREADS, args, 0, s);
    }
    unsigned tiles = (unsigned)(bytes / e->tile), grid = e->grid < tiles ? e->grid : tiles;
    void *args[] = {&in, &out, &tiles, &e->stages, &tickets};
    return cudaLaunchKernel(e->kernel, grid, e->warps * 32 + 32, args, ring_smem(e), s);
}

/* ---- the timing loop ----------------------------------------------------- */

typedef struct run {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush;
    size_t flush_bytes;
    const void *in[DTYPE_COUNT]; /* the input of each dtype; out holds either */
    void *out;
    size_t n;
} run;

static size_t bytes_of(const run *r, const entrant *e) { return r->n * dtype_size(e->dtype); }

/* One cold launch: the L2 flushed, the launch alone between the events. */
static double time_once(run *r, entrant *e)
{
    float ms = 0;
    check_cuda(l2_flush(r->flush, r->flush_bytes, r->stream), "l2_flush");
    check_cuda(cudaEventRecord(r->start, r->stream), "event");
    check_cuda(launch(e, r->in[e->dtype], r->out, bytes_of(r, e), r->stream), e->name);
    check_cuda(cudaEventRecord(r->stop, r->stream), "event");
    check_cuda(cudaEventSynchronize(r->stop), e->name);
    check_cuda(cudaEventElapsedTime(&ms, r->start, r->stop), "event");
    return ms * 1e3;
}

/* Round i: every entrant once, forward in even rounds and reversed in odd
 * ones; its value is the median of its samples. */
static void time_rounds(run *r, unsigned rounds, unsigned samples)
{
    double *us = (double *)malloc(samples * sizeof *us);
    for (size_t k = 0; k < ENTRANTS; k++) time_once(r, &entrants[k]); /* warm-up */
    for (unsigned i = 0; i < rounds; i++)
        for (size_t k = 0; k < ENTRANTS; k++) {
            entrant *e = &entrants[i % 2 ? ENTRANTS - 1 - k : k];
            for (unsigned j = 0; j < samples; j++) us[j] = time_once(r, e);
            e->round_us[i] = confirm_median(us, samples);
        }
    free(us);
}

/* The input's sum (Neumaier-compensated, as the sweep's reference: a plain
 * double sum of 2^30 terms would take a real share of the f64 tolerance) and
 * its magnitude sum, drawn again on the host with check_device_fill's
 * generator (bit-identical values). */
static void input_sums(dtype_t d, size_t n, uint64_t seed, double *sum, double *abs_sum)
{
    uint64_t base = random_mix(seed);
    double s = 0, comp = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = random_mix(base + i);
        double v = d == DTYPE_F32 ? (double)random_f32(x) : random_f64(x), t = s + v;
        comp += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
        a += fabs(v);
    }
    *sum = s + comp;
    *abs_sum = a;
}

/* A copy's output: every 16-byte word equal to the input's. */
static int copy_ok(const run *r, const entrant *e, unsigned long long *bad)
{
    unsigned long long count = 0;
    check_cuda(cudaMemsetAsync(bad, 0, sizeof *bad, r->stream), "cudaMemset");
    count_mismatches<<<1024, 256, 0, r->stream>>>((const uint4 *)r->in[e->dtype], (const uint4 *)r->out,
                                                  bytes_of(r, e) / 16, bad);
    check_cuda(cudaMemcpy(&count, bad, sizeof count, cudaMemcpyDeviceToHost), e->name);
    return count == 0;
}

/* A scan's last element: the input's sum within the sweep's tolerance
 * (harness/reference/tolerance.h: 7 sqrt(n - 1) u sum|x| + u |sum|). Not the
 * worst case n u sum|x|: past n = 2^24 that exceeds the sum itself, and an
 * output of zeros would pass. */
static int scan_ok(const run *r, const entrant *e, const double sums[][2])
{
    union { float f; double d; } last;
    size_t size = dtype_size(e->dtype);
    check_cuda(cudaMemcpy(&last, (char *)r->out + r->n * size - size, size, cudaMemcpyDeviceToHost), e->name);
    double got = e->dtype == DTYPE_F32 ? last.f : last.d, sum = sums[e->dtype][0];
    double u = e->dtype == DTYPE_F32 ? UNIT_ROUNDOFF_F32 : UNIT_ROUNDOFF_F64;
    return fabs(got - sum) <= tolerance_formula(u, r->n, sums[e->dtype][1], sum);
}

/* Every entrant once more onto a poisoned output (all bits set: NaN). */
static void validate(run *r, const double sums[][2])
{
    unsigned long long *bad = NULL;
    check_cuda(cudaMalloc(&bad, sizeof *bad), "cudaMalloc");
    for (size_t k = 0; k < ENTRANTS; k++) {
        entrant *e = &entrants[k];
        check_cuda(cudaMemsetAsync(r->out, 0xff, bytes_of(r, e), r->stream), "poison");
        check_cuda(launch(e, r->in[e->dtype], r->out, bytes_of(r, e), r->stream), e->name);
        if (e->kind == RUN_SCAN ? !scan_ok(r, e, sums) : !copy_ok(r, e, bad)) {
            fprintf(stderr, "scan_path: %s %s at n = %zu: wrong output (%s)\n", e->name, dtype_name(e->dtype), r->n,
                    e->kind == RUN_SCAN ? "last element is not the sum" : "differs from the input");
            exit(1);
        }
    }
    cudaFree(bad);
}

/* Where cudaMemcpy runs: 1 GiB device to device timed alone, then beside
 * hold_sms on another stream, which keeps every SM's threads busy for
 * HOLD_MS. On a copy engine the copy takes about its usual time; a copy made
 * by SM kernels waits until the SMs are free. */
#define HOLD_MS 50
static void memcpy_engine_probe(void)
{
    const size_t bytes = (size_t)1 << 30;
    void *src = NULL, *dst = NULL;
    cudaStream_t hold, copy;
    cudaEvent_t e0, e1;
    float alone = 0, beside = 0;
    const unsigned grid = resident_grid((const void *)hold_sms, 1024, 0);
    check_cuda(grid ? cudaSuccess : cudaErrorInvalidConfiguration, "hold_sms");
    check_cuda(cudaMalloc(&src, bytes), "cudaMalloc (probe)");
    check_cuda(cudaMalloc(&dst, bytes), "cudaMalloc (probe)");
    check_cuda(cudaMemset(src, 1, bytes), "cudaMemset (probe)");
    check_cuda(cudaStreamCreateWithFlags(&hold, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaEventCreate(&e0), "cudaEventCreate");
    check_cuda(cudaEventCreate(&e1), "cudaEventCreate");
    for (int beside_hold = 0; beside_hold < 2; beside_hold++) {
        if (beside_hold) {
            hold_sms<<<grid, 1024, 0, hold>>>((unsigned long long)HOLD_MS * 1000000);
            check_cuda(cudaGetLastError(), "hold_sms");
            usleep(5000); /* its blocks resident before the copy is issued */
        }
        check_cuda(cudaEventRecord(e0, copy), "event");
        check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, copy), "cudaMemcpyAsync (probe)");
        check_cuda(cudaEventRecord(e1, copy), "event");
        check_cuda(cudaDeviceSynchronize(), "probe");
        check_cuda(cudaEventElapsedTime(beside_hold ? &beside : &alone, e0, e1), "event");
    }
    printf("cudaMemcpy, 1 GiB device to device: %.1f us alone, %.1f us beside a kernel holding every SM's "
           "threads for %d ms (%u blocks x 1024): %s\n\n", alone * 1e3, beside * 1e3, HOLD_MS, grid,
           beside * 1e3 < HOLD_MS * 1e3 / 2 ? "it runs on a copy engine, not on the SMs" : "it waits for the SMs");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(hold);
    cudaStreamDestroy(copy);
    cudaFree(src);
    cudaFree(dst);
}

/* ---- report -------------------------------------------------------------- */

static void print_rows(const run *r, unsigned rounds, FILE *csv)
{
    const entrant *ref = NULL;
    for (size_t k = 0; k < ENTRANTS; k++) {
        const entrant *e = &entrants[k];
        if (e->kind == RUN_MEMCPY) ref = e; /* each dtype's group opens with its memcpy */
        double us = confirm_median(e->round_us, rounds), gbps = 2.0 * bytes_of(r, e) / (us * 1e3), est, lo, hi;
        confirm_ratio_interval(ref->round_us, e->round_us, rounds, CONFIRM_BOOTSTRAP_RESAMPLES, 1, &est, &lo, &hi);
        printf("| %zu | %s | %s | %.1f | %.1f | %.2f | %.2f | %.2f |\n", r->n, dtype_name(e->dtype), e->name, us,
               gbps, 100 * est, 100 * lo, 100 * hi);
        if (csv)
            fprintf(csv, "%zu,%s,%s,%.3f,%.2f,%.3f,%.3f,%.3f\n", r->n, dtype_name(e->dtype), e->name, us, gbps,
                    100 * est, 100 * lo, 100 * hi);
    }
    fflush(stdout);
    if (csv) fflush(csv);
}

static void print_header(int device)
{
    cudaDeviceProp p;
    int clock_khz = 0, bus_bits = 0;
    check_cuda(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    check_cuda(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device), "attribute");
    check_cuda(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device), "attribute");
    printf("device %d: %s, sm_%d%d, %d SMs, memory %d MHz x %d bits, L2 %d MB\n\n", device, p.name, p.major,
           p.minor, p.multiProcessorCount, clock_khz / 1000, bus_bits, p.l2CacheSize >> 20);
    for (size_t k = 0; k < ENTRANTS; k++) {
        const entrant *e = &entrants[k];
        if (e->kind == RUN_RING)
            printf("- %s %s: %u blocks x %u threads (%u data warps), %u KB shared, %u load stages of %u KB\n",
                   e->name, dtype_name(e->dtype), e->grid, e->warps * 32 + 32, e->warps, ring_smem(e) >> 10,
                   e->stages, e->tile >> 10);
        else if (e->kind == RUN_GRID)
            printf("- %s %s: %u blocks x %u threads, %u 16-byte words in flight a thread\n", e->name,
                   dtype_name(e->dtype), e->grid, e->block, e->items);
        else if (e->kind == RUN_SCAN)
            printf("- %s %s: block %u, items %u, inclusive sum\n", e->name, dtype_name(e->dtype), e->block,
                   e->items);
    }
    printf("\n");
    memcpy_engine_probe();
    printf("| n | dtype | entrant | median_us | GBps | pct_of_memcpy | ci_lo | ci_hi |\n"
           "|---:|---|---|---:|---:|---:|---:|---:|\n");
}

/* One n: buffers, inputs, scan workspaces, the rounds, validation, rows. */
static void measure(run *r, size_t n, unsigned rounds, unsigned samples, FILE *csv)
{
    const uint64_t seed = 1;
    void *ws[ENTRANTS] = {NULL}, *in32 = NULL, *in64 = NULL;
    double sums[DTYPE_COUNT][2] = {{0}};
    r->n = n;
    check_cuda(cudaMalloc(&in32, n * 4), "cudaMalloc (input, f32)");
    check_cuda(cudaMalloc(&in64, n * 8), "cudaMalloc (input, f64)");
    check_cuda(cudaMalloc(&r->out, n * 8), "cudaMalloc (output)");
    check_cuda(check_device_fill(in32, n, DTYPE_F32, seed, r->stream), "fill");
    check_cuda(check_device_fill(in64, n, DTYPE_F64, seed, r->stream), "fill");
    r->in[DTYPE_F32] = in32;
    r->in[DTYPE_F64] = in64;
    for (size_t k = 0; k < ENTRANTS; k++) {
        entrant *e = &entrants[k];
        if (e->kind == RUN_SCAN) scan_setup(e, n, r->in[e->dtype], r->out, &ws[k], r->stream);
    }
    check_cuda(cudaStreamSynchronize(r->stream), "set-up");
    fprintf(stderr, "scan_path: n = %zu: %u rounds of %zu entrants x %u samples\n", n, rounds, ENTRANTS, samples);
    time_rounds(r, rounds, samples);
    input_sums(DTYPE_F32, n, seed, &sums[DTYPE_F32][0], &sums[DTYPE_F32][1]);
    input_sums(DTYPE_F64, n, seed, &sums[DTYPE_F64][0], &sums[DTYPE_F64][1]);
    validate(r, sums);
    print_rows(r, rounds, csv);
    for (size_t k = 0; k < ENTRANTS; k++) cudaFree(ws[k]);
    cudaFree(in32);
    cudaFree(in64);
    cudaFree(r->out);
}

/* ---- command line and main ----------------------------------------------- */

#define MAX_SIZES 32

typedef struct options {
    size_t sizes[MAX_SIZES];
    unsigned count, rounds, samples, device;
    const char *csv;
} options;

static const char usage[] =
    "usage: scan_path [--sizes LIST] [--rounds R] [--samples K] [--device N] [--csv FILE]\n"
    "  --sizes    f32/f64 element counts, 2^K or whole numbers, comma-separated, each a\n"
    "             multiple of 16384 (default 2^28,2^29,2^30)\n"
    "  --rounds   interleaved rounds per n (default 10)\n"
    "  --samples  cold samples per entrant a round; the round's value is their median (default 5)\n"
    "  --device   CUDA device ordinal (default 0)\n"
    "  --csv      also write the table's rows as CSV to FILE\n";

/* A whole number, or 2^K; 0 when it is neither. */
static size_t parse_size(const char *s)
{
    char *end;
    int pow2 = !strncmp(s, "2^", 2);
    const char *digits = pow2 ? s + 2 : s;
    if (*digits < '0' || *digits > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, 10);
    if (*end || errno || (pow2 && v > 40)) return 0;
    return pow2 ? (size_t)1 << v : (size_t)v;
}

static int parse_sizes(const char *list, options *o)
{
    char buf[1024], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list);
    o->count = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t n = parse_size(tok);
        if (!n || n % SIZE_STEP || n > VARIANT_GRID_MAX_N || o->count == MAX_SIZES) {
            fprintf(stderr, "scan_path: --sizes: '%s' is not a size here (2^K or a whole number, a multiple of %u, "
                            "at most 2^35, %d sizes at most)\n", tok, SIZE_STEP, MAX_SIZES);
            return -1;
        }
        o->sizes[o->count++] = n;
    }
    if (o->count) return 0;
    fprintf(stderr, "scan_path: --sizes: '%s' names no size\n", list);
    return -1;
}

static int parse_count(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *v)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (*s >= '0' && *s <= '9' && !*end && !errno && x >= lo && x <= hi) {
        *v = (unsigned)x;
        return 0;
    }
    fprintf(stderr, "scan_path: %s: '%s' is not a whole number from %u to %u\n", opt, s, lo, hi);
    return -1;
}

/* 0: run; 1: --help; -1: bad input (said on stderr). Nothing touches CUDA. */
static int parse_args(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) return 1;
        int known = !strcmp(opt, "--sizes") || !strcmp(opt, "--rounds") || !strcmp(opt, "--samples") ||
                    !strcmp(opt, "--device") || !strcmp(opt, "--csv");
        if (!known) {
            fprintf(stderr, "scan_path: unknown option '%s' (--help lists them)\n", opt);
            return -1;
        }
        if (i + 1 == argc) {
            fprintf(stderr, "scan_path: '%s' needs a value\n", opt);
            return -1;
        }
        const char *val = argv[++i];
        int err = !strcmp(opt, "--sizes")     ? parse_sizes(val, o)
                  : !strcmp(opt, "--rounds")  ? parse_count(opt, val, 1, 1000, &o->rounds)
                  : !strcmp(opt, "--samples") ? parse_count(opt, val, 1, 1000, &o->samples)
                  : !strcmp(opt, "--device")  ? parse_count(opt, val, 0, 1023, &o->device)
                                              : (o->csv = val, 0);
        if (err) return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o = {{(size_t)1 << 28, (size_t)1 << 29, (size_t)1 << 30}, 3, 10, 5, 0, NULL};
    int parsed = parse_args(argc, argv, &o);
    if (parsed) {
        fputs(parsed > 0 ? usage : "", stdout);
        return parsed > 0 ? 0 : 2;
    }
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) {
        fprintf(stderr, "scan_path: --csv: cannot write '%s': %s\n", o.csv, strerror(errno));
        return 2;
    }
    if (csv) fprintf(csv, "n,dtype,entrant,median_us,GBps,pct_of_memcpy,ci_lo,ci_hi\n");

    run r = {0};
    check_cuda(cudaSetDevice((int)o.device), "cudaSetDevice");
    for (size_t k = 0; k < ENTRANTS; k++) {
        entrant *e = &entrants[k];
        if (e->kind == RUN_RING) ring_setup(e);
        if (e->kind == RUN_GRID) grid_setup(e);
        if (e->kind == RUN_SCAN) e->v = registry_find(e->name);
        e->round_us = (double *)calloc(o.rounds, sizeof(double));
    }
    check_cuda(cudaMalloc(&tickets, 2 * sizeof *tickets), "cudaMalloc (tickets)");
    check_cuda(cudaMemset(tickets, 0, 2 * sizeof *tickets), "cudaMemset (tickets)");
    print_header((int)o.device);
    int l2 = 0;
    check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, (int)o.device), "attribute");
    r.flush_bytes = 2 * (size_t)(l2 ? l2 : 64 << 20);
    check_cuda(l2_flush_alloc(&r.flush, r.flush_bytes), "l2_flush_alloc");
    check_cuda(cudaStreamCreate(&r.stream), "cudaStreamCreate"); /* blocking: cudaMemcpy waits for it */
    check_cuda(cudaEventCreate(&r.start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&r.stop), "cudaEventCreate");
    for (unsigned i = 0; i < o.count; i++) measure(&r, o.sizes[i], o.rounds, o.samples, csv);
    if (csv && fclose(csv)) {
        fprintf(stderr, "scan_path: --csv: writing '%s' failed\n", o.csv);
        return 1;
    }
    return 0;
}
