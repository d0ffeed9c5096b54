/* scan_hierarchical (PMPP's hierarchical scan for arbitrary-length inputs)
 *
 * Demonstrates: the three-kernel scan-then-propagate scan, always three
 * launches whatever n:
 *   1. every block scans its tile (B x C elements, the coarsened three-phase
 *      step of scan_coarsened) into out and writes the tile's total;
 *   2. ONE block of 1024 threads scans all the tile totals, walking them in
 *      tiles of 1024 x 16 and carrying the running total from one to the next;
 *   3. every tile but the first gets the scanned total of the tiles before it.
 * The block-step variants (scan_kogge_stone .. scan_coarsened) use the same
 * first and last kernels but scan the totals by recursion, one more pair of
 * launches per level; here the middle is a single block, which is cheap while
 * the totals are few (n / (B x C)) and becomes the bottleneck when they are
 * many (small tiles at large n: 2^26 totals for 2^31 elements in tiles of 32).
 * Block step: scan_coarsened_step<C>, C = args->axis[0] (C = 1 is the warp-shuffle
 * scan of one element per thread, through the same three phases).
 * Exclusive: the input is shifted by one at the tile load (scan_tile_load).
 *
 * Run: bazel run //harness:sweep -- --variants scan_hierarchical --axis items_per_thread=1,4,16
 */
#include "kernels/scan_hierarchical.cuh"

/* The coarsened step under this variant's name (see scan_block.cuh). */
template <unsigned C> struct scan_hierarchical_step : scan_coarsened_step<C> {};

#define MIDDLE_BLOCK 1024u
#define MIDDLE_COARSE 16u

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }

/* Workspace: the tile totals, when there is more than one tile. Returns the size. */
static size_t layout(const kernel_args *a, void **totals)
{
    size_t tiles = ceil_div(a->n, tile_of(a));
    workspace_layout w = {(char *)a->workspace, 0};
    *totals = tiles > 1 ? workspace_take(&w, tiles * dtype_size(a->dtype)) : NULL;
    return w.size;
}

static size_t workspace(const kernel_args *a)
{
    void *totals;
    return layout(a, &totals);
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_coarse(const kernel_args *a, cudaStream_t s)
{
    typedef scan_hierarchical_step<C> step;
    typedef scan_hierarchical_step<MIDDLE_COARSE> middle;
    unsigned tile = step::tile(a->block_dim);
    size_t tiles = ceil_div(a->n, tile);
    void *totals_ws;
    size_t need = layout(a, &totals_ws);
    T *totals = (T *)totals_ws;
    if (tiles > 1 && (!totals || a->workspace_bytes < need)) return cudaErrorInvalidValue;

    RETURN_IF_ERROR((scan_tiles_prepare<T, Op, step>(a->block_dim)));
    RETURN_IF_ERROR((scan_tiles_launch<T, Op, step>((const T *)a->in, (T *)a->out, totals, a->n,
                                                    a->scan_mode == SCAN_EXCLUSIVE, (unsigned)tiles, a->block_dim,
                                                    1, s)));
    if (tiles <= 1) return cudaSuccess;
    RETURN_IF_ERROR((scan_tiles_prepare<T, Op, middle>(MIDDLE_BLOCK)));
    unsigned walk = (unsigned)ceil_div(tiles, middle::tile(MIDDLE_BLOCK));
    RETURN_IF_ERROR((scan_tiles_launch<T, Op, middle>(totals, totals, NULL, tiles, 0, 1, MIDDLE_BLOCK, walk, s)));
    return scan_add_back<T, Op, step>((T *)a->out, totals, a->n, tiles, tile, a->block_dim, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(SCAN_COARSE_LIST, a->axis[0], launch_coarse, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }

/* Tile scan 2n + g totals, middle 2g, add-back 2(n - tile) + (g - 1). */
static double bytes(const kernel_args *a)
{
    size_t tile = tile_of(a), g = ceil_div(a->n, tile);
    double elems = 2.0 * a->n;
    if (g > 1) elems += g + 2.0 * g + 2.0 * (a->n - tile) + (g - 1);
    return elems * dtype_size(a->dtype);
}

extern "C" const variant scan_hierarchical_variant = SCAN_VARIANT(
    .name = "scan_hierarchical",
    .alias = "hierarchical_scan",
    .family = "multi_pass",
    .description = "three kernels: coarsened tile scans, one block scans the tile totals, add-back",
    .limits = "items_per_thread 1, 2, 4, 8, 16 (compile-time instances of the coarsened step)",
    .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers before the block-wide scan",
              AXIS_SET(SCAN_COARSE_LIST)}},
    .max_n = VARIANT_GRID_MAX_N);
