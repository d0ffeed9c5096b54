/* `sweep compare BASE NEW [options]`: did a change make the kernels faster,
 * and can the answer be trusted?
 *
 * BASE and NEW are results directories of the sweep (results.csv, run.json,
 * samples.csv when run with --samples). Rows are matched by configuration:
 * variant, dtype, op, n, block dim, coarse factor, finish or scan mode (the
 * device model is each run's, from run.json: runs on different devices are
 * compared all the same, with a warning). Rows whose status is ok on both
 * sides are judged per phase (cold, hot) by harness/compare_stats.h; the
 * others, and rows on one side only, are listed apart. Output: a Markdown
 * table on stdout, and into --out DIR (default NEW/compare/) compare.md,
 * compare.csv, compare.html and a chart per variant (compare-<variant>.png
 * and .svg, plots/compare.gp); --csv FILE and --json FILE besides.
 *
 * Exit status: 0; 1 with --fail-on-regression when any configuration is
 * slower (significantly, and by more than the threshold), or when an output
 * could not be written; 2 on bad input (one line naming the value, before
 * anything is written). */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "harness/compare_stats.h"
#include "harness/results.h"

/* One side: a results directory as read. */
typedef struct compare_run {
    char dir[4096];
    results_file rf;
    samples_file samples;
    int has_samples;
    json_t *run; /* run.json */
    const char *device; /* device.name, or "unknown" */
} compare_run;

/* One configuration in both runs. */
typedef struct compare_pair {
    const sweep_row *base, *newer;
    char label[256]; /* config_label */
    compare_phase cold, hot;
    double *metric_change; /* per common metric: NEW / BASE - 1 (NaN: none) */
} compare_pair;

/* A configuration not judged: on one side only, or not ok on one. */
typedef struct compare_apart {
    const sweep_row *base, *newer; /* NULL: absent there */
    char label[256];
} compare_apart;

/* A metric column both runs have. */
typedef struct compare_metric {
    const sweep_metric *m;
    size_t base_col, new_col;
} compare_metric;

typedef struct compare_result {
    compare_run base, newer;
    double threshold; /* fraction; < 0: the default rule */
    compare_pair *pairs;
    size_t npairs;
    compare_apart *apart;
    size_t napart;
    compare_metric *metrics;
    size_t nmetrics;
    char **warnings; /* one line each: run.json differences */
    size_t nwarnings;
} compare_result;

/* argv[0] is "compare". Returns the exit status. */
int compare_main(int argc, char **argv);

/* ---- the parts (harness/compare.c), for tests ---- */

/* Read a results directory: 0, or -1 with one line naming what is wrong. */
int compare_load_run(const char *dir, compare_run *run, char *err, size_t errlen);
void compare_run_free(compare_run *run);
/* Match and judge; r->base and r->newer loaded, r->threshold set. 0, or -1
 * with a message when nothing is in common. */
int compare_build(compare_result *r, char *err, size_t errlen);
void compare_result_free(compare_result *r);
/* Number of pairs with a phase judged slower. */
size_t compare_regressions(const compare_result *r);

/* ---- the outputs (harness/compare_report.c) ---- */

void compare_print_md(FILE *f, const compare_result *r, const char *chart_dir);
int compare_write_csv(const char *path, const compare_result *r, char *err, size_t errlen);
int compare_write_json(const char *path, const compare_result *r, char *err, size_t errlen);
/* compare.md, compare.csv, the charts and compare.html into dir (created).
 * Returns 0, or -1 with a message; a missing gnuplot is one line on log and
 * no chart, not a failure. */
int compare_write_dir(const char *dir, const compare_result *r, FILE *log, char *err, size_t errlen);

#endif
