/* See l2_flush.h. */
#include "harness/l2_flush.h"

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
