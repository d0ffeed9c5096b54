/* `sweep compare BASE NEW [options]`: did a change make the kernels faster,
 * and can the answer be trusted?
 *
 * BASE and NEW are results directories of the sweep (results.csv, run.json,
 * samples.csv when run with --samples). Rows are matched by configuration:
 * variant, dtype, op, n, block dim, coarse factor, finish or scan mode (the
 * device model is each run's, from run.json: runs on different devices are
 * compared all the same, with a warning). Rows whose status is ok on both
 * sides are judged per phase (cold, hot) by harness/compare/compare_stats.h; the
 * others, and rows on one side only, are listed apart. With --normalize
 * (cub or copy) each row's times are first divided by a reference measured
 * in its own run (harness/compare/compare_normalize.c), so that a machine a few per
 * cent faster or slower than the other does not read as a change of the
 * code; rows without a reference are listed apart. The verdicts are
 * corrected across configurations (Benjamini-Hochberg, compare_stats.h).
 * Output: on stdout the short form (harness/compare/compare_summary.c: one line per
 * variant x dtype), with --detail the per-configuration Markdown document
 * instead; files only when asked: --out DIR gets compare.md (always with the
 * per-configuration tables), compare.csv, compare.html and a chart per
 * variant (compare-<variant>.png and .svg, plots/compare.gp); --csv FILE and
 * --json FILE besides. Nothing is written into BASE or NEW unless --out
 * names it. Warnings (harness/compare/compare_warnings.c) go to stderr, one line each.
 *
 * The files call down, never in a circle: compare_main.c (the command line)
 * -> compare_report.c, compare_summary.c, compare_export.c, compare.c ->
 * compare_normalize.c, compare_warnings.c -> compare_result.c, compare_stats.c.
 *
 * Exit status: 0; 1 with --fail-on-regression when any configuration is
 * slower (significantly after the correction, and by more than the
 * threshold), or when an output could not be written; 2 on bad input (one
 * line naming the value, before anything is written). */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "harness/compare/compare_null.h"
#include "harness/compare/compare_stats.h"
#include "harness/results/results.h"

/* --normalize: what each row's times are divided by, in its own run.
 * cub: the fastest ok median of the library's rows (SWEEP_CUB_REDUCE,
 * SWEEP_CUB_SCAN) at the row's kind, dtype, op, scan mode (scans) and n,
 * cold by cold, hot by hot; copy: the time a device-to-device copy of the
 * row's bytes_moved takes at run.json's copy_bandwidth_GBps; machine: the
 * two-term model launch + bytes_moved / copy bandwidth, the launch term
 * run.json's launch_us, or fitted from the library's rows across n in runs
 * without it (compare_machine_launch_ms). */
typedef enum { CN_NONE = 0, CN_CUB, CN_COPY, CN_MACHINE } compare_norm;

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
    const char *shown; /* the directory as the user named it (NULL: dir) */
    results_file rf;
    samples_file samples;
    int has_samples;
    json_t *run; /* run.json */
    const char *device; /* device.name, or "unknown" */
    compare_lib *lib;   /* --normalize cub: its references */
    size_t nlib;
    double launch_ms;   /* --normalize machine: the launch term (0 until set) */
    int launch_fitted;  /* 1: from the library's rows, 0: run.json's launch_us */
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

/* A variant x dtype x op as the empirical null judges it, per phase. */
typedef struct compare_vgroup {
    const char *name, *dtype, *op;
    compare_variant_phase ph[2];
} compare_vgroup;

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
    double fdr_q;             /* Benjamini-Hochberg's q */
    size_t ntests, nrejected; /* phases with a p, and those the correction rejected */
    compare_null_phase null[2];  /* cold, hot: the empirical null (compare_null.h) */
    compare_vgroup *vgroups;     /* every variant x dtype x op judged */
    size_t nvgroups;
    size_t *pair_group;          /* pairs[i]'s vgroup */
    size_t nvtests, nvrejected;  /* variant phases with a p, and those the correction rejected */
} compare_result;

/* The short form's line: a variant x dtype (x op, when by_op). */
typedef struct compare_group {
    const char *name, *dtype, *op;         /* the plain row's (results_io/row.h) */
    int by_op;
    const char *mode;                      /* finish or scan mode: the last seen (NULL none yet) */
    int several_modes;                     /* more than one */
    size_t nconfigs, faster, slower, same; /* configurations (slower: in a phase) */
    double gm[2], lo[2], hi[2];            /* cold, hot: geometric mean speed-up and its 95 % interval */
    const compare_pair *worst;             /* the lowest speed-up of a judged phase */
    const compare_vgroup *vg;              /* its empirical-null verdict; NULL none */
    int worst_hot;
} compare_group;

/* argv[0] is "compare". Returns the exit status. */
int compare_main(int argc, char **argv);

/* ---- the parts (harness/compare/compare.c), for tests ---- */

/* Read a results directory: 0, or -1 with one line naming what is wrong. */
int compare_load_run(const char *dir, compare_run *run, char *err, size_t errlen);
void compare_run_free(compare_run *run);
/* Match and judge; r->base and r->newer loaded, r->threshold and
 * r->normalize set. 0, or -1 with a message when nothing is in common. */
int compare_build(compare_result *r, char *err, size_t errlen);
void compare_result_free(compare_result *r);

/* ---- the empirical null (harness/compare/compare_null.c) ---- */

/* Fit it and judge every pair and variant against it (r->pairs judged on
 * their own noise first). 0, or -1 out of memory. */
int compare_null_fit(compare_result *r);
void compare_null_free(compare_result *r);
/* The lines that say what was fitted: per band its centre, its scatters and
 * the configurations behind them, launch- or bandwidth-bound, and the
 * smallest change it resolves; or why it was refused. */
void compare_null_describe(FILE *f, const compare_result *r, int detail);

/* ---- the result's common parts (harness/compare/compare_result.c) ---- */

/* Number of pairs with a phase judged slower. */
size_t compare_regressions(const compare_result *r);
/* Variant phases judged faster or slower (compare_null.h). */
size_t compare_variant_changes(const compare_result *r);
/* Number of variants judged slower in a phase (compare_null.h). */
size_t compare_variant_regressions(const compare_result *r);
/* One more line in r->warnings. */
void compare_warn(compare_result *r, const char *line);
/* n as 2^k when a power of two, else the number: sizes in every output for people. */
void compare_size_text(size_t n, char *buf, size_t len);

/* ---- warnings on the runs (harness/compare/compare_warnings.c) ---- */

/* The same run twice; different devices, clocks, copy bandwidths; run.json
 * settings that differ: one line each in r->warnings. */
void compare_check_runs(compare_result *r);

/* ---- --normalize (harness/compare/compare_normalize.c) ---- */

/* The machine model's terms of a run: the launch term in ms (run.json's
 * launch_us, or fitted from its library rows when that is absent; *source,
 * when not NULL, says which) and the copy bandwidth in GB/s; NaN unknown. */
double compare_machine_launch_ms(const compare_run *run, const char **source);
double compare_machine_copy_GBps(const compare_run *run);
/* "none", "cub", "copy", "machine" */
const char *compare_norm_name(compare_norm m);
/* "cub", "copy" or "machine": 0; anything else -1. */
int compare_norm_parse(const char *s, compare_norm *m);
/* The line every output starts with: which normalisation, and what it means. */
void compare_norm_describe(const compare_result *r, char *buf, size_t len);
/* With cub: is row the library's (the reference, not judged)? */
int compare_norm_is_library(compare_norm m, const sweep_row *row);
/* With machine, both runs' launch terms, of one definition (compare_normalize.c). */
void compare_norm_machine_terms(compare_result *r);
/* With cub, run->lib from its rows. 0, or -1 out of memory. */
int compare_norm_prepare(compare_norm m, compare_run *run);
/* The divisors of row's cold and hot times in run (ms; NaN for a phase the
 * row lacks): 0, or -1 with why it has none, naming the side. */
int compare_norm_reference(compare_norm m, const compare_run *run, const char *side, const sweep_row *row,
                           double ref[2], char *why, size_t len);
/* Warnings on what normalising cannot correct (copy: bytes models that
 * differ, runs over several devices). */
void compare_norm_warnings(compare_result *r);

/* ---- the short form (harness/compare/compare_summary.c) ---- */

/* "f32 sum n=2^22 block=256 items_per_thread=4 recursive" (no axis where the variant has none) */
void compare_config_text(const results_row_config *c, char *buf, size_t len);
/* The groups in order of first appearance (malloc'd; NULL out of memory). */
compare_group *compare_groups(const compare_result *r, size_t *ng);
/* "0.957 2^22 256×4 hot (slower)"; "–" without one. */
void compare_worst_text(const compare_group *g, char *buf, size_t len);
/* "slower from 2^24 up: 0.951 [0.944, 0.958] cold", "same", "–" (no null). */
void compare_variant_text(const compare_result *r, const compare_group *g, char *buf, size_t len);
/* "1.002 [0.998, 1.006]"; "–" without one. hot: 0 cold, 1 hot. */
void compare_mean_text(const compare_group *g, int hot, char *buf, size_t len);
/* The two runs, then one line per group. */
void compare_print_short(FILE *f, const compare_result *r);
/* The counts, the correction and the threshold, the normalisation; without
 * detail also the interval's method and where the rest is. */
void compare_print_footer(FILE *f, const compare_result *r, int detail);

/* ---- the outputs (harness/compare/compare_report.c, compare_export.c) ---- */

void compare_print_md(FILE *f, const compare_result *r, const char *chart_dir);
int compare_write_csv(const char *path, const compare_result *r, char *err, size_t errlen);
int compare_write_json(const char *path, const compare_result *r, char *err, size_t errlen);
/* compare.md, compare.csv, the charts and compare.html into dir (created).
 * Returns 0, or -1 with a message; a missing gnuplot is one line on log and
 * no chart, not a failure. */
int compare_write_dir(const char *dir, const compare_result *r, FILE *log, char *err, size_t errlen);

#endif
