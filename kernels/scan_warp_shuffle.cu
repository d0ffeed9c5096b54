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
 */
#include "kernels/scan_hierarchical.cuh"

SCAN_GLUE(scan_warp_shuffle_step)

extern "C" const variant scan_warp_shuffle_variant = {
    .name = "scan_warp_shuffle",
    .alias = "shfl_up_scan",
    .family = "shuffle",
    .description = "__shfl_up_sync scan per warp, warp totals scanned by warp 0; hierarchical across blocks",
    .kind = KIND_SCAN,
    .dtypes = DTYPES_ALL,
    .ops = OPS_ALL,
    .excluded_pairs = 0,
    .limits = NULL,
    .block_dims = BLOCKS_32_TO_1024,
    .coarse_factors = COARSE_NONE,
    .finishes = 0,
    .scan_modes = SCAN_BOTH,
    .max_n = 0,
    .bytes_model = SCAN_HIERARCHICAL_BYTES_MODEL,
    .bytes_moved = bytes,
    .workspace_size = workspace,
    .launch = launch,
};
