/* The register-shuffle layer every variant folds and scans with (CUB's
 * WarpReduce / WarpScan, then BlockReduce / BlockScan on top):
 *   warp_reduce          - down-shuffle fold: lane 0 gets the warp's total
 *   warp_reduce_all      - xor-shuffle fold: every lane gets the warp's total
 *   warp_scan_inclusive  - up-shuffle Kogge-Stone: lane l gets lanes 0..l
 *   block_reduce         - warps fold, leaders meet in shared memory, warp 0 folds those
 *   block_scan           - warps scan, warp 0 scans the warp totals, each thread adds its warps' prefix
 * All lanes of a warp call the warp functions; every thread of a block the
 * block ones. Block dims are multiples of 32.
 */
#ifndef KERNELS_WARP_CUH
#define KERNELS_WARP_CUH

#include "kernels/common.cuh"

/* A warp's 32 values folded with __shfl_down_sync; lane 0 gets the total
 * (other lanes: partial folds). */
template <typename T, typename Op> __device__ inline T warp_reduce(T v)
{
    for (int offset = 16; offset > 0; offset >>= 1) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

/* The same fold with __shfl_xor_sync (a butterfly): every lane gets the total. */
template <typename T, typename Op> __device__ inline T warp_reduce_all(T v)
{
    for (int offset = 16; offset > 0; offset >>= 1) v = Op::apply(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

/* Inclusive scan of one value per lane (Kogge-Stone on registers). */
template <typename T, typename Op> __device__ inline T warp_scan_inclusive(T v)
{
    unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned offset = 1; offset < 32; offset <<= 1) {
        T up = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v = Op::apply(up, v);
    }
    return v;
}

/* Every warp folds by shuffles, warp leaders meet in warp_totals (blockDim.x/32
 * entries), the first warp folds those: thread 0 gets the block's total. Called
 * by every thread; warp_totals may be reused after the next __syncthreads(). */
template <typename T, typename Op> __device__ inline T block_reduce(T v, T *warp_totals)
{
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_reduce<T, Op>(v);
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_totals[lane] : Op::template identity<T>();
        v = warp_reduce<T, Op>(v);
    }
    return v;
}

/* Block scan of one value per thread: each warp scans with shuffles, lane 31
 * leaves its warp's total in warp_totals (32 entries), warp 0 scans those the
 * same way, and every thread adds the totals of the warps before it. Returns
 * the inclusive value; *exclusive gets the exclusive one (the identity at
 * thread 0) and *total the block's total. Two __syncthreads(), called by every
 * thread. */
template <typename T, typename Op> __device__ inline T block_scan(T v, T *warp_totals, T *exclusive, T *total)
{
    const T id = Op::template identity<T>();
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_scan_inclusive<T, Op>(v);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        T w = lane < (blockDim.x >> 5) ? warp_totals[lane] : id;
        warp_totals[lane] = warp_scan_inclusive<T, Op>(w); /* lanes past the last warp: the total */
    }
    __syncthreads();
    T before = warp ? warp_totals[warp - 1] : id;
    T up = __shfl_up_sync(0xffffffffu, v, 1);
    *exclusive = lane == 0 ? before : (warp ? Op::apply(before, up) : up);
    *total = warp_totals[31];
    return warp ? Op::apply(before, v) : v;
}

#endif /* KERNELS_WARP_CUH */
