/* experiments/FINDINGS.md and README.md against the committed results.
 *
 * Every table of H200 numbers in FINDINGS.md (and every figure of the
 * README's results) is followed by a hidden block
 *   <!-- checked by //tests:findings_test against the CSVs
 *   EXPERIMENT; col=value; col=value ... : col[*K]=printed; col[*K]=printed
 *   -->
 * naming the results.csv row (the selector columns must match exactly one
 * row) and the columns behind each printed number. EXPERIMENT is a results
 * directory under experiments/results/h200/ ("vs-cub"), or one of another
 * device ("h100/vs-cub"), or a CSV file of one ("h200/vs-cub/confirm.csv":
 * the confirmed ratios). This test checks that each
 * printed number is the CSV value (times K) rounded to the printed decimals,
 * and that it appears in the visible text, so a change to the CSVs or their
 * format cannot silently orphan the findings. It also re-renders one committed
 * results directory with the current renderer. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "results_io/csv.h"
#include "plots/render.h"
#include "tests/sweep_test_util.h"

#define RESULTS "experiments/results/h200/"
#define RESULTS_ROOT "experiments/results/"

/* FINDINGS.md without its comments: what a reader sees. */
static char *visible_text(const char *md)
{
    char *out = malloc(strlen(md) + 1);
    size_t k = 0;
    for (const char *p = md; *p;) {
        if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p, "-->");
            if (!e) break;
            p = e + 3;
            continue;
        }
        out[k++] = *p++;
    }
    out[k] = '\0';
    return out;
}

/* A printed number is a whole token of the visible text (not part of a longer number). */
static int appears(const char *text, const char *num)
{
    size_t n = strlen(num);
    for (const char *p = strstr(text, num); p; p = strstr(p + 1, num)) {
        char before = p == text ? ' ' : p[-1], after = p[n];
        int digitish_b = (before >= '0' && before <= '9') || before == '.';
        int digitish_a = (after >= '0' && after <= '9') || (after == '.' && p[n + 1] >= '0' && p[n + 1] <= '9');
        if (!digitish_b && !digitish_a) return 1;
    }
    return 0;
}

typedef struct loaded {
    char name[64];
    csv_table t;
} loaded;

#define MAX_RESULTS 128

static csv_table *table_for(loaded *cache, size_t *n_cache, const char *exp)
{
    for (size_t i = 0; i < *n_cache; i++)
        if (!strcmp(cache[i].name, exp)) return &cache[i].t;
    char rel[256], err[512];
    if (strstr(exp, ".csv")) snprintf(rel, sizeof rel, RESULTS_ROOT "%s", exp);
    else if (!strncmp(exp, "h100/", 5) || !strncmp(exp, "h200/", 5)) snprintf(rel, sizeof rel, RESULTS_ROOT "%s/results.csv", exp);
    else snprintf(rel, sizeof rel, RESULTS "%s/results.csv", exp);
    if (*n_cache == MAX_RESULTS) fail_msg("FINDINGS.md cites more than %d results directories", MAX_RESULTS);
    loaded *l = &cache[(*n_cache)++];
    snprintf(l->name, sizeof l->name, "%s", exp);
    if (csv_read_file(tu_data_file(rel), &l->t, err, sizeof err)) fail_msg("%s", err);
    return &l->t;
}

/* One check line; returns the number of values checked. */
static int check_line(char *line, const char *visible, loaded *cache, size_t *n_cache)
{
    char *colon = strstr(line, " : ");
    if (!colon) fail_msg("check line without ' : ': %s", line);
    *colon = '\0';
    char *values = colon + 3;
    char *save = NULL;
    char *exp = strtok_r(line, ";", &save);
    csv_table *t = table_for(cache, n_cache, exp);
    /* selectors */
    char *sel_col[8], *sel_val[8];
    int n_sel = 0;
    for (char *tok; (tok = strtok_r(NULL, ";", &save));) {
        while (*tok == ' ') tok++;
        char *eq = strchr(tok, '=');
        if (!eq || n_sel == 8) fail_msg("bad selector '%s'", tok);
        *eq = '\0';
        sel_col[n_sel] = tok;
        sel_val[n_sel++] = eq + 1;
    }
    int cols[8];
    for (int i = 0; i < n_sel; i++)
        if ((cols[i] = csv_column(t, sel_col[i])) < 0) fail_msg("%s: no column '%s' in results.csv", exp, sel_col[i]);
    size_t hit = 0, hits = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        int ok = 1;
        for (int i = 0; i < n_sel && ok; i++) ok = !strcmp(t->rows[r][cols[i]], sel_val[i]);
        if (ok) {
            hit = r;
            hits++;
        }
    }
    if (hits != 1) fail_msg("%s: %zu rows match the selector of a FINDINGS.md check (want 1)", exp, hits);
    int checked = 0;
    char *save2 = NULL;
    for (char *tok = strtok_r(values, ";", &save2); tok; tok = strtok_r(NULL, ";", &save2)) {
        while (*tok == ' ') tok++;
        char *eq = strchr(tok, '=');
        if (!eq) fail_msg("bad value '%s'", tok);
        *eq = '\0';
        const char *printed = eq + 1;
        double k = 1;
        char *star = strchr(tok, '*');
        if (star) {
            *star = '\0';
            k = atof(star + 1);
        }
        int c = csv_column(t, tok);
        if (c < 0) fail_msg("%s: no column '%s' in results.csv", exp, tok);
        const char *dot = strchr(printed, '.');
        int decimals = dot ? (int)strlen(dot + 1) : 0;
        char want[64];
        snprintf(want, sizeof want, "%.*f", decimals, atof(t->rows[hit][c]) * k);
        if (strcmp(want, printed))
            fail_msg("%s %s: FINDINGS.md says %s, results.csv gives %s (%s)", exp, tok, printed, want,
                     t->rows[hit][c]);
        if (!appears(visible, printed)) fail_msg("%s %s=%s is checked but not shown in FINDINGS.md", exp, tok, printed);
        checked++;
    }
    return checked;
}

/* Every check block of the markdown file `rel`: the blocks and numbers
 * checked, the results files read (cache, n_cache). */
static void check_file(const char *rel, loaded *cache, size_t *n_cache, int *blocks_out, int *values_out)
{
    char *md = tu_read_file(tu_data_file(rel));
    assert_non_null(md);
    char *visible = visible_text(md);
    int blocks = 0, values = 0;
    const char *tag = "<!-- checked by //tests:findings_test against the CSVs\n";
    for (char *p = strstr(md, tag); p; p = strstr(p, tag)) {
        p += strlen(tag);
        char *end = strstr(p, "-->");
        assert_non_null(end);
        *end = '\0';
        blocks++;
        for (char *line = p; line < end;) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            if (*line) values += check_line(line, visible, cache, n_cache);
            if (!nl) break;
            line = nl + 1;
        }
        p = end + 1;
    }
    *blocks_out = blocks;
    *values_out = values;
    free(visible);
    free(md);
}

static void test_findings_match_csvs(void **state)
{
    (void)state;
    loaded cache[MAX_RESULTS];
    size_t n_cache = 0;
    int blocks, values;
    check_file("experiments/FINDINGS.md", cache, &n_cache, &blocks, &values);
    printf("FINDINGS.md: %d tables, %d numbers checked against %zu results files\n", blocks, values, n_cache);
    assert_true(blocks >= 8);
    assert_true(values >= 100);
    /* each of the five study experiments backs some of it, the default runs with and without metrics,
     * the vs-cub run and 82 beyond-cub step runs */
    assert_int_equal(n_cache, 94); /* and vs-cub's confirm.csv on each device, and ncu's times (two files) */
    for (size_t i = 0; i < n_cache; i++) csv_free(&cache[i].t);
}

/* The README's results: every figure it states is checked the same way. */
static void test_readme_matches_csvs(void **state)
{
    (void)state;
    loaded cache[MAX_RESULTS];
    size_t n_cache = 0;
    int blocks, values;
    check_file("README.md", cache, &n_cache, &blocks, &values);
    printf("README.md: %d blocks, %d numbers checked against %zu results files\n", blocks, values, n_cache);
    assert_true(blocks >= 1);
    assert_true(values >= 20);
    for (size_t i = 0; i < n_cache; i++) csv_free(&cache[i].t);
}

/* The smallest committed results directory, copied and drawn again. */
static void test_rerender_committed_results(void **state)
{
    (void)state;
    const char *src = tu_data_file(RESULTS "sum-16m/results.csv");
    const char *dir = tu_tempdir("rerender");
    char cmd[8192];
    char srcdir[4096];
    snprintf(srcdir, sizeof srcdir, "%s", src);
    *strrchr(srcdir, '/') = '\0';
    snprintf(cmd, sizeof cmd, "cp -L '%s/results.csv' '%s/run.json' '%s/'", srcdir, srcdir, dir);
    assert_int_equal(system(cmd), 0);
    plots_options o = {0};
    o.link_charts = 1;
    char msg[1024];
    int rc = plots_render(dir, &o, msg, sizeof msg);
    printf("render: %s\n", msg);
    assert_true(rc == 0 || rc == 1); /* 1: no gnuplot here, the report is still written */
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *report = tu_read_file(path);
    assert_non_null(report);
    /* every variant of the CSV reaches the report */
    const char *variants[] = {"cpu_serial", "reduce_atomic_global", "reduce_atomic_shared", "reduce_interleaved_divergent",
                              "reduce_sequential_addressing", "reduce_first_add", "reduce_unroll_last_warp",
                              "reduce_warp_shuffle", "reduce_cub"};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        if (!strstr(report, variants[i])) fail_msg("report.md does not mention %s", variants[i]);
    if (rc == 0) {
        /* the committed charts are the ones drawn now */
        snprintf(cmd, sizeof cmd, "cd '%s/charts' && for f in *.png; do test -e '%s/charts/'\"$f\" || exit 1; done",
                 srcdir, dir);
        assert_int_equal(system(cmd), 0);
    }
    free(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_findings_match_csvs),
        cmocka_unit_test(test_readme_matches_csvs),
        cmocka_unit_test(test_rerender_committed_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
