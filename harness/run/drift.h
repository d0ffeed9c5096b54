/* The drift check: does the device run the same code at the same speed at
 * the end of a run as at its start? The first K timed configurations are
 * measured again at the end, with the same batches and timing rule, and
 * each new median is set over the first one. A run whose device drifts by
 * d cannot tell apart two configurations measured far apart that differ by
 * less than d: the summary says so, and run.json keeps the figures.
 * The SM clocks of both passes ride along, to say whether the clock moved. */
#ifndef HARNESS_DRIFT_H
#define HARNESS_DRIFT_H

#include <signal.h>

#include "harness/results/results.h"
#include "harness/run/sweep_device.h"

/* One re-measured configuration: its first and end medians (ms) and mean cold SM clocks. */
typedef struct drift_item {
    char label[200];
    double cold0, cold1, hot0, hot1, clock0, clock1;
} drift_item;
#define DRIFT_MAX_ITEMS 64

typedef struct drift_report {
    int ran;         /* 1: measured; 0: not (note says why, "" when not asked) */
    char note[200];
    size_t configs;  /* re-measured */
    /* end / start median, per phase: the median over the configurations, and the extremes */
    double cold_ratio, cold_min, cold_max;
    double hot_ratio, hot_min, hot_max;
    /* mean SM clock over the re-measured configurations' cold samples, first pass and end */
    double clock_start_mhz, clock_end_mhz;
    unsigned throttled_end; /* samples the end pass discarded as throttled */
    double elapsed_s;       /* the check's own wall time */
    drift_item items[DRIFT_MAX_ITEMS]; /* the first DRIFT_MAX_ITEMS of them */
    size_t n_items;
} drift_report;

/* Measure rows[]'s first k timed GPU configurations again (timing rule t).
 * 0, or -1 with msg when the device failed (out->note says so too). */
int drift_check(sweep_device *dev, const timing_params *t, const sweep_row *rows, size_t n, unsigned k,
                volatile sig_atomic_t *stop, drift_report *out, char *msg, size_t len);

/* The drift's size: the larger of |cold_ratio - 1| and |hot_ratio - 1|; NaN when not run. */
double drift_size(const drift_report *d);

#endif
