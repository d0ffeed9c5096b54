/* `sweep compare --normalize cub|copy` (harness/compare/compare_normalize.c) on
 * results directories built from the committed H200 default run, each
 * re-measured within its rows' own spread: NEW on a machine 3 % slower
 * (every time ×1.03, its copy bandwidth 3 % lower) reads as slower without
 * normalising and as the same with either reference; a real change of one
 * variant on top of that stays slower; rows without a reference are listed
 * apart with the reason; a bad value is exit 2 with nothing written. */
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

#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "tests/compare_runs.h"
#include "tests/sweep_test_util.h"

#define CHANGED_VARIANT "reduce_warp_shuffle" /* the one variant a real change slows */
#define MACHINE 1.03                          /* NEW's machine: every time ×1.03 */
#define COPY 0.97                             /* and its copy bandwidth 3 % lower */
#define GAP_N 4096                            /* NEW has no reduce_cub row at this n */
#define GAP_N_TEXT "2^12"                     /* GAP_N as the outputs write it */

static char err[8192];

/* BASE: the seed re-measured; NEW: re-measured anew (another draw) on `shift`'s machine. */
static void make_runs(const char *tag, const run_shift *shift, char **base, char **newer)
{
    const char *dir = tu_tempdir(tag);
    *base = tu_path(dir, "base");
    *newer = tu_path(dir, "new");
    assert_int_equal(mkdir(*base, 0755) | mkdir(*newer, 0755), 0);
    run_shift same = {1.0, NULL, 1.0, 1.0};
    make_run_shifted(*base, seed.rows, seed.count, SAMPLES, 1, &same);
    make_run_shifted(*newer, seed.rows, seed.count, SAMPLES, 2, shift);
}

static int is_library(const sweep_row *r)
{
    return !strcmp(r->cfg.v->name, r->cfg.v->kind == KIND_SCAN ? SWEEP_CUB_SCAN : SWEEP_CUB_REDUCE);
}

static size_t ok_library_rows(void)
{
    size_t k = 0;
    for (size_t i = 0; i < seed.count; i++) k += seed.rows[i].status == ROW_OK && is_library(&seed.rows[i]);
    return k;
}

/* Compare with `norm` ("" for none) into DIR/<norm>.json and NEW/compare-<norm>/. */
static tu_result compare_norm(const char *base, const char *newer, const char *norm, char **json, char **out)
{
    char name[64];
    snprintf(name, sizeof name, "%s.json", norm[0] ? norm : "none");
    *json = tu_path(newer, name);
    snprintf(name, sizeof name, "compare-%s", norm[0] ? norm : "none");
    *out = tu_path(newer, name);
    const char *args[] = {"compare", base, newer, "--json", *json, "--out", *out,
                          norm[0] ? "--normalize" : NULL, norm, NULL};
    static const char *const env[] = {"BUILD_WORKING_DIRECTORY=", NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status) fprintf(stderr, "%s", r.err);
    return r;
}

/* ---- what each side was divided by ---------------------------------------------------------- */

static results_file load_results(const char *dir)
{
    results_file f;
    if (results_read_csv_any(tu_path(dir, "results.csv"), &f, err, sizeof err)) fail_msg("%s", err);
    return f;
}

/* The fastest ok library median at row's kind and n (f32 sum inclusive: the seed has no other). */
static double library_median(const results_file *f, kind_t kind, size_t n, int hot)
{
    double best = NAN;
    for (size_t i = 0; i < f->count; i++) {
        const sweep_row *r = &f->rows[i];
        double t = hot ? r->hot.median : r->cold.median;
        if (r->status == ROW_OK && r->cfg.v->kind == kind && r->cfg.n == n && is_library(r) && !(best <= t)) best = t;
    }
    return best;
}

static const sweep_row *find_row(const results_file *f, const char *label)
{
    char l[256];
    for (size_t i = 0; i < f->count; i++) {
        config_label(&f->rows[i].cfg, l, sizeof l);
        if (!strcmp(l, label)) return &f->rows[i];
    }
    fail_msg("%s: not in results.csv", label);
    return NULL;
}

static int close_to(double x, double y) { return fabs(x / y - 1) < 1e-6; }

/* cub: every judged row's divisors are its run's library medians at its n, and
 * its normalised median times that divisor is its own median. */
static void check_cub_divisors(const char *json, const char *base, const char *newer)
{
    results_file fb = load_results(base), fn = load_results(newer);
    json_t *o = tu_load_json(json), *row;
    size_t i;
    json_array_foreach(json_object_get(o, "rows"), i, row)
    {
        const char *label = json_string_value(json_object_get(row, "configuration"));
        const sweep_row *rb = find_row(&fb, label), *rn = find_row(&fn, label);
        json_t *ref = json_object_get(row, "reference_ms");
        for (int h = 0; h < 2; h++) {
            double want_b = library_median(&fb, rb->cfg.v->kind, rb->cfg.n, h);
            double want_n = library_median(&fn, rn->cfg.v->kind, rn->cfg.n, h);
            double got_b = json_real_value(json_object_get(ref, h ? "hot_base" : "cold_base"));
            double got_n = json_real_value(json_object_get(ref, h ? "hot_new" : "cold_new"));
            assert_true(close_to(got_b, want_b) && close_to(got_n, want_n));
            json_t *ph = json_object_get(row, h ? "hot" : "cold");
            double base_ms = json_real_value(json_object_get(ph, "base_ms"));
            double new_ms = json_real_value(json_object_get(ph, "new_ms"));
            assert_true(close_to(base_ms * got_b, h ? rb->hot.median : rb->cold.median));
            assert_true(close_to(new_ms * got_n, h ? rn->hot.median : rn->cold.median));
        }
    }
    json_decref(o);
    results_file_free(&fb);
    results_file_free(&fn);
}

/* cub: the library's rows are the reference, 1.0 on both sides, not judged. */
static void check_references(const char *json)
{
    json_t *o = tu_load_json(json), *row;
    size_t i;
    assert_string_equal(json_string_value(json_object_get(o, "normalize")), "cub");
    assert_int_equal(json_array_size(json_object_get(o, "references")), ok_library_rows());
    json_array_foreach(json_object_get(o, "references"), i, row)
    {
        const char *v = json_string_value(json_object_get(row, "variant"));
        assert_true(!strcmp(v, SWEEP_CUB_REDUCE) || !strcmp(v, SWEEP_CUB_SCAN));
        for (int h = 0; h < 2; h++) {
            json_t *ph = json_object_get(row, h ? "hot" : "cold");
            assert_true(json_real_value(json_object_get(ph, "base_ms")) == 1.0);
            assert_true(json_real_value(json_object_get(ph, "new_ms")) == 1.0);
            assert_string_equal(json_string_value(json_object_get(ph, "verdict")), "n/a");
        }
    }
    json_array_foreach(json_object_get(o, "rows"), i, row)
    {
        const char *v = json_string_value(json_object_get(row, "variant"));
        assert_true(strcmp(v, SWEEP_CUB_REDUCE) && strcmp(v, SWEEP_CUB_SCAN));
    }
    json_decref(o);
}

/* copy: each side divided by bytes_moved ÷ its own copy bandwidth: NEW's
 * divisor is BASE's ÷ 0.97 (the same bytes, 3 % less bandwidth). */
static void check_copy_divisors(const char *json)
{
    json_t *o = tu_load_json(json), *row;
    size_t i;
    assert_string_equal(json_string_value(json_object_get(o, "normalize")), "copy");
    double bw = json_real_value(json_object_get(json_object_get(o, "base"), "copy_bandwidth_GBps"));
    json_array_foreach(json_object_get(o, "rows"), i, row)
    {
        const sweep_row *r = find_row(&seed, json_string_value(json_object_get(row, "configuration")));
        json_t *ref = json_object_get(row, "reference_ms");
        double b = json_real_value(json_object_get(ref, "cold_base"));
        double n = json_real_value(json_object_get(ref, "hot_new"));
        assert_true(close_to(b, r->plain.values[RC_BYTES_MOVED] / (bw * 1e6)));
        assert_true(close_to(n, b / COPY));
    }
    json_decref(o);
}

/* Every output says which normalisation: the line at the top of compare.md
 * and compare.html, the column of compare.csv. */
static void check_said(const char *out, const char *norm)
{
    char line[64];
    snprintf(line, sizeof line, "Normalised: --normalize %s.", norm);
    char *md = tu_read_file(tu_path(out, "compare.md")), *html = tu_read_file(tu_path(out, "compare.html"));
    char *csv = tu_read_file(tu_path(out, "compare.csv"));
    assert_non_null(strstr(md, line));
    assert_true(strstr(md, line) < strstr(md, "| directory |"));
    assert_non_null(strstr(html, line));
    assert_non_null(strstr(csv, ",normalize,"));
    char cell[64];
    snprintf(cell, sizeof cell, ",%s,yes,ok,ok,", norm);
    assert_true(tu_count(csv, cell) > 0);
    free(md);
    free(html);
    free(csv);
}

/* ---- 1. a slower machine: slower as measured, the same normalised ----------------------------- */

static void test_slower_machine(void **state)
{
    (void)state;
    char *base, *newer, *json, *out;
    run_shift machine = {MACHINE, NULL, 1.0, COPY};
    make_runs("norm-machine", &machine, &base, &newer);
    size_t ok = ok_rows(seed.rows, seed.count);

    tu_result r = compare_norm(base, newer, "", &json, &out);
    assert_int_equal(r.status, 0);
    tally t = read_verdicts(json, NULL, 0);
    fprintf(stderr, "not normalised: %zu slower, %zu faster, %zu same of %zu\n", t.slower, t.faster, t.same, t.rows);
    assert_int_equal(t.rows, ok);
    /* a machine that moves every configuration alike is the empirical null's
     * centre, not a regression: said as the centre, none slower */
    assert_int_equal(t.slower, 0);
    json_t *o = tu_load_json(json), *band;
    size_t b;
    json_array_foreach(json_object_get(json_object_get(o, "empirical_null"), "cold_bands"), b, band)
    {
        double c = json_number_value(json_object_get(band, "centre_reduce_pct"));
        if (!(fabs(c - (MACHINE - 1) * 100) < 0.5)) fail_msg("band %zu: centre %+.2f %%, not the machine's", b, c);
    }
    json_decref(o);
    assert_non_null(strstr(r.out, "not normalised: absolute times (--normalize cub|copy|machine"));
    tu_result_free(&r);

    r = compare_norm(base, newer, "cub", &json, &out);
    assert_int_equal(r.status, 0);
    t = read_verdicts(json, NULL, 0);
    fprintf(stderr, "--normalize cub: %zu slower, %zu faster, %zu same of %zu\n", t.slower, t.faster, t.same, t.rows);
    assert_int_equal(t.rows, ok - ok_library_rows());
    assert_int_equal(t.slower, 0);
    char counts[128];
    snprintf(counts, sizeof counts, "%zu configurations judged, normalised by cub: 0 slower", t.rows);
    assert_non_null(strstr(r.out, counts));
    check_references(json);
    check_cub_divisors(json, base, newer);
    check_said(out, "cub");
    tu_result_free(&r);

    r = compare_norm(base, newer, "copy", &json, &out);
    assert_int_equal(r.status, 0);
    t = read_verdicts(json, NULL, 0);
    fprintf(stderr, "--normalize copy: %zu slower, %zu faster, %zu same of %zu\n", t.slower, t.faster, t.same, t.rows);
    assert_int_equal(t.rows, ok);
    assert_int_equal(t.slower, 0);
    check_copy_divisors(json);
    check_said(out, "copy");
    tu_result_free(&r);
}

/* ---- 2. a real change on top of the machine's stays slower ----------------------------------- */

static void test_real_change_survives(void **state)
{
    (void)state;
    char *base, *newer, *json, *out;
    run_shift change = {MACHINE, CHANGED_VARIANT, 1.10, COPY};
    make_runs("norm-change", &change, &base, &newer);
    const char *norms[] = {"cub", "copy"};
    for (int k = 0; k < 2; k++) {
        tu_result r = compare_norm(base, newer, norms[k], &json, &out);
        assert_int_equal(r.status, 0);
        /* every phase of the changed variant slower, every other row the same */
        tally t = read_verdicts(json, CHANGED_VARIANT, 1);
        assert_true(t.slow_variant_rows > 0);
        assert_int_equal(t.slower, t.slow_variant_rows);
        tu_result_free(&r);
    }
    const char *args[] = {"compare", base, newer, "--normalize", "cub", "--fail-on-regression", NULL};
    tu_result r = tu_run(NULL, NULL, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "configurations and 1 variant slower (--fail-on-regression)"));
    tu_result_free(&r);
}

/* ---- 3. rows without a reference: listed apart, with why ---------------------------------------- */

static size_t count_rows(kind_t kind, size_t n, int library)
{
    size_t k = 0;
    for (size_t i = 0; i < seed.count; i++) {
        const sweep_row *r = &seed.rows[i];
        k += r->status == ROW_OK && r->cfg.v->kind == kind && r->cfg.n == n && is_library(r) == library;
    }
    return k;
}

static void test_no_reference_listed_apart(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("norm-apart");
    char *base = tu_path(dir, "base"), *newer = tu_path(dir, "new"), *json, *out;
    assert_int_equal(mkdir(base, 0755) | mkdir(newer, 0755), 0);
    make_run(base, seed.rows, seed.count, ROWS_ONLY, 0, NULL, 1);
    /* NEW: no reduce_cub row at GAP_N, and one row without bytes_moved */
    sweep_row *rows = calloc(seed.count, sizeof *rows);
    size_t n = 0, no_bytes = SIZE_MAX;
    for (size_t i = 0; i < seed.count; i++) {
        const sweep_row *r = &seed.rows[i];
        if (is_library(r) && r->cfg.v->kind == KIND_REDUCE && r->cfg.n == GAP_N) continue;
        rows[n] = *r;
        if (no_bytes == SIZE_MAX && r->status == ROW_OK && !is_library(r)) rows[no_bytes = n].plain.values[RC_BYTES_MOVED] = NAN;
        n++;
    }
    make_run(newer, rows, n, ROWS_ONLY, 0, NULL, 1);

    tu_result r = compare_norm(base, newer, "cub", &json, &out);
    assert_int_equal(r.status, 0);
    json_t *o = tu_load_json(json), *a;
    size_t i, without = 0;
    char why[128];
    snprintf(why, sizeof why, "no reference: no ok %s row at f32 sum n=" GAP_N_TEXT " in NEW", SWEEP_CUB_REDUCE);
    json_array_foreach(json_object_get(o, "not_compared"), i, a)
    {
        if (!json_is_true(json_object_get(a, "no_reference"))) continue;
        assert_string_equal(json_string_value(json_object_get(a, "reason")), why);
        without++;
    }
    assert_int_equal(without, count_rows(KIND_REDUCE, GAP_N, 0)); /* every reduction at that n */
    size_t judged_at_gap = 0;
    json_array_foreach(json_object_get(o, "rows"), i, a)
    {
        judged_at_gap += json_integer_value(json_object_get(a, "n")) == GAP_N;
    }
    assert_int_equal(judged_at_gap, count_rows(KIND_SCAN, GAP_N, 0)); /* the scans there have theirs */
    json_decref(o);
    char *csv = tu_read_file(tu_path(out, "compare.csv")), *md = tu_read_file(tu_path(out, "compare.md"));
    assert_int_equal(tu_count(csv, ",cub,no_reference,ok,ok,"), without);
    assert_int_equal(tu_count(md, why), without);
    free(csv);
    free(md);
    tu_result_free(&r);

    /* copy: the row without bytes_moved is the one apart */
    r = compare_norm(base, newer, "copy", &json, &out);
    assert_int_equal(r.status, 0);
    o = tu_load_json(json);
    without = 0;
    json_array_foreach(json_object_get(o, "not_compared"), i, a)
    {
        if (!json_is_true(json_object_get(a, "no_reference"))) continue;
        assert_string_equal(json_string_value(json_object_get(a, "reason")), "no reference: no bytes_moved in NEW");
        without++;
    }
    assert_int_equal(without, 1);
    json_decref(o);
    tu_result_free(&r);
    free(rows);
}

/* No copy bandwidth in a run.json: no row has a reference; nothing to compare. */
static void test_no_copy_bandwidth(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("norm-nocopy");
    char *base = tu_path(dir, "base"), *newer = tu_path(dir, "new");
    assert_int_equal(mkdir(base, 0755) | mkdir(newer, 0755), 0);
    run_shift same = {1.0, NULL, 1.0, 1.0}, no_copy = {1.0, NULL, 1.0, NAN};
    make_run_shifted(base, seed.rows, seed.count, ROWS_ONLY, 0, &same);
    make_run_shifted(newer, seed.rows, seed.count, ROWS_ONLY, 0, &no_copy);
    expect_bad(base, newer, "--normalize copy", "NEW's run.json has no copy_bandwidth_GBps", newer);
    /* the other reference does not need it */
    tu_result r = run_compare(base, newer, "--normalize", "cub", NULL);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
}

/* A reference that moved by itself (one library row's process, not the
 * machine) moves every row divided by it: said in one warning, with how many. */
static void test_reference_moved(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("norm-moved");
    char *base = tu_path(dir, "base"), *newer = tu_path(dir, "new"), *json, *out;
    assert_int_equal(mkdir(base, 0755) | mkdir(newer, 0755), 0);
    make_run(base, seed.rows, seed.count, ROWS_ONLY, 0, NULL, 1);
    sweep_row *rows = calloc(seed.count, sizeof *rows);
    memcpy(rows, seed.rows, seed.count * sizeof *rows);
    for (size_t i = 0; i < seed.count; i++)
        if (is_library(&rows[i]) && rows[i].cfg.v->kind == KIND_REDUCE && rows[i].cfg.n == GAP_N)
            rows[i].cold.median *= 1.05; /* that one process's hiccup */
    make_run(newer, rows, seed.count, ROWS_ONLY, 0, NULL, 1);
    tu_result r = compare_norm(base, newer, "cub", &json, &out);
    assert_int_equal(r.status, 0);
    char line[300];
    snprintf(line, sizeof line,
             "at f32 sum n=" GAP_N_TEXT " the %s cold median changed +5.0 %% from BASE to NEW, the library's typical change "
             "+0.0 %%; the %zu configurations divided by it move with it",
             SWEEP_CUB_REDUCE, count_rows(KIND_REDUCE, GAP_N, 0));
    assert_int_equal(tu_count(r.err, line), 1);
    assert_int_equal(tu_count(r.err, "reference moved"), 1); /* that one, no other */
    char *md = tu_read_file(tu_path(out, "compare.md"));
    assert_int_equal(tu_count(md, line), 1); /* and in the report */
    free(md);
    tu_result_free(&r);
    free(rows);
}

/* ---- 4. bad values ----------------------------------------------------------------------------- */

static void test_bad_value(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("norm-bad");
    char *good = tu_path(dir, "good");
    assert_int_equal(mkdir(good, 0755), 0);
    make_run(good, seed.rows, 100, ROWS_ONLY, 0, NULL, 1);
    expect_bad(good, good, "--normalize foo", "--normalize: 'foo' is not cub, copy or machine", good);
    expect_bad(good, good, "--normalize CUB", "--normalize: 'CUB' is not cub, copy or machine", good);
    expect_bad(good, good, "--normalize ", "--normalize: needs a value", good);
    const char *args[] = {"compare", "--help", NULL};
    tu_result r = tu_run(NULL, NULL, args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--normalize cub|copy"));
    tu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_value),
        cmocka_unit_test(test_no_copy_bandwidth),
        cmocka_unit_test(test_no_reference_listed_apart),
        cmocka_unit_test(test_reference_moved),
        cmocka_unit_test(test_slower_machine),
        cmocka_unit_test(test_real_change_survives),
    };
    return cmocka_run_group_tests(tests, load_seed, free_seed);
}
