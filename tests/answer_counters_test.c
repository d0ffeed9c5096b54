/* The report's DRAM counters beside the library (plots/answer_counters.c), on
 * committed runs: default-metrics has dram__bytes_read.sum and
 * dram__throughput.avg.pct_of_peak_sustained_elapsed for every row, run 44's
 * vs-cub only the bytes, the confirmed vs-cub run neither. Every expected cell
 * is computed here from results.csv itself. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plots/render.h"
#include "results_io/csv.h"
#include "tests/report_render_util.h"
#include "tests/sweep_test_util.h"

#define RESULTS "experiments/results/h200/"
#define HEADING "### At the memory's limit: DRAM counters, ours and the library"

/* report.md rendered (no charts) from copies of a committed run's results.csv and run.json. */
static char *render_report(const char *name)
{
    char run[256], out[4200];
    snprintf(run, sizeof run, RESULTS "%s", name);
    return tu_render_report(run, 0, out, sizeof out);
}

/* The counters section: from its heading to the next heading (NUL-terminated copy). */
static char *section(const char *md)
{
    const char *a = strstr(md, HEADING);
    if (!a) return NULL;
    const char *b = strstr(a + 1, "\n#");
    size_t n = b ? (size_t)(b - a) : strlen(a);
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, a, n);
    s[n] = '\0';
    return s;
}

typedef struct expect {
    char who[128], bytes_ours[32], pct_ours[32], bytes_lib[32], pct_lib[32], ratio[32];
} expect;

static void cell_of(char **f, int col, double scale, const char *fmt, char *buf, size_t len)
{
    char *end;
    double x = col >= 0 ? strtod(f[col], &end) : NAN;
    if (col < 0 || end == f[col] || !isfinite(x)) snprintf(buf, len, "–");
    else snprintf(buf, len, fmt, x / scale);
}

/* The fastest ok row (cold median) of ours and of the library at kind/dtype/n with a
 * DRAM counter, and the cells the report must show for them. */
static void expected(const char *csv_rel, const char *kind, const char *dtype, unsigned long long n, expect *e)
{
    csv_table t;
    char err[512];
    assert_int_equal(csv_read_file(tu_data_file(csv_rel), &t, err, sizeof err), 0);
    int cv = csv_column(&t, "variant"), cf = csv_column(&t, "family"), ck = csv_column(&t, "kind"),
        cd = csv_column(&t, "dtype"), cn = csv_column(&t, "n"), cs = csv_column(&t, "status"), ct = csv_column(&t, "time_cold_median_ms"),
        cb = csv_column(&t, "block_dim"), cc = csv_column(&t, "coarse"),
        cr = csv_column(&t, "m:dram_read_bytes[bytes]"),
        cp = csv_column(&t, "m:dram_utilization[%]");
    assert_true(cv >= 0 && cf >= 0 && ck >= 0 && cd >= 0 && cn >= 0 && cs >= 0 && ct >= 0 && cr >= 0);
    char **best[2] = {NULL, NULL};
    for (size_t i = 0; i < t.nrows; i++) {
        char **f = t.rows[i];
        if (strcmp(f[cs], "ok") || strcmp(f[ck], kind) || strcmp(f[cd], dtype) || strtoull(f[cn], NULL, 10) != n || !*f[cr]) continue;
        int lib = !strcmp(f[cf], "cub");
        if (!best[lib] || strtod(f[ct], NULL) < strtod(best[lib][ct], NULL)) best[lib] = f;
    }
    assert_non_null(best[0]);
    assert_non_null(best[1]);
    snprintf(e->who, sizeof e->who, "%s %s×%s", best[0][cv], best[0][cb], *best[0][cc] ? best[0][cc] : "1");
    cell_of(best[0], cr, (double)n, "%.3f", e->bytes_ours, sizeof e->bytes_ours);
    cell_of(best[1], cr, (double)n, "%.3f", e->bytes_lib, sizeof e->bytes_lib);
    cell_of(best[0], cp, 1, "%.1f", e->pct_ours, sizeof e->pct_ours);
    cell_of(best[1], cp, 1, "%.1f", e->pct_lib, sizeof e->pct_lib);
    snprintf(e->ratio, sizeof e->ratio, "%.4f×", strtod(best[1][ct], NULL) / strtod(best[0][ct], NULL));
    csv_free(&t);
}

/* The section's row for label at n holds every expected cell, in order. */
static void assert_row(const char *sec, const char *label, const char *n, const expect *e)
{
    char key[128];
    snprintf(key, sizeof key, "| %s | %s |", label, n);
    const char *a = strstr(sec, key);
    if (!a) fail_msg("no row %s in:\n%s", key, sec);
    const char *end = strchr(a, '\n');
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(end ? end - a : (long)strlen(a)), a);
    printf("%s\n", line);
    const char *cells[] = {e->who, e->bytes_ours, e->pct_ours, e->bytes_lib, e->pct_lib, e->ratio};
    const char *at = line + strlen(key);
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        char cell[160];
        snprintf(cell, sizeof cell, " %s |", cells[i]);
        const char *p = strstr(at, cell);
        if (!p) fail_msg("%s: lacks %s after column %zu", line, cell, i + 2);
        at = p + strlen(cell) - 1;
    }
}

/* default-metrics: both counters for every row; the reduction at 2^30 reads
 * 4 bytes an element on both sides, and the section starts at 2^24. */
static void test_counters_from_default_metrics(void **state)
{
    (void)state;
    char *md = render_report("default-metrics");
    char *sec = section(md);
    assert_non_null(sec);
    const char *csv = RESULTS "default-metrics/results.csv";
    static const struct { const char *kind; unsigned long long n; const char *ns; } at[] = {
        {"reduce", 1ull << 30, "2^30"}, {"reduce", 1ull << 24, "2^24"}, {"scan", 1ull << 28, "2^28"}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        expect e;
        expected(csv, at[i].kind, "f32", at[i].n, &e);
        assert_true(strcmp(e.pct_ours, "–") && strcmp(e.pct_lib, "–")); /* both counters were measured */
        char label[64];
        snprintf(label, sizeof label, "%s f32 sum", at[i].kind);
        assert_row(sec, label, at[i].ns, &e);
    }
    /* a reduction reads each element once: 4 bytes per f32 element, within 0.1 % */
    expect e;
    expected(csv, "reduce", "f32", 1ull << 30, &e);
    assert_true(fabs(strtod(e.bytes_ours, NULL) - 4) < 0.004 && fabs(strtod(e.bytes_lib, NULL) - 4) < 0.004);
    /* below 2^24 the L2 holds the input: no row */
    assert_null(strstr(sec, "| 2^22 |"));
    assert_null(strstr(sec, "| 2^10 |"));
    free(sec);
    free(md);
}

/* run 44's vs-cub: bytes read only; the share of peak is "–", per dtype. */
static void test_counters_bytes_only(void **state)
{
    (void)state;
    char *md = render_report("beyond-cub/run44-vs-cub");
    char *sec = section(md);
    assert_non_null(sec);
    static const char *const dtypes[] = {"f32", "i32", "f64"};
    for (size_t i = 0; i < 3; i++) {
        expect e;
        char label[64];
        expected(RESULTS "beyond-cub/run44-vs-cub/results.csv", "reduce", dtypes[i], 1ull << 30, &e);
        assert_string_equal(e.pct_ours, "–");
        assert_string_equal(e.pct_lib, "–");
        snprintf(label, sizeof label, "reduce %s sum", dtypes[i]);
        assert_row(sec, label, "2^30", &e);
        expected(RESULTS "beyond-cub/run44-vs-cub/results.csv", "scan", dtypes[i], 1ull << 28, &e);
        snprintf(label, sizeof label, "scan %s sum", dtypes[i]);
        assert_row(sec, label, "2^28", &e);
    }
    free(sec);
    free(md);
}

/* The confirmed vs-cub run has no DRAM counters: no section. */
static void test_no_counters_no_section(void **state)
{
    (void)state;
    char *md = render_report("vs-cub");
    assert_null(strstr(md, HEADING));
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_from_default_metrics),
        cmocka_unit_test(test_counters_bytes_only),
        cmocka_unit_test(test_no_counters_no_section),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) printf("answer_counters_test: DRAM counters beside the library checked on 3 committed runs\n");
    return failed;
}
