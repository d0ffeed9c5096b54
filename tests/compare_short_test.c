/* `sweep compare`'s short form on the committed runs (copied): the default
 * pair fits a screen, sizes as 2^k, the correction named; --detail and
 * --out; the inputs left untouched; the warnings on the same run and on two
 * devices. And the correction and the geometric mean's interval on their
 * own. */
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

#include "harness/compare/compare_stats.h"
#include "tests/compare_runs.h"
#include "tests/sweep_test_util.h"

#define H200 "experiments/results/h200/"
#define H100 "experiments/results/h100/"
#define SCREEN_LINES 60

/* ---- the statistics ------------------------------------------------------------------------- */

/* Benjamini and Hochberg's (1995) own example, 15 p values at q = 0.05:
 * four rejected (Bonferroni, 0.05 / 15, would reject three). */
static void test_bh_paper_example(void **state)
{
    (void)state;
    const double p[15] = {0.0201, 0.0001, 0.4262, 0.0004, 0.0019, 0.0095, 0.0278, 0.0298,
                          0.0344, 0.0459, 0.3240, 0.5719, 0.6528, 0.7590, 1.0};
    int reject[15];
    size_t tests;
    assert_int_equal(cs_bh_reject(p, 15, 0.05, reject, &tests), 4);
    assert_int_equal(tests, 15);
    for (int i = 0; i < 15; i++) assert_int_equal(reject[i], p[i] <= 0.0095);
}

/* Step-up: the largest p within its share of q carries every smaller one,
 * though none of those is within its own share; NaN is no test. */
static void test_bh_step_up(void **state)
{
    (void)state;
    const double p[5] = {0.04, NAN, 0.045, 0.03, 0.02};
    int reject[5];
    size_t tests;
    /* m = 4: 0.02 > 0.0125, 0.03 > 0.025, 0.04 > 0.0375, but 0.045 <= 0.05 */
    assert_int_equal(cs_bh_reject(p, 5, 0.05, reject, &tests), 4);
    assert_int_equal(tests, 4);
    const int expect[5] = {1, 0, 1, 1, 1};
    for (int i = 0; i < 5; i++) assert_int_equal(reject[i], expect[i]);
    /* at q = 0.01 nothing passes */
    assert_int_equal(cs_bh_reject(p, 5, 0.01, reject, NULL), 0);
    for (int i = 0; i < 5; i++) assert_int_equal(reject[i], 0);
}

/* A verdict needs both: significance after the correction and the threshold. */
static void test_decide(void **state)
{
    (void)state;
    compare_phase ph = {.speedup = 1 / 1.1, .threshold = 0.02, .verdict = CV_SAME};
    compare_decide(&ph, 1);
    assert_int_equal(ph.verdict, CV_SLOWER);
    compare_decide(&ph, 0);
    assert_int_equal(ph.verdict, CV_SAME);
    ph.speedup = 1.01; /* significant but inside the threshold */
    compare_decide(&ph, 1);
    assert_int_equal(ph.verdict, CV_SAME);
    ph.verdict = CV_NA; /* no verdict stays none */
    compare_decide(&ph, 1);
    assert_int_equal(ph.verdict, CV_NA);
}

static void test_geomean_interval(void **state)
{
    (void)state;
    double logs[4] = {log(1.0), log(1.21), log(1.1), log(1.1)}, gm, lo, hi, lo2, hi2;
    cs_geomean_interval(logs, 4, 2000, 7, 0.95, &gm, &lo, &hi);
    assert_true(fabs(gm - 1.1) < 1e-12);
    assert_true(lo <= gm && gm <= hi && lo >= 1.0 - 1e-12 && hi <= 1.21 + 1e-12);
    cs_geomean_interval(logs, 4, 2000, 7, 0.95, &gm, &lo2, &hi2);
    assert_true(lo == lo2 && hi == hi2); /* fixed seed */
    cs_geomean_interval(logs, 1, 2000, 7, 0.95, &gm, &lo, &hi);
    assert_true(gm == 1.0 && lo == 1.0 && hi == 1.0);
    cs_geomean_interval(logs, 0, 2000, 7, 0.95, &gm, &lo, &hi);
    assert_true(isnan(gm) && isnan(lo) && isnan(hi));
}

/* A change of 3 % against 1 % noise on each side: p = 0.037 alone, slower
 * by itself; among 400 configurations that did not change, the correction
 * keeps it (0.037 > 0.05 / 800), and --fail-on-regression follows the
 * corrected verdict. */
static void test_fail_on_regression_corrected(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-corrected");
    sweep_row *rows = calloc(400, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < seed.count && n < 400; i++)
        if (seed.rows[i].status == ROW_OK && seed.rows[i].hot.samples) rows[n++] = seed.rows[i];
    for (size_t i = 0; i < n; i++) rows[i].cold.noise = rows[i].hot.noise = 0.01;
    const char *names[4] = {"base", "new", "base1", "new1"};
    char *d[4];
    for (int k = 0; k < 4; k++) {
        d[k] = tu_path(dir, names[k]);
        assert_int_equal(mkdir(d[k], 0755), 0);
    }
    make_run(d[0], rows, n, ROWS_ONLY, 0, NULL, 1);
    make_run(d[2], rows, 1, ROWS_ONLY, 0, NULL, 1);
    rows[0].cold.median *= 1.03, rows[0].hot.median *= 1.03;
    make_run(d[1], rows, n, ROWS_ONLY, 0, NULL, 1);
    make_run(d[3], rows, 1, ROWS_ONLY, 0, NULL, 1);
    tu_result r = run_compare(d[2], d[3], "--fail-on-regression", NULL, NULL);
    assert_int_equal(r.status, 1);
    assert_int_equal(tu_count(r.err, "1 configuration and 0 variants slower (--fail-on-regression)"), 1);
    tu_result_free(&r);
    r = run_compare(d[0], d[1], "--fail-on-regression", NULL, NULL);
    if (r.status) fprintf(stderr, "%s%s", r.out, r.err);
    assert_int_equal(r.status, 0);
    char counts[160];
    snprintf(counts, sizeof counts, "%zu configurations judged, not normalised: 0 slower, 0 faster, %zu same", n, n);
    assert_non_null(strstr(r.out, counts));
    tu_result_free(&r);
    free(rows);
}

/* ---- the committed runs --------------------------------------------------------------------- */

/* No size written out where it is a power of two: "4194304" is 2^22.
 * From 2^11 up: 1024 is a block dim too, and block dims stay numbers. */
static void assert_no_long_powers(const char *text)
{
    char word[32];
    for (int k = 11; k <= 30; k++) {
        snprintf(word, sizeof word, "%zu", (size_t)1 << k);
        if (strstr(text, word)) fail_msg("%s written out (2^%d expected)", word, k);
    }
}

/* The default pair: a screen, sizes as 2^k, the correction named; and the
 * inputs untouched, checksum by checksum, with and without --out. */
static void test_default_pair(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-short");
    char *base = copy_committed_run(H200 "default", dir, "default");
    char *newer = copy_committed_run(H200 "default-rerun-2", dir, "default-rerun-2");
    size_t nb, nn, nb2, nn2;
    uint64_t cb = tree_checksum(base, &nb), cn = tree_checksum(newer, &nn);

    tu_result r = run_compare(base, newer, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    size_t lines = tu_count_lines(r.out) + tu_count_lines(r.err);
    fprintf(stderr, "default against default-rerun-2: %zu lines\n%s%s", lines, r.out, r.err);
    assert_true(lines <= SCREEN_LINES);
    assert_non_null(strstr(r.out, "Benjamini-Hochberg, q = 0.05, over "));
    assert_non_null(strstr(r.out, "reduce_coarsened f32 "));
    assert_non_null(strstr(r.out, " 2^"));
    assert_no_long_powers(r.out);
    assert_int_equal(tu_count(r.err, "plan differs"), 1);
    tu_result_free(&r);
    assert_true(tree_checksum(base, &nb2) == cb && tree_checksum(newer, &nn2) == cn);
    assert_true(nb2 == nb && nn2 == nn);

    char *out = tu_path(dir, "out");
    r = run_compare(base, newer, "--out", out, NULL);
    assert_int_equal(r.status, 0);
    assert_true(tree_checksum(base, &nb2) == cb && tree_checksum(newer, &nn2) == cn);
    assert_true(nb2 == nb && nn2 == nn);
    const char *files[] = {"compare.md", "compare.csv", "compare.html"};
    for (size_t i = 0; i < 3; i++) assert_true(tu_exists(tu_path(out, files[i])));
    /* compare.md holds the per-configuration tables, sizes as 2^k */
    char *md = tu_read_file(tu_path(out, "compare.md"));
    assert_non_null(strstr(md, "## reduce_coarsened"));
    assert_non_null(strstr(md, "| f32 sum n=2^22 block=256 items_per_thread=4 recursive |"));
    assert_no_long_powers(md);
    assert_true(tu_count_lines(md) > 2000);
    free(md);
    tu_result_free(&r);
}

/* --detail: the per-configuration tables on stdout instead, nothing written. */
static void test_detail(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-detail");
    char *base = copy_committed_run(H200 "default", dir, "default");
    char *newer = copy_committed_run(H200 "default-rerun", dir, "default-rerun");
    size_t nb, nn, nb2, nn2;
    uint64_t cb = tree_checksum(base, &nb), cn = tree_checksum(newer, &nn);
    tu_result r = run_compare(base, newer, "--detail", NULL, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "## scan_decoupled_lookback"));
    assert_non_null(strstr(r.out, "| f32 sum n=2^20 block=256 items_per_thread=1 inclusive |"));
    assert_non_null(strstr(r.out, "Benjamini-Hochberg, q = 0.05, over "));
    assert_no_long_powers(r.out);
    assert_true(tu_count_lines(r.out) > 2000);
    /* the counts the README and FINDINGS quote for this pair */
    assert_non_null(strstr(r.out, "By phase, of 2402 configurations: cold 14 faster, 13 slower, 2375 same; hot 12 "
                                  "faster, 12 slower, 2378 same."));
    assert_true(tree_checksum(base, &nb2) == cb && tree_checksum(newer, &nn2) == cn);
    assert_true(nb2 == nb && nn2 == nn);
    tu_result_free(&r);
}

/* run.json's top-level key set to a string, in place. */
static void set_run_string(const char *run_dir, const char *key, const char *value)
{
    json_t *run = tu_load_json(tu_path(run_dir, "run.json"));
    json_object_set_new(run, key, json_string(value));
    assert_int_equal(json_dump_file(run, tu_path(run_dir, "run.json"), JSON_INDENT(2)), 0);
    json_decref(run);
}

/* A run against itself: the same directory, a copy (the same run.json),
 * or identical results.csv under another run.json. */
static void test_same_run(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-same");
    char *a = copy_committed_run(H200 "default", dir, "a"), *b = copy_committed_run(H200 "default", dir, "b");
    tu_result r = run_compare(a, a, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "warning: BASE and NEW are the same run (the same directory)"), 1);
    tu_result_free(&r);
    r = run_compare(a, b, NULL, NULL, NULL);
    assert_int_equal(tu_count(r.err, "same run (run.json: the same start time, host, commit and card)"), 1);
    tu_result_free(&r);
    set_run_string(b, "date", "2026-11-22T00:00:00Z");
    r = run_compare(a, b, NULL, NULL, NULL);
    assert_int_equal(tu_count(r.err, "same run (identical results.csv)"), 1);
    tu_result_free(&r);
    /* two runs: no such warning */
    char *c = copy_committed_run(H200 "default-rerun-2", dir, "c");
    r = run_compare(a, c, NULL, NULL, NULL);
    assert_int_equal(tu_count(r.err, "same run"), 0);
    tu_result_free(&r);
}

/* H200 against H100 (the committed vs-cub runs): devices, clocks and copy
 * bandwidths differ, each said once and pointing to --normalize. */
static void test_different_devices(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-devices");
    char *h200 = copy_committed_run(H200 "vs-cub", dir, "h200"), *h100 = copy_committed_run(H100 "vs-cub", dir, "h100");
    tu_result r = run_compare(h200, h100, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    const char *said[] = {"warning: different devices: BASE NVIDIA H200, NEW NVIDIA H100 80GB HBM3",
                          "warning: different clocks: memory clock", "warning: different copy bandwidths: BASE "};
    for (size_t i = 0; i < 3; i++) {
        const char *at = strstr(r.err, said[i]);
        if (!at) fail_msg("expected '%s' in: %s", said[i], r.err);
        assert_int_equal(tu_count(r.err, said[i]), 1);
        const char *eol = strchr(at, '\n');
        assert_non_null(strstr(at, "--normalize cub|copy"));
        assert_true(strstr(at, "--normalize cub|copy") < eol);
    }
    assert_true(tu_count_lines(r.out) + tu_count_lines(r.err) <= SCREEN_LINES);
    tu_result_free(&r);
    /* normalised: no pointer to what is already done */
    r = run_compare(h200, h100, "--normalize", "cub", NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "different devices"), 1);
    assert_int_equal(tu_count(r.err, "--normalize cub|copy"), 0);
    tu_result_free(&r);
}

/* run.json's copy_timing: a run without it (the copy timed back to back) against one with
 * "cold" is said once, naming both; two runs timed alike say nothing. */
static void set_copy_timing(const char *run_dir, const char *timing)
{
    set_run_string(run_dir, "copy_timing", timing);
    set_run_string(run_dir, "date", "2026-11-27T00:00:00Z"); /* not the same run */
}

static void test_copy_timing(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-copy-timing");
    char *old = copy_committed_run(H200 "default", dir, "old"), *cold = copy_committed_run(H200 "default-rerun-2", dir, "cold");
    set_copy_timing(cold, "cold");
    tu_result r = run_compare(old, cold, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "warning: copy bandwidths timed differently: BASE back to back, NEW cold "
                                     "(cold reads 1.4-1.6 % faster on an H200"), 1);
    tu_result_free(&r);
    char *cold2 = copy_committed_run(H200 "default", dir, "cold2");
    set_copy_timing(cold2, "cold");
    r = run_compare(cold2, cold, NULL, NULL, NULL);
    assert_int_equal(tu_count(r.err, "timed differently"), 0);
    tu_result_free(&r);
    char *old2 = copy_committed_run(H200 "default-rerun-2", dir, "old2");
    r = run_compare(old, old2, NULL, NULL, NULL);
    assert_int_equal(tu_count(r.err, "timed differently"), 0);
    tu_result_free(&r);
}

/* The rows' own SM clocks (no clock in either run.json): said, with both. */
static void test_different_clocks_rows(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cmp-clocks");
    char *base = tu_path(dir, "base"), *newer = tu_path(dir, "new");
    assert_int_equal(mkdir(base, 0755) | mkdir(newer, 0755), 0);
    sweep_row *rows = calloc(200, sizeof *rows);
    memcpy(rows, seed.rows, 200 * sizeof *rows);
    for (size_t i = 0; i < 200; i++) rows[i].cold.clock_mean_mhz = rows[i].hot.clock_mean_mhz = 1980;
    make_run(base, rows, 200, ROWS_ONLY, 0, NULL, 1);
    for (size_t i = 0; i < 200; i++) rows[i].cold.clock_mean_mhz = rows[i].hot.clock_mean_mhz = 1755;
    make_run(newer, rows, 200, ROWS_ONLY, 0, NULL, 1);
    tu_result r = run_compare(base, newer, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "warning: different clocks: median SM clock of the rows (sm_clock_cold_mean_MHz) "
                                     "BASE 1980, NEW 1755; --normalize cub|copy"), 1);
    tu_result_free(&r);
    /* within 1 %: nothing said */
    for (size_t i = 0; i < 200; i++) rows[i].cold.clock_mean_mhz = rows[i].hot.clock_mean_mhz = 1970;
    char *near = tu_path(dir, "near");
    assert_int_equal(mkdir(near, 0755), 0);
    make_run(near, rows, 200, ROWS_ONLY, 0, NULL, 1);
    r = run_compare(base, near, NULL, NULL, NULL);
    assert_int_equal(tu_count(r.err, "different clocks"), 0);
    tu_result_free(&r);
    free(rows);
}

/* docs/compare.md's example of the short form is this build's output on the
 * committed runs, line for line (the BASE and NEW lines name the copies here). */
static void test_readme_example(void **state)
{
    (void)state;
    const char *cmd = "$ bazel run //harness:sweep -- compare " H200 "default " H200 "default-rerun-2\n";
    char *readme = tu_read_file(tu_data_file("docs/compare.md")), *at = strstr(readme, cmd);
    assert_non_null(at);
    at += strlen(cmd);
    char *end = strstr(at, "```");
    assert_non_null(end);
    *end = '\0';
    const char *dir = tu_tempdir("cmp-readme");
    char *base = copy_committed_run(H200 "default", dir, "default");
    char *newer = copy_committed_run(H200 "default-rerun-2", dir, "default-rerun-2");
    tu_result r = run_compare(base, newer, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    size_t checked = 0;
    for (char *line = strtok(at, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "BASE ", 5) || !strncmp(line, "NEW ", 4) || !strcmp(line, "…")) continue;
        if (!strstr(r.out, line) && !strstr(r.err, line)) fail_msg("docs/compare.md line not in the output: %s", line);
        checked++;
    }
    assert_true(checked >= 10);
    tu_result_free(&r);
    free(readme);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bh_paper_example),
        cmocka_unit_test(test_bh_step_up),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_geomean_interval),
        cmocka_unit_test(test_fail_on_regression_corrected),
        cmocka_unit_test(test_default_pair),
        cmocka_unit_test(test_detail),
        cmocka_unit_test(test_same_run),
        cmocka_unit_test(test_different_devices),
        cmocka_unit_test(test_different_clocks_rows),
        cmocka_unit_test(test_copy_timing),
        cmocka_unit_test(test_readme_example),
    };
    return cmocka_run_group_tests(tests, load_seed, free_seed);
}
