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
 *
 * Run: bazel run //harness:sweep -- --variants scan_kogge_stone
 */
#include "kernels/scan_hierarchical.cuh"

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return scan_recursive<T, Op, scan_kogge_stone_step>(a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t tile_of(const kernel_args *a) { return scan_kogge_stone_step::tile(a->block_dim); }
static size_t workspace(const kernel_args *a) { return scan_recursive_workspace(a, tile_of(a)); }
static double bytes(const kernel_args *a) { return scan_recursive_bytes(a, tile_of(a)); }

extern "C" const variant scan_kogge_stone_variant = SCAN_VARIANT(
    .name = "scan_kogge_stone",
    .alias = "kogge_stone_scan_gpu",
    .family = "kogge_stone",
    .description = "Kogge-Stone in one shared buffer, two barriers per step; tiles of B, hierarchical across blocks",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
