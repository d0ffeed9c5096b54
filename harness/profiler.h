/* The profile phase's plug: a profiler (the CUPTI one lives in cupti/) that
 * the sweep calls once per valid configuration, after timing, inside the
 * configuration's "profile" NVTX range.
 *
 * Plugging one in: define a `const sweep_profiler` and pass it to sweep_main()
 * (harness/sweep_main.c); the sweep then
 *   1. calls begin() once, after the device is open: the profiler turns the
 *      requested metric names (the experiment's [profile] metrics; none listed
 *      means its default set) into the metric columns it will fill, with units,
 *      and says how many replay passes a configuration costs;
 *   2. calls profile() per configuration whose validation passed, with its
 *      label (config_label(): a name for the profiler's range): the buffers are
 *      ready (a->in/out/workspace), the profiler launches v->launch(a, stream)
 *      as often as its passes need (synchronizing as it needs) and writes one
 *      value per column (NaN where none);
 *   3. calls end() once before the outputs are closed.
 * Columns appear in results.csv as `m:<name>[<unit>]`, in run.json as
 * "metrics", "profiler_passes" and "profiler_status". --no-cupti, a [profile]
 * `metrics = none`, or a failing begin() leave the run without metric columns
 * and without profile ranges. */
#ifndef HARNESS_PROFILER_H
#define HARNESS_PROFILER_H

#include <stddef.h>

#include "harness/device.h"
#include "kernels/variant.h"

#define SWEEP_MAX_METRICS 64
#define SWEEP_METRIC_NAME_LEN 128
#define SWEEP_METRIC_UNIT_LEN 32

typedef struct sweep_metric {
    char name[SWEEP_METRIC_NAME_LEN]; /* e.g. dram__bytes_read.sum */
    char unit[SWEEP_METRIC_UNIT_LEN]; /* e.g. byte; "" when unitless */
} sweep_metric;

typedef struct sweep_profiler_setup {
    /* in */
    const device_info *device;
    const char *const *requested; /* metric names; NULL with requested_count 0: the default set */
    size_t requested_count;
    /* out */
    sweep_metric metrics[SWEEP_MAX_METRICS];
    size_t metric_count;
    int passes;       /* replay passes one configuration costs */
    char status[256]; /* "ok: ..." or why profiling is off */
} sweep_profiler_setup;

typedef struct sweep_profiler {
    const char *name;
    void *state;
    /* 0: profile with setup->metrics; nonzero: run without metrics (setup->status says why). */
    int (*begin)(void *state, sweep_profiler_setup *setup);
    /* 0, or nonzero with err: the row keeps its status, its metrics stay empty
     * and the message lands in its error column. */
    int (*profile)(void *state, const char *label, const variant *v, const kernel_args *a, cudaStream_t stream,
                   double *values, char *err, size_t errlen);
    void (*end)(void *state);
} sweep_profiler;

#endif
