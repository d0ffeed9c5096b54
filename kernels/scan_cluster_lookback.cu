/* scan_cluster_lookback (decoupled look-back by thread-block clusters; not in the seeds)
 *
 * Demonstrates: the look-back of scan_lookback_vectorized with the cluster as
 * its unit. What holds that rung back is the look-back itself (JOURNAL §6:
 * warps wait at the barrier while warp 0 walks back window after window of
 * status words); a cluster of C blocks (C = cluster_size, kernels/cluster.cuh)
 * shortens the chain C times:
 *   - rank 0 draws one tile index for the whole cluster (one atomic) and
 *     hands it to the other blocks through distributed shared memory;
 *     block r scans tile (cluster tile) x C + r;
 *   - each block loads and folds its tile as scan_lookback_vectorized does
 *     (kernels/scan_rows.cuh: warp rows of 16-byte vectors in registers) and
 *     writes its total into rank 0's shared memory;
 *   - warp 0 of rank 0 publishes ONE status word per cluster (the cluster's
 *     aggregate, then its inclusive prefix) and looks back over cluster words
 *     only (kernels/scan_lookback.cuh): C times fewer words published and
 *     polled, and a window of 32 words covers 32 x C tiles;
 *   - rank 0 writes into each block's shared memory what comes before it (the
 *     cluster's prefix, then the totals of the blocks before it in the
 *     cluster), and every block scans its tile from there, while the other
 *     warps compute their row offsets as before.
 * C = 1 is the plain look-back in this layout, the baseline inside the rung.
 * Status words are epoch-tagged and the counter is put back by the cluster
 * that draws last, as in scan_lookback_vectorized: one launch per call, and
 * workspace_init zeroes counter, epoch and words once. Indices are 64-bit
 * (size_t); tile numbers are 32-bit (the launcher refuses more tiles).
 *
 * Run: bazel run //harness:sweep -- --variants scan_cluster_lookback --sizes 268435456 --axis items_per_thread=16,32 --axis cluster_size=1,2,4,8
 */
#include <stdint.h>
#include <string.h>

#include "kernels/cluster.cuh"
#include "kernels/scan_lookback.cuh"
#include "kernels/scan_rows.cuh"

/* Look-back policy, as scan_lookback_vectorized's (JOURNAL §6): a window of
 * 32 cluster words per L2 round trip, no back-off while polling. */
#define CLUSTER_LOOKBACK_WINDOW_K 1
static const unsigned cluster_backoff_ns = 0;

/* Warp 0 of rank 0, once every block's total is in block_totals: the
 * cluster published and looked back; block_before[r] of block r gets
 * everything before it. */
template <unsigned K, typename T, typename Op>
__device__ inline void cluster_prefix(tile_status<T> status, unsigned cluster_tile, const T *block_totals,
                                      T *block_before, unsigned blocks, unsigned backoff_ns)
{
    const unsigned lane = threadIdx.x & 31;
    const T id = Op::template identity<T>();
    T inc = warp_scan_inclusive<T, Op>(lane < blocks ? block_totals[lane] : id);
    T exc = __shfl_up_sync(0xffffffffu, inc, 1);
    T before = lookback_warp<K, T, Op>(status, cluster_tile, __shfl_sync(0xffffffffu, inc, 31), backoff_ns);
    if (lane < blocks) *cluster_peer(block_before, lane) = lane ? Op::apply(before, exc) : before;
}

template <typename T, typename Op, unsigned ITEMS, unsigned K>
__global__ void __launch_bounds__(512)
    scan_cluster_lookback_kernel(const T *in, T *out, size_t n, int exclusive, int aligned, tile_status<T> status,
                                 unsigned long long *header, unsigned backoff_ns)
{
    const unsigned VEC = sizeof(typename vec16<T>::type) / sizeof(T), R = ITEMS / VEC;
    __shared__ T warp_totals[32], warp_before[32];
    __shared__ T block_totals[CLUSTER_MAX_BLOCKS]; /* rank 0's: each block's total */
    __shared__ T block_before;                     /* everything before this block, from rank 0 */
    __shared__ unsigned tile_shared, epoch_shared; /* the cluster's tile and epoch, from rank 0 */
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned rank = cluster_rank(), blocks = cluster_blocks();
    cluster_arrive(); /* this block has started: rank 0 may write into its shared memory */
    cluster_wait();
    if (rank == 0 && threadIdx.x == 0) {
        unsigned t, e;
        draw_tile(header, gridDim.x / blocks - 1, &t, &e);
        for (unsigned r = 0; r < blocks; r++) {
            *cluster_peer(&tile_shared, r) = t;
            *cluster_peer(&epoch_shared, r) = e;
        }
    }
    cluster_sync(); /* the draw is in every block */
    const unsigned cluster_tile = tile_shared;
    status.epoch = epoch_shared;

    const size_t tile = (size_t)cluster_tile * blocks + rank;
    const size_t start = tile * blockDim.x * ITEMS, seg = start + (size_t)warp * 32 * ITEMS;
    const size_t left = seg < n ? n - seg : 0;
    const bool full = aligned && start < n && n - start >= (size_t)blockDim.x * ITEMS;
    T x[R][VEC], off[R];
    rows_load<T, Op, R, VEC>(x, in + (seg < n ? seg : 0), left, full);

    T total = warp_reduce_all<T, Op>(rows_scan_local<T, Op, R, VEC>(x));
    if (lane == 0) warp_totals[warp] = total;
    __syncthreads();
    if (warp == 0) { /* the warps' prefixes within the block; the block's total to rank 0 */
        const T id = Op::template identity<T>();
        T inc = warp_scan_inclusive<T, Op>(lane < (blockDim.x >> 5) ? warp_totals[lane] : id);
        T exc = __shfl_up_sync(0xffffffffu, inc, 1);
        warp_before[lane] = lane ? exc : id;
        if (lane == 31) *cluster_peer(&block_totals[rank], 0) = inc;
    }
    cluster_sync(); /* every block's total is in rank 0 */
    if (rank == 0 && warp == 0)
        cluster_prefix<K, T, Op>(status, cluster_tile, block_totals, &block_before, blocks, backoff_ns);
    rows_offsets<T, Op, R, VEC>(x, off); /* the other warps: while warp 0 of rank 0 looks back */
    cluster_sync(); /* every block has its block_before; no block touches another's memory after this */
    rows_apply<T, Op, R, VEC>(x, off, warp ? Op::apply(block_before, warp_before[warp]) : block_before, exclusive);
    rows_store<T, R, VEC>(out + (seg < n ? seg : 0), x, left, full);
}

/* ---- launcher ------------------------------------------------------------ */

/* Own axes: items_per_thread (axis 0, what `coarse` names), cluster_size (axis 1). */
static unsigned cluster_of(const kernel_args *a) { return a->axis[1]; }
static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }
static size_t clusters_of(const kernel_args *a) { return ceil_div(ceil_div(a->n, tile_of(a)), cluster_of(a)); }

/* The header word (cluster counter and epoch), then one status per cluster. */
static size_t workspace(const kernel_args *a)
{
    return lookback_layout(LOOKBACK_HEADER, clusters_of(a), dtype_size(a->dtype), NULL);
}

/* Counter, epoch and every status word to 0 (scan_lookback.cuh). */
static cudaError_t workspace_init(const kernel_args *a, cudaStream_t s)
{
    return lookback_workspace_init(a->workspace, a->workspace_bytes, clusters_of(a), dtype_size(a->dtype), s);
}

template <typename T, typename Op, unsigned ITEMS> static cudaError_t launch_items(const kernel_args *a, cudaStream_t s)
{
    const size_t clusters = clusters_of(a), blocks = clusters * cluster_of(a);
    if (!a->workspace || a->workspace_bytes < workspace(a) || blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    char *ws = (char *)a->workspace;
    int aligned = (((uintptr_t)a->in | (uintptr_t)a->out) & 15) == 0;
    return launch_cluster(scan_cluster_lookback_kernel<T, Op, ITEMS, CLUSTER_LOOKBACK_WINDOW_K>, (unsigned)blocks,
                          a->block_dim, 0, cluster_of(a), s, (const T *)a->in, (T *)a->out, a->n,
                          (int)(a->scan_mode == SCAN_EXCLUSIVE), aligned,
                          lookback_status_at<T>(ws, LOOKBACK_HEADER, clusters, 0, (tile_status<T> *)NULL),
                          (unsigned long long *)ws, cluster_backoff_ns);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(ROWS_ITEMS_LIST, a->axis[0], launch_items, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
/* n read, n written; the status words (one per cluster) are not counted. */
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_cluster_lookback_variant = SCAN_VARIANT(
    .name = "scan_cluster_lookback",
    .family = "cluster",
    .description = "single pass, one launch, thread-block clusters: one tile draw, one status word and one "
                   "look-back per cluster; the blocks' totals and prefixes pass through DSMEM",
    .limits = "cluster_size 1, 2, 4, 8 (16 is non-portable: not swept); items_per_thread 8, 16, 32; block dims "
              "128-512 (registers: 32 items x 512 threads); clusters need sm_90",
    .block_dims = AXIS_BIT(128) | AXIS_BIT(256) | AXIS_BIT(512),
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers (whole 16-byte rows) before the tile scan",
              AXIS_SET(ROWS_ITEMS_LIST)},
             {"cluster_size", "blocks per cluster",
              "thread blocks that draw one tile index, publish one status word and look back once, together",
              AXIS_SET(CLUSTER_SIZE_LIST)}},
    .max_n = VARIANT_GRID_MAX_N,
    .workspace_init = workspace_init);
