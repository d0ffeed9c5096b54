/* reduce_bulk_ring (a reduction read by the copy engine; not in the seeds)
 *
 * Demonstrates: what is left once a reduction costs one launch
 * (reduce_one_launch) is the memory system itself: at 2^30 elements both it
 * and CUB run DRAM at about 96 % of peak. Here the loads leave the threads:
 *   - the TMA copy engine (kernels/bulk_copy.cuh) copies the input into a
 *     ring of shared-memory stages, S copies in flight per block, no register
 *     or thread holding a load; the threads fold each stage from shared
 *     memory while the next ones land;
 *   - the input cut into equal chunks of at most one stage (block x C
 *     16-byte vectors) dealt round-robin, so every block reads the same bytes
 *     (whole stage-sized tiles leave some blocks one tile more: 3 % of the
 *     time at 2^24) and the copies in flight cover one window of memory (one
 *     contiguous share per block, 264 streams 16 MB apart, ran 17 % slower
 *     at 2^30: FINDINGS, "Beyond CUB");
 *   - the grid is what the ring's shared memory lets the chip hold at once;
 *   - the one-launch finish (kernels/reduce_one_launch.cuh): the last block
 *     folds the partials in block order and resets the ticket; a dependent
 *     launch overlaps the next call's start.
 * Where the copy engine is missing (before sm_90) the same chunks are folded
 * with 16-byte loads from global memory. The scalar head up to the first
 * 16-byte boundary and the tail are folded by the grid's first threads, so
 * any n >= 1 and any element-aligned pointer work.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_bulk_ring,reduce_one_launch --sizes 2^28,2^30 --block-dims 256
 */
#include "kernels/bulk_copy.cuh"
#include "kernels/dependent_launch.cuh"
#include "kernels/reduce_block.cuh"
#include "kernels/reduce_one_launch.cuh"

/* Ring policy: 96 KB of stages per block, so two blocks share an SM's 228 KB
 * (measured at 2^30 with 16 KB stages: FINDINGS, "Beyond CUB"). */
static const size_t bulk_ring_bytes = 96 * 1024;
#define BULK_RING_MAX_STAGES 8

/* Folds cnt (<= blockDim.x * C) vectors of a stage: thread t takes vectors
 * t, t + blockDim.x, ... into its C accumulators. */
template <typename T, typename Op, unsigned C, typename V>
__device__ inline void stage_fold(T (&acc)[C], const V *stage, size_t cnt)
{
    const unsigned W = sizeof(V) / sizeof(T);
#pragma unroll
    for (unsigned c = 0; c < C; c++) {
        const size_t j = threadIdx.x + (size_t)c * blockDim.x;
        if (j < cnt) {
            V x = stage[j];
            const T *e = (const T *)&x;
#pragma unroll
            for (unsigned k = 0; k < W; k++) acc[c] = Op::apply(acc[c], e[k]);
        }
    }
}

/* The body's nv vectors cut into equal chunks of at most one stage, dealt
 * round-robin: chunk b + k * grid is block b's k-th. Every block reads the
 * same bytes (to one chunk at the end), and each round's chunks lie side by
 * side, so the grid's copies in flight cover one window of memory. */
struct chunk_plan {
    size_t nv, chunk_vecs; /* vectors in the body, in a chunk */
    unsigned chunks;       /* this block's */
};

__device__ inline chunk_plan plan_chunks(size_t nv, size_t stage_vecs)
{
    const size_t grid = gridDim.x, rounds = (nv + grid * stage_vecs - 1) / (grid * stage_vecs);
    const size_t even = rounds ? (nv + grid * rounds - 1) / (grid * rounds) : 0;
    chunk_plan p = {nv, (even + 7) / 8 * 8, 0}; /* whole 128-byte lines; a stage is too */
    if (p.chunk_vecs) { /* chunks b, b + grid, ... that start before nv */
        const size_t starts = (nv + p.chunk_vecs - 1) / p.chunk_vecs;
        p.chunks = starts > blockIdx.x ? (unsigned)((starts - blockIdx.x + grid - 1) / grid) : 0;
    }
    return p;
}

__device__ inline size_t chunk_at(const chunk_plan &p, unsigned k)
{
    return ((size_t)blockIdx.x + (size_t)k * gridDim.x) * p.chunk_vecs;
}
__device__ inline size_t chunk_len(const chunk_plan &p, size_t at)
{
    return p.nv - at < p.chunk_vecs ? p.nv - at : p.chunk_vecs;
}

/* Thread 0: this block's chunk k into stage k % stages. */
template <typename V>
__device__ inline void ring_issue(V *ring, unsigned long long *full, unsigned stages, const chunk_plan &p, unsigned k,
                                  const V *body)
{
#if BULK_COPY_AVAILABLE
    const size_t at = chunk_at(p, k), s = k % stages;
    bulk_load(ring + s * p.chunk_vecs, body + at, (unsigned)(chunk_len(p, at) * sizeof(V)), &full[s]);
#endif
}

/* The block's chunks, stage by stage: wait for chunk k, fold it, and once
 * every thread has read the stage, refill it with chunk k + stages. */
template <typename T, typename Op, unsigned C, typename V>
__device__ inline void chunks_fold(T (&acc)[C], V *ring, unsigned long long *full, unsigned stages, const V *body,
                                   size_t nv)
{
    const chunk_plan p = plan_chunks(nv, (size_t)blockDim.x * C);
#if BULK_COPY_AVAILABLE
    if (threadIdx.x == 0)
        for (unsigned k = 0; k < stages && k < p.chunks; k++) ring_issue(ring, full, stages, p, k, body);
    for (unsigned k = 0, s = 0, parity = 0; k < p.chunks; k++) {
        bulk_wait(&full[s], parity);
        stage_fold<T, Op, C>(acc, ring + (size_t)s * p.chunk_vecs, chunk_len(p, chunk_at(p, k)));
        __syncthreads(); /* every thread is done with the stage before the copy engine refills it */
        if (threadIdx.x == 0 && k + stages < p.chunks) {
            bulk_reuse_fence();
            ring_issue(ring, full, stages, p, k + stages, body);
        }
        if (++s == stages) s = 0, parity ^= 1u;
    }
#else
    for (unsigned k = 0; k < p.chunks; k++) {
        const size_t at = chunk_at(p, k);
        stage_fold<T, Op, C>(acc, body + at, chunk_len(p, at));
    }
#endif
}

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(512) reduce_bulk_ring_kernel(const T *in, T *out, size_t n, unsigned stages,
                                                               unsigned long long *header, unsigned long long *partials)
{
    typedef typename vec16<T>::type V;
    __shared__ T warp_totals[32];
    __shared__ __align__(8) unsigned long long full[BULK_RING_MAX_STAGES];
    V *ring = shared_array<V>();
#if BULK_COPY_AVAILABLE
    if (threadIdx.x == 0) { /* shared memory only: overlaps the kernel before */
        for (unsigned s = 0; s < stages; s++) bulk_barrier_init(&full[s]);
        bulk_barrier_init_fence();
    }
#endif
    dependent_launch_wait(); /* the kernel before has finished: its ticket reset and its writes are in */
    dependent_launch_trigger();
    __syncthreads(); /* the barriers are initialised before anyone waits on them */

    const vector_span sp = vector_split(in, n);
    T acc[C];
#pragma unroll
    for (unsigned c = 0; c < C; c++) acc[c] = Op::template identity<T>();
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < sp.head) acc[0] = in[gtid];
    if (sp.tail + gtid < n) acc[0] = Op::apply(acc[0], in[sp.tail + gtid]);
    chunks_fold<T, Op, C>(acc, ring, full, stages, (const V *)(in + sp.head), sp.nv);
#pragma unroll
    for (unsigned c = 1; c < C; c++) acc[0] = Op::apply(acc[0], acc[c]);

    T v = block_reduce<T, Op>(acc[0], warp_totals);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = v;
        return;
    }
    finish_one_launch<T, Op>(v, header, partials, out, warp_totals);
}

/* ---- launcher ------------------------------------------------------------ */

static size_t stage_bytes(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0] * 16; }
static unsigned stages_of(const kernel_args *a)
{
    return bulk_ring_stages(bulk_ring_bytes, stage_bytes(a), 2, BULK_RING_MAX_STAGES);
}
static size_t smem_of(const kernel_args *a) { return stages_of(a) * stage_bytes(a); }

/* Blocks wanted: one stage's worth of vectors each at least. */
static size_t blocks_wanted(const kernel_args *a)
{
    return ceil_div(ceil_div(a->n, 16 / dtype_size(a->dtype)), (size_t)a->block_dim * a->axis[0]);
}

/* At most the blocks any instance could hold at once: SMs x (2048 threads /
 * block dim); the workspace holds a partial word for each. */
static unsigned grid_bound(const kernel_args *a)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev))
        sms = 1024;
    return (unsigned)sms * (2048u / a->block_dim);
}

static size_t workspace(const kernel_args *a) { return one_launch_workspace(a, grid_bound(a)); }
static cudaError_t workspace_init(const kernel_args *a, cudaStream_t s)
{
    return one_launch_workspace_init(a, grid_bound(a), s);
}

/* The grid: blocks wanted, no more than the chip holds at once with this
 * instance's ring (the occupancy query, after the shared-memory opt-in). */
template <typename T, typename Op, unsigned C> static cudaError_t grid_items(const kernel_args *a, unsigned *grid)
{
    const void *kernel = (const void *)reduce_bulk_ring_kernel<T, Op, C>;
    RETURN_IF_ERROR(smem_opt_in(kernel, smem_of(a)));
    size_t want = blocks_wanted(a), cap = resident_grid(kernel, a->block_dim, smem_of(a));
    *grid = (unsigned)(want < cap ? want : cap);
    return *grid ? cudaSuccess : cudaErrorInvalidConfiguration;
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_items(const kernel_args *a, cudaStream_t s)
{
    unsigned long long *header, *partials;
    unsigned grid = 0;
    if (!a->workspace || a->workspace_bytes < one_launch_layout(a, grid_bound(a), &header, &partials))
        return cudaErrorInvalidValue;
    RETURN_IF_ERROR((grid_items<T, Op, C>(a, &grid)));
    return launch_dependent(reduce_bulk_ring_kernel<T, Op, C>, grid, a->block_dim, smem_of(a), s, (const T *)a->in,
                            (T *)a->out, a->n, stages_of(a), header, partials);
}

/* 16-byte vectors per thread per stage (the variant's axis). */
#define STAGE_VECTORS_LIST(X, ...) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(4, __VA_ARGS__) X(8, __VA_ARGS__)

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(STAGE_VECTORS_LIST, a->axis[0], launch_items, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }

template <typename T, typename Op> static cudaError_t grid_typed(const kernel_args *a, unsigned *grid)
{
    DISPATCH_AXIS(STAGE_VECTORS_LIST, a->axis[0], grid_items, T, Op, a, grid);
}
static cudaError_t grid_of(const kernel_args *a, unsigned *grid) { DISPATCH_DTYPE_OP(a, grid_typed, a, grid); }

/* The launch's grid; without a device to ask, the grid's bound. */
static double bytes(const kernel_args *a)
{
    unsigned g = 0;
    if (grid_of(a, &g) != cudaSuccess) {
        size_t want = blocks_wanted(a);
        g = (unsigned)(want < grid_bound(a) ? want : grid_bound(a));
    }
    return one_launch_bytes(a, g);
}

extern "C" const variant reduce_bulk_ring_variant = REDUCE_VARIANT(
    .name = "reduce_bulk_ring",
    .alias = "bulk_ring",
    .family = "single_pass",
    .description = "one launch per call: TMA bulk copies of equal chunks, dealt round-robin, into a ring of "
                   "shared-memory stages, folded from shared memory; last block folds the partials",
    .limits = "ring_stage_vectors: 1, 2, 4, 8; block dims 128, 256, 512 (a 96 KB "
              "ring, or two stages where a stage is larger than 48 KB); bulk copies on sm_90 and later",
    .block_dims = AXIS_BIT(128) | AXIS_BIT(256) | AXIS_BIT(512),
    .axes = {{"ring_stage_vectors", "16-byte vectors per thread per stage",
              "how much of the input one ring stage's bulk copy brings in, per thread",
              AXIS_SET(STAGE_VECTORS_LIST)}},
    .max_n = VARIANT_GRID_MAX_N,
    .workspace_init = workspace_init);
