/* See stream_block.h. */
#include "harness/device/stream_block.h"

#include <stdlib.h>

struct stream_block {
    volatile int *host;  /* [0]: released by the host, [1]: timed out on the device */
    int *dev;
};

static __device__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread: polls the host's flag (a read over the bus each time, which is
 * why it is volatile) until released or past the limit. */
__global__ void stream_block_spin(volatile int *flags, unsigned long long limit_ns)
{
    const unsigned long long start = global_ns();
    while (flags[0] == 0) {
        if (global_ns() - start > limit_ns) {
            flags[1] = 1;
            break;
        }
        __nanosleep(1000);
    }
}

extern "C" stream_block *stream_block_create(cudaError_t *err)
{
    stream_block *b = (stream_block *)calloc(1, sizeof *b);
    if (!b) {
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    void *h = NULL;
    *err = cudaHostAlloc(&h, 2 * sizeof(int), cudaHostAllocMapped);
    if (*err == cudaSuccess) *err = cudaHostGetDevicePointer((void **)&b->dev, h, 0);
    if (*err != cudaSuccess) {
        if (h) cudaFreeHost(h);
        free(b);
        return NULL;
    }
    b->host = (volatile int *)h;
    b->host[0] = 1;
    b->host[1] = 0;
    return b;
}

extern "C" void stream_block_destroy(stream_block *b)
{
    if (!b) return;
    cudaFreeHost((void *)b->host);
    free(b);
}

extern "C" cudaError_t stream_block_hold(stream_block *b, cudaStream_t stream, double limit_ms)
{
    b->host[0] = 0;
    b->host[1] = 0;
    stream_block_spin<<<1, 1, 0, stream>>>(b->dev, (unsigned long long)(limit_ms * 1e6));
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) b->host[0] = 1;
    return err;
}

extern "C" void stream_block_release(stream_block *b) { b->host[0] = 1; }

extern "C" int stream_block_expired(const stream_block *b) { return b->host[1] != 0; }
