/* The pieces of an in-block reduction that several variants share, each named
 * after the variant that introduces it, so that a later rung of the ladder can
 * reuse an earlier one without copying it:
 *   load_or_identity      - element i, or the operator's identity past n
 *   load_first_add        - two elements combined during the load (reduce_first_add)
 *   block_result          - a block's partial to out[blockIdx.x], or atomically into out[0]
 *   tree_sequential       - the shared-memory tree of reduce_sequential_addressing
 *   warp_unrolled         - the last warp of reduce_unroll_last_warp (volatile + __syncwarp)
 *   tree_unrolled<BLOCK>  - the completely unrolled tree of reduce_unroll_complete
 *   vector_split          - in[0..n) as scalar head, 16-byte vectors, scalar tail
 *   vector_fold<U>        - grid-stride fold with 16-byte loads, U in flight (reduce_vectorized_single_pass)
 *   last_block_finish     - the block that draws the last ticket folds the partials (reduce_vectorized_single_pass)
 *   resident_blocks, capped_grid - the grid cap of the grid-stride variants
 *   launch_stage          - the launch every block-partial stage makes
 * The register-shuffle folds (warp_reduce, block_reduce) are in warp.cuh.
 */
#ifndef KERNELS_REDUCE_BLOCK_CUH
#define KERNELS_REDUCE_BLOCK_CUH

#include <stdint.h>

#include "kernels/reduce_finish.cuh"

/* ---- device pieces ------------------------------------------------------ */

/* Element i, or the operator's identity when i is past n: the padding that
 * lets every kernel take any n >= 1. */
template <typename T, typename Op> __device__ inline T load_or_identity(const T *in, size_t i, size_t n)
{
    return i < n ? in[i] : Op::template identity<T>();
}

/* The first add during the load: elements i and i + stride, each only if below n. */
template <typename T, typename Op> __device__ inline T load_first_add(const T *in, size_t i, size_t stride, size_t n)
{
    T v = load_or_identity<T, Op>(in, i, n);
    return i + stride < n ? Op::apply(v, in[i + stride]) : v;
}

/* Thread 0's value v is the block's partial: dst[blockIdx.x], or combined into
 * dst[0] under the atomic finish. */
template <typename T, typename Op> __device__ inline void block_result(T *dst, T v, int atomic)
{
    if (atomic) atomic_combine(dst, v, Op());
    else dst[blockIdx.x] = v;
}

/* Sequential addressing: at stride s the first s threads add the element s
 * away, so active threads stay consecutive (whole warps retire) and a warp's
 * accesses hit 32 consecutive words (no bank conflicts). Runs the strides
 * from blockDim.x/2 down while they exceed `stop` (stop 0: the whole tree, the
 * total in sdata[0]; stop 32: sdata[0..63] are left for warp_unrolled). Called
 * by every thread, after sdata is filled and a __syncthreads(). */
template <typename T, typename Op> __device__ inline void tree_sequential(T *sdata, unsigned tid, unsigned stop)
{
    for (unsigned s = blockDim.x / 2; s > stop; s >>= 1) {
        if (tid < s) sdata[tid] = Op::apply(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
}

/* The last six steps (strides 32..1) by the first warp alone, without
 * __syncthreads(): sdata[0..63] become one value, returned to lane 0. Called by
 * the 32 threads tid < 32 only, after a __syncthreads(); needs 64 values.
 *
 * Harris and the seeds use `volatile` alone and rely on the lanes of a warp
 * running in lockstep. Since Volta, lanes are scheduled independently: lane 0
 * may read sdata[16] after lane 16 has already overwritten it. Each step
 * therefore reads, __syncwarp()s, writes, __syncwarp()s; volatile still keeps
 * every access a real shared-memory access. The loop is unrolled (#pragma). */
template <typename T, typename Op> __device__ inline T warp_unrolled(T *sdata, unsigned tid)
{
    volatile T *vs = sdata;
    T v = vs[tid];
#pragma unroll
    for (unsigned s = 32; s > 0; s >>= 1) {
        T other = vs[tid + s];
        __syncwarp();
        v = Op::apply(v, other);
        vs[tid] = v;
        __syncwarp();
    }
    return v;
}

/* Complete unrolling (Harris reduce5): with the block size a template parameter
 * every stride test is resolved at compile time, leaving no loop. BLOCK is 64
 * to 1024; the total is returned to thread 0 (other threads get garbage). */
template <unsigned BLOCK, typename T, typename Op> __device__ inline T tree_unrolled(T *sdata, unsigned tid)
{
    static_assert(BLOCK >= 64 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0, "block size 64..1024, a power of 2");
    if (BLOCK >= 1024) { if (tid < 512) sdata[tid] = Op::apply(sdata[tid], sdata[tid + 512]); __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) sdata[tid] = Op::apply(sdata[tid], sdata[tid + 256]); __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) sdata[tid] = Op::apply(sdata[tid], sdata[tid + 128]); __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) sdata[tid] = Op::apply(sdata[tid], sdata[tid + 64]); __syncthreads(); }
    return tid < 32 ? warp_unrolled<T, Op>(sdata, tid) : sdata[tid];
}

/* in[0..n) cut for 16-byte loads: `head` scalars up to the first 16-byte
 * boundary (none for cudaMalloc'd input), `nv` vectors from in + head, then
 * scalars from `tail` to n (fewer than one vector). */
struct vector_span {
    size_t head, nv, tail;
};

template <typename T> __device__ inline vector_span vector_split(const T *in, size_t n)
{
    const size_t W = 16 / sizeof(T);
    size_t head = ((16 - ((uintptr_t)in & 15)) & 15) / sizeof(T);
    if (head > n) head = n;
    const size_t nv = (n - head) / W;
    return vector_span{head, nv, head + nv * W};
}

/* A grid-stride fold of in[0..n) with 16-byte loads: a scalar head up to the
 * first 16-byte boundary (empty for cudaMalloc'd input), the vector body with
 * U independent loads in flight per thread and step, a scalar tail of fewer
 * than one vector; the head and tail are read by the grid's first threads, so
 * any n >= 1 and any element-aligned pointer work and nothing past n is read.
 * Returns the thread's fold (the identity if it got nothing). */
template <typename T, typename Op, unsigned U> __device__ inline T vector_fold(const T *in, size_t n)
{
    typedef typename vec16<T>::type V;
    const unsigned W = sizeof(V) / sizeof(T);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, grid = (size_t)blockDim.x * gridDim.x;
    const vector_span sp = vector_split(in, n);
    const size_t head = sp.head, nv = sp.nv, tail = sp.tail;
    const V *body = (const V *)(in + head);

    T acc[U];
#pragma unroll
    for (unsigned u = 0; u < U; u++) acc[u] = Op::template identity<T>();
    if (gtid < head) acc[0] = in[gtid];
    size_t i = gtid;
    for (; i + (U - 1) * grid < nv; i += U * grid) {
        V x[U];
#pragma unroll
        for (unsigned u = 0; u < U; u++) x[u] = body[i + u * grid];
#pragma unroll
        for (unsigned u = 0; u < U; u++) {
            const T *e = (const T *)&x[u];
#pragma unroll
            for (unsigned k = 0; k < W; k++) acc[u] = Op::apply(acc[u], e[k]);
        }
    }
    for (; i < nv; i += grid) { /* fewer than U vectors left for this thread */
        V x = body[i];
        const T *e = (const T *)&x;
#pragma unroll
        for (unsigned k = 0; k < W; k++) acc[0] = Op::apply(acc[0], e[k]);
    }
    if (tail + gtid < n) acc[0] = Op::apply(acc[0], in[tail + gtid]);
#pragma unroll
    for (unsigned u = 1; u < U; u++) acc[0] = Op::apply(acc[0], acc[u]);
    return acc[0];
}

/* The CUDA threadFenceReduction finish: thread 0 holds the block's partial
 * v; it writes it to partials[blockIdx.x], makes it visible device-wide, and
 * draws a ticket; the block that draws the last one knows every partial is
 * written, folds them in a fixed order (float results do not depend on block
 * order) and writes *out. The launcher zeroes the ticket before every launch.
 * Called by every thread; warp_totals as for block_reduce (warp.cuh). */
template <typename T, typename Op>
__device__ inline void last_block_finish(T v, T *partials, unsigned *ticket, T *out, T *warp_totals)
{
    __shared__ int am_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence(); /* the partial is visible device-wide before the ticket is taken */
        am_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
        if (am_last) __threadfence(); /* and the others' partials are read after it */
    }
    __syncthreads(); /* also: warp 0 is done with warp_totals */
    if (!am_last) return;
    v = Op::template identity<T>();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v = Op::apply(v, __ldcg(partials + i)); /* L2, not L1 */
    v = block_reduce<T, Op>(v, warp_totals);
    if (threadIdx.x == 0) *out = v;
}

/* ---- host pieces -------------------------------------------------------- */

/* The grid cap of the grid-stride variants: as many blocks as the device holds
 * at once at full thread occupancy, SM count x (resident threads per SM /
 * block dim). One such wave keeps every SM busy; more blocks only add block
 * start-up and partials, fewer leave SMs idle. (Registers and shared memory do
 * not limit these small kernels below full occupancy.) The attributes are
 * queried once and cached: the harness drives one device per process. Without
 * a device (workspace sizing on a build machine) it assumes an H200: 132 SMs
 * of 2048 threads. */
static inline unsigned resident_blocks(unsigned block_dim)
{
    static int sm_count = 0, threads_per_sm = 0;
    if (sm_count == 0) {
        int dev = 0, sms = 0, threads = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev) == cudaSuccess) {
            threads_per_sm = threads;
            sm_count = sms;
        } else {
            (void)cudaGetLastError(); /* the failed query must not read as a launch error later */
            return 132u * (2048u / block_dim);
        }
    }
    unsigned per_sm = (unsigned)threads_per_sm / block_dim;
    return (unsigned)sm_count * (per_sm ? per_sm : 1u);
}

/* `blocks` blocks, but no more than resident_blocks(block_dim). */
static inline unsigned capped_grid(size_t blocks, unsigned block_dim)
{
    size_t cap = resident_blocks(block_dim);
    return (unsigned)(blocks < cap ? blocks : cap);
}

/* The signature of every block-partial stage kernel: (src, dst, count, atomic). */
template <typename T> using stage_kernel = void (*)(const T *, T *, size_t, int);

template <typename T>
static cudaError_t launch_stage(stage_kernel<T> kernel, unsigned grid, unsigned block, size_t shared_bytes,
                                const T *src, T *dst, size_t count, int atomic, cudaStream_t s)
{
    if (!kernel) return cudaErrorInvalidValue;
    kernel<<<grid, block, shared_bytes, s>>>(src, dst, count, atomic);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

#endif /* KERNELS_REDUCE_BLOCK_CUH */
