/* Results directories for the `sweep compare` tests, built from the
 * committed H200 default run: its rows re-measured (samples drawn with each
 * row's own spread) on a machine as fast, or a few per cent slower, with
 * one variant changed on top. */
#ifndef TESTS_COMPARE_RUNS_H
#define TESTS_COMPARE_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/results/results.h"
#include "tests/sweep_test_util.h"

#define SEED_DIR "experiments/results/h200/default"

extern results_file seed; /* the committed default run's rows */

/* cmocka group set-up and tear-down: seed. */
int load_seed(void **state);
int free_seed(void **state);

typedef enum { SAMPLES, ROWS_ONLY } run_kind;

/* How a run differs from the seed: every time times `machine` (a slower or
 * faster machine), the rows of `variant` times `factor` on top (a change of
 * the code), run.json's copy_bandwidth_GBps times `copy` (NaN: none). */
typedef struct run_shift {
    double machine;
    const char *variant;
    double factor;
    double copy;
} run_shift;

/* A results directory from rows[0..n): results.csv, run.json (the seed's,
 * rows counted anew), and with SAMPLES a samples.csv re-measured from seed
 * `s`. With ROWS_ONLY and s != 0, each median moves by its own noise figure
 * times a normal draw. */
void make_run_shifted(const char *dir, const sweep_row *rows, size_t n, run_kind kind, uint64_t s,
                      const run_shift *shift);
/* The same on a machine as fast: rows of `slow` times `factor`. */
void make_run(const char *dir, const sweep_row *rows, size_t n, run_kind kind, uint64_t s, const char *slow,
              double factor);

size_t ok_rows(const sweep_row *rows, size_t n);

typedef struct tally {
    size_t rows, same, faster, slower, slow_variant_rows;
} tally;

/* compare.json's rows. A row is faster or slower when either phase is.
 * check: every phase of every row must be "slower" for `slow`'s rows and
 * "same" for the others, judged on samples. */
tally read_verdicts(const char *json_path, const char *slow, int check);

/* `sweep compare BASE NEW a1 a2 a3` (NULL ends the arguments). */
tu_result run_compare(const char *base, const char *newer, const char *a1, const char *a2, const char *a3);

/* Bad input: exit 2, one line on stderr containing `names`, nothing on
 * stdout, neither --csv nor --json written, no out_dir/compare. arg: one
 * more option, "--option value" for two. */
void expect_bad(const char *base, const char *newer, const char *arg, const char *names, const char *out_dir);

/* A committed run (rel_dir under the repository, e.g.
 * experiments/results/h200/default) copied into parent/name: its
 * results.csv, run.json, and samples.csv and summary.md where it has them.
 * Returns the copy's path. */
char *copy_committed_run(const char *rel_dir, const char *parent, const char *name);

/* A checksum of every file under dir (names, contents, modification
 * times), and how many files. */
uint64_t tree_checksum(const char *dir, size_t *files);

#endif
