/* The profile phase's plug: a profiler (the CUPTI one lives in cupti/) that
 * the sweep calls for each valid configuration, after its timing, one at a
 * time or in batches of one group's configurations, each configuration's
 * launches inside its "profile" NVTX range.
 *
 * Plugging one in: define a `const sweep_profiler` and pass it to sweep_main()
 * (harness/run/sweep_main.c); the sweep then
 *   1. calls begin() once, after the device is open and before any output is
 *      written: the profiler turns the requested metric names (--metrics or the
 *      experiment's [profile] metrics; none listed means its default set) into
 *      the metric columns it will fill, with units, and says how many replay
 *      passes a configuration costs. What it answers (SWEEP_PROFILER_*):
 *        READY        metrics are measured;
 *        UNAVAILABLE  the columns stay in results.csv but are left empty (another
 *                     profiler such as ncu or nsys is attached, no permission
 *                     for the GPU counters, ...): the sweep warns once on stderr
 *                     ("sweep: profiler unavailable: <status>"), run.json's
 *                     profiler_status reads "unavailable: <status>", and the
 *                     profile phase still runs, so the attached tool sees each
 *                     configuration launched once inside its "profile" range;
 *        BAD_METRIC   a requested name is unknown to the device (status: the
 *                     message, with the closest names): exit 2, nothing written;
 *        anything else: no metric columns, no profile phase (status says why);
 *   2. per configuration whose validation passed, after its timing: before()
 *      (optional, outside the "profile" range: an L2 flush, say), then
 *      profile() inside the configuration's "profile" NVTX range, then after()
 *      (optional, outside the range again). profile() gets the configuration's
 *      label (config_label(): a name for the profiler's range) and ready
 *      buffers (a->in/out/workspace); it launches v->launch(a, stream) as often
 *      as its passes need (synchronizing as it needs) and writes one value per
 *      column (left NaN where it has none);
 *   2b. or, where the profiler batches (queue and run_queue set) and the run is
 *      on one device (not --devices): per configuration whose validation
 *      passed, after its timing, queue() with its slot k (0, 1, ...) and
 *      buffers; the profiler keeps what it needs of them (a->in and a->out
 *      are shared by the queued configurations: every one of a batch has the
 *      same variant, dtype, op, finish or scan mode and n, so the same input;
 *      the workspace is the profiler's own, one per slot, made ready with
 *      v->workspace_init where the variant has one). The sweep calls
 *      run_queue() for the slots queued so far before the next configuration
 *      of another group, when SWEEP_PROFILE_QUEUE_MAX are queued or queue()
 *      answered SWEEP_PROFILE_QUEUE_FULL, when a later configuration failed
 *      (before the device is recovered) and when the run ends or is
 *      interrupted; the rows wait for it, and are written in plan order.
 *      run_queue() launches slot k inside hooks->enter(k) .. hooks->leave(k),
 *      which open and close that configuration's "profile" NVTX range (under
 *      its configuration range, opened again), with any L2 flush outside
 *      them, and writes slot k's values at values[k * stride]. A failure of
 *      run_queue() is every queued row's error, their metrics left empty;
 *      one of queue() is that row's alone;
 *   3. calls end() once before the outputs are closed -- only after a begin()
 *      that answered READY or UNAVAILABLE; any other answer means begin()
 *      released what it had set up itself.
 * Columns appear in results.csv as `m:<name>[<unit>]`, in run.json as
 * "metrics", "profiler_passes" and "profiler_status". --no-cupti, a [profile]
 * `metrics = none`, or a begin() answering neither READY nor UNAVAILABLE
 * leave the run without metric columns and without profile ranges.
 * The CUPTI implementation: harness/device/profiler_cupti.h. */
#ifndef HARNESS_PROFILER_H
#define HARNESS_PROFILER_H

#include <stddef.h>

#include "harness/device/device.h"
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

/* begin()'s answers (see above). */
#define SWEEP_PROFILER_READY 0
#define SWEEP_PROFILER_OFF 1
#define SWEEP_PROFILER_UNAVAILABLE 2
#define SWEEP_PROFILER_BAD_METRIC 3

/* Batches (2b above): at most this many configurations are queued; queue()
 * answers SWEEP_PROFILE_QUEUE_FULL when it took the configuration and wants
 * run_queue() before the next (its workspaces reached its memory cap). */
#define SWEEP_PROFILE_QUEUE_MAX 512
#define SWEEP_PROFILE_QUEUE_FULL 1
/* The workspaces of a batch's queued configurations, together, at most: a
 * profiler that holds one workspace a configuration (profiler_cupti.c) answers
 * SWEEP_PROFILE_QUEUE_FULL once they reach it, and the time model counts
 * batches so (plan_estimate.c). A sixteenth of the device's memory, at most
 * 8 GiB (1 GiB where the memory is not known): every batch costs a session
 * and each pass's start and stop (0.16-0.31 s a pass), and at 256 MiB the
 * heaviest inputs of the full experiment (2^25-2^30) ran about 2700 sessions
 * for 51,200 configurations, the starts and stops about 830 of the workers'
 * 2249 s (h200x4-two-pass/full-partial). The time model gives `full` 1533
 * batches at 1 GiB, 1077 at 4 GiB, 915 at 8 GiB; at 8 GiB the run had 915,
 * its profile stage 1916 s against 2279 s at 1 GiB
 * (h200x4/full-time-limit, h200x4/full). A sixteenth leaves an
 * 80 GB card 75 GB for its largest configuration (2 x 8 GiB at 2^30 f64). */
static inline size_t sweep_profile_workspace_cap(size_t device_memory_bytes)
{
    const size_t most = (size_t)8 << 30;
    if (!device_memory_bytes) return (size_t)1 << 30;
    return device_memory_bytes / 16 < most ? device_memory_bytes / 16 : most;
}

/* Around each queued configuration's launch in run_queue(): its NVTX ranges. */
typedef struct sweep_profile_hooks {
    void *user;
    void (*enter)(void *user, size_t k);
    void (*leave)(void *user, size_t k);
} sweep_profile_hooks;

/* The status texts of the two expected UNAVAILABLE cases (one line each; the
 * sweep prints "sweep: profiler unavailable: " before them). */
#define SWEEP_PROFILER_TEXT_OTHER_PROFILER \
    "another profiler (ncu/nsys) is attached; metric columns left empty"
#define SWEEP_PROFILER_TEXT_PRIVILEGES                                                        \
    "GPU performance counters are restricted to admin users: run as root, or set the nvidia " \
    "module option NVreg_RestrictProfilingToAdminUsers=0 and reload it "                      \
    "(developer.nvidia.com/ERR_NVGPUCTRPERM); metric columns left empty"

/* Where a profiler's measurements spent their time so far, in seconds, and how
 * many sessions, passes and ranges they were (one range a configuration and
 * pass): what the time model's profile constants are fitted to. */
typedef struct sweep_profile_times {
    double session;  /* enabling, configuring and disabling a session */
    double restore;  /* the L2 flush before each range, with its wait */
    double ranges;   /* a range's push, the launch, its wait and the pop, in all */
    double push, launch, wait, pop; /* ranges by part: CUPTI's push and pop cost
                                     * about 1 ms a range with any SM counter in
                                     * the set (tools/profile_cost) */
    double passes;   /* each pass's start and stop */
    double decode;   /* the counter data decoded after the passes */
    double evaluate; /* each range's metrics evaluated on the host */
    double frees;    /* the batch's workspaces given back after it */
    size_t sessions, pass_count, range_count;
} sweep_profile_times;

/* t += s, part by part (the workers' times summed for run.json). */
static inline void profile_times_add(sweep_profile_times *t, const sweep_profile_times *s)
{
    t->session += s->session, t->restore += s->restore, t->ranges += s->ranges, t->passes += s->passes;
    t->decode += s->decode, t->evaluate += s->evaluate, t->frees += s->frees;
    t->push += s->push, t->launch += s->launch, t->wait += s->wait, t->pop += s->pop;
    t->sessions += s->sessions, t->pass_count += s->pass_count, t->range_count += s->range_count;
}

typedef struct sweep_profiler {
    const char *name;
    void *state;
    /* SWEEP_PROFILER_READY: profile with setup->metrics; UNAVAILABLE: keep the
     * columns, leave them empty; BAD_METRIC: exit 2; else run without metrics.
     * setup->status says why in every case but READY. */
    int (*begin)(void *state, sweep_profiler_setup *setup);
    /* 0, or nonzero with err: the row keeps its status, its metrics stay empty
     * and the message lands in its error column. */
    int (*profile)(void *state, const char *label, const variant *v, const kernel_args *a, cudaStream_t stream,
                   double *values, char *err, size_t errlen);
    void (*end)(void *state);
    /* Optional (NULL: nothing), called outside the "profile" range just before
     * it is pushed / just after it is popped; 0, or nonzero with err as for
     * profile() (a failing before() skips profile() and after()). */
    int (*before)(void *state, const variant *v, const kernel_args *a, cudaStream_t stream, char *err,
                  size_t errlen);
    int (*after)(void *state, const variant *v, const kernel_args *a, cudaStream_t stream, char *err,
                 size_t errlen);
    /* Optional, both or neither (2b above). queue(): 0 or SWEEP_PROFILE_QUEUE_FULL
     * when slot k holds the configuration; -1 with err when it could not
     * (that row's error; the slots before k stay queued). run_queue(): 0 with
     * count * stride values written, or nonzero with err; either way the
     * queue is empty afterwards. */
    int (*queue)(void *state, size_t k, const variant *v, const kernel_args *a, cudaStream_t stream, char *err,
                 size_t errlen);
    int (*run_queue)(void *state, size_t count, const sweep_profile_hooks *hooks, cudaStream_t stream,
                     double *values, size_t stride, char *err, size_t errlen);
    /* Optional: where the measurements' time went so far (run.json stages.cupti_*). */
    void (*times)(void *state, sweep_profile_times *out);
} sweep_profiler;

#endif
