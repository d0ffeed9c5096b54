/* `sweep compare BASE NEW [options]`: did a change make the kernels faster,
 * and can the answer be trusted?
 *
 * BASE and NEW are results directories of the sweep (results.csv, run.json,
 * samples.csv when run with --samples). Rows are matched by configuration:
 * variant, dtype, op, n, block dim, coarse factor, finish or scan mode (the
 * device model is each run's, from run.json: runs on different devices are
 * compared all the same, with a warning). Rows whose status is ok on both
 * sides are judged per phase (cold, hot) by harness/compare_stats.h; the
 * others, and rows on one side only, are listed apart. With --normalize
 * (cub or copy) each row's times are first divided by a reference measured
 * in its own run (harness/compare_normalize.c), so that a machine a few per
 * cent faster or slower than the other does not read as a change of the
 * code; rows without a reference are listed apart. Output: a Markdown
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

/* --normalize: what each row's times are divided by, in its own run.
 * cub: the fastest ok median of the library's rows (SWEEP_CUB_REDUCE,
 * SWEEP_CUB_SCAN) at the row's kind, dtype, op, scan mode (scans) and n,
 * cold by cold, hot by hot; copy: the time a device-to-device copy of the
 * row's bytes_moved takes at run.json's copy_bandwidth_GBps. */
typedef enum { CN_NONE = 0, CN_CUB, CN_COPY } compare_norm;

/* --normalize cub: the library's fastest medians at one key. */
typedef struct compare_lib {
    kind_t kind;
    dtype_t dtype;
    op_t op;
    scan_mode_t mode; /* scans only */
    size_t n;
    double ms[2]; /* cold, hot; NaN: no ok median */
} compare_lib;

/* One side: a results directory as read. */
typedef struct compare_run {
    char dir[4096];
    results_file rf;
    samples_file samples;
    int has_samples;
    json_t *run; /* run.json */
    const char *device; /* device.name, or "unknown" */
    compare_lib *lib;   /* --normalize cub: its references */
    size_t nlib;
} compare_run;

/* One configuration in both runs. */
typedef struct compare_pair {
    const sweep_row *base, *newer;
    char label[256]; /* config_label */
    compare_phase cold, hot; /* with --normalize, of the normalised times */
    double ref_base[2], ref_new[2]; /* cold, hot: what each side's times were divided by (ms); NaN: not normalised */
    double *metric_change; /* per common metric: NEW / BASE - 1 (NaN: none) */
} compare_pair;

/* A configuration not judged: on one side only, not ok on one, or (with
 * --normalize) without a reference on one. */
typedef struct compare_apart {
    const sweep_row *base, *newer; /* NULL: absent there */
    char label[256];
    char reason[320]; /* why, one line */
    int no_reference; /* ok on both sides, but a side has no reference */
} compare_apart;

/* A metric column both runs have. */
typedef struct compare_metric {
    const sweep_metric *m;
    size_t base_col, new_col;
} compare_metric;

typedef struct compare_result {
    compare_run base, newer;
    double threshold; /* fraction; < 0: the default rule */
    compare_norm normalize;
    compare_pair *pairs;
    size_t npairs;
    compare_pair *refs; /* --normalize cub: the library's rows, the reference: shown, not judged (verdict n/a) */
    size_t nrefs;
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
/* Match and judge; r->base and r->newer loaded, r->threshold and
 * r->normalize set. 0, or -1 with a message when nothing is in common. */
int compare_build(compare_result *r, char *err, size_t errlen);
void compare_result_free(compare_result *r);
/* Number of pairs with a phase judged slower. */
size_t compare_regressions(const compare_result *r);
/* One more line in r->warnings. */
void compare_warn(compare_result *r, const char *line);

/* ---- --normalize (harness/compare_normalize.c) ---- */

/* "none", "cub", "copy" */
const char *compare_norm_name(compare_norm m);
/* "cub" or "copy": 0; anything else -1. */
int compare_norm_parse(const char *s, compare_norm *m);
/* The line every output starts with: which normalisation, and what it means. */
void compare_norm_describe(const compare_result *r, char *buf, size_t len);
/* With cub: is row the library's (the reference, not judged)? */
int compare_norm_is_library(compare_norm m, const sweep_row *row);
/* With cub, run->lib from its rows. 0, or -1 out of memory. */
int compare_norm_prepare(compare_norm m, compare_run *run);
/* The divisors of row's cold and hot times in run (ms; NaN for a phase the
 * row lacks): 0, or -1 with why it has none, naming the side. */
int compare_norm_reference(compare_norm m, const compare_run *run, const char *side, const sweep_row *row,
                           double ref[2], char *why, size_t len);
/* Warnings on what normalising cannot correct (copy: bytes models that
 * differ, runs over several devices). */
void compare_norm_warnings(compare_result *r);

/* ---- the outputs (harness/compare_report.c) ---- */

void compare_print_md(FILE *f, const compare_result *r, const char *chart_dir);
int compare_write_csv(const char *path, const compare_result *r, char *err, size_t errlen);
int compare_write_json(const char *path, const compare_result *r, char *err, size_t errlen);
/* compare.md, compare.csv, the charts and compare.html into dir (created).
 * Returns 0, or -1 with a message; a missing gnuplot is one line on log and
 * no chart, not a failure. */
int compare_write_dir(const char *dir, const compare_result *r, FILE *log, char *err, size_t errlen);

#endif
