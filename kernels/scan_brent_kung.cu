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
 */
#include "kernels/scan_hierarchical.cuh"

SCAN_GLUE(scan_brent_kung_step)

extern "C" const variant scan_brent_kung_variant = {
    .name = "scan_brent_kung",
    .alias = "brent_kung_scan",
    .family = "brent_kung",
    .description = "Brent-Kung up-sweep/down-sweep, two elements per thread; hierarchical across blocks",
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
