/* Block-level scans: one tile of a block's threads, scanned in place.
 *
 * Every technique here is a `step`: a struct that says how large its tile is,
 * how much shared memory it takes and how a tile index maps to a shared-memory
 * slot, and whose scan<T, Op>() scans the tile (already loaded into shared
 * memory) inclusively. The hierarchical driver (scan_hierarchical.cuh) turns
 * any step into a scan of any n; the single-pass and reduce-then-scan variants
 * use the register pieces of the coarsened step directly.
 *
 *   scan_kogge_stone_step                - seed 002: one buffer, two barriers per step
 *   scan_kogge_stone_double_buffer_step  - seed 002's "ping-pong": two buffers, one barrier per step
 *   scan_brent_kung_step                 - up-sweep / down-sweep, two elements per thread
 *   scan_warp_shuffle_step               - block_scan (warp.cuh): __shfl_up_sync in each warp, warp totals combined
 *   scan_coarsened_step<C>               - C elements per thread scanned in registers (three phases)
 *
 * Kernels carry their variant's name (a step's name is a template argument of
 * the driver's kernels), so a sanitizer or profiler report names the variant;
 * a variant that reuses another's step derives a struct of its own name.
 *
 * The step contract: scan() is called by every thread of the block after the
 * tile is in shared memory and a __syncthreads(); it returns a pointer to the
 * scanned tile (indexed by slot()) and returns after a __syncthreads(), so the
 * result is visible to every thread. Block dims are powers of two from 32 to
 * 1024. `warp_totals` is a 32-element shared array for the steps that combine
 * warps (callers put a __syncthreads() between two uses; every loop here does).
 *
 * Exclusive scans of the one-element techniques are the inclusive scan of the
 * input shifted right by one with the identity in front (what seed 002 meant by
 * `input[tid - 1]`); scan_tile_load() does the shift. The coarsened tile with a
 * prefix (scan_tile_coarsened) produces exclusive results in registers instead.
 */
#ifndef KERNELS_SCAN_BLOCK_CUH
#define KERNELS_SCAN_BLOCK_CUH

#include "kernels/warp.cuh"

/* Coarse factors (elements per thread) the coarsened-tile variants
 * instantiate: their descriptors' AXIS_SET and their launchers' DISPATCH_AXIS. */
#define SCAN_COARSE_LIST(X, ...) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(4, __VA_ARGS__) X(8, __VA_ARGS__) X(16, __VA_ARGS__)

/* Tile shape: ITEMS elements per thread, BUFFERS tile-sized shared buffers,
 * PAD: one spare slot after every 32, so that threads reading their own run of
 * ITEMS consecutive elements (thread t: slots t*ITEMS ..) hit distinct banks. */
template <unsigned ITEMS, unsigned BUFFERS, bool PAD> struct scan_step_shape {
    __host__ __device__ static unsigned tile(unsigned block_dim) { return block_dim * ITEMS; }
    static size_t smem_elems(unsigned block_dim)
    {
        size_t t = (size_t)block_dim * ITEMS;
        return t * BUFFERS + (PAD ? t / 32 : 0);
    }
    __device__ static unsigned slot(unsigned i) { return PAD ? i + (i >> 5) : i; }
};

/* ---- tile load and store ------------------------------------------------ */

/* Striped (coalesced) load of the tile starting at element `start` of src:
 * slot(i) gets src[start + i], or with `shifted` src[start + i - 1] (the
 * identity at element 0); elements at or past `count` get the identity. */
template <typename T, typename Op, typename Shape>
__device__ inline void scan_tile_load(T *s, const T *src, size_t start, size_t count, int shifted)
{
    unsigned tile = Shape::tile(blockDim.x);
    for (unsigned i = threadIdx.x; i < tile; i += blockDim.x) {
        size_t g = start + i;
        T v = Op::template identity<T>();
        if (g < count && !(shifted && g == 0)) v = src[shifted ? g - 1 : g];
        s[Shape::slot(i)] = v;
    }
}

/* Striped store of the scanned tile, elements below `count` only. */
template <typename T, typename Shape>
__device__ inline void scan_tile_store(T *dst, const T *s, size_t start, size_t count)
{
    unsigned tile = Shape::tile(blockDim.x);
    for (unsigned i = threadIdx.x; i < tile && start + i < count; i += blockDim.x) dst[start + i] = s[Shape::slot(i)];
}

/* ---- the steps ------------------------------------------------------------ */

/* Kogge-Stone (seed 002): after the step of stride d, element i holds the
 * combination of the 2d elements ending at i. One buffer, so each step reads
 * into a register, waits for every read (barrier), writes, and waits again. */
template <typename T, typename Op> __device__ inline T *block_scan_kogge_stone(T *s)
{
    unsigned tid = threadIdx.x;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        T v = s[tid];
        if (tid >= stride) v = Op::apply(s[tid - stride], v);
        __syncthreads();
        if (tid >= stride) s[tid] = v;
        __syncthreads();
    }
    return s;
}

/* Kogge-Stone double-buffered (seed 002's ping-pong): each step reads one
 * buffer and writes the other, so the write-after-read barrier goes. Buffers
 * are blockDim.x elements each, the second at s + blockDim.x. */
template <typename T, typename Op> __device__ inline T *block_scan_kogge_stone_double_buffer(T *s)
{
    unsigned tid = threadIdx.x;
    T *src = s, *dst = s + blockDim.x;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        dst[tid] = tid >= stride ? Op::apply(src[tid - stride], src[tid]) : src[tid];
        __syncthreads();
        T *t = src;
        src = dst;
        dst = t;
    }
    return src;
}

/* Brent-Kung over 2*blockDim.x elements: the up-sweep builds a reduction tree
 * in place (element (k+1)*2d-1 combines the d to its left), the down-sweep
 * sends the partial sums down the tree (element (k+1)*2d-1+d gets the one d to
 * its left). 2(log2(2B)-1) steps, about 4B operations instead of Kogge-Stone's
 * B log2 B: work-efficient, at the price of more steps with few active threads. */
template <typename T, typename Op> __device__ inline T *block_scan_brent_kung(T *s)
{
    unsigned tid = threadIdx.x, len = 2 * blockDim.x;
    for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
        unsigned i = (tid + 1) * 2 * stride - 1;
        if (i < len) s[i] = Op::apply(s[i - stride], s[i]);
        __syncthreads();
    }
    for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        unsigned i = (tid + 1) * 2 * stride - 1;
        if (i + stride < len) s[i + stride] = Op::apply(s[i], s[i + stride]);
        __syncthreads();
    }
    return s;
}

/* Warp-shuffle block scan on the one-element tile. */
template <typename T, typename Op> __device__ inline T *block_scan_warp_shuffle(T *s, T *warp_totals)
{
    T exclusive, total;
    T v = block_scan<T, Op>(s[threadIdx.x], warp_totals, &exclusive, &total);
    s[threadIdx.x] = v;
    __syncthreads();
    return s;
}

/* ---- coarsened: C consecutive elements per thread, in registers ---------- */

template <unsigned C> using coarse_shape = scan_step_shape<C, 1, true>;

template <typename T, unsigned C> __device__ inline void items_from_shared(const T *s, T (&items)[C])
{
#pragma unroll
    for (unsigned j = 0; j < C; j++) items[j] = s[coarse_shape<C>::slot(threadIdx.x * C + j)];
}

template <typename T, unsigned C> __device__ inline void items_to_shared(T *s, const T (&items)[C])
{
#pragma unroll
    for (unsigned j = 0; j < C; j++) s[coarse_shape<C>::slot(threadIdx.x * C + j)] = items[j];
}

template <typename T, typename Op, unsigned C> __device__ inline T items_reduce(const T (&items)[C])
{
    T v = items[0];
#pragma unroll
    for (unsigned j = 1; j < C; j++) v = Op::apply(v, items[j]);
    return v;
}

/* Sequential scan of the thread's items, starting from `prefix` (what comes
 * before the thread's first item); inclusive or exclusive. */
template <typename T, typename Op, unsigned C>
__device__ inline void items_scan(T (&items)[C], T prefix, int exclusive)
{
    T run = prefix;
#pragma unroll
    for (unsigned j = 0; j < C; j++) {
        T next = Op::apply(run, items[j]);
        items[j] = exclusive ? run : next;
        run = next;
    }
}

/* Three phases (PMPP's coarsened scan): each thread scans its run of C
 * elements in registers, the block scans the threads' totals (warp shuffle),
 * each thread adds the total of the threads before it. Shared memory is only
 * the staging that keeps the global loads and stores coalesced. */
template <typename T, typename Op, unsigned C> __device__ inline T *block_scan_coarsened(T *s, T *warp_totals)
{
    T items[C], exclusive, total;
    items_from_shared<T, C>(s, items);
    block_scan<T, Op>(items_reduce<T, Op, C>(items), warp_totals, &exclusive, &total);
    items_scan<T, Op, C>(items, exclusive, 0);
    items_to_shared<T, C>(s, items);
    __syncthreads();
    return s;
}

/* One coarsened tile of `in` (elements start .. start + blockDim.x*C) scanned
 * straight to `out`, inclusive or exclusive, after the prefix of all earlier
 * tiles: prefix_of(tile_total) is called by every thread once the tile's total
 * is known and returns that prefix (a look-back, or a scanned tile total). */
template <typename T, typename Op, unsigned C, typename PrefixFn>
__device__ inline void scan_tile_coarsened(const T *in, T *out, size_t n, size_t start, int exclusive, T *s,
                                           T *warp_totals, const PrefixFn &prefix_of)
{
    T items[C], thread_prefix, total;
    scan_tile_load<T, Op, coarse_shape<C>>(s, in, start, n, 0);
    __syncthreads();
    items_from_shared<T, C>(s, items);
    block_scan<T, Op>(items_reduce<T, Op, C>(items), warp_totals, &thread_prefix, &total);
    T tile_prefix = prefix_of(total);
    items_scan<T, Op, C>(items, Op::apply(tile_prefix, thread_prefix), exclusive);
    items_to_shared<T, C>(s, items);
    __syncthreads();
    scan_tile_store<T, coarse_shape<C>>(out, s, start, n);
}

/* ---- the step structs ---------------------------------------------------- */

struct scan_kogge_stone_step : scan_step_shape<1, 1, false> {
    template <typename T, typename Op> __device__ static T *scan(T *s, T *) { return block_scan_kogge_stone<T, Op>(s); }
};
struct scan_kogge_stone_double_buffer_step : scan_step_shape<1, 2, false> {
    template <typename T, typename Op> __device__ static T *scan(T *s, T *)
    {
        return block_scan_kogge_stone_double_buffer<T, Op>(s);
    }
};
struct scan_brent_kung_step : scan_step_shape<2, 1, false> {
    template <typename T, typename Op> __device__ static T *scan(T *s, T *) { return block_scan_brent_kung<T, Op>(s); }
};
struct scan_warp_shuffle_step : scan_step_shape<1, 1, false> {
    template <typename T, typename Op> __device__ static T *scan(T *s, T *w) { return block_scan_warp_shuffle<T, Op>(s, w); }
};
template <unsigned C> struct scan_coarsened_step : coarse_shape<C> {
    template <typename T, typename Op> __device__ static T *scan(T *s, T *w) { return block_scan_coarsened<T, Op, C>(s, w); }
};

#endif /* KERNELS_SCAN_BLOCK_CUH */
