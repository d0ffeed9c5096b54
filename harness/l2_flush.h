/* Empty the L2 of everything a measurement could find there, and leave no
 * dirty line behind whose write-back would land inside the next measurement.
 *
 * The flush reads a scratch buffer of twice the L2 that nothing ever writes
 * after it is filled once: every line it brings in is clean, the input (say)
 * is evicted, and dirty lines left by earlier work (a scan's output) are
 * written back now, during the flush. The L2 is left holding clean scratch
 * lines, which the measured kernel evicts at no DRAM cost -- as after Nsight
 * Compute's --cache-control all.
 *
 * Why not write the scratch each time (NVBench's memset): measured on the
 * H200, a flush that writes 2x L2 and then reads 2x L2 back (the same buffer
 * or another) left about 1 MB of dirty lines that a 2^26 reduction's reads
 * later forced out (dram__bytes_write 4.3 MB against ncu's 3.25 MB), and made
 * cold samples of 2^20-2^22 alternate fast, slow, fast by 2-4 %; reading
 * alone did neither. C interface over CUDA. */
#ifndef HARNESS_L2_FLUSH_H
#define HARNESS_L2_FLUSH_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Allocate `bytes` of scratch (at least twice the L2) and fill it once
 * (synchronously). *scratch is NULL on failure; free it with cudaFree. */
cudaError_t l2_flush_alloc(void **scratch, size_t bytes);

/* Enqueue the flush on `stream` (no synchronisation): read all `bytes` of
 * l2_flush_alloc's scratch. The first CUDA error, or cudaSuccess. */
cudaError_t l2_flush(const void *scratch, size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
