/* See l2_flush.h. */
#include "harness/device/l2_flush.h"

#include <stdint.h>

#define FILL_BYTE 0x5a

/* Reads every 16-byte word of p. The XOR of a uint4 filled with one byte is
 * 0, so the sink write never happens (the scratch stays clean), but the
 * compiler cannot know it (magic comes in at run time): the loads stay. */
__global__ void l2_flush_read(const uint4 *__restrict__ p, size_t n, unsigned magic, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == magic)
        *sink = acc;
}

/* Drops the 128-byte lines of p from the L2 without writing them back. */
__global__ void l2_flush_discard(const char *p, size_t lines)
{
#if __CUDA_ARCH__ >= 800
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines; i += (size_t)gridDim.x * blockDim.x)
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i * 128) : "memory");
#else
    (void)p;
    (void)lines;
#endif
}

extern "C" cudaError_t l2_flush_alloc(void **scratch, size_t bytes)
{
    *scratch = NULL;
    if (bytes < sizeof(uint4))
        return cudaErrorInvalidValue;
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaSuccess)
        e = cudaMemset(p, FILL_BYTE, bytes);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        if (p)
            cudaFree(p);
        return e;
    }
    *scratch = p;
    return cudaSuccess;
}

extern "C" cudaError_t l2_flush(const void *scratch, size_t bytes, cudaStream_t stream)
{
    if (!scratch || bytes < sizeof(uint4) || ((uintptr_t)scratch & 15u))
        return cudaErrorInvalidValue;
    const unsigned threads = 256, blocks = 1024;
    l2_flush_read<<<blocks, threads, 0, stream>>>((const uint4 *)scratch, bytes / sizeof(uint4), 0xDEADBEEFu,
                                                  (unsigned *)scratch);
    return cudaGetLastError();
}

extern "C" cudaError_t l2_flush_empty(const void *scratch, size_t bytes, cudaStream_t stream)
{
    if (!scratch || bytes < 128 || (bytes & 127u) || ((uintptr_t)scratch & 127u))
        return cudaErrorInvalidValue;
    cudaError_t e = l2_flush(scratch, bytes, stream);
    if (e != cudaSuccess)
        return e;
    l2_flush_discard<<<1024, 256, 0, stream>>>((const char *)scratch, bytes / 128);
    return cudaGetLastError();
}
