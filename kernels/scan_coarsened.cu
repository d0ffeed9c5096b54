/* scan_coarsened (PMPP's three-phase scan; seed 002's thread coarsening applied to scan)
 *
 * Demonstrates: thread coarsening for scan. A block's tile is B x C elements,
 * loaded coalesced into shared memory; each thread then scans its own run of C
 * consecutive elements in registers (phase 1, sequential and work-efficient),
 * the block scans the B thread totals (phase 2, the warp-shuffle scan), and
 * each thread adds the total of the threads before it to its run (phase 3).
 * The shared-memory tile is padded with one slot every 32 so that the threads'
 * strided runs fall in different banks.
 * Any n: the hierarchical driver (scan_hierarchical.cuh) with tiles of B x C,
 * the same step at every level. C (args->coarse) is a compile-time instance.
 */
#include "kernels/scan_hierarchical.cuh"

SCAN_GLUE_COARSE(scan_coarsened_step)

extern "C" const variant scan_coarsened_variant = {
    .name = "scan_coarsened",
    .alias = "three_phase_scan",
    .family = "coarsened",
    .description = "three-phase: C elements per thread scanned in registers, thread totals by warp shuffle; hierarchical",
    .kind = KIND_SCAN,
    .dtypes = DTYPES_ALL,
    .ops = OPS_ALL,
    .excluded_pairs = 0,
    .limits = "coarse factors 1, 2, 4, 8, 16 (compile-time instances; f64 at 1024 x 16 needs 135 KB of shared memory)",
    .block_dims = BLOCKS_32_TO_1024,
    .coarse_factors = SCAN_COARSE_FACTORS,
    .finishes = 0,
    .scan_modes = SCAN_BOTH,
    .max_n = 0,
    .bytes_model = SCAN_HIERARCHICAL_BYTES_MODEL,
    .bytes_moved = bytes,
    .workspace_size = workspace,
    .launch = launch,
};
