/* The one-launch finish (reduce_one_launch, reduce_bulk_ring): every block
 * of a grid folds its share to one partial, and the block that draws the last
 * ticket folds the partials in block order and leaves the workspace ready for
 * the next call, so a reduction costs exactly one launch.
 *
 *   finish_one_launch     - a block's partial in; the result out of the last
 *   one_launch_layout     - (host) the workspace: header, then the partials
 *   one_launch_workspace, one_launch_workspace_init
 *   one_launch_bytes      - (host) the bytes a call moves with `grid` blocks
 */
#ifndef KERNELS_REDUCE_ONE_LAUNCH_CUH
#define KERNELS_REDUCE_ONE_LAUNCH_CUH

#include <cuda/atomic>
#include <string.h>

#include "kernels/common.cuh"
#include "kernels/warp.cuh"

/* The finish, one way for each word size (workspace: a 64-bit header, then
 * one 8-byte partial per block):
 *   4-byte types: thread 0 draws its ticket and the launch's epoch from the
 *     header {epoch, count} in one relaxed atomic, then stores its partial as
 *     one 64-bit word {tag of the epoch, value}, relaxed. No fence on any
 *     block's way out: the last drawer polls the partial words until each
 *     carries this launch's tag (every block stored its word right after its
 *     draw), so its path is two L2 round trips, not three.
 *   f64: the partial, then the ticket with acq_rel (release: the partial
 *     before the ticket; acquire: the last block sees every partial).
 * The last drawer puts the count back to 0 and advances the epoch (every
 * other block has drawn by then). Tags never equal 0, so zeroed words are
 * stale in every epoch. */
__device__ inline unsigned partial_tag(unsigned epoch) { return epoch | 0x80000000u; }

template <typename T, typename Op>
__device__ inline void finish_one_launch(T v, unsigned long long *header, unsigned long long *partials, T *out,
                                         T *warp_totals)
{
    __shared__ int am_last;
    __shared__ unsigned epoch;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> h(*header);
        unsigned long long x;
        if constexpr (sizeof(T) == 4) {
            x = h.fetch_add(1ull, cuda::memory_order_relaxed);
            unsigned bits;
            memcpy(&bits, &v, sizeof bits);
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(partials[blockIdx.x]);
            w.store(((unsigned long long)partial_tag((unsigned)(x >> 32)) << 32) | bits, cuda::memory_order_relaxed);
        } else {
            ((T *)partials)[blockIdx.x] = v;
            x = h.fetch_add(1ull, cuda::memory_order_acq_rel);
        }
        epoch = (unsigned)(x >> 32);
        am_last = (unsigned)x == gridDim.x - 1;
        if (am_last) h.store(((x >> 32) + 1) << 32, cuda::memory_order_relaxed);
    }
    __syncthreads(); /* also: warp 0 is done with warp_totals; thread 0's acquire covers the block */
    if (!am_last) return;
    v = Op::template identity<T>();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) {
        T p;
        if constexpr (sizeof(T) == 4) {
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(partials[i]);
            unsigned long long word;
            while ((unsigned)((word = w.load(cuda::memory_order_relaxed)) >> 32) != partial_tag(epoch)) {
            }
            unsigned bits = (unsigned)word;
            memcpy(&p, &bits, sizeof bits);
        } else {
            p = __ldcg((const T *)partials + i); /* L2, not L1 */
        }
        v = Op::apply(v, p);
    }
    v = block_reduce<T, Op>(v, warp_totals);
    if (threadIdx.x == 0) *out = v;
}

/* ---- host side ------------------------------------------------------------ */

/* Workspace for a grid of `grid` blocks: the 64-bit header, then one 8-byte
 * partial word per block. Returns the size; with a->workspace set, the
 * pointers point into it. */
static inline size_t one_launch_layout(const kernel_args *a, unsigned grid, unsigned long long **header,
                                       unsigned long long **partials)
{
    workspace_layout w = {(char *)a->workspace, 0};
    *header = (unsigned long long *)workspace_take(&w, sizeof(unsigned long long));
    *partials = (unsigned long long *)workspace_take(&w, grid * 8u);
    return w.size;
}

static inline size_t one_launch_workspace(const kernel_args *a, unsigned grid)
{
    unsigned long long *header, *partials;
    return one_launch_layout(a, grid, &header, &partials);
}

/* Header and partial words to 0: once, when a workspace is handed over. */
static inline cudaError_t one_launch_workspace_init(const kernel_args *a, unsigned grid, cudaStream_t s)
{
    size_t bytes = one_launch_workspace(a, grid);
    if (!a->workspace || a->workspace_bytes < bytes) return cudaErrorInvalidValue;
    return cudaMemsetAsync(a->workspace, 0, bytes, s);
}

/* n elements read, one 8-byte partial per block written and read back (none
 * for one block), one result. */
static inline double one_launch_bytes(const kernel_args *a, unsigned grid)
{
    return (a->n + 1.0) * dtype_size(a->dtype) + (grid > 1 ? 16.0 * grid : 0.0);
}

#endif /* KERNELS_REDUCE_ONE_LAUNCH_CUH */
