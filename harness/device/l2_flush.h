/* Empty the L2 of everything a measurement could find there, and leave no
 * dirty line behind whose write-back would land inside the next measurement.
 *
 * The flush reads a scratch buffer of twice the L2 that nothing ever writes
 * after it is filled once: every line it brings in is clean, the input (say)
 * is evicted, and dirty lines left by earlier work (a scan's output) are
 * written back now, during the flush. The L2 is left holding clean scratch
 * lines, which the measured kernel evicts at no DRAM cost.
 *
 * Why not write the scratch each time (NVBench's memset): on the H200, a
 * flush that wrote 2x L2 and then read 2x L2 (the same buffer or another)
 * made cold samples at 2^20-2^22 alternate fast, slow, fast by 2-4 % (75 of
 * 1292 series over 1 % stdev/median); reading alone, 1. Nor are the scratch's
 * lines discarded afterwards (PTX discard.global.L2, an empty L2 as after
 * Nsight Compute's --cache-control all): that brought the alternation back
 * (79 of 1292).
 *
 * The profile phase uses l2_flush_empty: there timing does not matter, and
 * the flush runs after the profiler has started its pass, so the lines the
 * profiler itself dirtied are written back before the range (not inside it)
 * and the range starts with nothing valid in the L2. C interface over CUDA. */
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

/* l2_flush, then drop every 128-byte line of the scratch from the L2 without
 * a write-back (PTX discard.global.L2; the scratch is clean, so nothing is
 * lost): the L2 is left empty. For profiling, not timing (see above). Before
 * sm_80 there is no discard and this is l2_flush. scratch must be 128-byte
 * aligned (cudaMalloc's is) and bytes a multiple of 128. */
cudaError_t l2_flush_empty(const void *scratch, size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
