/* scan_reduce_then_scan (Merrill & Grimshaw's reduce-then-scan; not in the seeds)
 *
 * Demonstrates: the multi-pass scan that reads the input twice but writes the
 * output once, against the hierarchical scan's read, write, read, write:
 *   1. every block reduces its tile (B x C elements) to one total;
 *   2. the tile totals are scanned (the hierarchical driver with the coarsened
 *      step, in place in the workspace);
 *   3. every block scans its tile again (coarsened three-phase) starting from
 *      the scanned total of the tiles before it, and writes the result.
 * 3n elements of traffic instead of about 4n. The tile reduction combines each
 * thread's C elements in striped order (coalesced, no shared staging): the
 * operators are commutative, and for f32/f64 sums the tile total may round
 * differently from the tile's own scan, within the validation tolerance.
 * Exclusive scans are produced in registers in step 3 (no shifted load).
 *
 * Run: bazel run //harness:sweep -- --variants scan_reduce_then_scan --axis items_per_thread=1,4,16
 */
#include "kernels/scan_hierarchical.cuh"

/* The coarsened step under this variant's name (see scan_block.cuh). */
template <unsigned C> struct scan_reduce_then_scan_step : scan_coarsened_step<C> {};

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(1024) scan_reduce_then_scan_reduce_kernel(const T *in, T *totals, size_t n)
{
    __shared__ T warp_totals[32];
    size_t start = (size_t)blockIdx.x * blockDim.x * C + threadIdx.x;
    T v = Op::template identity<T>();
#pragma unroll
    for (unsigned j = 0; j < C; j++) {
        size_t i = start + (size_t)j * blockDim.x;
        if (i < n) v = Op::apply(v, in[i]);
    }
    T exclusive, total;
    block_scan<T, Op>(v, warp_totals, &exclusive, &total);
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

/* The prefix of tile b: the scanned total of tiles 0..b-1. */
template <typename T, typename Op> struct scanned_total_prefix {
    const T *scanned_totals;
    __device__ T operator()(T) const
    {
        return blockIdx.x ? scanned_totals[blockIdx.x - 1] : Op::template identity<T>();
    }
};

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(1024)
    scan_reduce_then_scan_kernel(const T *in, T *out, size_t n, int exclusive, const T *scanned_totals)
{
    __shared__ T warp_totals[32];
    scan_tile_coarsened<T, Op, C>(in, out, n, (size_t)blockIdx.x * blockDim.x * C, exclusive, shared_array<T>(),
                                  warp_totals, scanned_total_prefix<T, Op>{scanned_totals});
}

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }

/* Workspace: the tile totals, then the driver's workspace for scanning them
 * (*scan_bytes); none for one tile. Returns the size. */
static size_t layout(const kernel_args *a, void **totals, void **scan_ws, size_t *scan_bytes)
{
    size_t tiles = ceil_div(a->n, tile_of(a)), elem = dtype_size(a->dtype);
    workspace_layout w = {(char *)a->workspace, 0};
    *totals = *scan_ws = NULL;
    *scan_bytes = 0;
    if (tiles <= 1) return 0;
    *totals = workspace_take(&w, tiles * elem);
    *scan_bytes = scan_recursive_workspace_for(tiles, tile_of(a), elem);
    *scan_ws = workspace_take(&w, *scan_bytes);
    return w.size;
}

static size_t workspace(const kernel_args *a)
{
    void *totals, *scan_ws;
    size_t scan_bytes;
    return layout(a, &totals, &scan_ws, &scan_bytes);
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_coarse(const kernel_args *a, cudaStream_t s)
{
    typedef scan_reduce_then_scan_step<C> step;
    unsigned B = a->block_dim, tile = step::tile(B);
    size_t tiles = ceil_div(a->n, tile);
    void *totals_ws, *scan_ws;
    size_t scan_bytes, need = layout(a, &totals_ws, &scan_ws, &scan_bytes);
    T *totals = NULL;
    if (tiles > 1) {
        if (!a->workspace || a->workspace_bytes < need) return cudaErrorInvalidValue;
        totals = (T *)totals_ws;
        scan_reduce_then_scan_reduce_kernel<T, Op, C><<<(unsigned)tiles, B, 0, s>>>((const T *)a->in, totals, a->n);
        RETURN_IF_LAUNCH_FAILED();
        RETURN_IF_ERROR((scan_recursive_run<T, Op, step>(totals, totals, tiles, 0, B, scan_ws, scan_bytes, s)));
    }
    size_t smem = step::smem_elems(B) * sizeof(T);
    RETURN_IF_ERROR(smem_opt_in((const void *)scan_reduce_then_scan_kernel<T, Op, C>, smem));
    scan_reduce_then_scan_kernel<T, Op, C><<<(unsigned)tiles, B, smem, s>>>((const T *)a->in, (T *)a->out, a->n,
                                                                           a->scan_mode == SCAN_EXCLUSIVE, totals);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(SCAN_COARSE_LIST, a->axis[0], launch_coarse, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }

/* Reduce: n + g; scan of the g totals (driver model); final scan: 2n + g - 1. */
static double bytes(const kernel_args *a)
{
    size_t tile = tile_of(a), g = ceil_div(a->n, tile);
    double elems = 2.0 * a->n;
    if (g > 1) elems += a->n + g + scan_recursive_elems(g, tile) + (g - 1);
    return elems * dtype_size(a->dtype);
}

extern "C" const variant scan_reduce_then_scan_variant = SCAN_VARIANT(
    .name = "scan_reduce_then_scan",
    .alias = "reduce_then_scan",
    .family = "multi_pass",
    .description = "tile reductions, scan of the tile totals, then coarsened tile scans seeded with them",
    .limits = "items_per_thread 1, 2, 4, 8, 16 (compile-time instances of the coarsened step)",
    .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers before the block-wide scan",
              AXIS_SET(SCAN_COARSE_LIST)}},
    .max_n = VARIANT_GRID_MAX_N);
