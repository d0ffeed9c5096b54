/* Hold a stream until the host has queued a whole timed batch behind it.
 *
 * A batch timed between two events on a running stream measures whichever is
 * slower: the GPU's work or the host's launch rate (about 10 us per call for
 * a multi-kernel launcher, more than the kernels themselves below 2^22). With
 * a spinning kernel in front, the batch is queued first and then runs back to
 * back, so the events time the GPU's work alone (NVBench's blocking kernel).
 * The spinner gives up on its own after a time limit -- a host stuck in a
 * launch (a full launch queue) cannot deadlock the device -- and says so.
 * C interface over CUDA. */
#ifndef HARNESS_STREAM_BLOCK_H
#define HARNESS_STREAM_BLOCK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stream_block stream_block;

/* A flag pair in mapped, pinned host memory. NULL with *err set on failure. */
stream_block *stream_block_create(cudaError_t *err);
void stream_block_destroy(stream_block *b);

/* Enqueue the spinner on `stream`: it holds the stream until
 * stream_block_release(), or `limit_ms` at most. */
cudaError_t stream_block_hold(stream_block *b, cudaStream_t stream, double limit_ms);

/* Let the stream run. */
void stream_block_release(stream_block *b);

/* Once the stream has passed the spinner: 1 when it gave up on its own (the
 * batch behind it was not wholly queued in time), else 0. */
int stream_block_expired(const stream_block *b);

#ifdef __cplusplus
}
#endif

#endif
