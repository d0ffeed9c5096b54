/* Finishing a block-partial reduction: how the one-value-per-block output of a
 * stage kernel becomes one value. Three endings from the seeds:
 *   recursive  - relaunch the stage kernel on its own partials until one block
 *                is left (seeds 000, 001, 004: "launch the reduction kernel again");
 *   two_step   - one more kernel, a single block that reduces all partials
 *                (seed 003's "two step": no atomics at all);
 *   atomic     - each block combines its partial into the result with one
 *                atomic (seed 003's tree/reversed/add-first/last-warp endings).
 *
 * A variant supplies its stage as two functions:
 *   unsigned grid_fn(const kernel_args *a, size_t count)  - blocks for `count` inputs
 *   cudaError_t stage_fn<T, Op>(a, src, dst, count, grid, atomic, stream)
 * where the stage kernel writes dst[blockIdx.x] (atomic == 0) or combines into
 * dst[0] (atomic != 0). Workspace and bytes-moved models follow from grid_fn.
 * The variant's own launcher calls reduce_run_partials<T, Op>(a, s, grid_fn,
 * stage<T, Op>); its workspace and bytes functions call
 * reduce_partials_workspace(a, grid_fn) and reduce_partials_bytes(a, grid_fn). */
#ifndef KERNELS_REDUCE_FINISH_CUH
#define KERNELS_REDUCE_FINISH_CUH

#include "kernels/warp.cuh"

typedef unsigned (*reduce_grid_fn)(const kernel_args *a, size_t count);

#define FINISH_BLOCK_DIM 1024u
/* Workspace: two ping-pong partial buffers for recursive (levels alternate:
 * even levels write buf0, odd levels buf1), one for two_step, none for
 * atomic. Returns the size; with a base, *buf0 and *buf1 point into it. */
static inline size_t reduce_partials_layout(const kernel_args *a, reduce_grid_fn grid_fn, char *base, void **buf0,
                                            void **buf1)
{
    size_t elem = dtype_size(a->dtype);
    size_t g = grid_fn(a, a->n);
    *buf0 = *buf1 = NULL;
    if (a->finish == FINISH_ATOMIC || g <= 1) return 0;
    size_t even = 0, odd = 0; /* largest level written into each buffer */
    if (a->finish == FINISH_TWO_STEP) {
        even = g;
    } else {
        int level = 0;
        size_t count = a->n;
        while ((g = grid_fn(a, count)) > 1) {
            if (level % 2 == 0) even = g > even ? g : even;
            else odd = g > odd ? g : odd;
            count = g;
            level++;
        }
    }
    workspace_layout w = {base, 0};
    *buf0 = workspace_take(&w, even * elem);
    *buf1 = workspace_take(&w, odd * elem);
    return w.size;
}

static inline size_t reduce_partials_workspace(const kernel_args *a, reduce_grid_fn grid_fn)
{
    void *buf0, *buf1;
    return reduce_partials_layout(a, grid_fn, NULL, &buf0, &buf1);
}

/* Bytes moved: each level reads its inputs and writes one partial per block. */
static inline double reduce_partials_bytes(const kernel_args *a, reduce_grid_fn grid_fn)
{
    double elem = (double)dtype_size(a->dtype);
    size_t count = a->n;
    size_t g = grid_fn(a, count);
    if (a->finish == FINISH_ATOMIC) return (count + 1) * elem; /* + one result */
    if (a->finish == FINISH_TWO_STEP) return (count + 2.0 * g + 1) * elem;
    double total = 0;
    for (;;) {
        g = grid_fn(a, count);
        total += (double)(count + g) * elem;
        if (g <= 1) break;
        count = g;
    }
    return total;
}

/* The two-step ending: one block of FINISH_BLOCK_DIM threads reduces `count`
 * partials (strided loads, then block_reduce). */
template <typename T, typename Op>
__global__ void reduce_partials_one_block_kernel(const T *partials, T *out, size_t count)
{
    __shared__ T warp_totals[FINISH_BLOCK_DIM / 32];
    T v = Op::template identity<T>();
    for (size_t i = threadIdx.x; i < count; i += blockDim.x) v = Op::apply(v, partials[i]);
    v = block_reduce<T, Op>(v, warp_totals);
    if (threadIdx.x == 0) *out = v;
}

template <typename T>
using reduce_stage_fn = cudaError_t (*)(const kernel_args *a, const T *src, T *dst, size_t count,
                                        unsigned grid, int atomic, cudaStream_t s);

template <typename T, typename Op>
static cudaError_t reduce_run_partials(const kernel_args *a, cudaStream_t s, reduce_grid_fn grid_fn,
                                       reduce_stage_fn<T> stage)
{
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
    size_t g = grid_fn(a, a->n);
    if (a->workspace_bytes < reduce_partials_workspace(a, grid_fn)) return cudaErrorInvalidValue;

    if (a->finish == FINISH_ATOMIC) {
        fill_identity_kernel<T, Op><<<1, 1, 0, s>>>(out);
        RETURN_IF_LAUNCH_FAILED();
        return stage(a, in, out, a->n, (unsigned)g, 1, s);
    }
    if (g <= 1) return stage(a, in, out, a->n, 1, 0, s);

    void *ws0, *ws1;
    reduce_partials_layout(a, grid_fn, (char *)a->workspace, &ws0, &ws1);
    T *buf0 = (T *)ws0, *buf1 = (T *)ws1;
    if (a->finish == FINISH_TWO_STEP) {
        RETURN_IF_ERROR(stage(a, in, buf0, a->n, (unsigned)g, 0, s));
        reduce_partials_one_block_kernel<T, Op><<<1, FINISH_BLOCK_DIM, 0, s>>>(buf0, out, g);
        RETURN_IF_LAUNCH_FAILED();
        return cudaSuccess;
    }
    if (a->finish != FINISH_RECURSIVE) return cudaErrorInvalidValue;

    const T *src = in;
    size_t count = a->n;
    for (int level = 0;; level++) {
        unsigned grid = grid_fn(a, count);
        T *dst = grid == 1 ? out : (level % 2 == 0 ? buf0 : buf1);
        RETURN_IF_ERROR(stage(a, src, dst, count, grid, 0, s));
        if (grid == 1) return cudaSuccess;
        src = dst;
        count = grid;
    }
}

#endif /* KERNELS_REDUCE_FINISH_CUH */
