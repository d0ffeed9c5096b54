/* The confirmation phase: are the run's winners really faster than the
 * library, or is that the winner's curse (the fastest of dozens of noisy
 * estimates is biased fast) and the machine's drift?
 *
 * For each kind, dtype, op, scan mode and n with an ok library row
 * (reduce_cub, scan_cub), the candidates are the best configuration of each
 * other variant whose cold or hot median is within `within` of the fastest
 * such (at most `candidates` of them, the closest first). The candidates and
 * the library row are measured again in `rounds` interleaved rounds (A B L,
 * then L B A, ...), each a full cold and hot measurement at the main pass's
 * batches (cold only where the rows were: inputs of [timing] hot_below x L2
 * and more, whose confirm.csv lines are cold ones alone); each round's
 * library time over the candidate's is one ratio, and confirm_stats.h turns the rounds into an estimate and a 95 % interval.
 * Lines go to confirm.csv (results_io/confirm_io.h). */
#ifndef HARNESS_CONFIRM_H
#define HARNESS_CONFIRM_H

#include <signal.h>

#include "harness/results/results.h"
#include "harness/backend/sweep_device.h"
#include "results_io/confirm_io.h"

#define CONFIRM_MAX_ROUNDS 100

typedef struct confirm_params {
    unsigned rounds;     /* 0: no confirmation phase */
    unsigned candidates; /* of ours per group, at most */
    double within;       /* fraction: a variant's best within this of the fastest is a candidate */
    double margin;       /* fraction: differences whose interval does not clear it are ties (confirm_verdict) */
} confirm_params;

/* Does rows[] hold an ok library row (the phase has something to do)? */
int confirm_has_library(const sweep_row *rows, size_t n);

/* The whole phase. `t`: the timing rule of each measurement in a round (its
 * samples: min_samples; the noise rule does not stop it early). copy_GBps
 * (NaN: unknown) gives the lines' pct_copy. Progress lines go to `log`
 * (NULL: none). 0 and a malloc'd array (maybe empty), or -1 with msg when the
 * device failed (the lines measured so far are kept). */
int confirm_run(sweep_device *dev, const confirm_params *p, const timing_params *t, const sweep_row *rows, size_t n,
                double copy_GBps, volatile sig_atomic_t *stop, FILE *log, confirm_line **lines, size_t *count,
                char *msg, size_t len);

/* confirm.csv, whole, through write_file_atomic. */
int confirm_write_csv(const char *path, const confirm_line *l, size_t n, char *err, size_t errlen);

#endif
