/* The launch term of the machine model that `compare --normalize machine`
 * divides by (time ~ launch + bytes / bandwidth): the time one minimal
 * launch takes when launches run back to back on the GPU. The batch is
 * queued behind a stream block (stream_block.h), as every timed batch is, so
 * the host's launch rate is not in it. C interface over CUDA. */
#ifndef HARNESS_LAUNCH_PROBE_H
#define HARNESS_LAUNCH_PROBE_H

#include <cuda_runtime_api.h>

#include "harness/device/stream_block.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Microseconds per launch of an empty one-warp kernel: the median of
 * LAUNCH_PROBE_SAMPLES samples of LAUNCH_PROBE_BATCH launches each, timed
 * between `start` and `stop` on `stream`. block may be NULL (unheld).
 * cudaSuccess with *us, or the error. */
cudaError_t launch_probe_us(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, stream_block *block,
                            double *us);

#ifdef __cplusplus
}
#endif

#endif
