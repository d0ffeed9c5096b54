/* The contract between a kernel variant and everything that runs it.
 *
 * A variant is one technique (one file in kernels/) described by a `variant`
 * value, built by the constructor of its kind (below): its names, the axes
 * it accepts, its bytes-moved model and its launcher. The harness, the tests
 * and the bundle see variants only through this header and the registry
 * (registry.h); kernels/ knows nothing of them.
 *
 * Launchers take every buffer from the caller (`kernel_args`): they never
 * allocate, so a timed launch measures the kernels alone. They return the
 * first CUDA error they meet (launch errors included) and do not synchronize.
 *
 * Most launchers set up the workspace they use on every call. A launcher that
 * instead leaves its workspace ready for the next call (a tile counter put
 * back to 0 by the last block, epoch-tagged status words) saves that set-up
 * launch; it names a `workspace_init` that puts a workspace with any content
 * into that state. Whoever hands a launcher a workspace whose content it did
 * not leave there (newly allocated, poisoned, used by another variant or
 * configuration) calls workspace_init first, as a CUB user allocates the
 * temporary storage once and calls many times.
 */
#ifndef KERNELS_VARIANT_H
#define KERNELS_VARIANT_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DTYPE_F32 = 0, DTYPE_F64, DTYPE_I32, DTYPE_COUNT } dtype_t;
typedef enum { OP_SUM = 0, OP_MAX, OP_MIN, OP_COUNT } op_t;
typedef enum { KIND_REDUCE = 0, KIND_SCAN } kind_t;

/* How a reduction turns its per-block partials into one value. */
typedef enum {
    FINISH_NONE = 0,     /* the technique ends in one value by itself (atomics, CUB) */
    FINISH_RECURSIVE,    /* relaunch the same kernel on the partials until one is left */
    FINISH_TWO_STEP,     /* one more kernel: a single block reduces all partials */
    FINISH_ATOMIC,       /* every block combines its partial into the result atomically */
    FINISH_COUNT
} finish_t;

typedef enum { SCAN_INCLUSIVE = 0, SCAN_EXCLUSIVE, SCAN_MODE_COUNT } scan_mode_t;

/* Axis sets are bitmasks. Block dims and a variant's own axis values are
 * powers of two: bit k stands for 2^k (block dim 256 = bit 8, 4 items per
 * thread = bit 2). */
#define AXIS_BIT(pow2) (1u << __builtin_ctz((unsigned)(pow2)))
/* The set of an X-macro list of values, LIST(X, ...) calling X(value, ...)
 * once per value: an axis a kernel instantiates at compile time is written
 * once, for the descriptor's set (AXIS_SET) and for the launcher's switch
 * (DISPATCH_AXIS in common.cuh), so the two cannot disagree. */
#define AXIS_SET_BIT_(v, ...) | AXIS_BIT(v)
#define AXIS_SET(LIST) (0u LIST(AXIS_SET_BIT_, ))
#define BLOCKS_32_TO_1024 0x7E0u /* 32, 64, 128, 256, 512, 1024 */
#define BLOCKS_64_TO_1024_LIST(X, ...) \
    X(64, __VA_ARGS__) X(128, __VA_ARGS__) X(256, __VA_ARGS__) X(512, __VA_ARGS__) X(1024, __VA_ARGS__)
#define BLOCKS_64_TO_1024 AXIS_SET(BLOCKS_64_TO_1024_LIST)
#define AXIS_NONE 0x1u           /* value 1 only: what a variant without that axis takes */
#define COARSE_1_TO_64_LIST(X, ...)                                                                 \
    X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(4, __VA_ARGS__) X(8, __VA_ARGS__) X(16, __VA_ARGS__) X(32, __VA_ARGS__) \
    X(64, __VA_ARGS__)
#define COARSE_1_TO_64 AXIS_SET(COARSE_1_TO_64_LIST)
#define DTYPES_ALL 0x7u
#define OPS_ALL 0x7u
#define OPS_SUM_ONLY 0x1u
#define FINISH_BIT(f) (1u << (f))
#define FINISHES_BLOCK_PARTIALS \
    (FINISH_BIT(FINISH_RECURSIVE) | FINISH_BIT(FINISH_TWO_STEP) | FINISH_BIT(FINISH_ATOMIC))
#define SCAN_BOTH 0x3u
#define PAIR_BIT(dtype, op) (1u << ((dtype) * OP_COUNT + (op)))
#define FLOAT_MAX_MIN_PAIRS                                                                   \
    (PAIR_BIT(DTYPE_F32, OP_MAX) | PAIR_BIT(DTYPE_F32, OP_MIN) | PAIR_BIT(DTYPE_F64, OP_MAX) | \
     PAIR_BIT(DTYPE_F64, OP_MIN))

/* An axis a variant declares for itself, beyond the common ones (block dim,
 * finish, scan mode): what it counts, in which unit, and the values the
 * kernel file instantiates. Variants share a name only where the value means
 * the same thing (items_per_thread: input elements each thread handles). */
typedef struct variant_axis {
    const char *name;    /* how results, --axis and experiment files name it: items_per_thread */
    const char *unit;    /* what one step counts: "elements per thread" */
    const char *meaning; /* one line: what the value changes in the kernel */
    unsigned values;     /* accepted values, AXIS_BIT set (powers of two) */
} variant_axis;
/* The most own axes one variant declares; a variant lists them first to last,
 * the rest zero. */
#define VARIANT_AXES_MAX 2

/* One configuration's buffers and axes, as a launcher sees it. */
typedef struct kernel_args {
    dtype_t dtype;
    op_t op;
    size_t n;              /* element count, >= 1 */
    unsigned block_dim;    /* threads per block */
    unsigned axis[VARIANT_AXES_MAX]; /* the values of the variant's own axes, in its order; 1 where none */
    finish_t finish;       /* reductions: how partials become one value */
    scan_mode_t scan_mode; /* scans: inclusive or exclusive */
    const void *in;        /* device, n elements of dtype */
    void *out;             /* device: 1 element (reduce) or n elements (scan) */
    void *workspace;       /* device, at least workspace_size() bytes; may be NULL when that is 0 */
    size_t workspace_bytes;
} kernel_args;

/* Who runs a variant: the device through its launcher, or the host (the
 * harness's CPU baseline, which has no launcher). */
typedef enum { RUNNER_DEVICE = 0, RUNNER_HOST } runner_t;

typedef struct variant {
    /* What each variant says for itself. */
    const char *name;        /* what it is: reduce_interleaved_divergent */
    const char *alias;       /* the seeds' names for it: "reduce0, sum_reduce (seed 003)" */
    const char *family;      /* groups variants in plots and colours: "harris", "atomic", ... */
    const char *description; /* one line: what it demonstrates */
    unsigned excluded_pairs; /* dtype x op pairs it cannot do, PAIR_BIT set (0: all of dtypes x ops) */
    const char *limits;      /* why some dtype/op pairs are missing or axes narrowed; NULL if none */
    unsigned block_dims;     /* accepted threads per block, AXIS_BIT set */
    variant_axis axes[VARIANT_AXES_MAX]; /* its own axes (variant_axis above); none: all zero */
    size_t max_n;            /* largest n it handles (limits says why); 0 = any n up to VARIANT_MAX_N */
    /* NULL, or: make a->workspace ready for launch (see above). */
    cudaError_t (*workspace_init)(const kernel_args *a, cudaStream_t stream);
    /* What its kind says (the constructors below fill these). */
    kind_t kind;
    unsigned dtypes;         /* bitmask of dtype_t */
    unsigned ops;            /* bitmask of op_t */
    unsigned finishes;       /* reductions: FINISH_BIT set; FINISH_BIT(FINISH_NONE) if inherent */
    unsigned scan_modes;     /* scans: bit per scan_mode_t; 0 for reductions */
    /* Device-memory bytes the technique must move for these args (reads + writes). */
    double (*bytes_moved)(const kernel_args *a);
    /* Workspace the launcher needs for these args (0 if none). */
    size_t (*workspace_size)(const kernel_args *a);
    cudaError_t (*launch)(const kernel_args *a, cudaStream_t stream);
    runner_t runner;         /* RUNNER_DEVICE (0) for every kernel */
} variant;

/* Constructors, one per kind of variant: a kernel file names its own fields
 * (name .. workspace_init, in that order, leaving out what is 0) and the
 * constructor adds what the kind shares, including the file's static
 * `bytes`, `workspace` and `launch`. Every variant takes all dtypes and ops
 * (excluded_pairs narrows them). For example:
 *   extern "C" const variant reduce_first_add_variant = BLOCK_PARTIALS_REDUCE_VARIANT(
 *       .name = "reduce_first_add", .alias = "reduce3", .family = "harris", .description = "...",
 *       .block_dims = BLOCKS_32_TO_1024);
 * and one with an axis of its own:
 *       .block_dims = BLOCKS_32_TO_1024,
 *       .axes = {{"items_per_thread", "elements per thread", "...", COARSE_1_TO_64}});
 */
#define VARIANT_KIND_FIELDS_(KIND, FINISHES, SCAN_MODES)                                               \
    .kind = KIND, .dtypes = DTYPES_ALL, .ops = OPS_ALL, .finishes = FINISHES, .scan_modes = SCAN_MODES, \
    .bytes_moved = bytes, .workspace_size = workspace, .launch = launch
/* A reduction that ends in one value by itself (atomics, one pass, CUB). */
#define REDUCE_VARIANT(...) {__VA_ARGS__, VARIANT_KIND_FIELDS_(KIND_REDUCE, FINISH_BIT(FINISH_NONE), 0)}
/* A reduction whose blocks write partials, finished in any of the three ways
 * (kernels/reduce_finish.cuh). */
#define BLOCK_PARTIALS_REDUCE_VARIANT(...) \
    {__VA_ARGS__, VARIANT_KIND_FIELDS_(KIND_REDUCE, FINISHES_BLOCK_PARTIALS, 0)}
/* A scan, inclusive and exclusive. */
#define SCAN_VARIANT(...) {__VA_ARGS__, VARIANT_KIND_FIELDS_(KIND_SCAN, 0, SCAN_BOTH)}

size_t dtype_size(dtype_t d);
const char *dtype_name(dtype_t d);
const char *op_name(op_t o);
const char *finish_name(finish_t f);
const char *scan_mode_name(scan_mode_t m);
const char *kind_name(kind_t k);
/* Parse a name back; return -1 when unknown. */
int dtype_from_name(const char *s);
int op_from_name(const char *s);
int finish_from_name(const char *s);
int scan_mode_from_name(const char *s);

/* Largest n the sweep parses (2^40: no device holds more elements of any
 * dtype). A variant that cannot reach it declares its own max_n; 0 means its
 * kernels index in 64 bits and take any n up to this. */
#define VARIANT_MAX_N ((size_t)1 << 40)
/* The max_n of every hand-written variant: its grids, tile numbers and
 * status-word indices are 32-bit (gridDim.x <= 2^31 - 1), and its smallest
 * tile is 32 elements, so up to 2^35 they cannot overflow; element indices
 * and byte counts are size_t throughout. 2^35 f32 is 128 GiB: more than one
 * device holds beside an output. */
#define VARIANT_GRID_MAX_N ((size_t)1 << 35)

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_VARIANT_H */
