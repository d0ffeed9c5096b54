/* One configuration timed again, after the main pass: on the device's
 * buffers, warmed up, cold then hot, at given batches. The drift check and
 * the confirmation phase share it, so that both re-measure exactly as the
 * main pass measured (the same device calls, throttle rule and clocks). */
#ifndef HARNESS_REMEASURE_H
#define HARNESS_REMEASURE_H

#include <signal.h>

#include "harness/config/plan.h"
#include "harness/backend/sweep_device.h"

/* prepare -> warmup -> cold (*cold_batch launches a sample; 0: sized from
 * the warm-up, and set) -> hot (*hot_batch; 0: sized from the cold median,
 * and set; hot_batch NULL: no hot phase, *hot all zero, as for a row timed
 * cold only), each measurement under `t`, each in its NVTX range `range`.
 * DEV_OK, or the device's status with msg. */
dev_status remeasure_config(sweep_device *dev, const sweep_config *cfg, const timing_params *t, const char *range,
                            unsigned *cold_batch, unsigned *hot_batch, volatile sig_atomic_t *stop,
                            timing_stats *cold, timing_stats *hot, char *msg, size_t len);

#endif
