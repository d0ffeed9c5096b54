/* The SM clock over a stretch of a stream, measured on the device: a tiny
 * kernel before and one after, whose block on SM 0 records %globaltimer
 * (ns) and clock64() (SM 0's cycles); the clock is the cycles over the
 * nanoseconds between them. NVBench's way (timestamps_kernel, gpu_frequency):
 * no NVML, and it sees exactly the stretch that was timed. A reduced clock
 * (power or thermal throttling) shows as a low figure. C interface over CUDA. */
#ifndef HARNESS_CLOCK_PROBE_H
#define HARNESS_CLOCK_PROBE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clock_probe clock_probe;

/* Records in mapped, pinned host memory; `sm_count` blocks per probe, so
 * that one lands on SM 0. NULL with *err set on failure. */
clock_probe *clock_probe_create(int sm_count, cudaError_t *err);
void clock_probe_destroy(clock_probe *p);

/* Enqueue the probe that opens (which = 0) or closes (1) the stretch. */
cudaError_t clock_probe_record(clock_probe *p, cudaStream_t stream, int which);

/* Once the stream has passed both probes: the SM clock over the stretch in
 * MHz; NaN when a probe found no block on SM 0 or the stretch is too short
 * to tell (under 20 us). */
double clock_probe_mhz(const clock_probe *p);

#ifdef __cplusplus
}
#endif

#endif
