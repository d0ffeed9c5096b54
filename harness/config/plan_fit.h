/* Does the plan fit in device memory? Checked once the device is open and
 * before anything is allocated or written (--dry-run does not open the
 * device, so it does not check).
 *
 * A configuration needs its input (n elements), its output (one element for
 * a reduction, n for a scan), its workspace (the variant's workspace_size),
 * the validation's allowance (CHECK_DEVICE_SCRATCH_BYTES, check_scratch.h)
 * and the L2 flush buffer the device layer holds for the whole run. It fits
 * when that is at most the free memory at the start plus the flush buffer
 * (the sweep's own allocation, already taken from the free memory), less
 * FIT_MARGIN_BYTES for the runtime and the profiler. The cold timing's input
 * copies are not counted: it makes only as many as fit, down to none.
 *
 *   - A size given with --sizes at which no configuration of the plan fits
 *     is bad usage: exit 2 naming the size, what its smallest configuration
 *     needs and what the device has.
 *   - A plan in which nothing fits at all is bad usage too.
 *   - Otherwise the configurations that do not fit are skipped rows with the
 *     reason ("does not fit in device memory: needs 129.1 GiB, the device has
 *     78.6 GiB free (...)"): an
 *     experiment file's sizes (the default, full) run on smaller devices.
 * What the check cannot see (another process taking memory mid-run) is
 * handled when an allocation fails: see DEV_NO_MEMORY in sweep_device.h. */
#ifndef HARNESS_FIT_H
#define HARNESS_FIT_H

#include <stddef.h>

#include "harness/config/plan.h"

#define FIT_MARGIN_BYTES ((size_t)256 << 20)

/* Device bytes one configuration needs: input + output + workspace +
 * CHECK_DEVICE_SCRATCH_BYTES; 0 for a variant the host runs. */
size_t config_device_bytes(const variant *v, const kernel_args *a);

typedef struct fit_budget {
    size_t free_bytes, total_bytes; /* cudaMemGetInfo at the start */
    size_t held_bytes;              /* the L2 flush buffer, already out of free_bytes */
    int ordinal;
} fit_budget;

/* Reason strings the plan's skipped configurations point to. */
typedef struct fit_reasons {
    char **text;
    size_t count, cap;
} fit_reasons;

/* Mark the configurations that do not fit as skipped (plan->skipped grows),
 * their reasons kept in *r. `sizes_origin`: "--sizes" when the sizes came
 * from the command line (each must fit somewhere), else NULL. Returns the
 * number marked, or -1 with a one-line message for a usage error. */
long plan_fit_memory(sweep_plan *p, const fit_budget *b, const char *sizes_origin, fit_reasons *r, char *err,
                     size_t errlen);
void fit_reasons_free(fit_reasons *r);

/* "8.0 GiB", "120 MiB", "512 KiB" */
void format_bytes(double bytes, char *buf, size_t len);

#endif
