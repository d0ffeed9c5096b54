/* Thread-block clusters (sm_90): the launch and the few cluster operations the
 * cluster rungs share (reduce_cluster, scan_cluster_lookback).
 *
 *   CLUSTER_SIZE_LIST     - the cluster sizes the rungs instantiate and declare
 *   launch_cluster        - a launch of `grid` blocks in clusters of C (grid a
 *                           multiple of C), through cudaLaunchKernelEx
 *   cluster_rank, cluster_blocks, cluster_sync
 *   cluster_arrive / cluster_wait - the barrier split in two, so a block can
 *                           do its own work between saying it has started and
 *                           writing into another block's shared memory
 *   cluster_peer          - this block's shared variable, as seen in block `rank`
 *
 * A block may touch another block's shared memory only while both are running:
 * after a cluster barrier that follows the other's start, and before a barrier
 * that the other passes before it exits. Every use below is bracketed so.
 * Every thread of every block arrives at every cluster barrier (no early
 * return before the last one).
 *
 * Cluster sizes are 1, 2, 4, 8: 8 is the largest the CUDA guide calls portable.
 * 16 needs cudaFuncAttributeNonPortableClusterSizeAllowed and a GPC with room
 * for 16 blocks at once, which a 1024-thread block of many registers does not
 * have on every H100; the rungs leave it out rather than fail there.
 */
#ifndef KERNELS_CLUSTER_CUH
#define KERNELS_CLUSTER_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "kernels/launch_attribute.cuh"

#define CLUSTER_SIZE_LIST(X, ...) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(4, __VA_ARGS__) X(8, __VA_ARGS__)
#define CLUSTER_MAX_BLOCKS 8u

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CLUSTERS_AVAILABLE 0
#else
#define CLUSTERS_AVAILABLE 1
#endif

#if CLUSTERS_AVAILABLE
__device__ inline unsigned cluster_rank() { return cooperative_groups::this_cluster().block_rank(); }
__device__ inline unsigned cluster_blocks() { return cooperative_groups::this_cluster().num_blocks(); }
__device__ inline void cluster_sync() { cooperative_groups::this_cluster().sync(); }
__device__ inline void cluster_arrive() { (void)cooperative_groups::this_cluster().barrier_arrive(); }
__device__ inline void cluster_wait() { cooperative_groups::this_cluster().barrier_wait(); }
template <typename T> __device__ inline T *cluster_peer(T *shared, unsigned rank)
{
    return cooperative_groups::this_cluster().map_shared_rank(shared, (int)rank);
}
#else /* before sm_90 there are no clusters: the launcher refuses (launch_cluster) */
__device__ inline unsigned cluster_rank() { return 0; }
__device__ inline unsigned cluster_blocks() { return 1; }
__device__ inline void cluster_sync() { __syncthreads(); }
__device__ inline void cluster_arrive() {}
__device__ inline void cluster_wait() { __syncthreads(); }
template <typename T> __device__ inline T *cluster_peer(T *shared, unsigned) { return shared; }
#endif

/* The device can launch clusters (compute capability 9.0 and later). Queried
 * once: the harness drives one device per process. */
static inline int cluster_launch_supported(void)
{
    static int known = -1;
    if (known < 0) {
        int dev = 0, yes = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&yes, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
            (void)cudaGetLastError(); /* a failed query must not read as a launch error later */
            return 0;
        }
        known = yes != 0;
    }
    return known;
}

/* kernel<<<grid, block, smem, s>>>(args...) in clusters of `cluster` blocks
 * (grid a multiple of it). A cluster the device cannot place (too many blocks
 * or too much shared memory for one GPC: cudaErrorClusterOutOfResources, an
 * invalid size: cudaErrorInvalidClusterSize) comes back as the launch's error,
 * and is cleared from the runtime's last error so that it does not show up
 * again at the next, unrelated check. */
template <typename... Params, typename... Args>
static cudaError_t launch_cluster(void (*kernel)(Params...), unsigned grid, unsigned block, size_t smem,
                                  unsigned cluster, cudaStream_t s, Args... args)
{
    if (!cluster_launch_supported()) return cudaErrorNotSupported;
    if (cluster == 0 || cluster > CLUSTER_MAX_BLOCKS || grid % cluster) return cudaErrorInvalidClusterSize;
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaError_t err = launch_with_attribute(kernel, grid, block, smem, s, attr, args...);
    if (err != cudaSuccess) (void)cudaGetLastError();
    return err;
}

#endif /* KERNELS_CLUSTER_CUH */
