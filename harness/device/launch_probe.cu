/* See launch_probe.h. */
#include "harness/device/launch_probe.h"

#include <stdlib.h>

/* 256 launches keep a sample near 0.5 ms, well inside what the launch queue
 * holds while the stream is held; 9 samples give a stable median. */
enum { LAUNCH_PROBE_BATCH = 256, LAUNCH_PROBE_SAMPLES = 9 };
#define LAUNCH_PROBE_HOLD_MS 1000.0

__global__ void launch_probe_empty(void) {}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static cudaError_t one_sample(cudaStream_t s, cudaEvent_t start, cudaEvent_t stop, stream_block *block, float *ms)
{
    cudaError_t err = block ? stream_block_hold(block, s, LAUNCH_PROBE_HOLD_MS) : cudaSuccess;
    if (err == cudaSuccess) err = cudaEventRecord(start, s);
    for (int i = 0; i < LAUNCH_PROBE_BATCH && err == cudaSuccess; i++) {
        launch_probe_empty<<<1, 32, 0, s>>>();
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) err = cudaEventRecord(stop, s);
    if (block) stream_block_release(block);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    if (err == cudaSuccess) err = cudaEventElapsedTime(ms, start, stop);
    return err;
}

extern "C" cudaError_t launch_probe_us(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                                       stream_block *block, double *us)
{
    float ms[LAUNCH_PROBE_SAMPLES], warm;
    cudaError_t err = one_sample(stream, start, stop, block, &warm);
    for (int i = 0; i < LAUNCH_PROBE_SAMPLES && err == cudaSuccess; i++)
        err = one_sample(stream, start, stop, block, &ms[i]);
    if (err != cudaSuccess) return err;
    qsort(ms, LAUNCH_PROBE_SAMPLES, sizeof ms[0], cmp_float);
    *us = 1e3 * (double)ms[LAUNCH_PROBE_SAMPLES / 2] / LAUNCH_PROBE_BATCH;
    return cudaSuccess;
}
