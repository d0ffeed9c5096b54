/* The run's measurement conditions and its second looks, in run.json and
 * summary.md: NVML's readings at the start and end, the clocks and throttled
 * samples over the rows, the drift check (harness/run/drift.h) and the
 * confirmation phase (harness/run/confirm.h). */
#ifndef HARNESS_RESULTS_CONDITIONS_H
#define HARNESS_RESULTS_CONDITIONS_H

#include <stdio.h>

#include <jansson.h>

#include "harness/results/results.h"

/* run.json: "conditions", "drift", "confirm". */
/* One NVML reading as run.json and confirm.json write it (null when not read). */
json_t *gpu_conditions_json(const gpu_conditions *g);
void run_json_conditions(json_t *o, const run_info *ri);

/* What summary_print needs of them back from a loaded run.json: the drift
 * figures into *d (d->ran 0 when none) and ri->drift pointed at it, NVML's
 * status, the confirmation's rounds, margin and note (its lines are
 * confirm.csv's: the caller's to read). */
struct drift_report;
void run_json_conditions_read(const json_t *run, run_info *ri, struct drift_report *d);

/* summary.md: the confirmed speed-ups (the run's answer), first. */
void summary_confirmed(FILE *f, const run_info *ri);
/* summary.md: drift, clocks, throttling and NVML, after the tables. */
void summary_conditions(FILE *f, const sweep_row *rows, size_t n, const run_info *ri);

#endif
