/* scan_brent_kung (work-efficient scan; not in the seeds, PMPP's Brent-Kung)
 *
 * Demonstrates: a work-efficient block scan. Each thread owns two elements of
 * a tile of 2B; an up-sweep builds a reduction tree in place (strides 1, 2, ..,
 * B) and a down-sweep hands the partial sums down to the elements between
 * (strides B/2, .., 1): about 4B operations for 2B elements where Kogge-Stone
 * spends B log2 B for B, but 2 log2(2B) - 1 barrier steps, most with few active
 * threads. The textbook form: its power-of-two strides cause shared-memory bank
 * conflicts, left in (no padding) so that the cost is visible.
 * Any n: the hierarchical driver (scan_hierarchical.cuh) with tiles of 2B.
 * Exclusive scans use the driver's shifted load (the identity, then in[i - 1]),
 * not the down-sweep that writes the identity at the root (Blelloch's form),
 * so inclusive and exclusive share one kernel.
 *
 * Run: bazel run //harness:sweep -- --variants scan_brent_kung
 */
#include "kernels/scan_hierarchical.cuh"

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return scan_recursive<T, Op, scan_brent_kung_step>(a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t tile_of(const kernel_args *a) { return scan_brent_kung_step::tile(a->block_dim); }
static size_t workspace(const kernel_args *a) { return scan_recursive_workspace(a, tile_of(a)); }
static double bytes(const kernel_args *a) { return scan_recursive_bytes(a, tile_of(a)); }

extern "C" const variant scan_brent_kung_variant = SCAN_VARIANT(
    .name = "scan_brent_kung",
    .alias = "brent_kung_scan",
    .family = "brent_kung",
    .description = "Brent-Kung up-sweep/down-sweep, two elements per thread; hierarchical across blocks",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
