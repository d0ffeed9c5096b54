/* scan_decoupled_lookback (Merrill & Garland 2016, "Single-pass Parallel Prefix
 * Scan with Decoupled Look-back"; not in the seeds)
 *
 * Demonstrates: a scan in one pass over the data, 2n elements of traffic, the
 * technique cub::DeviceScan uses. Each block takes the next tile (B x C
 * elements) and scans it as scan_coarsened does; between finding its tile's
 * total and writing its results it gets the prefix of all earlier tiles from
 * their status words instead of from a second kernel:
 *   - as soon as it knows its total it publishes it with status AGGREGATE
 *     (tile 0 publishes INCLUSIVE at once);
 *   - warp 0 then looks back over a window of 32 predecessors at a time (one
 *     per lane), waiting while any of them is still INVALID, and combines the
 *     values up to the nearest INCLUSIVE one; if the window holds no INCLUSIVE
 *     tile it moves 32 tiles further back;
 *   - it publishes INCLUSIVE = prefix + total, so later tiles stop there.
 * A tile waits only on tiles with smaller indices.
 *
 * Correctness, not luck:
 *   - Tile indices come from an atomic counter, not blockIdx.x: a block only
 *     ever waits for tiles that blocks already running have claimed, so it
 *     cannot wait on a block that is not yet resident (with blockIdx.x order a
 *     later block can be scheduled first and spin forever). The launcher resets
 *     the counter and every status word with cudaMemsetAsync on each call (so
 *     every call runs in epoch 0; scan_lookback_vectorized shows how to avoid
 *     that reset).
 *   - The status words and their memory ordering: kernels/scan_lookback.cuh.
 *
 * Run: bazel run //harness:sweep -- --variants scan_decoupled_lookback --axis items_per_thread=1,4,16
 */
#include "kernels/scan_hierarchical.cuh"
#include "kernels/scan_lookback.cuh"

/* The tile prefix as scan_tile_coarsened asks for it: warp 0 looks back, the
 * block gets the result through shared memory. */
template <typename T, typename Op, typename Status> struct lookback_prefix {
    Status status;
    unsigned tile;
    T *shared_prefix;
    __device__ T operator()(T total) const
    {
        if (threadIdx.x < 32) {
            T p = lookback_warp<1, T, Op>(status, tile, total);
            if (threadIdx.x == 0) *shared_prefix = p;
        }
        __syncthreads();
        return *shared_prefix;
    }
};

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(1024)
    scan_decoupled_lookback_kernel(const T *in, T *out, size_t n, int exclusive, tile_status<T> status, unsigned *tile_counter)
{
    __shared__ T warp_totals[32];
    __shared__ T prefix;
    __shared__ unsigned tile_index;
    if (threadIdx.x == 0) tile_index = atomicAdd(tile_counter, 1u);
    __syncthreads();
    unsigned tile = tile_index;
    lookback_prefix<T, Op, tile_status<T>> prefix_of{status, tile, &prefix};
    scan_tile_coarsened<T, Op, C>(in, out, n, (size_t)tile * blockDim.x * C, exclusive, shared_array<T>(), warp_totals,
                                  prefix_of);
}

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }

/* Workspace: the tile counter, then the status words (both zeroed every call). */
static size_t workspace(const kernel_args *a)
{
    return lookback_layout(sizeof(unsigned), ceil_div(a->n, tile_of(a)), dtype_size(a->dtype), NULL);
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_coarse(const kernel_args *a, cudaStream_t s)
{
    size_t tiles = ceil_div(a->n, tile_of(a)), reset;
    size_t need = lookback_layout(sizeof(unsigned), tiles, sizeof(T), &reset);
    if (!a->workspace || a->workspace_bytes < need) return cudaErrorInvalidValue;
    char *ws = (char *)a->workspace;
    RETURN_IF_ERROR(cudaMemsetAsync(ws, 0, reset, s));

    size_t smem = coarse_shape<C>::smem_elems(a->block_dim) * sizeof(T);
    RETURN_IF_ERROR(smem_opt_in((const void *)scan_decoupled_lookback_kernel<T, Op, C>, smem));
    scan_decoupled_lookback_kernel<T, Op, C><<<(unsigned)tiles, a->block_dim, smem, s>>>(
        (const T *)a->in, (T *)a->out, a->n, a->scan_mode == SCAN_EXCLUSIVE,
        lookback_status_at<T>(ws, sizeof(unsigned), tiles, 0, (tile_status<T> *)NULL), (unsigned *)ws);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(SCAN_COARSE_LIST, a->axis[0], launch_coarse, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
/* n read, n written; the status words (8-24 bytes per tile of B x C) and the
 * look-back's reads of them are not counted. */
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_decoupled_lookback_variant = SCAN_VARIANT(
    .name = "scan_decoupled_lookback",
    .alias = "single_pass_scan",
    .family = "single_pass",
    .description = "single pass: coarsened tile scans, tile prefix by warp-wide decoupled look-back on status words",
    .limits = "items_per_thread 1, 2, 4, 8, 16 (compile-time instances of the coarsened tile)",
    .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers before the block-wide scan",
              AXIS_SET(SCAN_COARSE_LIST)}},
    .max_n = VARIANT_GRID_MAX_N);
