/* The device layer under the sweep: what it asks of a GPU, phase by phase.
 * Two implementations: CUDA (sweep_device_cuda.c: check_run for validation,
 * CUDA events for timing, cudaMemsetAsync over 2x L2 for the cold flush) and a
 * fake (sweep_device_fake.c: no CUDA call at all, synthetic times), selected
 * with SWEEP_FAKE_DEVICE=1 or --fake-device, so that the whole run -- plan
 * walking, NVTX ranges, outputs, progress, interrupts -- is testable without a
 * GPU. The sweep pushes the NVTX ranges around these calls, so both emit the
 * same tree. */
#ifndef HARNESS_SWEEP_DEVICE_H
#define HARNESS_SWEEP_DEVICE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/device/device.h"
#include "harness/device/profiler.h"
#include "harness/core/timing.h"
#include "kernels/variant.h"

typedef enum {
    DEV_OK = 0,
    DEV_FAILED = 1, /* this configuration failed; the device is still usable */
    DEV_FATAL = 2,  /* the device cannot go on (a hung kernel, a lost context): stop the run */
    DEV_NO_MEMORY = 3, /* this configuration's buffers do not fit (cudaErrorMemoryAllocation, after
                        * releasing what the layer held and trying again): skip it; the device is fine */
} dev_status;

typedef struct sweep_validation {
    int ok;         /* 1: the result matched the CPU reference */
    int cuda_error; /* 1: a CUDA error (row status "error"); 0: a wrong result ("invalid") */
    double error_abs, tolerance_abs;
    char message[768];
} sweep_validation;

typedef struct sweep_device sweep_device;

/* How copy_bandwidth times its copies, as run.json's copy_timing names it: "cold"
 * (the L2 flushed before each). Runs without the key timed them back to back,
 * which read 1.4-1.6 % slower on an H200 (sweep_device_cuda.c). */
#define COPY_TIMING_RULE "cold"

typedef struct sweep_device_ops {
    const char *name;
    /* 0; -1 and "no CUDA device: ..." in msg; or -2 when there are devices but
     * `ordinal` is not one of them ("--device: 3 is out of range ...": bad usage). */
    int (*open)(sweep_device *d, int ordinal, device_info *info, char *msg, size_t len);
    /* How many devices there are (--devices all); -1 and msg when none can be
     * counted. It initialises CUDA: --devices asks it in a child process. */
    int (*count)(sweep_device *d, char *msg, size_t len);
    /* Device memory now (cudaMemGetInfo): free and total bytes, and the bytes
     * the layer itself holds for the whole run (the L2 flush buffer). 0, or -1
     * and msg. */
    int (*memory)(sweep_device *d, size_t *free_bytes, size_t *total_bytes, size_t *held_bytes, char *msg,
                  size_t len);
    /* Device-to-device memcpy bandwidth, GB/s, reads + writes counted; <= 0 if it failed.
     * Each copy timed as a cold sample is: run.json says so (COPY_TIMING_RULE). */
    double (*copy_bandwidth)(sweep_device *d, char *msg, size_t len);
    /* Microseconds a minimal launch takes back to back (launch_probe.h): the
     * launch term of the machine model; <= 0 if it failed. */
    double (*launch_cost)(sweep_device *d, char *msg, size_t len);
    dev_status (*validate)(sweep_device *d, const variant *v, const kernel_args *cfg, uint64_t seed,
                           sweep_validation *out);
    /* Buffers for timing: fills a->in/out/workspace. */
    dev_status (*prepare)(sweep_device *d, const variant *v, kernel_args *a, char *msg, size_t len);
    /* Two launches; *launch_ms: the second one's time (NaN if not measured),
     * what the sample batches are sized from. */
    dev_status (*warmup)(sweep_device *d, const variant *v, const kernel_args *a, double *launch_ms, char *msg,
                         size_t len);
    /* Cold: L2 flushed before each sample, outside the timed events; then
     * *batch launches, each on its own copy of the input, so every launch
     * finds its input out of L2. *batch may come back smaller (1 when the
     * copies do not fit in memory): the batch the samples used. */
    dev_status (*measure_cold)(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                               unsigned *batch, double budget_s, volatile sig_atomic_t *interrupt, timing_stats *out,
                               char *msg, size_t len);
    /* Hot: `warm` untimed launches (warm_launches_for, timing.h), then
     * `batch` back-to-back launches per sample on the same buffers. */
    dev_status (*measure_hot)(sweep_device *d, const variant *v, const kernel_args *a, const timing_params *p,
                              unsigned batch, unsigned warm, double budget_s, volatile sig_atomic_t *interrupt, timing_stats *out,
                              char *msg, size_t len);
    /* After a failed configuration: 0 when the device is usable again, -1 and
     * why in msg when the context is lost (a sticky error such as an illegal
     * address poisons it for the rest of the process: the run stops, flushes
     * its rows and says so; --resume continues in a fresh process). */
    int (*recover)(sweep_device *d, char *msg, size_t len);
    /* The stream profilers launch on. */
    cudaStream_t (*stream)(sweep_device *d);
    /* A profiler that works on this device without CUDA (the fake's), or NULL. */
    const sweep_profiler *(*builtin_profiler)(sweep_device *d);
    void (*close)(sweep_device *d);
} sweep_device_ops;

struct sweep_device {
    const sweep_device_ops *ops;
    void *impl;
};

/* The CUDA device layer / the fake one. Never NULL. */
sweep_device *sweep_device_cuda(void);
sweep_device *sweep_device_fake(void);

/* sample_batch_for() and SAMPLE_TARGET_MS: timing.h. */

#endif
