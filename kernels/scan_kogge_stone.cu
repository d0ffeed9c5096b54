/* scan_kogge_stone (seed 002 kogge_stone_scan_gpu, single buffer)
 *
 * Demonstrates: the first parallel scan. One element per thread in shared
 * memory; at stride d = 1, 2, 4, .. every thread i >= d combines element i - d
 * into element i, so after log2(B) steps each element holds its prefix. B log2 B
 * operations for B elements (not work-efficient), and with one buffer each step
 * needs two barriers: one so every read of the step is done before any write,
 * one so every write is done before the next step reads.
 * Any n: the hierarchical driver (scan_hierarchical.cuh) scans tiles of B, then
 * the tile totals (with this same step), then adds them back.
 *
 * Departs from the seed: the seed's exclusive scan loads input[tid - 1] at tid
 * 0 (index -1, out of bounds); here the shifted load puts the identity there
 * (scan_tile_load). Its loop bound is the array length rather than the block
 * size, it assumes one block and n = BLOCK_DIM; here tiles past n are padded
 * with the identity, there is an inclusive mode, and blocks combine through the
 * driver. The barrier before the first step is the load's.
 */
#include "kernels/scan_hierarchical.cuh"

SCAN_GLUE(scan_kogge_stone_step)

extern "C" const variant scan_kogge_stone_variant = {
    .name = "scan_kogge_stone",
    .alias = "kogge_stone_scan_gpu",
    .family = "kogge_stone",
    .description = "Kogge-Stone in one shared buffer, two barriers per step; tiles of B, hierarchical across blocks",
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
