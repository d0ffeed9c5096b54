/* A tile as warp rows of 16-byte vectors, scanned in registers: the pieces of
 * vectorized single-pass scan (scan_lookback_vectorized).
 *
 * Warp w of a tile owns 32 x C consecutive elements; in row j lane l holds the
 * VEC elements (4 for 4-byte types, 2 for f64) of vector j*32 + l, so every
 * load and store instruction of a warp covers 512 contiguous bytes and no
 * shared memory is needed to keep them coalesced. R = C / VEC rows.
 *
 *   rows_load / rows_store - vector accesses for a full aligned tile, guarded
 *                            scalar ones (the identity past n) otherwise
 *   rows_fold              - the fold of the thread's items, a few rows at a time
 *   rows_scan_local        - each vector scanned in place; the thread's fold
 *   rows_offsets           - per row, what comes before this lane within the
 *                            warp's segment (one warp scan per row)
 *   rows_apply             - the offsets and the tile prefix put in front,
 *                            inclusive or exclusive
 */
#ifndef KERNELS_SCAN_ROWS_CUH
#define KERNELS_SCAN_ROWS_CUH

#include <string.h>

#include "kernels/scan_block.cuh"

/* Items per thread C of the row-tile scans (their coarse factor): the
 * compile-time instances, also the values of their descriptors' axis. A multiple
 * of 4, so that every row is whole 16-byte vectors for each type. */
#define ROWS_ITEMS_LIST(X, ...) X(8, __VA_ARGS__) X(16, __VA_ARGS__) X(32, __VA_ARGS__)

/* A warp's R rows of VEC items: element k of row j of lane l is element
 * (j * 32 + l) * VEC + k of the warp's segment. Full: vector loads, no bounds. */
template <typename T, typename Op, unsigned R, unsigned VEC>
__device__ inline void rows_load(T (&x)[R][VEC], const T *seg, size_t left, bool full)
{
    typedef typename vec16<T>::type V;
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned j = 0; j < R; j++) {
        if (full) {
            V v = ((const V *)seg)[j * 32 + lane];
            memcpy(x[j], &v, sizeof v);
        } else {
#pragma unroll
            for (unsigned k = 0; k < VEC; k++) {
                size_t i = (size_t)(j * 32 + lane) * VEC + k;
                x[j][k] = i < left ? seg[i] : Op::template identity<T>();
            }
        }
    }
}

template <typename T, unsigned R, unsigned VEC>
__device__ inline void rows_store(T *seg, const T (&x)[R][VEC], size_t left, bool full)
{
    typedef typename vec16<T>::type V;
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned j = 0; j < R; j++) {
        if (full) {
            V v;
            memcpy(&v, x[j], sizeof v);
            ((V *)seg)[j * 32 + lane] = v;
        } else {
#pragma unroll
            for (unsigned k = 0; k < VEC; k++) {
                size_t i = (size_t)(j * 32 + lane) * VEC + k;
                if (i < left) seg[i] = x[j][k];
            }
        }
    }
}

/* The fold of the thread's items in a warp segment, without keeping them: G
 * rows in registers at a time, for a kernel that holds another tile meanwhile.
 * Each group is folded as a pairwise tree before it joins the running fold, so
 * the dependent adds number R / G + log2(G * VEC) (7 at f32 x 32), not R * VEC
 * (32): a compiler may not reorder float adds itself, and this chain stands on
 * every round's path between the barriers. */
template <typename T, typename Op, unsigned R, unsigned VEC, unsigned G = 2>
__device__ inline T rows_fold(const T *seg, size_t left, bool full)
{
    static_assert(R % G == 0, "whole groups of rows");
    T a = Op::template identity<T>();
#pragma unroll
    for (unsigned j = 0; j < R; j += G) {
        const size_t skip = (size_t)j * 32 * VEC;
        T x[G][VEC];
        rows_load<T, Op, G, VEC>(x, seg + skip, left > skip ? left - skip : 0, full);
        T *v = &x[0][0];
#pragma unroll
        for (unsigned w = 1; w < G * VEC; w *= 2)
#pragma unroll
            for (unsigned i = 0; i + w < G * VEC; i += 2 * w) v[i] = Op::apply(v[i], v[i + w]);
        a = Op::apply(a, v[0]);
    }
    return a;
}

/* Each vector scanned in place; returns the fold of the thread's items. */
template <typename T, typename Op, unsigned R, unsigned VEC> __device__ inline T rows_scan_local(T (&x)[R][VEC])
{
    T total = Op::template identity<T>();
#pragma unroll
    for (unsigned j = 0; j < R; j++) {
#pragma unroll
        for (unsigned k = 1; k < VEC; k++) x[j][k] = Op::apply(x[j][k - 1], x[j][k]);
        total = Op::apply(total, x[j][VEC - 1]);
    }
    return total;
}

/* off[j]: what comes before this lane's row j within the warp's segment (the
 * rows before j, then the lanes before this one in row j). */
template <typename T, typename Op, unsigned R, unsigned VEC>
__device__ inline void rows_offsets(const T (&x)[R][VEC], T (&off)[R])
{
    const unsigned lane = threadIdx.x & 31;
    T run = Op::template identity<T>();
#pragma unroll
    for (unsigned j = 0; j < R; j++) {
        T inc = warp_scan_inclusive<T, Op>(x[j][VEC - 1]);
        T exc = __shfl_up_sync(0xffffffffu, inc, 1);
        off[j] = lane ? Op::apply(run, exc) : run;
        run = Op::apply(run, __shfl_sync(0xffffffffu, inc, 31));
    }
}

/* Every item gets its offset in front: inclusive, or shifted by one (exclusive). */
template <typename T, typename Op, unsigned R, unsigned VEC>
__device__ inline void rows_apply(T (&x)[R][VEC], const T (&off)[R], T base, int exclusive)
{
#pragma unroll
    for (unsigned j = 0; j < R; j++) {
        T o = Op::apply(base, off[j]);
#pragma unroll
        for (int k = VEC - 1; k >= 0; k--) x[j][k] = exclusive ? (k ? Op::apply(o, x[j][k - 1]) : o) : Op::apply(o, x[j][k]);
    }
}

#endif /* KERNELS_SCAN_ROWS_CUH */
