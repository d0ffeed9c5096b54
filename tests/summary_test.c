/* summary.md's confirmed tables in a one-device run's order whatever order
 * the confirm lines come in (--devices' workers deal the sizes out heaviest
 * first): the tables by kind, dtype, op and scan mode in the sweep's order of
 * its values, each table's sizes ascending, each size's best candidate; the
 * report's confirmed table the same. Then `sweep summary DIR` on a copy of
 * the committed two-GPU run: summary.md written again, sorted, the same lines
 * as the run wrote, every other file byte for byte as it was; --out leaves
 * DIR alone; bad usage exits 2 with one line and writes nothing. And
 * run.json's NVML status read back without a drift check. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/results/drift_report.h"
#include "harness/results/results.h"
#include "harness/results/results_conditions.h"
#include "kernels/variant.h"
#include "results_io/confirm_io.h"
#include "tests/report_render_util.h"
#include "tests/sweep_test_util.h"

#define RUN "experiments/results/h200x2/vs-cub"
#define MAX_TABLES 64
#define MAX_ROWS 4096

static char err[4096];

/* ---- reading the printed tables ----------------------------------------------------------- */

typedef struct printed {
    char table[MAX_ROWS][48];
    size_t n[MAX_ROWS];
    size_t count;
} printed;

/* "2^20" or "1000" back to a number. */
static size_t parse_n(const char *cell)
{
    while (*cell == ' ') cell++;
    return !strncmp(cell, "2^", 2) ? (size_t)1 << atoi(cell + 2) : (size_t)strtoull(cell, NULL, 10);
}

/* The rows of the markdown between the line `from` and the next "## " heading:
 * summary.md's form ("### table" then "| n | ...") or the report's ("| table | n | ..."). */
static void read_rows(const char *md, const char *from, printed *p)
{
    const char *s = strstr(md, from);
    assert_non_null(s);
    char table[48] = "";
    p->count = 0;
    for (s = strchr(s, '\n'); s && s[1] && strncmp(s + 1, "## ", 3); s = strchr(s + 1, '\n')) {
        const char *line = s + 1;
        if (!strncmp(line, "### ", 4)) {
            snprintf(table, sizeof table, "%.*s", (int)strcspn(line + 4, "\n"), line + 4);
            continue;
        }
        if (strncmp(line, "| ", 2) || !strncmp(line, "| n |", 5) || !strncmp(line, "| Kind |", 8)) continue;
        assert_true(p->count < MAX_ROWS);
        if (table[0]) {
            snprintf(p->table[p->count], sizeof p->table[0], "%s", table);
            p->n[p->count++] = parse_n(line + 1);
        } else { /* the report: the table is the first cell */
            const char *bar = strchr(line + 2, '|');
            snprintf(p->table[p->count], sizeof p->table[0], "%.*s", (int)(bar - line - 3), line + 2);
            p->n[p->count++] = parse_n(bar + 1);
        }
    }
}

/* Every table the sweep can print, in a one-device run's order: kinds,
 * dtypes, ops and scan modes in the order of their enums (the plan's), with
 * `extra_dtype` (a name the sweep does not know) after the known dtypes. */
static size_t expected_tables(char out[][48], const char *extra_dtype)
{
    size_t k = 0;
    for (int kind = KIND_REDUCE; kind <= KIND_SCAN; kind++)
        for (int d = 0; d <= DTYPE_COUNT; d++) {
            const char *dt = d < DTYPE_COUNT ? dtype_name((dtype_t)d) : extra_dtype;
            if (!dt) continue;
            for (int o = 0; o < OP_COUNT; o++)
                for (int m = 0; m < (kind == KIND_SCAN ? SCAN_MODE_COUNT : 1); m++)
                    snprintf(out[k++], 48, "%s %s %s%s%s", kind_name((kind_t)kind), dt, op_name((op_t)o),
                             kind == KIND_SCAN ? " " : "", kind == KIND_SCAN ? scan_mode_name((scan_mode_t)m) : "");
        }
    return k;
}

static size_t rank_of(char expected[][48], size_t n, const char *table)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(expected[i], table)) return i;
    fail_msg("table '%s' is not one the sweep prints", table);
    return n;
}

/* Each table once, in the expected order, its sizes strictly ascending. */
static void assert_sorted(const printed *p, char expected[][48], size_t n_expected)
{
    for (size_t i = 1; i < p->count; i++) {
        size_t a = rank_of(expected, n_expected, p->table[i - 1]), b = rank_of(expected, n_expected, p->table[i]);
        if (a > b) fail_msg("table '%s' printed after '%s'", p->table[i], p->table[i - 1]);
        if (a == b && p->n[i] <= p->n[i - 1])
            fail_msg("%s: n %zu printed after %zu", p->table[i], p->n[i], p->n[i - 1]);
    }
}

/* ---- summary_confirmed on lines given out of order ------------------------------------------- */

static void put_line(confirm_line *l, const char *table_kind, const char *dtype, const char *op, const char *mode,
                     size_t n, const char *phase, const char *variant, double speedup)
{
    memset(l, 0, sizeof *l);
    snprintf(l->kind, sizeof l->kind, "%s", table_kind);
    snprintf(l->dtype, sizeof l->dtype, "%s", dtype);
    snprintf(l->op, sizeof l->op, "%s", op);
    snprintf(l->scan_mode, sizeof l->scan_mode, "%s", mode);
    l->n = n;
    snprintf(l->phase, sizeof l->phase, "%s", phase);
    snprintf(l->variant, sizeof l->variant, "%s", variant);
    snprintf(l->config, sizeof l->config, "%s %s %s n=%zu block=256 none", variant, dtype, op, n);
    snprintf(l->role, sizeof l->role, "%s", strcmp(variant, "lib") ? "candidate" : "library");
    l->rounds = 10;
    l->speedup = l->ci_lo = l->ci_hi = speedup;
    snprintf(l->verdict, sizeof l->verdict, "%s", speedup == 1 ? "reference" : "faster");
}

/* Per table and n: the library and two candidates, cold and hot. */
static size_t make_lines(char tables[][48], size_t nt, confirm_line *l)
{
    static const char *const who[] = {"lib", "cand_lo", "cand_hi"};
    static const double speedup[] = {1, 1.1, 1.3};
    size_t k = 0;
    for (size_t t = 0; t < nt; t++) {
        char kind[8], dtype[8], op[8], mode[16] = "";
        assert_true(sscanf(tables[t], "%7s %7s %7s %15s", kind, dtype, op, mode) >= 3);
        for (int e = 10; e < 15; e++)
            for (int w = 0; w < 3; w++)
                for (int hot = 0; hot < 2; hot++)
                    put_line(&l[k++], kind, dtype, op, mode, (size_t)1 << e, hot ? "hot" : "cold", who[w], speedup[w]);
    }
    return k;
}

/* A fixed shuffle (Fisher-Yates on a linear congruential sequence). */
static void shuffle(confirm_line *l, size_t n)
{
    uint64_t x = 12345;
    for (size_t i = n; i > 1; i--) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        size_t j = (size_t)(x >> 33) % i;
        confirm_line t = l[i - 1];
        l[i - 1] = l[j];
        l[j] = t;
    }
}

static void confirmed_tables_sorted(void **state)
{
    (void)state;
    static char tables[MAX_TABLES][48];
    static printed p;
    size_t nt = expected_tables(tables, "bf16");
    confirm_line *l = calloc(nt * 30, sizeof *l);
    assert_non_null(l);
    size_t n = make_lines(tables, nt, l);
    shuffle(l, n);
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.confirm = l;
    ri.confirm_count = n;
    ri.confirm_rounds = 10;
    ri.confirm_margin = 0.01;
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    summary_confirmed(f, &ri);
    fclose(f);
    read_rows(md, "## Confirmed against the library", &p);
    assert_int_equal(p.count, nt * 5); /* every table and size once */
    assert_sorted(&p, tables, nt);
    assert_string_equal(p.table[0], tables[0]);
    assert_string_equal(p.table[p.count - 1], tables[nt - 1]);
    /* each size shows its best candidate, cold and hot */
    assert_int_equal(tu_count(md, "cand_hi 256x1 | faster 1.300×"), 2 * nt * 5);
    assert_int_equal(tu_count(md, "cand_lo"), 0);
    free(md);
    free(l);
}

/* ---- sweep summary on a copy of the committed two-GPU run -------------------------------------- */

static const char *const run_files[] = {"run.json",   "results.csv", "results.csv.gz",
                                        "confirm.csv", "confirm.csv.gz", "summary.md"};
#define N_RUN_FILES (sizeof run_files / sizeof run_files[0])

/* The committed run's files (plain or packed, whichever it has) copied into a fresh directory. */
static const char *run_copy(const char *tag)
{
    static char dirs[4][4096];
    static int next;
    char *dir = dirs[next++ % 4];
    snprintf(dir, 4096, "%s", tu_tempdir(tag));
    for (size_t i = 0; i < N_RUN_FILES; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, RUN "/%s", run_files[i]);
        const char *src = tu_runfile(rel, rel); /* a .csv's plain name where only its .gz is there */
        if (src && tu_exists(src)) tu_copy_file(src, tu_path(dir, run_files[i]));
    }
    return dir;
}

/* The whole file and its length (it may be gzip: NUL bytes). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    *len = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    return b;
}

static int same_bytes(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = slurp(a, &la), *y = slurp(b, &lb);
    int same = x && y && la == lb && !memcmp(x, y, la);
    free(x);
    free(y);
    return same;
}

static size_t dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of a text, sorted (for "the same lines, in another order"). */
static char **sorted_lines(char *text, size_t *n)
{
    char **v = malloc((tu_count_lines(text) + 1) * sizeof *v);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(text, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) v[(*n)++] = t;
    qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static tu_result sweep_summary(const char *const *args)
{
    static const char *const env[] = {"BUILD_WORKING_DIRECTORY=", NULL};
    return tu_run(NULL, env, args);
}

static void summary_command(void **state)
{
    (void)state;
    static char tables[MAX_TABLES][48];
    static printed p;
    size_t nt = expected_tables(tables, NULL);
    const char *dir = run_copy("summary"), *src = tu_data_file(RUN "/run.json");
    char committed[4096];
    snprintf(committed, sizeof committed, "%.*s", (int)(strrchr(src, '/') - src), src);
    size_t files = dir_entries(dir);
    const char *args[] = {"summary", dir, NULL};
    tu_result r = sweep_summary(args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_int_equal(dir_entries(dir), files); /* nothing new (no temporary left behind) */
    for (size_t i = 0; i < N_RUN_FILES; i++) /* every other file as committed */
        if (strcmp(run_files[i], "summary.md") && tu_exists(tu_path(dir, run_files[i])))
            assert_true(same_bytes(tu_path(dir, run_files[i]), tu_path(committed, run_files[i])));
    char *md = tu_read_file(tu_path(dir, "summary.md")), *was = tu_read_file(tu_path(committed, "summary.md"));
    read_rows(md, "## Confirmed against the library", &p);
    assert_sorted(&p, tables, nt);
    confirm_line *l = NULL;
    size_t n = 0, lib = 0;
    assert_int_equal(confirm_read_csv(tu_path(dir, "confirm.csv"), &l, &n, err, sizeof err), 0);
    for (size_t i = 0; i < n; i++) lib += !strcmp(l[i].role, "library") && !strcmp(l[i].phase, "cold");
    assert_int_equal(p.count, lib); /* every confirmed size, once */
    free(l);
    /* the run's own summary, lines reordered and none changed */
    size_t na, nb;
    char **a = sorted_lines(md, &na), **b = sorted_lines(was, &nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) assert_string_equal(a[i], b[i]);
    free(a);
    free(b);
    free(md);
    free(was);
}

/* --out OUT: the summary there, DIR untouched (its summary.md too). */
static void summary_out(void **state)
{
    (void)state;
    const char *dir = run_copy("summary-src");
    char out[4200];
    snprintf(out, sizeof out, "%s/new/deeper", tu_tempdir("summary-out"));
    char *before = tu_read_file(tu_path(dir, "summary.md"));
    const char *args[] = {"summary", dir, "--out", out, NULL};
    tu_result r = sweep_summary(args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    char *after = tu_read_file(tu_path(dir, "summary.md")), *md = tu_read_file(tu_path(out, "summary.md"));
    assert_string_equal(before, after);
    assert_int_equal(dir_entries(out), 1);
    assert_non_null(strstr(md, "## Confirmed against the library"));
    free(before);
    free(after);
    free(md);
}

/* ---- bad usage -------------------------------------------------------------------------------- */

/* Exit 2, one line naming what was wrong, and `dir` (when given) as it was. */
static void expect_refused(const char *const *args, const char *says, const char *dir)
{
    size_t files = dir ? dir_entries(dir) : 0;
    char *md = dir ? tu_read_file(tu_path(dir, "summary.md")) : NULL;
    tu_result r = sweep_summary(args);
    if (r.status != 2 || !strstr(r.err, says) || tu_count_lines(r.err) != 1)
        fail_msg("want exit 2 and one line with '%s'; got %d: %s", says, r.status, r.err);
    assert_non_null(strstr(r.err, "sweep summary: "));
    assert_int_equal(r.out[0], '\0');
    tu_result_free(&r);
    if (!dir) return;
    assert_int_equal(dir_entries(dir), files);
    char *now = tu_read_file(tu_path(dir, "summary.md"));
    assert_true((!md && !now) || (md && now && !strcmp(md, now)));
    free(md);
    free(now);
}

static void bad_usage(void **state)
{
    (void)state;
    const char *run = run_copy("summary-bad"), *empty = tu_tempdir("summary-empty");
    const char *no_rows = tu_tempdir("summary-norows"), *header_only = tu_tempdir("summary-header");
    tu_copy_file(tu_path(run, "run.json"), tu_path(no_rows, "run.json"));
    tu_copy_file(tu_path(run, "run.json"), tu_path(header_only, "run.json"));
    FILE *f = fopen(tu_path(header_only, "results.csv"), "w");
    assert_non_null(f);
    csv_write_header(f, (metric_columns){0});
    fclose(f);
    char gone[4200], not_dir[4200];
    snprintf(gone, sizeof gone, "%s/missing", empty);
    snprintf(not_dir, sizeof not_dir, "%s/run.json", run);
    const char *none[] = {"summary", NULL}, *missing[] = {"summary", gone, NULL}, *bare[] = {"summary", empty, NULL},
               *rowless[] = {"summary", no_rows, NULL}, *header[] = {"summary", header_only, NULL},
               *typo[] = {"summary", run, "--outt", gone, NULL}, *no_value[] = {"summary", run, "--out", NULL},
               *two[] = {"summary", run, empty, NULL}, *file_out[] = {"summary", run, "--out", not_dir, NULL};
    expect_refused(none, "no results directory", NULL);
    expect_refused(missing, "missing: no such results directory", NULL);
    expect_refused(bare, "no run.json", empty);
    expect_refused(rowless, "results.csv", no_rows);
    expect_refused(header, "no rows", header_only);
    expect_refused(typo, "'--outt' (see sweep summary --help); closest: --out", run);
    expect_refused(no_value, "--out needs a directory", run);
    expect_refused(two, "one results directory", run);
    expect_refused(file_out, "--out: cannot write", run);
    assert_false(tu_exists(gone));
    const char *help[] = {"summary", "--help", NULL}, *top[] = {"--help", NULL};
    tu_result r = sweep_summary(help);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: sweep summary DIR [--out OUT]"));
    tu_result_free(&r);
    r = sweep_summary(top); /* listed with the other subcommands */
    assert_non_null(strstr(r.out, "sweep summary DIR [--out OUT]"));
    tu_result_free(&r);
}

/* run.json's NVML status comes back where the run had no drift check too. */
static void nvml_status_without_drift(void **state)
{
    (void)state;
    json_t *run = json_pack("{s:{s:s}, s:n}", "conditions", "nvml", "NVML not available: no library", "drift");
    run_info ri;
    drift_report d;
    memset(&ri, 0, sizeof ri);
    run_json_conditions_read(run, &ri, &d);
    assert_string_equal(ri.nvml_status, "NVML not available: no library");
    assert_null(ri.drift);
    json_decref(run);
}

/* ---- the report's confirmed table ------------------------------------------------------------- */

static void report_confirmed_sorted(void **state)
{
    (void)state;
    static char tables[MAX_TABLES][48];
    static printed p;
    size_t nt = expected_tables(tables, NULL);
    char out[4096];
    char *md = tu_render_report(RUN, 1, out, sizeof out);
    read_rows(md, "## Confirmed against the library: every size", &p);
    assert_true(p.count > 0);
    assert_sorted(&p, tables, nt);
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(confirmed_tables_sorted),   cmocka_unit_test(summary_command),
        cmocka_unit_test(summary_out),               cmocka_unit_test(bad_usage),
        cmocka_unit_test(nvml_status_without_drift), cmocka_unit_test(report_confirmed_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
