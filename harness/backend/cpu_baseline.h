/* The CPU baseline: the seeds' "CPU version" (seed 003's sum_host.cu), a plain
 * loop on one thread, timed in the sweep beside the GPU variants when an
 * experiment sets `cpu_baseline = yes`.
 *
 * It is a row like any other (variant `cpu_serial`, family `cpu`), but it is
 * not a kernel: it lives here, not in kernels/, and the sweep runs it on the
 * host. One pass reads every element once, left to right, into a double
 * accumulator (an int64 one for i32, reported modulo 2^32 like the GPU's sums):
 * a dependent chain of adds, as the seed's loop is. The compiler keeps the
 * order (no -ffast-math), so f32/f64 sums are not vectorized. */
#ifndef HARNESS_CPU_BASELINE_H
#define HARNESS_CPU_BASELINE_H

#include <signal.h>
#include <stdint.h>

#include "harness/reference/cpu_variant.h"
#include "harness/backend/sweep_device.h"
#include "harness/core/timing.h"
#include "kernels/variant.h"

/* Validate (fresh input from `seed`, result against the reference) and time
 * one-thread passes over it: samples go to *out (cold columns: the input is
 * larger than the CPU's caches at the sizes the study uses). Returns 0, or -1
 * with val->message set when the host is out of memory. */
int cpu_serial_run(const kernel_args *cfg, uint64_t seed, const timing_params *p, double budget_s,
                   volatile sig_atomic_t *interrupt, sweep_validation *val, timing_stats *out);

#endif
