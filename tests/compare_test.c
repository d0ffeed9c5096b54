/* `sweep compare` (harness/compare/compare.h) on results directories built here from
 * the committed H200 default run: a run against itself, one variant made
 * 10 % slower, 1,000 rows re-measured within their own spread (with samples
 * and with the rows' noise only), bad input; and the statistics on their own. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/compare/compare_stats.h"
#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "tests/compare_runs.h"
#include "tests/sweep_test_util.h"

#define SLOW_VARIANT "reduce_warp_shuffle"
static char err[8192];

/* ---- 1. a run against itself ---------------------------------------------------------------- */

static void test_against_itself(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-self");
    char *base = tu_path(dir, "base"), *json = tu_path(dir, "self.json");
    assert_int_equal(mkdir(base, 0755), 0);
    make_run(base, seed.rows, seed.count, SAMPLES, 1, NULL, 1);
    tu_result r = run_compare(base, base, "--fail-on-regression", "--json", json);
    if (r.status) fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    tally t = read_verdicts(json, NULL, 1);
    assert_int_equal(t.rows, ok_rows(seed.rows, seed.count));
    assert_int_equal(t.same, t.rows);
    /* every speed-up exactly 1, and the rows not ok listed apart */
    json_t *o = tu_load_json(json), *row;
    size_t i;
    json_array_foreach(json_object_get(o, "rows"), i, row)
    {
        assert_true(json_real_value(json_object_get(json_object_get(row, "cold"), "speedup")) == 1.0);
        assert_true(json_real_value(json_object_get(json_object_get(row, "hot"), "speedup")) == 1.0);
    }
    assert_int_equal(json_array_size(json_object_get(o, "not_compared")), seed.count - t.rows);
    assert_int_equal(json_integer_value(json_object_get(o, "regressions")), 0);
    /* the correction: every phase a test (p = 1 each), none rejected */
    json_t *c = json_object_get(o, "correction");
    assert_string_equal(json_string_value(json_object_get(c, "method")), "Benjamini-Hochberg");
    assert_int_equal(json_integer_value(json_object_get(c, "tests")), 2 * t.rows);
    assert_int_equal(json_integer_value(json_object_get(c, "rejected")), 0);
    json_decref(o);
    /* said, and nothing written but --json: no NEW/compare */
    assert_int_equal(tu_count(r.err, "warning: BASE and NEW are the same run (the same directory)"), 1);
    assert_non_null(strstr(r.out, "Benjamini-Hochberg, q = 0.05, over "));
    assert_false(tu_exists(tu_path(base, "compare")));
    tu_result_free(&r);
    /* --out: the files there */
    char *out = tu_path(dir, "out");
    r = run_compare(base, base, "--out", out, NULL);
    assert_int_equal(r.status, 0);
    const char *outs[] = {"compare.md", "compare.csv", "compare.html"};
    for (size_t k = 0; k < 3; k++) assert_true(tu_exists(tu_path(out, outs[k])));
    char *csv = tu_read_file(tu_path(out, "compare.csv"));
    assert_int_equal(tu_count_lines(csv), seed.count + 1);
    free(csv);
    assert_false(tu_exists(tu_path(base, "compare")));
    tu_result_free(&r);
}

/* ---- 2. one variant 10 % slower ------------------------------------------------------------ */

static void test_one_variant_slower(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-slow");
    char *base = tu_path(dir, "base"), *newer = tu_path(dir, "new"), *json = tu_path(dir, "slow.json");
    assert_int_equal(mkdir(base, 0755) | mkdir(newer, 0755), 0);
    make_run(base, seed.rows, seed.count, SAMPLES, 1, NULL, 1);
    make_run(newer, seed.rows, seed.count, SAMPLES, 1, SLOW_VARIANT, 1.10);
    tu_result r = run_compare(base, newer, "--fail-on-regression", "--json", json);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "configurations and 1 variant slower (--fail-on-regression)"));
    tally t = read_verdicts(json, SLOW_VARIANT, 1);
    assert_true(t.slow_variant_rows > 0);
    assert_int_equal(t.slower, t.slow_variant_rows);
    assert_int_equal(t.same, t.rows - t.slow_variant_rows);
    tu_result_free(&r);
    /* without the flag the same comparison is exit 0 */
    r = run_compare(base, newer, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
}

/* ---- 3. noise within the rows' own spread: no verdict -------------------------------------------- */

static void noise_run(run_kind kind, const char *tag)
{
    const char *dir = tu_tempdir(tag);
    char *base = tu_path(dir, "base"), *newer = tu_path(dir, "new"), *json = tu_path(dir, "noise.json");
    assert_int_equal(mkdir(base, 0755) | mkdir(newer, 0755), 0);
    /* the first 1,000 ok rows */
    sweep_row *rows = calloc(1000, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < seed.count && n < 1000; i++)
        if (seed.rows[i].status == ROW_OK) rows[n++] = seed.rows[i];
    assert_int_equal(n, 1000);
    make_run(base, rows, n, kind, 1, NULL, 1);
    make_run(newer, rows, n, kind, 2, NULL, 1);
    tu_result r = run_compare(base, newer, "--json", json, NULL);
    assert_int_equal(r.status, 0);
    tally t = read_verdicts(json, NULL, 0);
    assert_int_equal(t.rows, 1000);
    fprintf(stderr, "%s: %zu faster, %zu slower, %zu same of 1000\n", tag, t.faster, t.slower, t.same);
    assert_true(t.faster + t.slower < 10); /* under 1 % */
    tu_result_free(&r);
    free(rows);
}

static void test_noise_with_samples(void **state)
{
    (void)state;
    noise_run(SAMPLES, "cmp-noise-samples");
}

static void test_noise_rows_only(void **state)
{
    (void)state;
    noise_run(ROWS_ONLY, "cmp-noise-rows");
}

/* ---- 4. bad input: exit 2, one line naming the value, nothing written --------------------------- */

static void cut_file(const char *path, long keep)
{
    char *text = tu_read_file(path);
    assert_non_null(text);
    if (keep < 0) keep = (long)strlen(text) + keep;
    text[keep] = '\0';
    assert_int_equal(tu_write_file(path, text), 0);
    free(text);
}

static void replace_in_file(const char *path, const char *from, const char *to)
{
    char *text = tu_read_file(path), *at = strstr(text, from);
    assert_non_null(at);
    size_t len = strlen(text) + strlen(to) + 1;
    char *out = malloc(len);
    snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    assert_int_equal(tu_write_file(path, out), 0);
    free(text);
    free(out);
}

/* A results directory of the first n seed rows whose variant is (or, with
 * !same, is not) `variant`. */
static char *small_run(const char *dir, const char *name, const char *variant, int same, run_kind kind)
{
    char *p = tu_path(dir, name);
    assert_int_equal(mkdir(p, 0755), 0);
    sweep_row rows[40];
    size_t n = 0;
    for (size_t i = 0; i < seed.count && n < 40; i++)
        if (seed.rows[i].status == ROW_OK && (strcmp(seed.rows[i].cfg.v->name, variant) == 0) == same) rows[n++] = seed.rows[i];
    make_run(p, rows, n, kind, 1, NULL, 1);
    return p;
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-bad");
    char *good = small_run(dir, "good", SLOW_VARIANT, 1, SAMPLES);
    char *missing = tu_path(dir, "missing");
    expect_bad(missing, good, NULL, missing, good);
    expect_bad(good, missing, NULL, missing, good);
    char *empty_dir = tu_path(dir, "empty-dir");
    assert_int_equal(mkdir(empty_dir, 0755), 0);
    expect_bad(good, empty_dir, NULL, "not a results directory (no results.csv)", empty_dir);
    char *file = tu_path(dir, "file");
    assert_int_equal(tu_write_file(file, "x\n"), 0);
    expect_bad(file, good, NULL, "not a directory", good);

    char *schema = small_run(dir, "schema1", SLOW_VARIANT, 1, SAMPLES);
    replace_in_file(tu_path(schema, "run.json"), "\"schema_version\": 2", "\"schema_version\": 1");
    expect_bad(good, schema, NULL, "schema version 1", schema);
    char *header = small_run(dir, "header", SLOW_VARIANT, 1, SAMPLES);
    replace_in_file(tu_path(header, "results.csv"), ",cold_batch,hot_batch", ",hot_batch");
    expect_bad(good, header, NULL, "its header differs", header);
    char *metric = small_run(dir, "metric", SLOW_VARIANT, 1, SAMPLES);
    replace_in_file(tu_path(metric, "results.csv"), ",clock_events\n", ",clock_events,dram_bytes\n");
    expect_bad(good, metric, NULL, "'dram_bytes' is not a metric column", metric);
    char *emptied = small_run(dir, "emptied", SLOW_VARIANT, 1, SAMPLES);
    cut_file(tu_path(emptied, "results.csv"), 0);
    expect_bad(emptied, good, NULL, "results.csv: empty file", good);
    char *torn = small_run(dir, "torn", SLOW_VARIANT, 1, SAMPLES);
    cut_file(tu_path(torn, "results.csv"), -20);
    expect_bad(good, torn, NULL, "results.csv: its last line is cut off", torn);
    char *short_ = small_run(dir, "short", SLOW_VARIANT, 1, SAMPLES);
    replace_in_file(tu_path(short_, "run.json"), "\"rows\": ", "\"rows\": 1");
    expect_bad(good, short_, NULL, "but run.json counts", short_);
    char *header_only = small_run(dir, "header-only", SLOW_VARIANT, 1, SAMPLES);
    char *text = tu_read_file(tu_path(header_only, "results.csv"));
    *(strchr(text, '\n') + 1) = '\0';
    assert_int_equal(tu_write_file(tu_path(header_only, "results.csv"), text), 0);
    free(text);
    replace_in_file(tu_path(header_only, "run.json"), "\"complete\": true", "\"complete\": false");
    expect_bad(good, header_only, NULL, "results.csv: no rows", header_only);
    char *torn_samples = small_run(dir, "torn-samples", SLOW_VARIANT, 1, SAMPLES);
    cut_file(tu_path(torn_samples, "samples.csv"), -3);
    expect_bad(good, torn_samples, NULL, "samples.csv: line", torn_samples);

    char *other = small_run(dir, "other", SLOW_VARIANT, 0, SAMPLES);
    expect_bad(good, other, NULL, "have no configuration in common", other);
    expect_bad(good, good, "--threshold abc", "--threshold: 'abc'", good);
    expect_bad(good, good, "--bogus", "unknown option '--bogus'", good);
}

/* Without gnuplot: one line says so, everything else is written, exit 0. */
static void test_no_gnuplot(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-nognuplot");
    char *base = small_run(dir, "base", SLOW_VARIANT, 1, ROWS_ONLY), *out = tu_path(dir, "out");
    const char *args[] = {"compare", base, base, "--out", out, NULL};
    static const char *const env[] = {"GNUPLOT=/nonexistent/gnuplot", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "gnuplot not found"), 1);
    assert_true(tu_exists(tu_path(out, "compare.html")));
    assert_true(tu_exists(tu_path(out, "compare.csv")));
    assert_false(tu_exists(tu_path(out, "compare-" SLOW_VARIANT ".png")));
    char *md = tu_read_file(tu_path(out, "compare.md"));
    assert_non_null(strstr(md, "| empirical null |")); /* fitted from the two runs' rows */
    free(md);
    tu_result_free(&r);
}

/* A run of another build: its rows of a variant this build lacks are named
 * once on stderr and compared as read, the variant described by its rows:
 * renamed the same in both runs, they pair as before; renamed in one run
 * only, they pair with nothing. */
static void test_unknown_variant_compared(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-unknown");
    char *base = small_run(dir, "base", SLOW_VARIANT, 1, ROWS_ONLY);
    char *newer = small_run(dir, "new", SLOW_VARIANT, 1, ROWS_ONLY);
    char *csv_path = tu_path(newer, "results.csv"), *json = tu_path(dir, "c.json");
    char *before = tu_read_file(csv_path);
    size_t rows = tu_count_lines(before) - 1;
    /* NEW's first two rows become another build's variant */
    for (int k = 0; k < 2; k++) replace_in_file(csv_path, "\n" SLOW_VARIANT ",", "\nscan_from_another_build,");
    tu_result r = run_compare(base, newer, "--json", json, NULL);
    if (r.status) fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "2 rows of variants this build does not know (scan_from_another_build)"), 1);
    tally t = read_verdicts(json, NULL, 0);
    assert_int_equal(t.rows, rows - 2);
    tu_result_free(&r);
    /* BASE's too: all rows pair again */
    char *base_csv = tu_path(base, "results.csv");
    for (int k = 0; k < 2; k++) replace_in_file(base_csv, "\n" SLOW_VARIANT ",", "\nscan_from_another_build,");
    r = run_compare(base, newer, "--json", json, NULL);
    if (r.status) fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "2 rows of variants this build does not know (scan_from_another_build)"), 2);
    t = read_verdicts(json, NULL, 0);
    assert_int_equal(t.rows, rows);
    free(before);
    tu_result_free(&r);
}

/* ---- the statistics on their own ------------------------------------------------------------------ */

static void test_median(void **state)
{
    (void)state;
    const double odd[] = {5, 1, 4, 2, 3}, even[] = {8, 1, 7, 2}, ties[] = {2, 2, 2, 1, 3, 2};
    assert_true(cs_median(odd, 5) == 3);
    assert_true(cs_median(even, 4) == 4.5);
    assert_true(cs_median(ties, 6) == 2);
    assert_true(cs_median(odd, 1) == 5);
    assert_true(isnan(cs_median(odd, 0)));
    /* the input is left as it was */
    const double copy[] = {5, 1, 4, 2, 3};
    for (int i = 0; i < 5; i++) assert_true(odd[i] == copy[i]);
}

static void test_mann_whitney(void **state)
{
    (void)state;
    /* apart: U = 0, mean 12.5, variance 25 * 11 / 12; |U - mean| - 0.5 = 12 */
    const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    double expect = erfc(12 / sqrt(25.0 * 11 / 12) / sqrt(2.0));
    assert_true(fabs(cs_mann_whitney_p(a, 5, b, 5) - expect) < 1e-12);
    assert_true(fabs(cs_mann_whitney_p(b, 5, a, 5) - expect) < 1e-12);
    /* the same values: p = 1; all tied: no variance, p = 1 */
    assert_true(cs_mann_whitney_p(a, 5, a, 5) == 1.0);
    const double t[] = {3, 3, 3};
    assert_true(cs_mann_whitney_p(t, 3, t, 3) == 1.0);
    /* ties across the samples: ranks averaged, variance corrected:
     * a = {1, 2, 2}, b = {2, 3, 3}: ranks 1, 3, 3 | 3, 5.5, 5.5; U = 7 - 6 = 1;
     * ties 3 (t = 3) and 2 (t = 2): 24 + 6 = 30; var = 9/12 * (7 - 30/30) = 4.5 */
    const double c[] = {1, 2, 2}, d[] = {2, 3, 3};
    assert_true(fabs(cs_mann_whitney_p(c, 3, d, 3) - erfc((3.5 - 0.5) / sqrt(4.5) / sqrt(2.0))) < 1e-12);
}

static void test_bootstrap(void **state)
{
    (void)state;
    double a[40], b[40];
    for (int i = 0; i < 40; i++) a[i] = 1.0 + 0.01 * (i % 7), b[i] = 2.0 + 0.02 * (i % 5);
    double lo1, hi1, lo2, hi2;
    cs_bootstrap_ratio(a, 40, b, 40, 2000, 42, 0.95, &lo1, &hi1);
    cs_bootstrap_ratio(a, 40, b, 40, 2000, 42, 0.95, &lo2, &hi2);
    assert_true(lo1 == lo2 && hi1 == hi2); /* fixed seed: the same interval */
    double ratio = cs_median(a, 40) / cs_median(b, 40);
    assert_true(lo1 <= ratio && ratio <= hi1);
    assert_true(lo1 > 0.45 && hi1 < 0.55);
    /* constant samples: the interval is the point */
    double c[10], d[10];
    for (int i = 0; i < 10; i++) c[i] = 3, d[i] = 2;
    cs_bootstrap_ratio(c, 10, d, 10, 500, 1, 0.95, &lo1, &hi1);
    assert_true(lo1 == 1.5 && hi1 == 1.5);
}

static void test_judge_rows(void **state)
{
    (void)state;
    compare_phase ph;
    /* 10 % slower with 0.5 % noise each side: slower, threshold 2 % */
    compare_side b = {1.0, NAN, 0.005, 10, NULL, 0}, n = {1.1, NAN, 0.005, 10, NULL, 0};
    compare_judge(&b, &n, -1, &ph);
    assert_int_equal(ph.verdict, CV_SLOWER);
    assert_int_equal(ph.method, CM_NOISE);
    assert_true(fabs(ph.speedup - 1 / 1.1) < 1e-12 && fabs(ph.change - 0.1) < 1e-12);
    assert_true(ph.threshold == COMPARE_MIN_THRESHOLD);
    assert_true(ph.lo < ph.speedup && ph.speedup < ph.hi && ph.hi < 1);
    /* the same change under a 15 % threshold: same */
    compare_judge(&b, &n, 0.15, &ph);
    assert_int_equal(ph.verdict, CV_SAME);
    /* 3 % faster but 4 % noise: the threshold is the noise, same */
    b.noise = 0.04;
    n.median = 1 / 1.03;
    compare_judge(&b, &n, -1, &ph);
    assert_true(ph.threshold == 0.04);
    assert_int_equal(ph.verdict, CV_SAME);
    /* noise from stdev and samples when the noise figure is missing */
    compare_side s = {2.0, 0.1, NAN, 25, NULL, 0};
    assert_true(fabs(cs_median_rse(&s) - 1.2533 * 0.1 / (2.0 * 5)) < 1e-12);
    /* no median on one side: n/a */
    n.median = NAN;
    compare_judge(&b, &n, -1, &ph);
    assert_int_equal(ph.verdict, CV_NA);
}

static void test_judge_samples(void **state)
{
    (void)state;
    double x[30], y[30];
    for (int i = 0; i < 30; i++) x[i] = 1.0 + 0.001 * (i % 10), y[i] = x[i] * 0.9;
    compare_side b = {1.0, NAN, 0.003, 30, x, 30}, n = {0.9, NAN, 0.003, 30, y, 30};
    compare_phase ph;
    compare_judge(&b, &n, -1, &ph);
    assert_int_equal(ph.method, CM_SAMPLES);
    assert_int_equal(ph.verdict, CV_FASTER);
    assert_true(ph.p < 1e-6);
    assert_true(fabs(ph.speedup - 1 / 0.9) < 1e-12);
    /* too few samples on one side: the rows' figures */
    n.n_ms = 2;
    compare_judge(&b, &n, -1, &ph);
    assert_int_equal(ph.method, CM_NOISE);
}

/* results_read_csv_any: metric columns from the header. */
static void test_read_any_metrics(void **state)
{
    (void)state;
    sweep_metric m[2] = {{"dram__bytes_read.sum", "byte"}, {"smsp__thread_inst_executed_per_inst_executed.ratio", ""}};
    metric_columns mc = {m, 2};
    sweep_row rows[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(row_init(&rows[i], &seed.rows[i].cfg, 2), 0);
        rows[i].plain.metrics[0] = 1000.0 * (i + 1);
        rows[i].plain.metrics[1] = i ? 31.5 : NAN;
    }
    const char *dir = tu_tempdir("cmp-any");
    char *path = tu_path(dir, "results.csv");
    assert_int_equal(results_write_csv(path, rows, 3, mc, err, sizeof err), 0);
    results_file f;
    assert_int_equal(results_read_csv_any(path, &f, err, sizeof err), 0);
    assert_int_equal(f.metric_count, 2);
    assert_int_equal(f.count, 3);
    assert_int_equal(f.torn, 0);
    for (int k = 0; k < 2; k++) {
        assert_string_equal(f.metrics[k].name, m[k].name);
        assert_string_equal(f.metrics[k].unit, m[k].unit);
    }
    for (int i = 0; i < 3; i++) {
        assert_true(f.rows[i].plain.metrics[0] == 1000.0 * (i + 1));
        assert_true(i ? f.rows[i].plain.metrics[1] == 31.5 : isnan(f.rows[i].plain.metrics[1]));
        assert_ptr_equal(f.rows[i].cfg.v, rows[i].cfg.v);
        row_free(&rows[i]);
    }
    results_file_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_mann_whitney),
        cmocka_unit_test(test_bootstrap),
        cmocka_unit_test(test_judge_rows),
        cmocka_unit_test(test_judge_samples),
        cmocka_unit_test(test_read_any_metrics),
        cmocka_unit_test(test_against_itself),
        cmocka_unit_test(test_one_variant_slower),
        cmocka_unit_test(test_noise_with_samples),
        cmocka_unit_test(test_noise_rows_only),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_no_gnuplot),
        cmocka_unit_test(test_unknown_variant_compared),
    };
    return cmocka_run_group_tests(tests, load_seed, free_seed);
}
