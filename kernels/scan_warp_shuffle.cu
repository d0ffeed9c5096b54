/* scan_warp_shuffle (register scan; not in the seeds)
 *
 * Demonstrates: scanning inside a warp with __shfl_up_sync instead of shared
 * memory. Each warp runs Kogge-Stone on registers (five shuffles, no barrier),
 * lane 31 leaves the warp's total in shared memory, warp 0 scans those totals
 * with the same five shuffles, and every thread adds the totals of the warps
 * before it: two barriers per block in all, against two per step for
 * scan_kogge_stone.
 * Any n: the hierarchical driver (scan_hierarchical.cuh) with tiles of B.
 * The tile still passes through shared memory (the driver's coalesced load and
 * store); the scan itself does not.
 *
 * Run: bazel run //harness:sweep -- --variants scan_warp_shuffle
 */
#include "kernels/scan_hierarchical.cuh"

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return scan_recursive<T, Op, scan_warp_shuffle_step>(a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t tile_of(const kernel_args *a) { return scan_warp_shuffle_step::tile(a->block_dim); }
static size_t workspace(const kernel_args *a) { return scan_recursive_workspace(a, tile_of(a)); }
static double bytes(const kernel_args *a) { return scan_recursive_bytes(a, tile_of(a)); }

extern "C" const variant scan_warp_shuffle_variant = SCAN_VARIANT(
    .name = "scan_warp_shuffle",
    .alias = "shfl_up_scan",
    .family = "shuffle",
    .description = "__shfl_up_sync scan per warp, warp totals scanned by warp 0; hierarchical across blocks",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
