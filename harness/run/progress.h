/* Progress on stderr: on a terminal, one line redrawn in place
 *   [########............]  412/1269  32%  reduce_warp_shuffle f32 sum n=2^20 ...  ETA 3 min 05 s
 * elsewhere (a log, CI), a plain line every 10 s. ETA weighs the remaining
 * configurations with the plan's time model, scaled by how fast the run has
 * gone against that model so far. */
#ifndef HARNESS_PROGRESS_H
#define HARNESS_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct progress {
    FILE *f;
    int enabled, tty, width, drawn;
    size_t total, done, failures;
    double est_total, est_done; /* model seconds */
    double start, last_print;
} progress;

void progress_begin(progress *p, FILE *f, int quiet, size_t total, double est_total_s);
/* `done` configurations finished (est_done model seconds of them); `label`
 * names the one starting now (NULL at the end). */
void progress_update(progress *p, size_t done, double est_done_s, size_t failures, const char *label);
/* Print a message without tearing the progress line. */
void progress_note(progress *p, const char *msg);
void progress_end(progress *p);

/* The ETA formula, exposed for tests: seconds left, or -1 when unknown. */
double progress_eta(double elapsed_s, double est_done_s, double est_total_s);

#endif
