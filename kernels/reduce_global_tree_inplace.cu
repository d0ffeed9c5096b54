/* reduce_global_tree_inplace (seed 002 reduce_gpu)
 *
 * Demonstrates: the tree without shared memory. Each block owns 2*blockDim.x
 * consecutive elements and reduces them in place in global memory: at stride
 * 1, 2, 4, ... blockDim.x, thread t (when t % stride == 0) combines
 * data[2t + stride] into data[2t]; __syncthreads() orders global memory within
 * the block as it does shared memory. Every step is a round trip through L1/L2
 * instead of shared memory, and the `%` test diverges like reduce0: the
 * contrast with the shared-memory ladder.
 *
 * The launcher first copies the input into the workspace (cudaMemcpyAsync,
 * device to device) and reduces the copy: an in-place tree overwrites its
 * input, and the caller's input must stay intact (the harness reuses it
 * across calls and checks results against it). The copy is part of the call
 * and of the bytes model. Later levels of the recursive finish reduce their
 * partial buffers in place the same way (those are scratch already).
 *
 * Departs from the seed: seed 002 reads input[i + stride] past the end unless
 * n is a multiple of 2*blockDim.x; here a pair whose partner lies at or past n
 * is skipped, which is what combining an identity pad would do (every element
 * of the partner's subtree is past n too), so nothing past n is read or
 * written. The seed's `double` becomes the dtype and `+=` the operator.
 *
 * Run: bazel run //harness:sweep -- --variants reduce_global_tree_inplace
 */
#include "kernels/reduce_block.cuh"

template <typename T, typename Op>
__global__ void reduce_global_tree_inplace_kernel(T *data, T *out, size_t n, int atomic)
{
    unsigned t = threadIdx.x, i = 2 * t;
    size_t base = (size_t)blockIdx.x * (2 * blockDim.x);
    T *seg = data + base;
    size_t len = n - base; /* elements of this block's segment below n (>= 1) */

    for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
        if (t % stride == 0 && i + stride < len) seg[i] = Op::apply(seg[i], seg[i + stride]);
        __syncthreads();
    }

    if (t == 0) block_result<T, Op>(out, seg[0], atomic);
}

static unsigned grid_for(const kernel_args *a, size_t count) { return (unsigned)ceil_div(count, 2 * a->block_dim); }

/* src is always scratch here (the workspace copy or a partial buffer), never
 * the caller's input: launch() below substitutes the copy for a->in. */
template <typename T, typename Op>
static cudaError_t stage(const kernel_args *a, const T *src, T *dst, size_t count, unsigned grid, int atomic,
                         cudaStream_t s)
{
    reduce_global_tree_inplace_kernel<T, Op><<<grid, a->block_dim, 0, s>>>(const_cast<T *>(src), dst, count, atomic);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

/* Workspace: the copy of the input, then the partial buffers of the finish
 * (the args `b` the finish runs with: the copy as input, the rest as its
 * workspace). Returns the whole size. */
static size_t layout(const kernel_args *a, kernel_args *b)
{
    workspace_layout w = {(char *)a->workspace, 0};
    *b = *a;
    b->in = workspace_take(&w, a->n * dtype_size(a->dtype));
    b->workspace = a->workspace ? w.base + w.size : NULL;
    b->workspace_bytes = a->workspace_bytes - w.size;
    return w.size + reduce_partials_workspace(a, grid_for);
}

static size_t workspace(const kernel_args *a)
{
    kernel_args b;
    return layout(a, &b);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    kernel_args b;
    if (!a->workspace || a->workspace_bytes < layout(a, &b)) return cudaErrorInvalidValue;
    RETURN_IF_ERROR(cudaMemcpyAsync(a->workspace, a->in, a->n * sizeof(T), cudaMemcpyDeviceToDevice, s));
    return reduce_run_partials<T, Op>(&b, s, grid_for, stage<T, Op>);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }

/* The copy reads and writes n elements, then the partials model; the tree's
 * rewrites of the copy are not counted. */
static double bytes(const kernel_args *a)
{
    return 2.0 * a->n * dtype_size(a->dtype) + reduce_partials_bytes(a, grid_for);
}

extern "C" const variant reduce_global_tree_inplace_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    .name = "reduce_global_tree_inplace",
    .alias = "reduce_gpu (seed 002)",
    .family = "global",
    .description = "in-place tree in global memory (data[2t] op= data[2t+stride]) on a workspace copy of the input",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
