/* What every kernel file shares: the reduction operators, atomics, typed
 * dispatch from the C enums to template instances, launch checks and the
 * workspace layout. Warp and block folds and scans: warp.cuh.
 *
 * Kernels are C-style CUDA; templates appear only to stamp one kernel out for
 * each dtype x op (and, where the technique needs it, a compile-time block
 * size), the way CUB does. */
#ifndef KERNELS_COMMON_CUH
#define KERNELS_COMMON_CUH

#include <cuda_runtime.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>

#include "kernels/variant.h"

/* ---- operators ---------------------------------------------------------- */

template <typename T> struct type_limits;
template <> struct type_limits<float> {
    __host__ __device__ static float lowest() { return -HUGE_VALF; }
    __host__ __device__ static float highest() { return HUGE_VALF; }
};
template <> struct type_limits<double> {
    __host__ __device__ static double lowest() { return -HUGE_VAL; }
    __host__ __device__ static double highest() { return HUGE_VAL; }
};
template <> struct type_limits<int> {
    __host__ __device__ static int lowest() { return INT_MIN; }
    __host__ __device__ static int highest() { return INT_MAX; }
};

/* Integer sums wrap modulo 2^32 (computed in unsigned, so the wrap is defined
 * behaviour); the CPU reference compares modulo 2^32 too. */
struct op_sum {
    template <typename T> __host__ __device__ static T identity() { return T(0); }
    template <typename T> __device__ static T apply(T a, T b) { return a + b; }
    __device__ static int apply(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
};
struct op_max {
    template <typename T> __host__ __device__ static T identity() { return type_limits<T>::lowest(); }
    template <typename T> __device__ static T apply(T a, T b) { return a > b ? a : b; }
};
struct op_min {
    template <typename T> __host__ __device__ static T identity() { return type_limits<T>::highest(); }
    template <typename T> __device__ static T apply(T a, T b) { return a < b ? a : b; }
};

/* ---- atomics ------------------------------------------------------------ */

/* Combine v into *p atomically. Native instructions where the hardware has them
 * (sum for all three dtypes, max/min for i32); a compare-and-swap loop for
 * float max/min, which is fine once per block but not once per element. */
__device__ inline void atomic_combine(float *p, float v, op_sum) { atomicAdd(p, v); }
__device__ inline void atomic_combine(double *p, double v, op_sum) { atomicAdd(p, v); }
__device__ inline void atomic_combine(int *p, int v, op_sum) { atomicAdd(p, v); }
__device__ inline void atomic_combine(int *p, int v, op_max) { atomicMax(p, v); }
__device__ inline void atomic_combine(int *p, int v, op_min) { atomicMin(p, v); }

template <typename Op>
__device__ inline void atomic_combine(float *p, float v, Op)
{
    int *ip = (int *)p;
    int old = *ip, assumed;
    do {
        assumed = old;
        float next = Op::apply(__int_as_float(assumed), v);
        if (__float_as_int(next) == assumed) return;
        old = atomicCAS(ip, assumed, __float_as_int(next));
    } while (old != assumed);
}

template <typename Op>
__device__ inline void atomic_combine(double *p, double v, Op)
{
    unsigned long long *up = (unsigned long long *)p;
    unsigned long long old = *up, assumed;
    do {
        assumed = old;
        double next = Op::apply(__longlong_as_double((long long)assumed), v);
        if ((unsigned long long)__double_as_longlong(next) == assumed) return;
        old = atomicCAS(up, assumed, (unsigned long long)__double_as_longlong(next));
    } while (old != assumed);
}

/* Block-scope versions for shared memory (seed 003's atomicAdd_block). */
__device__ inline void atomic_combine_block(float *p, float v, op_sum) { atomicAdd_block(p, v); }
__device__ inline void atomic_combine_block(double *p, double v, op_sum) { atomicAdd_block(p, v); }
__device__ inline void atomic_combine_block(int *p, int v, op_sum) { atomicAdd_block(p, v); }
__device__ inline void atomic_combine_block(int *p, int v, op_max) { atomicMax_block(p, v); }
__device__ inline void atomic_combine_block(int *p, int v, op_min) { atomicMin_block(p, v); }

/* ---- small kernels launchers share ------------------------------------- */

template <typename T, typename Op>
__global__ void fill_identity_kernel(T *out)
{
    *out = Op::template identity<T>();
}

/* Dynamic shared memory typed for T (one untyped extern array, so kernels of
 * different T can share a translation unit). Aligned to a 128-byte line:
 * bulk copies (kernels/bulk_copy.cuh) need 16 bytes, but into a stage that
 * starts mid-line they ran reduce_bulk_ring 27 % slower (FINDINGS, "Beyond
 * CUB"). */
template <typename T> __device__ inline T *shared_array()
{
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    return reinterpret_cast<T *>(shared_bytes);
}

/* The 16-byte vector of T: one load or store instruction moves 4 (f32, i32)
 * or 2 (f64) elements. */
template <typename T> struct vec16;
template <> struct vec16<float> { typedef float4 type; };
template <> struct vec16<double> { typedef double2 type; };
template <> struct vec16<int> { typedef int4 type; };

/* ---- dispatch ----------------------------------------------------------- */

/* Every compile-time axis is dispatched one way: a switch over an X-macro list
 * of its values (variant.h: AXIS_SET gives the descriptor's set from the same
 * list). dtype x op pairs, as (dtype, C type, op, operator struct): */
#define DTYPE_OP_LIST(X, ...)                                                                            \
    X(DTYPE_F32, float, OP_SUM, op_sum, __VA_ARGS__) X(DTYPE_F32, float, OP_MAX, op_max, __VA_ARGS__)     \
    X(DTYPE_F32, float, OP_MIN, op_min, __VA_ARGS__) X(DTYPE_F64, double, OP_SUM, op_sum, __VA_ARGS__)    \
    X(DTYPE_F64, double, OP_MAX, op_max, __VA_ARGS__) X(DTYPE_F64, double, OP_MIN, op_min, __VA_ARGS__)   \
    X(DTYPE_I32, int, OP_SUM, op_sum, __VA_ARGS__) X(DTYPE_I32, int, OP_MAX, op_max, __VA_ARGS__)         \
    X(DTYPE_I32, int, OP_MIN, op_min, __VA_ARGS__)

#define DTYPE_OP_CASE_(D, T, O, Op, FN, ...) \
    case D * OP_COUNT + O: return FN<T, Op>(__VA_ARGS__);

/* Returns FN<T, Op>(args...) for the dtype and op in the kernel_args `a`. */
#define DISPATCH_DTYPE_OP(a, FN, ...)                                   \
    do {                                                                \
        switch ((a)->dtype * OP_COUNT + (a)->op) {                      \
        DTYPE_OP_LIST(DTYPE_OP_CASE_, FN, __VA_ARGS__)                  \
        default: return cudaErrorInvalidValue;                          \
        }                                                               \
    } while (0)

#define AXIS_CASE_(v, FN, T, Op, ...) \
    case v: return FN<T, Op, v>(__VA_ARGS__);

/* Returns FN<T, Op, V>(args...) for the V of LIST equal to `value`
 * (cudaErrorInvalidValue when none is): e.g.
 *   DISPATCH_AXIS(SCAN_COARSE_LIST, a->coarse, launch_coarse, T, Op, a, s); */
#define DISPATCH_AXIS(LIST, value, FN, T, Op, ...)          \
    do {                                                    \
        switch (value) {                                    \
        LIST(AXIS_CASE_, FN, T, Op, __VA_ARGS__)            \
        default: return cudaErrorInvalidValue;              \
        }                                                   \
    } while (0)

/* Return the launch error (if any) of the kernel just launched. */
#define RETURN_IF_LAUNCH_FAILED()                  \
    do {                                           \
        cudaError_t launch_err_ = cudaGetLastError(); \
        if (launch_err_ != cudaSuccess) return launch_err_; \
    } while (0)

#define RETURN_IF_ERROR(call)                   \
    do {                                        \
        cudaError_t err_ = (call);              \
        if (err_ != cudaSuccess) return err_;   \
    } while (0)

static inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* ---- workspace layout ---------------------------------------------------- */

/* Every piece of a workspace starts on a WORKSPACE_ALIGN boundary. */
#define WORKSPACE_ALIGN 256u

static inline size_t workspace_align(size_t bytes)
{
    return (bytes + WORKSPACE_ALIGN - 1) / WORKSPACE_ALIGN * WORKSPACE_ALIGN;
}

/* A workspace laid out piece by piece: `size` is where the next piece
 * starts. With base NULL it only measures, so the workspace size and the
 * launcher's pointers come from one function. */
typedef struct workspace_layout {
    char *base;
    size_t size;
} workspace_layout;

/* The next piece of `bytes` (NULL when only measuring). */
static inline void *workspace_take(workspace_layout *w, size_t bytes)
{
    size_t at = w->size;
    w->size += workspace_align(bytes);
    return w->base ? w->base + at : NULL;
}

/* Bytes-moved models shared by many variants. */
static inline double bytes_read_input(const kernel_args *a) { return (double)a->n * dtype_size(a->dtype); }

/* ---- shared memory and residency (host side, no GPU work) -------------- */

/* Above this, a kernel must opt in to more dynamic shared memory. */
#define DEFAULT_SMEM_LIMIT (48u * 1024u)

/* Lets `kernel` take `smem` bytes of dynamic shared memory (f64 tiles of
 * 1024 x 16 need 135 KB; the default limit is 48 KB, and it counts the
 * kernel's static arrays too, so near it they are asked for). A host-side
 * setting, no GPU work. */
static inline cudaError_t smem_opt_in(const void *kernel, size_t smem)
{
    if (smem <= DEFAULT_SMEM_LIMIT / 2) return cudaSuccess;
    cudaFuncAttributes f;
    cudaError_t err = cudaFuncGetAttributes(&f, kernel);
    if (err != cudaSuccess) return err;
    if (smem + f.sharedSizeBytes <= DEFAULT_SMEM_LIMIT) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

/* Blocks of this kernel instance the chip holds at once (0 if the query fails). */
static inline unsigned resident_grid(const void *kernel, unsigned block_dim, size_t smem)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block_dim, smem) != cudaSuccess)
        return 0;
    return (unsigned)(sms * per_sm);
}

#endif /* KERNELS_COMMON_CUH */
