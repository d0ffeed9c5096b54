/* The statistics of `sweep compare`: did one configuration get faster or
 * slower between two runs, by how much, and can the answer be trusted?
 *
 * The figure is the speed-up of NEW, the ratio of medians BASE / NEW (over
 * 1: NEW is faster), with a 95 % confidence interval, per phase (cold, hot).
 *   - With both runs' samples (samples.csv): a Mann-Whitney U test (normal
 *     approximation, tie and continuity corrections) for the p value, and a
 *     percentile bootstrap of the ratio of medians (fixed seed: the same
 *     input gives the same interval) for the interval.
 *   - With the rows only: the medians and each row's noise, the relative
 *     standard error of its median (noise_*_pct; else 1.2533 * stdev /
 *     (median * sqrt(samples))); log(ratio) is taken as normal with the two
 *     errors added in quadrature, which gives both the interval and p.
 * Verdict (compare_decide, the one place of the rule): faster or slower
 * only when the change is significant and larger than the threshold (the
 * ratio beyond 1 + t or below 1 / (1 + t)); otherwise same. Significant:
 * rejected by Benjamini-Hochberg at q = 0.05 over every phase judged in the
 * comparison (harness/compare/compare.c), so that among hundreds of configurations
 * the share of false "faster" / "slower" stays near 5 % instead of growing
 * with their number; compare_judge alone is the one-test case, p <= q. The
 * default threshold is the larger of the two rows' noise figures, and at
 * least 2 %: smaller changes come and go between runs of one build on one
 * GPU. */
#ifndef HARNESS_COMPARE_STATS_H
#define HARNESS_COMPARE_STATS_H

#include <stddef.h>
#include <stdint.h>

#define COMPARE_MIN_THRESHOLD 0.02 /* 2 % */
#define COMPARE_FDR_Q 0.05 /* Benjamini-Hochberg's false discovery rate */
#define COMPARE_CI_LEVEL 0.95
#define COMPARE_BOOTSTRAP_ROUNDS 2000
#define COMPARE_BOOTSTRAP_SEED 20240601u
/* Fewer samples than this on a side: the rows' figures are used instead. */
#define COMPARE_MIN_SAMPLES 3

typedef enum { CV_NA = 0, CV_SAME, CV_FASTER, CV_SLOWER } compare_verdict;
typedef enum { CM_NONE = 0, CM_SAMPLES, CM_NOISE, CM_NULL } compare_method;

const char *compare_verdict_name(compare_verdict v);
/* "samples: Mann-Whitney + bootstrap", "rows: median noise", "empirical null", "none" */
const char *compare_method_name(compare_method m);

/* One phase (cold or hot) of one configuration in both runs. */
typedef struct compare_phase {
    double base_ms, new_ms; /* medians */
    double speedup;         /* base_ms / new_ms */
    double lo, hi;          /* the 95 % interval of the figure judged (adj where set, else speedup; NaN: none) */
    double adj;             /* the speed-up relative to the machine, as the empirical null judges it
                             * (compare_null.h); NaN: judged as measured */
    double null_scale;      /* the null's scale of its log ratio (fraction); NaN: no null */
    double p;               /* two-sided p of "no change" (NaN: none) */
    double change;          /* new_ms / base_ms - 1: the time's relative change */
    double threshold;       /* fraction the change must exceed */
    double noise;           /* the larger of the two noise figures (fraction; NaN: none) */
    size_t base_n, new_n;   /* samples behind each median */
    compare_method method;
    compare_verdict verdict;
} compare_phase;

/* A row's side of a phase, as results.csv has it. */
typedef struct compare_side {
    double median, stdev, noise; /* ms, ms, fraction (NaN: not there) */
    size_t samples;
    const double *ms; /* its samples from samples.csv, or NULL */
    size_t n_ms;
} compare_side;

/* Judge one phase. threshold < 0: the default rule (above). Leaves verdict
 * CV_NA when either side has no median; else decided as one test (p <= q). */
void compare_judge(const compare_side *base, const compare_side *newer, double threshold, compare_phase *out);
/* The verdict of a judged phase, given whether its p passed the correction:
 * faster / slower when significant and beyond the threshold, else same.
 * A phase without a verdict (CV_NA) keeps it. */
void compare_decide(compare_phase *ph, int significant);

/* ---- the pieces, for tests ---- */

/* Median of x[0..n) (x is not modified); NaN when n == 0. */
double cs_median(const double *x, size_t n);
/* Two-sided p of the Mann-Whitney U test of a against b (normal
 * approximation with tie and continuity corrections); 1 when nothing varies. */
double cs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);
/* Percentile bootstrap of median(a) / median(b): `rounds` resamples of each
 * side from a xorshift generator seeded with `seed`. */
void cs_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, unsigned rounds, uint64_t seed,
                        double level, double *lo, double *hi);
/* Relative standard error of a median from a row: noise when there, else
 * 1.2533 * stdev / (median * sqrt(samples)); NaN when neither is. */
double cs_median_rse(const compare_side *s);
/* Benjamini-Hochberg step-up over the finite values of p[0..n) (NaN: no
 * test, never rejected, not counted): reject[i] = 1 for the rejected ones.
 * Returns the number rejected; *tests, when not NULL, gets the count of
 * tests. */
size_t cs_bh_reject(const double *p, size_t n, double q, int *reject, size_t *tests);
/* The geometric mean of exp(logs[0..n)) with a percentile bootstrap
 * interval of the mean log (`rounds` resamples, seeded): NaN when n == 0. */
void cs_geomean_interval(const double *logs, size_t n, unsigned rounds, uint64_t seed, double level, double *gm,
                         double *lo, double *hi);

#endif
