/* Empty the L2 of everything a measurement could find there, and leave no
 * dirty line behind whose write-back would land inside the next measurement.
 *
 * cudaMemsetAsync over a scratch buffer of twice the L2 evicts what was cached
 * (the input, say), but the memset's own lines stay dirty in the L2: written
 * back to DRAM later, while the measured kernel evicts them, they would show
 * up in its dram__bytes_write. So a kernel then reads the whole buffer back:
 * the dirty lines are written back now, and the L2 is left holding clean
 * scratch lines, which the measured kernel evicts at no DRAM cost (as after
 * Nsight Compute's --cache-control all). C interface over CUDA. */
#ifndef HARNESS_L2_FLUSH_H
#define HARNESS_L2_FLUSH_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueue the flush on `stream` (no synchronisation): memset `bytes` of
 * `scratch` (device memory, 16-byte aligned; at least twice the L2) to
 * `value`, then read them all back. The first CUDA error, or cudaSuccess. */
cudaError_t l2_flush(void *scratch, size_t bytes, int value, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
