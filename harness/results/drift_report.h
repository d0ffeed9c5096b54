/* The drift check's record (harness/run/drift.c measures it): what run.json
 * and summary.md report of it (harness/results/results_conditions.c). */
#ifndef HARNESS_RESULTS_DRIFT_REPORT_H
#define HARNESS_RESULTS_DRIFT_REPORT_H

#include <stddef.h>

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

/* The drift's size: the larger of |cold_ratio - 1| and |hot_ratio - 1|; NaN when not run. */
double drift_size(const drift_report *d);

#endif
