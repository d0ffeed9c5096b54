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

#include "harness/results/drift_report.h"
#include "harness/results/results.h"
#include "harness/backend/sweep_device.h"

/* Measure rows[]'s first k timed GPU configurations again (timing rule t).
 * 0, or -1 with msg when the device failed (out->note says so too). */
int drift_check(sweep_device *dev, const timing_params *t, const sweep_row *rows, size_t n, unsigned k,
                volatile sig_atomic_t *stop, drift_report *out, char *msg, size_t len);

#endif
