/* Descriptions of the variants in stub/kernels/variants.def for the fuzz
 * targets, built with the registry's own constructors (kernels/variant.h)
 * and axis sets, without kernels (the parsers and the plan never launch one,
 * and clang here compiles no CUDA). Each says only how its variant's
 * kernels/<name>.cu differs from the others of its kind. */
#include "kernels/variant.h"

static double bytes(const kernel_args *a) { return (double)a->n * (double)dtype_size(a->dtype); }
/* Partial buffers under a block-partial finish; nothing otherwise. */
static size_t workspace(const kernel_args *a)
{
    return a->finish != FINISH_NONE ? (a->n / (a->block_dim ? a->block_dim : 1) + 1) * 8 : 0;
}
static cudaError_t launch(const kernel_args *a, cudaStream_t s)
{
    (void)a;
    (void)s;
    return cudaErrorNotSupported;
}

#define STUB_NAMES(id, al, fam) .name = #id, .alias = al, .family = fam, .description = "fuzz stub"

const variant reduce_atomic_global_variant = REDUCE_VARIANT(
    STUB_NAMES(reduce_atomic_global, "sum_atomic", "atomic"), .excluded_pairs = FLOAT_MAX_MIN_PAIRS,
    .limits = "max/min only for i32: f32/f64 have no native atomicMax/atomicMin", .block_dims = BLOCKS_32_TO_1024);
const variant reduce_interleaved_divergent_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    STUB_NAMES(reduce_interleaved_divergent, "reduce0, reduce_v0, sum_reduce", "harris"),
    .block_dims = BLOCKS_32_TO_1024);
const variant reduce_coarsened_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
    STUB_NAMES(reduce_coarsened, "reduce_coarsening_gpu (seed 002)", "coarsening"), .block_dims = BLOCKS_32_TO_1024,
    .axes = {{"items_per_thread", "elements per thread", "input elements per thread", COARSE_1_TO_64}});
const variant reduce_cub_variant = REDUCE_VARIANT(
    STUB_NAMES(reduce_cub, "cub::DeviceReduce", "cub"), .limits = "block dim and items per thread are CUB's own choice",
    .block_dims = AXIS_BIT(256));
const variant scan_naive_variant = SCAN_VARIANT(
    STUB_NAMES(scan_naive, "naive_scan_gpu", "naive"), .limits = "n up to 2^18", .block_dims = BLOCKS_32_TO_1024, .max_n = (size_t)1 << 18);
const variant scan_kogge_stone_variant = SCAN_VARIANT(
    STUB_NAMES(scan_kogge_stone, "kogge_stone_scan_gpu", "kogge_stone"), .block_dims = BLOCKS_32_TO_1024);
const variant scan_cub_variant = SCAN_VARIANT(
    STUB_NAMES(scan_cub, "cub::DeviceScan", "cub"), .limits = "block dim and items per thread are CUB's own",
    .block_dims = AXIS_BIT(256));
