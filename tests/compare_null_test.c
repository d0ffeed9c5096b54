/* `sweep compare`'s empirical null (harness/compare/compare_null.h) on runs of
 * one build made on real GPUs:
 *   - the same code on the two cards of one host (experiments/results/h200x2/
 *     default-gpu0, -gpu1, side by side) and on another host
 *     (experiments/results/h200/default-other-host): at most 2 % of the
 *     configurations flagged, no variant changed, every variant's geometric
 *     mean relative to the machine within 1 %;
 *   - a real change, made in a copy of NEW: one variant 5 % slower at every
 *     configuration and one 5 % slower from 2^24 up. Both are slower at the
 *     variant level with intervals that hold 0.95, the second from 2^24 up,
 *     and no other variant is flagged; the same with --normalize machine. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftw.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "results_io/csv.h"
#include <jansson.h>

#include "harness/results/results.h"
#include "tests/compare_runs.h"
#include "tests/sweep_test_util.h"

#define PAIR_A "experiments/results/h200x2/default-gpu0"
#define PAIR_B "experiments/results/h200x2/default-gpu1"
#define OTHER_HOST "experiments/results/h200/default-other-host"
#define SLOW_EVERYWHERE "scan_lookahead_bulk"
#define SLOW_FROM "reduce_one_launch"
#define SLOW_FROM_N ((size_t)1 << 24)
#define SLOWER 0.95 /* speed-up of the changed variants: every time / 0.95 */

static char err[4096];

/* compare BASE NEW --json FILE [a1 a2]: the JSON, read back. */
static json_t *compare_json(const char *base, const char *newer, const char *a1, const char *a2)
{
    char *json = tu_path(tu_tempdir("null-json"), "c.json");
    const char *args[] = {"compare", base, newer, "--json", json, a1, a2, NULL};
    tu_result r = tu_run(NULL, NULL, args);
    if (r.status) fprintf(stderr, "%s%s", r.out, r.err);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    return tu_load_json(json);
}

/* Configurations with a verdict other than same in a phase. */
static size_t flagged(json_t *o, size_t *rows)
{
    size_t k = 0, i;
    json_t *row;
    *rows = json_array_size(json_object_get(o, "rows"));
    json_array_foreach(json_object_get(o, "rows"), i, row)
    {
        const char *c = json_string_value(json_object_get(json_object_get(row, "cold"), "verdict"));
        const char *h = json_string_value(json_object_get(json_object_get(row, "hot"), "verdict"));
        k += (c && strcmp(c, "same") && strcmp(c, "n/a")) || (h && strcmp(h, "same") && strcmp(h, "n/a"));
    }
    return k;
}

static double num(json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

/* Same code: few configurations flagged, no variant, every variant's interval
 * holding 1 -- and with `within1`, every variant's point within 1 % of 1 (what
 * FINDINGS §9 says of the two pairs it quotes; between a one-card and a
 * two-card run, h200x4's, reduce_one_launch cold read 0.9889 [0.9732, 1.0047]:
 * its launch-bound sizes moved 1-4 % against the others', a tie by its
 * interval). Returns how many were flagged. */
static size_t check_same_code(const char *base, const char *newer, const char *what, int within1)
{
    json_t *o = compare_json(base, newer, NULL, NULL);
    size_t rows, k = flagged(o, &rows);
    fprintf(stderr, "%s: %zu of %zu configurations flagged (%.2f %%)\n", what, k, rows, 100.0 * k / rows);
    assert_true(rows > 2000);
    assert_true(k * 50 <= rows); /* at most 2 % */
    json_t *null = json_object_get(o, "empirical_null"), *v;
    assert_int_equal(json_integer_value(json_object_get(null, "variants_changed")), 0);
    size_t i;
    json_array_foreach(json_object_get(null, "variants"), i, v)
    for (int h = 0; h < 2; h++) {
        json_t *ph = json_object_get(v, h ? "hot" : "cold");
        if (json_is_null(ph)) continue;
        double gm = num(ph, "all_speedup"), lo = num(ph, "all_ci_low"), hi = num(ph, "all_ci_high");
        if (!((!within1 || fabs(gm - 1) <= 0.01) && lo <= 1 && hi >= 1))
            fail_msg("%s: %s %s %.4f [%.4f, %.4f]", what, json_string_value(json_object_get(v, "variant")),
                     h ? "hot" : "cold", gm, lo, hi);
    }
    json_decref(o);
    return k;
}

static void test_same_code_one_host(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("null-host");
    /* FINDINGS §9 and docs/compare.md quote the count */
    assert_int_equal(check_same_code(copy_committed_run(PAIR_A, dir, "a"), copy_committed_run(PAIR_B, dir, "b"),
                                     "two cards of one host", 1),
                     78);
}

static void test_same_code_two_hosts(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("null-hosts");
    char *a = copy_committed_run(PAIR_A, dir, "a"), *b = copy_committed_run(OTHER_HOST, dir, "b");
    json_t *ra = tu_load_json(tu_path(a, "run.json")), *rb = tu_load_json(tu_path(b, "run.json"));
    /* two machines: two boots, two cards */
    assert_string_not_equal(json_string_value(json_object_get(ra, "boot_id")),
                            json_string_value(json_object_get(rb, "boot_id")));
    assert_string_not_equal(json_string_value(json_object_get(json_object_get(ra, "device"), "uuid")),
                            json_string_value(json_object_get(json_object_get(rb, "device"), "uuid")));
    assert_string_equal(json_string_value(json_object_get(ra, "git_sha")),
                        json_string_value(json_object_get(rb, "git_sha")));
    json_decref(ra);
    json_decref(rb);
    assert_int_equal(check_same_code(a, b, "two hosts", 1), 59); /* quoted with the one above */
}

/* ---- every committed pair of one build ----------------------------------------------------------- */

/* Runs of one clean commit and one plan, large enough for the null (at
 * least 1000 rows): every such pair is the same code measured twice, so the
 * same bar holds for it as for the pairs above, including pairs committed
 * after this test was written. */
#define SAME_CODE_MAX 64
#define SAME_CODE_MIN_ROWS 1000
static char same_dirs[SAME_CODE_MAX][4096];
static size_t same_n;

static int collect_run(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t len = strlen(path);
    if (type != FTW_F || len < 9 || strcmp(path + len - 9, "/run.json") || same_n == SAME_CODE_MAX) return 0;
    json_t *o = json_load_file(path, 0, NULL);
    int keep = o && json_is_false(json_object_get(o, "git_dirty")) &&
               json_integer_value(json_object_get(o, "rows")) >= SAME_CODE_MIN_ROWS &&
               json_is_string(json_object_get(o, "plan_fingerprint"));
    char dir[4096], rows[4200];
    snprintf(dir, sizeof dir, "%.*s", (int)(len - 9), path);
    snprintf(rows, sizeof rows, "%s/results.csv", dir);
    keep = keep && csv_exists(rows); /* a run committed with run.json and its summary alone is no pair */
    if (keep) snprintf(same_dirs[same_n++], sizeof same_dirs[0], "%s", dir);
    json_decref(o);
    return 0;
}

static int same_code(const char *a, const char *b)
{
    json_t *x = tu_load_json(tu_path(a, "run.json")), *y = tu_load_json(tu_path(b, "run.json"));
    const char *keys[] = {"git_sha", "plan_fingerprint", "experiment"};
    int same = 1;
    for (size_t k = 0; k < 3; k++)
        same &= !strcmp(json_string_value(json_object_get(x, keys[k])), json_string_value(json_object_get(y, keys[k])));
    json_decref(x);
    json_decref(y);
    return same;
}

static void test_every_same_code_pair(void **state)
{
    (void)state;
    const char *any = tu_runfile(PAIR_A "/run.json", "run.json");
    assert_non_null(any);
    char root[4096];
    snprintf(root, sizeof root, "%.*s", (int)(strlen(any) - strlen(PAIR_A "/run.json")), any);
    strcat(root, "experiments/results");
    same_n = 0;
    assert_int_equal(nftw(root, collect_run, 16, 0), 0); /* runfiles are links: followed */
    size_t pairs = 0;
    for (size_t i = 0; i < same_n; i++)
        for (size_t j = i + 1; j < same_n; j++)
            if (same_code(same_dirs[i], same_dirs[j])) {
                char what[600];
                snprintf(what, sizeof what, "%.290s against %.290s", same_dirs[i] + strlen(root) + 1,
                         same_dirs[j] + strlen(root) + 1);
                check_same_code(same_dirs[i], same_dirs[j], what, 0);
                pairs++;
            }
    fprintf(stderr, "%zu committed pairs of one build and plan checked\n", pairs);
    assert_true(pairs >= 3); /* gpu0-gpu1, and each against the other host */
}

/* NEW with the two changes made in its rows. */
static char *changed_copy(const char *dir)
{
    char *from = copy_committed_run(PAIR_B, dir, "from"), *to = tu_path(dir, "changed");
    results_file rf;
    assert_int_equal(results_read_csv_any(tu_path(from, "results.csv"), &rf, err, sizeof err), 0);
    for (size_t i = 0; i < rf.count; i++) {
        sweep_row *r = &rf.rows[i];
        const char *v = r->plain.cfg.variant;
        if (strcmp(v, SLOW_EVERYWHERE) && !(strcmp(v, SLOW_FROM) == 0 && r->plain.cfg.n >= SLOW_FROM_N)) continue;
        timing_stats *t[2] = {&r->cold, &r->hot};
        for (int h = 0; h < 2; h++) t[h]->median /= SLOWER, t[h]->min /= SLOWER, t[h]->mean /= SLOWER;
    }
    assert_int_equal(mkdir(to, 0755), 0);
    metric_columns mc = {rf.metrics, rf.metric_count};
    assert_int_equal(results_write_csv(tu_path(to, "results.csv"), rf.rows, rf.count, mc, err, sizeof err), 0);
    char *run = tu_read_file(tu_path(from, "run.json"));
    assert_int_equal(tu_write_file(tu_path(to, "run.json"), run), 0);
    free(run);
    results_file_free(&rf);
    return to;
}

static void check_change(json_t *o, const char *what)
{
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(o, "empirical_null"), "variants"), i, v)
    {
        const char *name = json_string_value(json_object_get(v, "variant"));
        int changed = !strcmp(name, SLOW_EVERYWHERE) || !strcmp(name, SLOW_FROM);
        for (int h = 0; h < 2; h++) {
            json_t *ph = json_object_get(v, h ? "hot" : "cold");
            if (json_is_null(ph)) continue;
            const char *verdict = json_string_value(json_object_get(ph, "verdict"));
            if (strcmp(verdict, changed ? "slower" : "same"))
                fail_msg("%s: %s %s: %s", what, name, h ? "hot" : "cold", verdict);
            if (!changed) continue;
            double lo = num(ph, "ci_low"), hi = num(ph, "ci_high");
            fprintf(stderr, "%s: %s %s slower from 2^%.0f: %.4f [%.4f, %.4f]\n", what, name, h ? "hot" : "cold",
                    log2(num(ph, "n_from")), num(ph, "speedup"), lo, hi);
            if (!(lo <= SLOWER && hi >= SLOWER)) fail_msg("%s: %s interval misses 0.95", what, name);
            if (!strcmp(name, SLOW_FROM)) assert_true(json_integer_value(json_object_get(ph, "n_from")) == SLOW_FROM_N);
            else assert_true(json_is_true(json_object_get(ph, "every_size")));
        }
    }
}

static void test_real_change_found(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("null-change");
    char *base = copy_committed_run(PAIR_A, dir, "base"), *newer = changed_copy(dir);
    json_t *o = compare_json(base, newer, NULL, NULL);
    check_change(o, "as measured");
    json_decref(o);
    o = compare_json(base, newer, "--normalize", "machine");
    assert_string_equal(json_string_value(json_object_get(o, "normalize")), "machine");
    check_change(o, "--normalize machine");
    json_decref(o);
    /* compare.csv: the figure judged beside the speed-up as measured */
    char *csv = tu_path(dir, "c.csv");
    tu_result c = run_compare(base, newer, "--csv", csv, NULL);
    assert_int_equal(c.status, 0);
    tu_result_free(&c);
    char *text = tu_read_file(csv);
    assert_non_null(strstr(text, ",cold_speedup,cold_speedup_to_machine,cold_ci_low,cold_ci_high,"));
    free(text);
    /* --fail-on-regression follows the variants' verdicts */
    tu_result r = run_compare(base, newer, "--fail-on-regression", NULL, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, " and 2 variants slower (--fail-on-regression)"));
    assert_non_null(strstr(r.out, "slower from 2^24 up: "));
    tu_result_free(&r);
}

/* Too few configurations to fit a null: refused, with the reason, and the
 * rows judged by their own noise. */
static void test_refused(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("null-refused");
    char *a = copy_committed_run(PAIR_A, dir, "a"), *b = tu_path(dir, "b");
    results_file rf;
    assert_int_equal(results_read_csv_any(tu_path(a, "results.csv"), &rf, err, sizeof err), 0);
    size_t n = 0;
    for (size_t i = 0; i < rf.count && n < 12; i++)
        if (rf.rows[i].status == ROW_OK) rf.rows[n++] = rf.rows[i];
    metric_columns mc = {rf.metrics, rf.metric_count};
    assert_int_equal(mkdir(b, 0755), 0);
    assert_int_equal(results_write_csv(tu_path(b, "results.csv"), rf.rows, n, mc, err, sizeof err), 0);
    json_t *run = tu_load_json(tu_path(a, "run.json"));
    json_object_set_new(run, "rows", json_integer((json_int_t)n));
    json_object_set_new(run, "date", json_string("2026-01-02T00:00:00Z"));
    assert_int_equal(json_dump_file(run, tu_path(b, "run.json"), 0), 0);
    json_decref(run);
    results_file_free(&rf);
    tu_result r = run_compare(a, b, NULL, NULL, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "empirical null refused (cold): 12 configurations with a cold median, at least 30 "
                                  "needed to fit the machine's scatter: judged against their own noise only"));
    assert_non_null(strstr(r.out, "p of 0 against the empirical null"));
    tu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_code_one_host),
        cmocka_unit_test(test_same_code_two_hosts),
        cmocka_unit_test(test_every_same_code_pair),
        cmocka_unit_test(test_real_change_found),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
