/* Descriptions of the variants in stub/kernels/variants.def for the fuzz
 * targets: the axes as kernels/<name>.cu declares them, without kernels (the
 * parsers and the plan never launch one, and clang here compiles no CUDA). */
#include "kernels/variant.h"

static double bytes(const kernel_args *a) { return (double)a->n * (double)dtype_size(a->dtype); }
static size_t no_workspace(const kernel_args *a)
{
    (void)a;
    return 0;
}
static size_t partials(const kernel_args *a) { return (a->n / (a->block_dim ? a->block_dim : 1) + 1) * 8; }

#define STUB(id, nm, al, fam, knd, excl, lim, bd, cf, fin, modes, maxn)                                          \
    const variant id##_variant = {                                                                               \
        .name = nm, .alias = al, .family = fam, .description = "fuzz stub", .kind = knd, .dtypes = DTYPES_ALL, \
        .ops = OPS_ALL, .excluded_pairs = excl, .limits = lim, .block_dims = bd, .coarse_factors = cf,         \
        .finishes = fin, .scan_modes = modes, .max_n = maxn, .bytes_model = "n elements",                     \
        .bytes_moved = bytes, .workspace_size = fin & FINISHES_BLOCK_PARTIALS ? partials : no_workspace,       \
        .launch = 0,                                                                                             \
    };

STUB(reduce_atomic_global, "reduce_atomic_global", "sum_atomic", "atomic", KIND_REDUCE, FLOAT_MAX_MIN_PAIRS,
     "max/min only for i32: f32/f64 have no native atomicMax/atomicMin", BLOCKS_32_TO_1024, COARSE_NONE,
     FINISH_BIT(FINISH_NONE), 0, 0)
STUB(reduce_interleaved_divergent, "reduce_interleaved_divergent", "reduce0, reduce_v0, sum_reduce", "harris",
     KIND_REDUCE, 0, 0, BLOCKS_32_TO_1024, COARSE_NONE, FINISHES_BLOCK_PARTIALS, 0, 0)
STUB(reduce_coarsened, "reduce_coarsened", "reduce_coarsening_gpu (seed 002)", "coarsening", KIND_REDUCE, 0, 0,
     BLOCKS_32_TO_1024, COARSE_1_TO_64, FINISHES_BLOCK_PARTIALS, 0, 0)
STUB(reduce_cub, "reduce_cub", "cub::DeviceReduce", "cub", KIND_REDUCE, 0,
     "block dim and items per thread are CUB's own choice", AXIS_BIT(256), COARSE_NONE, FINISH_BIT(FINISH_NONE), 0,
     0)
STUB(scan_naive, "scan_naive", "naive_scan_gpu", "naive", KIND_SCAN, 0, "n up to 2^18", BLOCKS_32_TO_1024,
     COARSE_NONE, 0, SCAN_BOTH, (size_t)1 << 18)
STUB(scan_kogge_stone, "scan_kogge_stone", "kogge_stone_scan_gpu", "kogge_stone", KIND_SCAN, 0, 0,
     BLOCKS_32_TO_1024, COARSE_NONE, 0, SCAN_BOTH, 0)
STUB(scan_cub, "scan_cub", "cub::DeviceScan", "cub", KIND_SCAN, 0, "block dim and items per thread are CUB's own",
     AXIS_BIT(256), COARSE_NONE, 0, SCAN_BOTH, 0)
