/* rates: how fast each block of the scan's ring copy moves its tiles.
 *
 * Two copies of tools/scan_path's ring (3 stages of 32 KB tiles filled per
 * warp segment by bulk copies, rows through registers, 16-byte stores, two
 * block barriers a round, 8 data warps + 1 idle warp, two blocks an SM):
 *   fixed   block b takes tiles b, b + G, b + 2G, ... (ring_regs3, the scan's order)
 *   ticket  each block takes its next tile from a global counter (ring_ticket3)
 *   lockstep  fixed, its blocks held within two rounds of each other as the
 *           scan's look-ahead holds them, through one global counter (below)
 *   lockstep_words  the same through a word a block, polled as the scan polls
 *           its aggregates
 *   ticket_big_gpcs, ticket_small_gpcs  ticket on part of the SMs: the blocks
 *           on the SMs of the other group (from the warm-up ticket launch's
 *           counts: over 1.1 of the mean tiles, the small GPCs) copy nothing.
 *           What the full GPCs alone move bounds any copy that gives every
 *           SM the same bytes (they must then carry their share of them).
 * Each block records its SM, the tiles it copied and the global timer at its
 * start and end. With tickets a block's count is its rate; with fixed tiles
 * every block has the same count, and its end time is its rate. cudaMemcpy of
 * the same bytes is timed in the same rounds (cold: a 512 MB memset before
 * each launch). Every copy is checked word by word.
 *
 * Usage: rates LOG2N REPS OUT.csv   (rows: rep,kernel,us,block,smid,tiles,t0_ns,t1_ns;
 *        block -1 is the launch's event time)
 * Build: nvcc -std=c++17 -O3 -arch=sm_90 -I. rates.cu -o rates
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/bulk_copy.cuh"
#include "kernels/common.cuh"
#include "kernels/scan_rows.cuh"

#define CK(x)                                                                                                        \
    do {                                                                                                             \
        cudaError_t e_ = (x);                                                                                        \
        if (e_ != cudaSuccess) {                                                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                     \
            exit(1);                                                                                                 \
        }                                                                                                            \
    } while (0)

#define RING_BYTES (96u * 1024u)
#define TILE_BYTES (32u * 1024u)
#define STAGES 3
#define WARPS 8
#define BYTES 128 /* a lane's bytes of a tile: WARPS x 32 x BYTES = TILE_BYTES */

struct block_rec {
    unsigned smid, tiles;
    unsigned long long t0, t1;
};

__device__ inline unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ inline unsigned sm_id()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ inline void segment_fill(char *ring, unsigned long long *bar, unsigned s, unsigned t, const char *in,
                                    unsigned tiles)
{
#if BULK_COPY_AVAILABLE
    const unsigned w = threadIdx.x >> 5, seg = 32 * BYTES;
    if (t < tiles) bulk_load(ring + s * TILE_BYTES + w * seg, in + (size_t)t * TILE_BYTES + w * seg, seg, &bar[s * WARPS + w]);
#endif
}

__device__ inline void record(block_rec *rec, unsigned tiles, unsigned long long t0)
{
    __syncthreads(); /* every warp's stores issued */
    if (threadIdx.x == 0) rec[blockIdx.x] = block_rec{sm_id(), tiles, t0, global_ns()};
}

__global__ void __launch_bounds__(WARPS * 32 + 32, 2)
    ring_fixed(const char *in, char *out, unsigned tiles, unsigned *, block_rec *rec)
{
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[STAGES * WARPS];
    char *ring = shared_array<char>();
    const unsigned long long t0 = global_ns();
    const unsigned w = threadIdx.x >> 5, b = blockIdx.x, grid = gridDim.x, rounds = (tiles - b + grid - 1) / grid;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES * WARPS; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && w < WARPS)
        for (unsigned s = 0; s < STAGES; s++) segment_fill(ring, full, s, b + s * grid, in, tiles);
    for (unsigned r = 0; r < rounds; r++) {
        int x[BYTES / 16][4];
        const unsigned s = r % STAGES;
        if (w < WARPS) {
            bulk_wait(&full[s * WARPS + w], (r / STAGES) & 1u);
            rows_load<int, op_sum, BYTES / 16, 4>(x, (const int *)(ring + s * TILE_BYTES + w * 32 * BYTES), 0, true);
            __syncwarp();
            if ((threadIdx.x & 31) == 0) {
                bulk_reuse_fence();
                segment_fill(ring, full, s, b + (r + STAGES) * grid, in, tiles);
            }
        }
        __syncthreads();
        __syncthreads();
        if (w >= WARPS) continue;
        rows_store<int, BYTES / 16, 4>((int *)(out + (size_t)(b + r * grid) * TILE_BYTES + w * 32 * BYTES), x, 0, true);
    }
    record(rec, rounds, t0);
#endif
}

/* SMs whose blocks copy nothing in ring_ticket<true> (set by the host from a
 * ticket launch's counts: the SMs of the small GPCs, or the others). */
#define MAX_SM 256
__device__ unsigned char skip_sm[MAX_SM];

template <bool MASKED>
__global__ void __launch_bounds__(WARPS * 32 + 32, 2)
    ring_ticket(const char *in, char *out, unsigned tiles, unsigned *tickets, block_rec *rec)
{
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[STAGES * WARPS];
    __shared__ unsigned tile_of[STAGES];
    char *ring = shared_array<char>();
    const unsigned long long t0 = global_ns();
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31, seg = 32 * BYTES;
    const bool idle = MASKED && skip_sm[sm_id() % MAX_SM]; /* the same for the whole block */
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES * WARPS; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
        for (unsigned s = 0; s < STAGES; s++) tile_of[s] = idle ? tiles : atomicAdd(tickets, 1u);
    }
    __syncthreads();
    if (lane == 0 && w < WARPS)
        for (unsigned s = 0; s < STAGES; s++) segment_fill(ring, full, s, tile_of[s], in, tiles);
    unsigned r = 0;
    for (;; r++) {
        const unsigned s = r % STAGES, t = tile_of[s];
        if (t >= tiles) break;
        int x[BYTES / 16][4];
        if (w < WARPS) {
            bulk_wait(&full[s * WARPS + w], (r / STAGES) & 1u);
            rows_load<int, op_sum, BYTES / 16, 4>(x, (const int *)(ring + s * TILE_BYTES + w * seg), 0, true);
        }
        __syncthreads();
        if (threadIdx.x == 0) tile_of[s] = atomicAdd(tickets, 1u);
        __syncthreads();
        if (w >= WARPS) continue;
        if (lane == 0) {
            bulk_reuse_fence();
            segment_fill(ring, full, s, tile_of[s], in, tiles);
        }
        rows_store<int, BYTES / 16, 4>((int *)(out + (size_t)t * TILE_BYTES + w * seg), x, 0, true);
    }
    record(rec, r, t0);
    if (threadIdx.x == 0) { /* the last block resets the counters for the next launch */
        __threadfence();
        if (atomicAdd(&tickets[1], 1u) == gridDim.x - 1) {
            tickets[0] = 0;
            tickets[1] = 0;
        }
    }
#endif
}

/* ring_fixed held in step as the scan's look-ahead holds its blocks: warp
 * WARPS (idle in the copies) takes the look-ahead's place. Before round r's
 * second barrier it waits until every block has passed its iteration r - 2
 * (the scan's window: aggregates published AHEAD rounds before their tile's
 * scan), and then counts its own iteration; the data warps wait for round
 * r + AHEAD's copy to land before the first barrier, as the scan's data warps
 * fold that round's tile there. Nothing is added: the bytes only move. */
#define AHEAD 2
#define MAX_POLL 16 /* words a lane polls: grids up to 512 blocks */
__global__ void __launch_bounds__(WARPS * 32 + 32, 2)
    ring_lockstep(const char *in, char *out, unsigned tiles, unsigned *tickets, block_rec *rec)
{
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[STAGES * WARPS];
    char *ring = shared_array<char>();
    const unsigned long long t0 = global_ns();
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31, b = blockIdx.x, grid = gridDim.x;
    const unsigned rounds = (tiles - b + grid - 1) / grid;
    unsigned *progress = &tickets[2];
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES * WARPS; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
    }
    __syncthreads();
    if (lane == 0 && w < WARPS)
        for (unsigned s = 0; s < STAGES; s++) segment_fill(ring, full, s, b + s * grid, in, tiles);
    for (unsigned r = 0; r < rounds; r++) {
        int x[BYTES / 16][4];
        const unsigned s = r % STAGES, q = r + AHEAD;
        if (w < WARPS) {
            bulk_wait(&full[s * WARPS + w], (r / STAGES) & 1u);
            rows_load<int, op_sum, BYTES / 16, 4>(x, (const int *)(ring + s * TILE_BYTES + w * 32 * BYTES), 0, true);
            __syncwarp();
            if (lane == 0) {
                bulk_reuse_fence();
                segment_fill(ring, full, s, b + (r + STAGES) * grid, in, tiles);
            }
            if (q < rounds) bulk_wait(&full[(q % STAGES) * WARPS + w], (q / STAGES) & 1u);
        } else if (lane == 0 && r >= AHEAD) {
            const unsigned need = (r - AHEAD + 1) * grid; /* every block past iteration r - AHEAD */
            while (*(volatile unsigned *)progress < need) {
            }
        }
        __syncthreads();
        if (w == WARPS && lane == 0) atomicAdd(progress, 1u);
        __syncthreads();
        if (w >= WARPS) continue;
        rows_store<int, BYTES / 16, 4>((int *)(out + (size_t)(b + r * grid) * TILE_BYTES + w * 32 * BYTES), x, 0, true);
    }
    record(rec, rounds, t0);
    if (threadIdx.x == 0) { /* the last block resets the counters for the next launch */
        __threadfence();
        if (atomicAdd(&tickets[3], 1u) == gridDim.x - 1) {
            tickets[2] = 0;
            tickets[3] = 0;
        }
    }
#endif
}

/* lockstep with the scan's own traffic for its coupling: each block writes
 * its count of iterations to a word of its own, and the idle warp's 32 lanes
 * poll every block's word (the scan's fold polls the window's aggregates so)
 * until blocks below b have passed iteration r - AHEAD and blocks above it
 * iteration r - AHEAD - 1: the aggregates of every tile before b + r G. */
__global__ void __launch_bounds__(WARPS * 32 + 32, 2)
    ring_lockstep_words(const char *in, char *out, unsigned tiles, unsigned *words, block_rec *rec)
{
#if BULK_COPY_AVAILABLE
    __shared__ __align__(8) unsigned long long full[STAGES * WARPS];
    char *ring = shared_array<char>();
    const unsigned long long t0 = global_ns();
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31, b = blockIdx.x, grid = gridDim.x;
    const unsigned rounds = (tiles - b + grid - 1) / grid;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES * WARPS; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
    }
    __syncthreads();
    if (lane == 0 && w < WARPS)
        for (unsigned s = 0; s < STAGES; s++) segment_fill(ring, full, s, b + s * grid, in, tiles);
    for (unsigned r = 0; r < rounds; r++) {
        int x[BYTES / 16][4];
        const unsigned s = r % STAGES, q = r + AHEAD;
        if (w < WARPS) {
            bulk_wait(&full[s * WARPS + w], (r / STAGES) & 1u);
            rows_load<int, op_sum, BYTES / 16, 4>(x, (const int *)(ring + s * TILE_BYTES + w * 32 * BYTES), 0, true);
            __syncwarp();
            if (lane == 0) {
                bulk_reuse_fence();
                segment_fill(ring, full, s, b + (r + STAGES) * grid, in, tiles);
            }
            if (q < rounds) bulk_wait(&full[(q % STAGES) * WARPS + w], (q / STAGES) & 1u);
        } else if (r >= AHEAD) { /* a block's word counts its iterations; all of a lane's loads in one trip */
            unsigned v[MAX_POLL];
#pragma unroll
            for (unsigned k = 0; k < MAX_POLL; k++) {
                const unsigned o = lane + 32 * k;
                v[k] = o < grid ? *(volatile unsigned *)&words[2 * o] : ~0u;
            }
#pragma unroll
            for (unsigned k = 0; k < MAX_POLL; k++) {
                const unsigned o = lane + 32 * k, need = (o < b ? r + 1 : r) - AHEAD;
                if (o >= grid || o == b) continue;
                while (v[k] < need) v[k] = *(volatile unsigned *)&words[2 * o];
            }
        }
        __syncthreads();
        if (w == WARPS && lane == 0) *(volatile unsigned *)&words[2 * b] = r + 1;
        __syncthreads();
        if (w >= WARPS) continue;
        rows_store<int, BYTES / 16, 4>((int *)(out + (size_t)(b + r * grid) * TILE_BYTES + w * 32 * BYTES), x, 0, true);
    }
    record(rec, rounds, t0);
#endif
}

__global__ void fill(unsigned *p, size_t words)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words; k += (size_t)gridDim.x * blockDim.x)
        p[k] = (unsigned)(k * 2654435761u) ^ 0x9e3779b9u;
}
__global__ void mismatches(const unsigned *a, const unsigned *b, size_t words, unsigned long long *bad)
{
    unsigned long long c = 0;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words; k += (size_t)gridDim.x * blockDim.x)
        c += a[k] != b[k];
    if (c) atomicAdd(bad, c);
}

typedef void (*ring_kernel)(const char *, char *, unsigned, unsigned *, block_rec *);

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: rates LOG2N REPS OUT.csv\n");
        return 2;
    }
    const size_t bytes = (size_t)4 << atoi(argv[1]), flush_bytes = (size_t)512 << 20;
    const unsigned reps = atoi(argv[2]), tiles = (unsigned)(bytes / TILE_BYTES);
    FILE *csv = fopen(argv[3], "w");
    if (!csv) return 2;
    char *in, *out, *flush;
    unsigned *tickets, *words;
    unsigned char skip_small[MAX_SM] = {0}, skip_big[MAX_SM] = {0};
    unsigned long long *bad;
    block_rec *rec, *host;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMalloc(&tickets, 16));
    CK(cudaMemset(tickets, 0, 16));
    CK(cudaMalloc(&bad, 8));
    fill<<<1024, 256>>>((unsigned *)in, bytes / 4);
    const char *names[] = {"memcpy", "fixed", "ticket", "lockstep", "lockstep_words", "ticket_big_gpcs", "ticket_small_gpcs"};
    ring_kernel kernels[] = {NULL, ring_fixed, ring_ticket<false>, ring_lockstep, ring_lockstep_words, ring_ticket<true>,
                             ring_ticket<true>};
    const int K = 7;
    unsigned grid = 0;
    for (int k = 1; k < K; k++) {
        CK(smem_opt_in((const void *)kernels[k], RING_BYTES));
        grid = resident_grid((const void *)kernels[k], WARPS * 32 + 32, RING_BYTES);
    }
    CK(cudaMalloc(&rec, grid * sizeof *rec));
    CK(cudaMalloc(&words, 2 * grid * sizeof *words)); /* one 8-byte word a block, as the scan's aggregates */
    host = (block_rec *)malloc(grid * sizeof *host);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    fprintf(csv, "rep,kernel,us,block,smid,tiles,t0_ns,t1_ns\n");
    for (unsigned rep = 0; rep <= reps; rep++) /* rep 0: warm-up, not written */
        for (int j = 0; j < K; j++) {
            const int k = rep % 2 ? K - 1 - j : j; /* forward, then reversed */
            CK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
            CK(cudaMemsetAsync(out, 0, bytes));
            CK(cudaMemsetAsync(words, 0, 2 * grid * sizeof *words));
            CK(cudaMemsetAsync(flush, (rep + 1) & 0xff, flush_bytes));
            if (k >= 5) CK(cudaMemcpyToSymbol(skip_sm, k == 5 ? skip_small : skip_big, MAX_SM));
            CK(cudaEventRecord(e0));
            if (k == 0) CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice));
            else kernels[k]<<<grid, WARPS * 32 + 32, RING_BYTES>>>(in, out, tiles, k == 4 ? words : tickets, rec);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            CK(cudaMemset(bad, 0, 8));
            mismatches<<<1024, 256>>>((const unsigned *)in, (const unsigned *)out, bytes / 4, bad);
            unsigned long long nbad;
            CK(cudaMemcpy(&nbad, bad, 8, cudaMemcpyDeviceToHost));
            if (nbad) {
                fprintf(stderr, "rates: %s rep %u: %llu words differ\n", names[k], rep, nbad);
                return 1;
            }
            if (rep == 0 && k == 2) { /* the SMs that take over 1.1 of the mean tiles: the small GPCs' */
                CK(cudaMemcpy(host, rec, grid * sizeof *host, cudaMemcpyDeviceToHost));
                unsigned per_sm[MAX_SM] = {0}, sms = 0, small = 0;
                for (unsigned b = 0; b < grid; b++) per_sm[host[b].smid % MAX_SM] += host[b].tiles;
                for (unsigned m = 0; m < MAX_SM; m++) sms += per_sm[m] > 0;
                for (unsigned m = 0; m < MAX_SM; m++) {
                    skip_small[m] = per_sm[m] * (double)sms > 1.1 * tiles;
                    skip_big[m] = per_sm[m] > 0 && !skip_small[m];
                    small += skip_small[m];
                }
                if (small == 0) memset(skip_big, 0, MAX_SM); /* one group only: both masked runs copy on every SM */
                printf("rates: %u SMs, %u over 1.1 of the mean tiles:", sms, small);
                for (unsigned m = 0; m < MAX_SM; m++)
                    if (skip_small[m]) printf(" %u", m);
                printf("\n");
            }
            if (rep == 0) continue;
            fprintf(csv, "%u,%s,%.3f,-1,,,,\n", rep, names[k], ms * 1e3);
            if (k == 0) continue;
            CK(cudaMemcpy(host, rec, grid * sizeof *host, cudaMemcpyDeviceToHost));
            unsigned long long base = host[0].t0;
            for (unsigned b = 1; b < grid; b++) base = host[b].t0 < base ? host[b].t0 : base;
            for (unsigned b = 0; b < grid; b++)
                fprintf(csv, "%u,%s,%.3f,%u,%u,%u,%llu,%llu\n", rep, names[k], ms * 1e3, b, host[b].smid, host[b].tiles,
                        host[b].t0 - base, host[b].t1 - base);
        }
    fclose(csv);
    printf("rates: %zu bytes, %u tiles, grid %u, %u reps, every copy checked\n", bytes, tiles, grid, reps);
    return 0;
}
