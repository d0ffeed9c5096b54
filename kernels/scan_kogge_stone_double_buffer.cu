/* scan_kogge_stone_double_buffer (seed 002's double-buffered "ping-pong" Kogge-Stone)
 *
 * Demonstrates: trading shared memory for barriers. Two tile-sized buffers;
 * each step reads one and writes the other, and the roles swap, so a step can
 * no longer overwrite a value another thread of the same step still has to
 * read: one barrier per step instead of two, for twice the shared memory (and a
 * copy of the elements below the stride, which single-buffer Kogge-Stone skips).
 * Any n: the hierarchical driver, as in scan_kogge_stone.
 *
 * Departs from the seed: the seed sizes the buffer BLOCK_DIM * 2 but addresses
 * its second half with `length` (out of bounds whenever length > BLOCK_DIM);
 * here both halves are blockDim.x elements and the second starts at
 * s + blockDim.x. The seed's loop bound is the array length and it handles one
 * block; here tiles past n are padded with the identity and blocks combine
 * through the driver. Exclusive scans use the shifted load of the driver (the
 * seed's version is inclusive only).
 *
 * Run: bazel run //harness:sweep -- --variants scan_kogge_stone_double_buffer
 */
#include "kernels/scan_hierarchical.cuh"

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    return scan_recursive<T, Op, scan_kogge_stone_double_buffer_step>(a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static size_t tile_of(const kernel_args *a) { return scan_kogge_stone_double_buffer_step::tile(a->block_dim); }
static size_t workspace(const kernel_args *a) { return scan_recursive_workspace(a, tile_of(a)); }
static double bytes(const kernel_args *a) { return scan_recursive_bytes(a, tile_of(a)); }

extern "C" const variant scan_kogge_stone_double_buffer_variant = SCAN_VARIANT(
    .name = "scan_kogge_stone_double_buffer",
    .alias = "ping_pong_scan, double_buffered_kogge_stone",
    .family = "kogge_stone",
    .description = "Kogge-Stone with two shared buffers (ping-pong), one barrier per step; hierarchical across blocks",
    .block_dims = BLOCKS_32_TO_1024,
    .max_n = VARIANT_GRID_MAX_N);
