/* Hardware metrics for one region of host code, through the CUPTI Range
 * Profiler (CUDA 13) with user ranges and user replay: the region is run once
 * per pass the metric set needs, inside one range, and the values are read
 * back for the whole range (every kernel launched in it); a batch measures
 * many regions, one range each, in the same passes.
 *
 * Knows nothing of what is measured. One profiler per process at a time, used
 * from the thread that opened it. Not usable while another profiler (Nsight
 * Compute, Nsight Systems with GPU metrics, another CUPTI client) is attached:
 * profiler_open then says so. Metric names and the default set: metrics.h. */
#ifndef CUPTI_PROFILER_H
#define CUPTI_PROFILER_H

#include <stddef.h>

#include "cupti/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct profiler profiler;

typedef enum profiler_status {
    PROFILER_OK = 0,
    PROFILER_UNAVAILABLE_OTHER_PROFILER, /* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
                                            running under ncu / nsys or another CUPTI client */
    PROFILER_INSUFFICIENT_PRIVILEGES,    /* GPU performance counters restricted to admin users */
    PROFILER_UNKNOWN_METRIC,             /* a name the chip does not know (message: closest names) */
    PROFILER_NO_DEVICE,                  /* no CUDA device or driver */
    PROFILER_ERROR,                      /* anything else: bad arguments, CUDA or CUPTI errors */
} profiler_status;

/* Open a profiler on CUDA device `device` (made current, its primary context
 * created) for `count` CUPTI metric names ("dram__bytes_read.sum"; a
 * metric_plan's raw[] list). Repeated names are allowed. On success *out is
 * set and *num_passes (may be NULL) is the number of passes each measurement
 * takes. Otherwise *out is NULL and msg holds one line saying why. */
profiler_status profiler_open(int device, const char *const *metric_names, size_t count,
                              profiler **out, int *num_passes, char *msg, size_t msglen);

/* Measure: for each pass, start the pass, call restore(user) (when not NULL;
 * outside the range, so its work is not counted), then fn(user) inside one
 * range, until every pass is done: profiler_measure_batch with count 1.
 * range_name is not used (CUPTI's ranges get short fixed names: a long one
 * with spaces crashed the counter decoder in libnvperf_host on CUDA 13.0 /
 * driver 580). The device is synchronised after restore and after fn.
 * restore runs after the pass has started because starting one dirties lines
 * in the L2 (about 3 MB on an H200): a restore that flushes the L2 writes
 * them back before the range, where they would otherwise count as the
 * range's DRAM writes. Every pass must do the same work from the same state:
 * restore must put back whatever fn changes (outputs, in-place inputs, caches
 * that matter). fn and restore return 0 on success; anything else stops the
 * measurement (PROFILER_ERROR). values[i] receives the value of
 * metric_names[i] of profiler_open. May be called many times. */
profiler_status profiler_measure(profiler *p, const char *range_name, int (*fn)(void *user),
                                 int (*restore)(void *user), void *user, double *values,
                                 char *msg, size_t msglen);

/* The most ranges one session measures; a larger batch is measured in
 * sessions of this many (each costs what one profiler_measure costs). */
#define PROFILER_BATCH_MAX 512

/* Measure `count` regions, range k being fn(user, k): for each pass, start
 * it, then for k = 0 .. count-1 in order: restore(user, k) (when not NULL,
 * outside any range; the device synchronised after it), fn(user, k) inside
 * range k (the device synchronised after it); stop the pass; once every pass
 * is done, evaluate every range. Same rules as profiler_measure for each k:
 * restore(user, k) must put back the state fn(user, k) starts from (an L2
 * flush per range keeps each range's DRAM counts its own: the previous
 * range's write-backs and the profiler's own land in the flush). The session
 * set-up (enable, counter data image, configuration, decode) is shared by up to
 * PROFILER_BATCH_MAX ranges. values[k * profiler_num_values(p) + i] receives
 * range k's value of metric_names[i]. On failure no value is to be trusted. */
profiler_status profiler_measure_batch(profiler *p, size_t count, int (*fn)(void *user, size_t k),
                                       int (*restore)(void *user, size_t k), void *user, double *values,
                                       char *msg, size_t msglen);

/* Whether a measurement waits for the device after each restore and each
 * range (1, the default: every range's host time is its own), or queues a
 * pass's restores and ranges and waits once at its end (0): for measuring
 * what the waits cost, and whether the counts stay each range's own without
 * them (tools/profile_cost). */
void profiler_set_range_waits(profiler *p, int wait);

/* How many values one measurement writes: profiler_open's count; 0 for NULL. */
/* Where a profiler's measurements spent their time so far, in seconds:
 * session, enabling, configuring and disabling the range profiler; restore,
 * the callers' restores before each range and their waits; ranges, each
 * range's push, the measured function, its wait and the pop (push, fn, wait
 * and pop: the same time in its four parts; without range waits, the one
 * wait at a pass's end counts in wait and ranges); decode, the counter data
 * decoded after the passes; evaluate, each range's metrics evaluated on the
 * host; passes, each pass's start and stop. And how many sessions, passes
 * and ranges (one a pass) they were. */
typedef struct profiler_times {
    double session, restore, ranges, decode, evaluate, passes;
    double push, fn, wait, pop;
    size_t n_sessions, n_passes, n_ranges;
} profiler_times;
void profiler_get_times(const profiler *p, profiler_times *out);

size_t profiler_num_values(const profiler *p);

/* Number of passes per measurement; 0 for NULL. */
int profiler_num_passes(const profiler *p);

/* The chip name CUPTI reported ("GH100"); "" for NULL. */
const char *profiler_chip(const profiler *p);

/* Release everything profiler_open set up. NULL is a no-op. */
void profiler_close(profiler *p);

/* Check metric names against a chip's metric list without a GPU (the CUPTI
 * host API alone): PROFILER_OK and the pass count, or PROFILER_UNKNOWN_METRIC
 * with the closest names the chip knows. chip: a CUPTI chip name such as
 * "GH100" (H100 / H200), "GA100", "AD102", "GB100". */
profiler_status profiler_check_metrics(const char *chip, const char *const *metric_names,
                                       size_t count, int *num_passes, char *msg, size_t msglen);

/* A short constant name for a status ("ok", "no CUDA device", ...). */
const char *profiler_status_text(profiler_status s);

#ifdef __cplusplus
}
#endif

#endif
