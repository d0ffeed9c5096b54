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
 * the same step at every level. C (args->axis[0]) is a compile-time instance.
 *
 * Run: bazel run //harness:sweep -- --variants scan_coarsened --axis items_per_thread=1,4,16
 */
#include "kernels/scan_hierarchical.cuh"

template <typename T, typename Op, unsigned C> static cudaError_t launch_coarse(const kernel_args *a, cudaStream_t s)
{
    return scan_recursive<T, Op, scan_coarsened_step<C>>(a, s);
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_AXIS(SCAN_COARSE_LIST, a->axis[0], launch_coarse, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->axis[0]; }
static size_t workspace(const kernel_args *a) { return scan_recursive_workspace(a, tile_of(a)); }
static double bytes(const kernel_args *a) { return scan_recursive_bytes(a, tile_of(a)); }

extern "C" const variant scan_coarsened_variant = SCAN_VARIANT(
    .name = "scan_coarsened",
    .alias = "three_phase_scan",
    .family = "coarsened",
    .description = "three-phase: C elements per thread scanned in registers, thread totals by warp shuffle; hierarchical",
    .limits = "items_per_thread 1, 2, 4, 8, 16 (compile-time instances; f64 at 1024 x 16 needs 135 KB of shared memory)",
    .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"items_per_thread", "elements per thread",
              "input elements each thread scans in registers before the block-wide scan",
              AXIS_SET(SCAN_COARSE_LIST)}},
    .max_n = VARIANT_GRID_MAX_N);
