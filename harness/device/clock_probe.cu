/* See clock_probe.h. */
#include "harness/device/clock_probe.h"

#include <math.h>
#include <stdlib.h>

/* One record: [0] set by the device when written, [1] globaltimer ns, [2] clock64. */
struct clock_probe {
    volatile unsigned long long *host; /* two records of 3 words */
    unsigned long long *dev;
    int blocks;
};

static __device__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ unsigned sm_id(void)
{
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

/* Every block on SM 0 writes; they run within a few hundred ns of each other,
 * far inside the resolution the stretch needs. */
__global__ void clock_probe_kernel(unsigned long long *rec)
{
    if (threadIdx.x != 0 || sm_id() != 0) return;
    rec[1] = global_ns();
    rec[2] = (unsigned long long)clock64();
    __threadfence_system();
    rec[0] = 1;
}

extern "C" clock_probe *clock_probe_create(int sm_count, cudaError_t *err)
{
    clock_probe *p = (clock_probe *)calloc(1, sizeof *p);
    if (!p) {
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    void *h = NULL;
    *err = cudaHostAlloc(&h, 6 * sizeof(unsigned long long), cudaHostAllocMapped);
    if (*err == cudaSuccess) *err = cudaHostGetDevicePointer((void **)&p->dev, h, 0);
    if (*err != cudaSuccess) {
        if (h) cudaFreeHost(h);
        free(p);
        return NULL;
    }
    p->host = (volatile unsigned long long *)h;
    for (int i = 0; i < 6; i++) p->host[i] = 0;
    p->blocks = sm_count > 0 ? sm_count : 1;
    return p;
}

extern "C" void clock_probe_destroy(clock_probe *p)
{
    if (!p) return;
    cudaFreeHost((void *)p->host);
    free(p);
}

extern "C" cudaError_t clock_probe_record(clock_probe *p, cudaStream_t stream, int which)
{
    int k = which ? 3 : 0;
    p->host[k] = 0;
    clock_probe_kernel<<<p->blocks, 32, 0, stream>>>(p->dev + k);
    return cudaGetLastError();
}

extern "C" double clock_probe_mhz(const clock_probe *p)
{
    if (!p->host[0] || !p->host[3]) return NAN;
    unsigned long long t0 = p->host[1], c0 = p->host[2], t1 = p->host[4], c1 = p->host[5];
    if (t1 <= t0 + 20000 || c1 <= c0) return NAN;
    return (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
}
