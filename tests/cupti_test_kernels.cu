/* See cupti_test_kernels.h. */
#include "tests/cupti_test_kernels.h"

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

struct cupti_test_work {
    float *in;
    float *out;
    void *flush;
    size_t n, flush_bytes;
    int blocks;
};

static int report(cudaError_t e, const char *call, int line)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, line, call, cudaGetErrorString(e));
    return 1;
}
#define TRY(call) report((call), #call, __LINE__)

__global__ void fill_ones(float *a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = 1.0f;
}

__global__ void sum_kernel(const float *__restrict__ in, size_t n, float *out)
{
    float s = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        s += in[i];
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, s);
}

static const int kThreads = 256;

extern "C" cupti_test_work *cupti_test_work_new(size_t bytes)
{
    cupti_test_work *w = (cupti_test_work *)calloc(1, sizeof *w);
    if (!w)
        return NULL;
    int dev = 0, l2 = 0, sms = 0;
    w->n = bytes / sizeof(float);
    if (TRY(cudaGetDevice(&dev)) || TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev)) ||
        TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev))) {
        free(w);
        return NULL;
    }
    w->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    w->blocks = sms * 8;
    if (TRY(cudaMalloc(&w->in, w->n * sizeof(float))) || TRY(cudaMalloc(&w->out, sizeof(float))) ||
        TRY(cudaMalloc(&w->flush, w->flush_bytes))) {
        cupti_test_work_free(w);
        return NULL;
    }
    fill_ones<<<w->blocks, kThreads>>>(w->in, w->n);
    if (TRY(cudaGetLastError()) || TRY(cudaDeviceSynchronize())) {
        cupti_test_work_free(w);
        return NULL;
    }
    return w;
}

extern "C" int cupti_test_work_restore(void *work)
{
    cupti_test_work *w = (cupti_test_work *)work;
    static unsigned char pattern = 0;
    pattern++; /* a different value each time, so no write can be skipped */
    return TRY(cudaMemset(w->out, 0, sizeof(float))) ||
           TRY(cudaMemset(w->flush, pattern, w->flush_bytes));
}

extern "C" int cupti_test_work_run(void *work)
{
    cupti_test_work *w = (cupti_test_work *)work;
    sum_kernel<<<w->blocks, kThreads>>>(w->in, w->n, w->out);
    return TRY(cudaGetLastError());
}

extern "C" double cupti_test_work_result(const cupti_test_work *w)
{
    float v = -1.0f;
    if (TRY(cudaMemcpy(&v, w->out, sizeof v, cudaMemcpyDeviceToHost)))
        return -1.0;
    return v;
}

extern "C" size_t cupti_test_work_elements(const cupti_test_work *w)
{
    return w->n;
}

extern "C" void cupti_test_work_free(cupti_test_work *w)
{
    if (!w)
        return;
    cudaFree(w->in);
    cudaFree(w->out);
    cudaFree(w->flush);
    free(w);
}
