/* See check_device.h. */
#include "harness/check/check_device.h"

#include "harness/reference/random_input.h"
#include "harness/reference/tolerance.h"

#define THREADS 256
#define MAX_BLOCKS 8192 /* grid-stride beyond: enough blocks to fill any GPU */

static unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return b > MAX_BLOCKS ? MAX_BLOCKS : (unsigned)(b ? b : 1);
}

template <typename T> __device__ T draw(uint64_t x);
template <> __device__ float draw<float>(uint64_t x) { return random_f32(x); }
template <> __device__ double draw<double>(uint64_t x) { return random_f64(x); }
template <> __device__ int32_t draw<int32_t>(uint64_t x) { return random_i32(x); }

template <typename T> __global__ void fill_kernel(T *dst, size_t n, uint64_t base)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = draw<T>(random_mix(base + i));
}

extern "C" cudaError_t check_device_fill(void *dst, size_t n, dtype_t d, uint64_t seed, cudaStream_t stream)
{
    uint64_t base = random_mix(seed);
    switch (d) {
    case DTYPE_F32: fill_kernel<float><<<blocks_for(n), THREADS, 0, stream>>>((float *)dst, n, base); break;
    case DTYPE_F64: fill_kernel<double><<<blocks_for(n), THREADS, 0, stream>>>((double *)dst, n, base); break;
    default: fill_kernel<int32_t><<<blocks_for(n), THREADS, 0, stream>>>((int32_t *)dst, n, base); break;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t check_device_tally_reset(check_tally *t, cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(&t->bad_count, 0, sizeof t->bad_count, stream);
    return err != cudaSuccess ? err : cudaMemsetAsync(&t->first_bad, 0xff, sizeof t->first_bad, stream);
}

/* validate.c's compare_one, element by element: floats within the tolerance
 * (NaN or Inf passes only where the reference is the same infinity: an
 * exclusive max/min's identity); i32 exactly (val holds the wrapped result). */
template <typename T> __device__ bool element_ok(T g, double ref, double abs, size_t terms, double u)
{
    double gd = (double)g;
    if (!isfinite(gd)) return !isfinite(ref) && gd == ref;
    return fabs(gd - ref) <= tolerance_formula(u, terms, abs, ref);
}

template <> __device__ bool element_ok<int32_t>(int32_t g, double ref, double, size_t, double)
{
    return g == (int32_t)ref;
}

template <typename T>
__global__ void compare_kernel(const T *got, const double *val, const double *abs, size_t count, size_t first,
                               int exclusive, double u, check_tally *t)
{
    unsigned long long bad = 0, first_bad = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        size_t index = first + i;
        size_t terms = exclusive ? index : index + 1;
        if (element_ok<T>(got[i], val[i], abs[i], terms, u)) continue;
        if (bad++ == 0) first_bad = index; /* grid-stride: a thread's first failure is its smallest */
    }
    if (bad) {
        atomicAdd(&t->bad_count, bad);
        atomicMin(&t->first_bad, first_bad);
    }
}

extern "C" cudaError_t check_device_compare(const void *got, const double *val, const double *abs, size_t count,
                                            size_t first, dtype_t d, op_t op, scan_mode_t mode, check_tally *t,
                                            cudaStream_t stream)
{
    int ex = mode == SCAN_EXCLUSIVE;
    /* validate.c's tolerance_for: exact (u = 0) for i32 and for max/min. */
    double u = op != OP_SUM ? 0.0 : d == DTYPE_F32 ? UNIT_ROUNDOFF_F32 : d == DTYPE_F64 ? UNIT_ROUNDOFF_F64 : 0.0;
    unsigned b = blocks_for(count);
    switch (d) {
    case DTYPE_F32:
        compare_kernel<float><<<b, THREADS, 0, stream>>>((const float *)got, val, abs, count, first, ex, u, t);
        break;
    case DTYPE_F64:
        compare_kernel<double><<<b, THREADS, 0, stream>>>((const double *)got, val, abs, count, first, ex, u, t);
        break;
    default:
        compare_kernel<int32_t><<<b, THREADS, 0, stream>>>((const int32_t *)got, val, abs, count, first, ex, u, t);
        break;
    }
    return cudaGetLastError();
}

__global__ void poison_kernel(int32_t *dst, size_t n, int32_t value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = value;
}

extern "C" cudaError_t check_device_poison_i32(int32_t *dst, size_t n, int32_t value, cudaStream_t stream)
{
    poison_kernel<<<blocks_for(n), THREADS, 0, stream>>>(dst, n, value);
    return cudaGetLastError();
}
