/* reduce_cluster (block partials combined in a thread-block cluster; not in the seeds)
 *
 * Demonstrates: Hopper's thread-block clusters on a device-wide reduction.
 * Each block folds its segment of blockDim.x x I elements (I = items_per_thread)
 * as reduce_coarsened does, but with 16-byte loads: thread t loads vectors
 * t, t + B, t + 2B, ... of its block's segment (each load instruction of a
 * warp covers 512 contiguous bytes), up to 8 in flight, then the block folds
 * by shuffles. The C blocks of a cluster (C = cluster_size, kernels/cluster.cuh)
 * then write their partials into rank 0's shared memory (distributed shared
 * memory), meet at a cluster barrier, and rank 0 alone writes one partial
 * per cluster (or combines it atomically): C times fewer partials reach
 * global memory and the finish (kernels/reduce_finish.cuh) reads C times
 * fewer. The grid is rounded up to whole clusters; blocks past the data fold
 * nothing and add the identity. C = 1 is the same reduction without a cluster
 * to share (one block per cluster), the baseline inside the rung.
 *
 * The last, partial segment and input that is not 16-byte aligned take guarded
 * scalar loads in the same layout, so any n >= 1 and any element pointer work.
 * Indices are 64-bit (size_t) throughout.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_cluster --axis items_per_thread=8,16 --axis cluster_size=1,2,4,8
 */
#include <stdint.h>
#include <string.h>

#include "kernels/cluster.cuh"
#include "kernels/reduce_block.cuh"

/* Elements per thread: whole 16-byte vectors for every dtype (f64: 2 a vector). */
#define CLUSTER_ITEMS_LIST(X, ...) X(4, __VA_ARGS__) X(8, __VA_ARGS__) X(16, __VA_ARGS__) X(32, __VA_ARGS__)
/* Vectors a thread has in flight at once (registers: f64 x 32 is 16 vectors). */
#define SEGMENT_VECTORS_IN_FLIGHT 8u

/* The fold of this thread's I elements of the segment at seg (`left`
 * elements of it exist): vectors when the whole segment is there and
 * aligned, else guarded scalars in the same layout. */
template <typename T, typename Op, unsigned I>
__device__ inline T segment_fold(const T *seg, size_t left, bool full)
{
    typedef typename vec16<T>::type V;
    const unsigned VEC = sizeof(V) / sizeof(T), R = I / VEC;
    const unsigned G = R < SEGMENT_VECTORS_IN_FLIGHT ? R : SEGMENT_VECTORS_IN_FLIGHT;
    static_assert(I % VEC == 0 && R % G == 0, "whole vectors, whole groups");
    T acc = Op::template identity<T>();
#pragma unroll
    for (unsigned j0 = 0; j0 < R; j0 += G) {
        T x[G][VEC];
#pragma unroll
        for (unsigned g = 0; g < G; g++) {
            const size_t v = (size_t)(j0 + g) * blockDim.x + threadIdx.x; /* vector index in the segment */
            if (full) {
                V w = ((const V *)seg)[v];
                memcpy(x[g], &w, sizeof w);
            } else {
#pragma unroll
                for (unsigned k = 0; k < VEC; k++) {
                    const size_t i = v * VEC + k;
                    x[g][k] = i < left ? seg[i] : Op::template identity<T>();
                }
            }
        }
#pragma unroll
        for (unsigned g = 0; g < G; g++)
#pragma unroll
            for (unsigned k = 0; k < VEC; k++) acc = Op::apply(acc, x[g][k]);
    }
    return acc;
}

/* One stage: block b folds elements [b * B * I, (b + 1) * B * I) of src; the
 * cluster's partials meet in rank 0's shared memory; rank 0 writes
 * dst[cluster index] (atomic == 0) or combines into dst[0]. */
template <typename T, typename Op, unsigned I>
__global__ void __launch_bounds__(1024)
    reduce_cluster_kernel(const T *src, T *dst, size_t count, int atomic, int aligned)
{
    __shared__ T warp_totals[32];
    __shared__ T block_partials[CLUSTER_MAX_BLOCKS]; /* rank 0's: one per block of the cluster */
    cluster_arrive(); /* this block has started: the others may write into its shared memory */
    const unsigned rank = cluster_rank(), blocks = cluster_blocks();
    const size_t seg = (size_t)blockIdx.x * blockDim.x * I;
    const size_t left = seg < count ? count - seg : 0;
    const bool full = aligned && left >= (size_t)blockDim.x * I;
    T v = block_reduce<T, Op>(segment_fold<T, Op, I>(src + (left ? seg : 0), left, full), warp_totals);
    cluster_wait(); /* every block of the cluster has started */
    if (threadIdx.x == 0) *cluster_peer(&block_partials[rank], 0) = v;
    cluster_sync(); /* the partials are in rank 0; nobody touches another block's memory after this */
    if (rank != 0 || threadIdx.x >= 32) return;
    v = threadIdx.x < blocks ? block_partials[threadIdx.x] : Op::template identity<T>();
    v = warp_reduce<T, Op>(v); /* rank order: the same float result on every run */
    if (threadIdx.x != 0) return;
    if (atomic) atomic_combine(dst, v, Op());
    else dst[blockIdx.x / blocks] = v;
}

/* ---- launcher ------------------------------------------------------------ */

/* Own axes: items_per_thread (axis 0, what `coarse` names), cluster_size (axis 1). */
static size_t items_of(const kernel_args *a) { return a->axis[0]; }
static unsigned cluster_of(const kernel_args *a) { return a->axis[1]; }

/* Partials (one per cluster) for `count` inputs: what the finish sizes its
 * buffers and counts its bytes by; the stage launches this many clusters. */
static unsigned grid_for(const kernel_args *a, size_t count)
{
    size_t blocks = ceil_div(count, (size_t)a->block_dim * items_of(a));
    return (unsigned)ceil_div(blocks, cluster_of(a));
}

template <typename T, typename Op, unsigned I>
static cudaError_t stage_items(const kernel_args *a, const T *src, T *dst, size_t count, unsigned clusters,
                               int atomic, cudaStream_t s)
{
    const size_t blocks = (size_t)clusters * cluster_of(a);
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue; /* gridDim.x's limit */
    int aligned = ((uintptr_t)src & 15) == 0;
    return launch_cluster(reduce_cluster_kernel<T, Op, I>, (unsigned)blocks, a->block_dim, 0, cluster_of(a), s, src,
                          dst, count, atomic, aligned);
}

template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    DISPATCH_AXIS(CLUSTER_ITEMS_LIST, a->axis[0], stage_items, T, Op, a, src, dst, count, grid, atomic, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return reduce_run_partials<T, Op>(a, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t workspace(const kernel_args *a) { return reduce_partials_workspace(a, grid_for); }
/* Each level reads its inputs and writes one partial per cluster (the finish's model). */
static double bytes(const kernel_args *a) { return reduce_partials_bytes(a, grid_for); }

extern "C" const variant reduce_cluster_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_cluster",
    .family = "cluster",
    .description = "thread-block clusters: each block folds its segment with 16-byte loads, the cluster's blocks "
                   "combine their partials in rank 0's shared memory (DSMEM), one partial per cluster",
    .limits = "cluster_size 1, 2, 4, 8 (16 is non-portable: not swept); items_per_thread 4-32 (whole 16-byte "
              "vectors); block dims 64-1024; clusters need sm_90",
    .block_dims = BLOCKS_64_TO_1024,
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread folds in registers (16-byte loads) before the block's shuffle fold",
              AXIS_SET(CLUSTER_ITEMS_LIST)},
             {"cluster_size", "blocks per cluster",
              "thread blocks that share their partials through distributed shared memory before one goes to "
              "global memory",
              AXIS_SET(CLUSTER_SIZE_LIST)}},
    .max_n = VARIANT_GRID_MAX_N);
