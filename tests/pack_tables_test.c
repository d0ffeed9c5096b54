/* `sweep pack --tables [--drop-rows]` (harness/results/tables.h): the derived
 * tables of a copy of the committed default-screen run (H200, 6622 rows, 19
 * metric columns), each figure checked against the rows themselves, read
 * whole here and computed apart from the writer: every winner is its unit's
 * minimum and rank 1 its input's; every median, heatmap cell and skip count
 * as counted here. A small run written by the test pins ties, an even median,
 * failed rows and absent columns; a long one with line breaks in quoted
 * cells, the reader's chunks and the line a bad row is named by. Then the
 * command: gzip round trip, --drop-rows and its refusals. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/results/tables.h"
#include "results_io/csv.h"
#include "tests/sweep_test_util.h"

#define SCREEN "experiments/results/h200x4/default-screen"
#define UNIT_COLS 7  /* kind, dtype, op, scan_mode, n, variant, finish */
#define INPUT_COLS 5 /* kind, dtype, op, scan_mode, n */

static char err[8192];

/* ---- fixtures ----------------------------------------------------------------------------------- */

/* A copy of the committed run in a fresh directory (the committed one stays untouched). */
static const char *screen_copy(const char *tag)
{
    static char dirs[8][4096];
    static int next;
    char *dir = dirs[next++ % 8];
    snprintf(dir, 4096, "%s", tu_tempdir(tag));
    const char *json = tu_data_file(SCREEN "/run.json");
    char src[4096];
    snprintf(src, sizeof src, "%.*s", (int)(strrchr(json, '/') - json), json);
    static const char *const files[] = {"results.csv.gz", "run.json", "summary.md", "confirm.csv.gz"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        tu_copy_file(tu_path(src, files[i]), tu_path(dir, files[i]));
    return dir;
}

static csv_table read_table(const char *path)
{
    csv_table t;
    if (csv_read_file(path, &t, err, sizeof err)) fail_msg("%s", err);
    return t;
}

static const char *cell(const csv_table *t, size_t row, const char *col)
{
    int c = csv_column(t, col);
    if (c < 0) fail_msg("no column %s", col);
    return t->rows[row][c];
}

static double num(const csv_table *t, size_t row, const char *col)
{
    const char *s = cell(t, row, col);
    return *s ? strtod(s, NULL) : NAN;
}

/* ---- the rows, counted here --------------------------------------------------------------------- */

/* The rows of res whose cols hold table row k's values (the columns looked up once). */
static size_t matching(const csv_table *res, const csv_table *tab, size_t k, const char *const *cols, size_t ncols,
                       size_t *out)
{
    int rc[16], tc[16];
    for (size_t c = 0; c < ncols; c++) {
        rc[c] = csv_column(res, cols[c]), tc[c] = csv_column(tab, cols[c]);
        if (rc[c] < 0 || tc[c] < 0) fail_msg("no column %s", cols[c]);
    }
    size_t n = 0;
    for (size_t r = 0; r < res->nrows; r++) {
        size_t c = 0;
        while (c < ncols && !strcmp(res->rows[r][rc[c]], tab->rows[k][tc[c]])) c++;
        if (c == ncols) out[n++] = r;
    }
    return n;
}

static int row_matches(const csv_table *res, size_t r, const csv_table *tab, size_t k, const char *const *cols,
                       size_t ncols)
{
    for (size_t c = 0; c < ncols; c++)
        if (strcmp(cell(res, r, cols[c]), cell(tab, k, cols[c]))) return 0;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct over {
    double min, median;
    size_t ok; /* ok rows */
} over;

/* Over the ok rows among rows[0, n) of res: value's minimum and median (finite values). */
static over over_rows(const csv_table *res, const size_t *rows, size_t n, const char *value)
{
    over o = {NAN, NAN, 0};
    int st = csv_column(res, "status"), vc = csv_column(res, value);
    if (vc < 0) fail_msg("no column %s", value);
    double *v = malloc((n + 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(res->rows[rows[i]][st], "ok")) continue;
        o.ok++;
        const char *s = res->rows[rows[i]][vc];
        double x = *s ? strtod(s, NULL) : NAN;
        if (isfinite(x)) v[m++] = x;
    }
    qsort(v, m, sizeof *v, cmp_double);
    if (m) o.min = v[0], o.median = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
    free(v);
    return o;
}

/* Two figures the same, the table's printed to 10 significant digits. */
static void expect_near(double want, double got, const char *what, size_t row)
{
    if (isnan(want) && isnan(got)) return;
    if (!(fabs(want - got) <= 1e-9 * fabs(want)))
        fail_msg("%s, row %zu: want %.12g, got %.12g", what, row + 2, want, got);
}

/* A heatmap cell's or a median's text: the figure to 4 significant digits, "" for none. */
static void expect_short(double want, const char *got, const char *what, size_t row)
{
    char text[64] = "";
    if (isfinite(want)) snprintf(text, sizeof text, "%.4g", want);
    if (strcmp(text, got)) fail_msg("%s, row %zu: want '%s', got '%s'", what, row + 2, text, got);
}

static const char *const unit_cols[UNIT_COLS] = {"kind", "dtype", "op", "scan_mode", "n", "variant", "finish"};

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Distinct values of cols among the rows of status ok (status NULL: skipped). */
static size_t distinct(const csv_table *res, const char *const *cols, size_t ncols, const char *status)
{
    char **keys = malloc((res->nrows + 1) * sizeof *keys);
    size_t n = 0, d = 0;
    for (size_t r = 0; r < res->nrows; r++) {
        if (strcmp(cell(res, r, "status"), status ? status : "skipped")) continue;
        char key[2048] = "";
        for (size_t c = 0; c < ncols; c++) {
            strncat(key, cell(res, r, cols[c]), sizeof key - strlen(key) - 2);
            strcat(key, "\x1f");
        }
        keys[n++] = strdup(key);
    }
    qsort(keys, n, sizeof *keys, cmp_text);
    for (size_t i = 0; i < n; i++) d += !i || strcmp(keys[i], keys[i - 1]);
    for (size_t i = 0; i < n; i++) free(keys[i]);
    free(keys);
    return d;
}

/* ---- the committed run's tables --------------------------------------------------------------- */

typedef struct run_tables {
    const char *dir;
    csv_table res, tab[TABLES_COUNT];
    tables_written w;
} run_tables;

static run_tables *screen;

static int setup_screen(void **state)
{
    (void)state;
    screen = calloc(1, sizeof *screen);
    screen->dir = screen_copy("screen");
    if (results_tables_write(screen->dir, 0, &screen->w, err, sizeof err)) fail_msg("%s", err);
    screen->res = read_table(tu_path(screen->dir, "results.csv.gz"));
    for (int t = 0; t < TABLES_COUNT; t++) {
        screen->tab[t] = read_table(tu_path(tu_path(screen->dir, TABLES_DIR), tables_list[t].file));
        assert_int_equal(screen->tab[t].nrows, screen->w.rows[t]);
    }
    return 0;
}

static int teardown_screen(void **state)
{
    (void)state;
    csv_free(&screen->res);
    for (int t = 0; t < TABLES_COUNT; t++) csv_free(&screen->tab[t]);
    free(screen);
    return 0;
}

/* Every winner (cold and hot) is its unit's fastest ok row, names a row of
 * that time, and every unit with a timed ok row has one. */
static void test_winners_are_minima(void **state)
{
    (void)state;
    const csv_table *res = &screen->res, *win = &screen->tab[0];
    assert_int_equal(screen->w.results_rows, res->nrows);
    assert_int_equal(win->nrows, distinct(res, unit_cols, UNIT_COLS, "ok"));
    size_t *rows = malloc(res->nrows * sizeof *rows);
    for (size_t k = 0; k < win->nrows; k++) {
        size_t n = matching(res, win, k, unit_cols, UNIT_COLS, rows);
        over cold = over_rows(res, rows, n, "time_cold_median_ms");
        over hot = over_rows(res, rows, n, "time_hot_median_ms");
        assert_true(cold.ok > 0);
        assert_int_equal((size_t)num(win, k, "rows_ok"), cold.ok);
        expect_near(cold.min, num(win, k, "time_cold_median_ms"), "cold winner", k);
        expect_near(hot.min, num(win, k, "time_hot_median_ms"), "hot winner", k);
        /* the winner's configuration is a row of that time */
        int found = 0;
        for (size_t i = 0; i < n && !found; i++) {
            size_t r = rows[i];
            found = !strcmp(cell(res, r, "block_dim"), cell(win, k, "cold_block_dim")) &&
                    !strcmp(cell(res, r, "axes"), cell(win, k, "cold_axes")) &&
                    !strcmp(cell(res, r, "time_cold_median_ms"), cell(win, k, "time_cold_median_ms")) &&
                    !strcmp(cell(res, r, "speedup_vs_cub"), cell(win, k, "speedup_vs_cub"));
        }
        if (!found) fail_msg("winners row %zu: no results row of its cold winner", k + 2);
    }
    free(rows);
}

/* rank_cold: 1 + the input's units strictly faster; rank 1 is the input's fastest ok row. */
static void test_winners_ranks(void **state)
{
    (void)state;
    const csv_table *res = &screen->res, *win = &screen->tab[0];
    size_t firsts = 0, *rows = malloc(res->nrows * sizeof *rows);
    for (size_t k = 0; k < win->nrows; k++) {
        size_t faster = 0;
        for (size_t o = 0; o < win->nrows; o++)
            faster += row_matches(win, o, win, k, unit_cols, INPUT_COLS) &&
                      num(win, o, "time_cold_median_ms") < num(win, k, "time_cold_median_ms");
        assert_int_equal((size_t)num(win, k, "rank_cold"), faster + 1);
        if (faster) continue;
        firsts++;
        over input = over_rows(res, rows, matching(res, win, k, unit_cols, INPUT_COLS, rows), "time_cold_median_ms");
        expect_near(input.min, num(win, k, "time_cold_median_ms"), "the input's fastest", k);
    }
    free(rows);
    assert_int_equal(firsts, distinct(res, unit_cols, INPUT_COLS, "ok")); /* one per input: no ties here */
}

/* Each unit's medians, and each metric column's, as computed here. */
static void test_medians(void **state)
{
    (void)state;
    const csv_table *res = &screen->res, *med = &screen->tab[2];
    assert_int_equal(med->nrows, distinct(res, unit_cols, UNIT_COLS, "ok"));
    size_t metrics = 0;
    for (size_t c = 0; c < med->ncols; c++) metrics += !strncmp(med->header[c], "m:", 2);
    assert_int_equal(metrics, 19);
    size_t *rows = malloc(res->nrows * sizeof *rows);
    for (size_t k = 0; k < med->nrows; k++) {
        size_t n = matching(res, med, k, unit_cols, UNIT_COLS, rows);
        for (size_t c = INPUT_COLS + 2; c < med->ncols; c++) {
            const char *col = med->header[c];
            if (!strncmp(col, "rows_", 5)) continue;
            over o = over_rows(res, rows, n, col);
            assert_int_equal((size_t)num(med, k, "rows_ok"), o.ok);
            expect_short(o.median, cell(med, k, col), col, k);
        }
    }
    free(rows);
}

/* A cell per input x variant x block dim x axes with an ok row: its fastest cold median. */
static void test_heatmap_cells(void **state)
{
    (void)state;
    const csv_table *res = &screen->res, *heat = &screen->tab[1];
    static const char *const cell_cols[] = {"kind", "dtype", "op", "scan_mode", "n", "variant", "block_dim", "axes"};
    assert_int_equal(heat->nrows, distinct(res, cell_cols, 8, "ok"));
    size_t *rows = malloc(res->nrows * sizeof *rows);
    for (size_t k = 0; k < heat->nrows; k++) {
        size_t n = matching(res, heat, k, cell_cols, 8, rows);
        over t = over_rows(res, rows, n, "time_cold_median_ms");
        expect_short(t.min, cell(heat, k, "time_cold_median_ms"), "cell time", k);
        /* the highest cold GB/s of the cell, as the report's heatmap draws it */
        over bw = over_rows(res, rows, n, "bw_cold_GBps");
        double hi = -INFINITY;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(cell(res, rows[i], "status"), "ok") && num(res, rows[i], "bw_cold_GBps") > hi)
                hi = num(res, rows[i], "bw_cold_GBps");
        assert_true(bw.ok > 0);
        expect_short(hi, cell(heat, k, "bw_cold_GBps"), "cell GB/s", k);
    }
    free(rows);
}

/* The skipped rows: as many as the file's, each variant and reason's count as counted here. */
static void test_skipped_counts(void **state)
{
    (void)state;
    const csv_table *res = &screen->res, *sk = &screen->tab[3];
    size_t total = 0, skipped = 0;
    for (size_t k = 0; k < sk->nrows; k++) total += (size_t)num(sk, k, "rows");
    for (size_t r = 0; r < res->nrows; r++) skipped += !strcmp(cell(res, r, "status"), "skipped");
    assert_int_equal(total, skipped);
    assert_int_equal(screen->w.skipped, skipped);
    static const char *const sk_cols[] = {"variant", "kind", "dtype", "op", "scan_mode", "skip_reason"};
    assert_int_equal(sk->nrows, distinct(res, sk_cols, 6, NULL));
    size_t *rows = malloc(res->nrows * sizeof *rows);
    for (size_t k = 0; k < sk->nrows; k++) {
        size_t n = matching(res, sk, k, sk_cols, 6, rows), m = 0;
        for (size_t i = 0; i < n; i++) m += !strcmp(cell(res, rows[i], "status"), "skipped");
        assert_int_equal((size_t)num(sk, k, "rows"), m);
    }
    free(rows);
}

/* ---- a small run written here ------------------------------------------------------------------ */

static const char small_header[] = "variant,kind,dtype,op,n,block_dim,axes,finish,scan_mode,status,skip_reason,error,"
                                   "time_cold_median_ms,time_hot_median_ms,bw_cold_GBps,m:x[u]\n";

/* Ties (the first row in the file wins), an even count's median, a metric
 * missing in one row, a failed row with a line break in its message, a unit
 * with no ok row, skipped rows, and no speed-up, noise or stop columns. */
static void test_small_run(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("small");
    char text[4096];
    snprintf(text, sizeof text, "%s%s", small_header,
             "v1,reduce,f32,sum,1024,64,items_per_thread=1,recursive,,ok,,,2,1,10,1\n"
             "v1,reduce,f32,sum,1024,128,items_per_thread=1,recursive,,ok,,,1,3,20,3\n"
             "v1,reduce,f32,sum,1024,256,items_per_thread=1,recursive,,ok,,,1,2,21,\n"
             "v1,reduce,f32,sum,1024,512,items_per_thread=2,recursive,,ok,,,4,5,5,5\n"
             "v1,reduce,f32,sum,1024,1024,items_per_thread=2,recursive,,invalid,,\"wrong,\nresult\",,,,\n"
             "v1,reduce,f32,sum,1024,64,items_per_thread=1,atomic,,ok,,,0.5,0.5,40,7\n"
             "v2,reduce,f32,sum,1024,64,,none,,error,,boom,,,,\n"
             "v2,reduce,f32,sum,1024,128,,none,,skipped,block dim not accepted,,,,,\n"
             "v2,reduce,f32,sum,4096,128,,none,,skipped,block dim not accepted,,,,,\n"
             "v2,reduce,f32,sum,2048,128,,none,,skipped,\"n, too big\",,,,,\n");
    assert_int_equal(tu_write_file(tu_path(dir, "results.csv"), text), 0);
    tables_written w;
    if (results_tables_write(dir, 0, &w, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(w.results_rows, 10);
    assert_int_equal(w.ok, 5), assert_int_equal(w.invalid, 1), assert_int_equal(w.error, 1);
    assert_int_equal(w.skipped, 3);
    const char *tables = tu_path(dir, TABLES_DIR);
    char *win = tu_read_file(tu_path(tables, "winners.csv"));
    assert_string_equal(win, "kind,dtype,op,scan_mode,n,variant,finish,rows_ok,cold_block_dim,cold_axes,"
                             "time_cold_median_ms,bw_cold_GBps,rank_cold,hot_block_dim,hot_axes,"
                             "time_hot_median_ms,rank_hot\n"
                             "reduce,f32,sum,,1024,v1,recursive,4,128,items_per_thread=1,1,20,2,64,"
                             "items_per_thread=1,1,2\n"
                             "reduce,f32,sum,,1024,v1,atomic,1,64,items_per_thread=1,0.5,40,1,64,"
                             "items_per_thread=1,0.5,1\n");
    char *med = tu_read_file(tu_path(tables, "variant_medians.csv"));
    assert_string_equal(med, "kind,dtype,op,scan_mode,n,variant,finish,rows_ok,rows_invalid,rows_error,"
                             "time_cold_median_ms,time_hot_median_ms,bw_cold_GBps,m:x[u]\n"
                             "reduce,f32,sum,,1024,v1,recursive,4,1,0,1.5,2.5,15,3\n"
                             "reduce,f32,sum,,1024,v1,atomic,1,0,0,0.5,0.5,40,7\n"
                             "reduce,f32,sum,,1024,v2,none,0,0,1,,,,\n");
    char *heat = tu_read_file(tu_path(tables, "heatmap.csv"));
    assert_string_equal(heat, "kind,dtype,op,scan_mode,n,variant,block_dim,axes,time_cold_median_ms,bw_cold_GBps\n"
                              "reduce,f32,sum,,1024,v1,64,items_per_thread=1,0.5,40\n"
                              "reduce,f32,sum,,1024,v1,128,items_per_thread=1,1,20\n"
                              "reduce,f32,sum,,1024,v1,256,items_per_thread=1,1,21\n"
                              "reduce,f32,sum,,1024,v1,512,items_per_thread=2,4,5\n");
    char *sk = tu_read_file(tu_path(tables, "skipped.csv"));
    assert_string_equal(sk, "variant,kind,dtype,op,scan_mode,skip_reason,rows,n_min,n_max\n"
                            "v2,reduce,f32,sum,,block dim not accepted,2,1024,4096\n"
                            "v2,reduce,f32,sum,,\"n, too big\",1,2048,2048\n");
    free(win), free(med), free(heat), free(sk);
}

/* Thousands of rows, each with a line break in a quoted cell: read a chunk
 * at a time, every row counted once, and a short row named by its line. */
static void test_long_run_chunks(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("long");
    const size_t rows = 9000, bad = 7000;
    size_t cap = rows * 96 + sizeof small_header, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "%s", small_header);
    for (size_t i = 0; i < rows; i++)
        len += (size_t)snprintf(text + len, cap - len, "v,scan,i32,max,%zu,256,,,inclusive,ok,,\"a\nb\",%zu,1,1,%zu\n",
                                1024 + i % 3000, 1 + i, i);
    assert_int_equal(tu_write_file(tu_path(dir, "results.csv"), text), 0);
    tables_written w;
    if (results_tables_write(dir, 0, &w, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(w.results_rows, rows);
    assert_int_equal(w.rows[0], 3000); /* winners: one per n */
    csv_table win = read_table(tu_path(tu_path(dir, TABLES_DIR), "winners.csv"));
    for (size_t k = 0; k < win.nrows; k++) { /* n = 1024 + j: rows j, j + 3000, j + 6000; the first is fastest */
        size_t j = (size_t)num(&win, k, "n") - 1024;
        assert_int_equal((size_t)num(&win, k, "time_cold_median_ms"), 1 + j);
        assert_int_equal((size_t)num(&win, k, "rows_ok"), 3);
    }
    csv_free(&win);
    /* row `bad` (0-based) cut short: each row is two lines, after the header's one */
    char *at = text;
    for (size_t i = 0; i < 2 * bad + 1; i++) at = strchr(at, '\n') + 1;
    char *cut = strstr(at, "\",");
    memmove(cut + 1, strchr(cut, '\n'), strlen(strchr(cut, '\n')) + 1);
    assert_int_equal(tu_write_file(tu_path(dir, "results.csv"), text), 0);
    assert_int_equal(results_tables_write(dir, 0, &w, err, sizeof err), -1);
    char want[64];
    snprintf(want, sizeof want, "results.csv:%zu: ", 2 * bad + 2);
    if (!strstr(err, want)) fail_msg("want '%s' in: %s", want, err);
    free(text);
}

/* ---- the command ------------------------------------------------------------------------------- */

/* `sweep pack ARGS...` (tu_run names the binary). */
static tu_result run_pack(const char *const *args)
{
    const char *argv[12] = {"pack"};
    size_t n = 1;
    for (; args[n - 1] && n < 11; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    return tu_run(NULL, NULL, argv);
}

/* The whole file, gzip or plain, through the one reader. */
static char *slurp(const char *path, size_t *len)
{
    char *text = csv_slurp(path, len, err, sizeof err);
    if (!text) fail_msg("%s", err);
    return text;
}

/* `sweep pack --tables`: the tables gzipped, read back as the plain ones
 * the writer gives; the rows packed and kept; README.md names the command. */
static void test_pack_tables_gz(void **state)
{
    (void)state;
    const char *plain = screen_copy("plain"), *packed = screen_copy("packed");
    tables_written w;
    if (results_tables_write(plain, 0, &w, err, sizeof err)) fail_msg("%s", err);
    tu_result r = run_pack((const char *const[]){"--tables", "--quiet", packed, NULL});
    assert_int_equal(r.status, 0);
    for (int t = 0; t < TABLES_COUNT; t++) {
        const char *p = tu_path(tu_path(plain, TABLES_DIR), tables_list[t].file);
        const char *q = tu_path(tu_path(packed, TABLES_DIR), tables_list[t].file);
        char gz[4200];
        snprintf(gz, sizeof gz, "%s.gz", q);
        assert_true(tu_exists(gz));
        assert_false(tu_exists(q));
        size_t a, b;
        char *x = slurp(p, &a), *y = slurp(q, &b);
        assert_int_equal(a, b);
        assert_memory_equal(x, y, a);
        free(x), free(y);
    }
    assert_true(tu_exists(tu_path(packed, "results.csv.gz")));
    char *readme = tu_read_file(tu_path(tu_path(packed, TABLES_DIR), "README.md"));
    assert_non_null(strstr(readme, "\nbin/sweep --device 0 --quiet --out /root/out/r/default-screen\n"));
    assert_non_null(strstr(readme, "6622 rows (4195 ok, 2427 skipped, 0 invalid, 0 error)"));
    assert_non_null(strstr(readme, "The rows are beside them"));
    free(readme);
    tu_result_free(&r);
}

/* --drop-rows: the rows go, the rest stays; then --tables on it refuses in one line. */
static void test_drop_rows(void **state)
{
    (void)state;
    const char *dir = screen_copy("drop");
    assert_int_equal(tu_write_file(tu_path(dir, "samples.csv"), "variant,n,config,phase,batch,sample,time_ms\n"), 0);
    tu_result r = run_pack((const char *const[]){"--tables", "--drop-rows", "--quiet", dir, NULL});
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_false(csv_exists(tu_path(dir, "results.csv")));
    assert_false(csv_exists(tu_path(dir, "samples.csv")));
    static const char *const kept[] = {"run.json", "summary.md", "confirm.csv.gz", "tables/README.md",
                                       "tables/winners.csv.gz", "tables/heatmap.csv.gz",
                                       "tables/variant_medians.csv.gz", "tables/skipped.csv.gz"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (!tu_exists(tu_path(dir, kept[i]))) fail_msg("%s: gone", kept[i]);
    char *readme = tu_read_file(tu_path(tu_path(dir, TABLES_DIR), "README.md"));
    assert_non_null(strstr(readme, "removed (`--drop-rows`)"));
    assert_non_null(strstr(readme, "bin/sweep pack --tables --drop-rows DIR"));
    free(readme);
    r = run_pack((const char *const[]){"--tables", dir, NULL});
    assert_int_equal(r.status, 2);
    assert_int_equal(tu_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, dir));
    assert_non_null(strstr(r.err, "no results.csv or results.csv.gz"));
    tu_result_free(&r);
}

/* Refused with exit 2, nothing written: a directory without rows, --drop-rows alone. */
static void test_refusals(void **state)
{
    (void)state;
    const char *empty = tu_tempdir("norows");
    assert_int_equal(tu_write_file(tu_path(empty, "confirm.csv"), "kind,dtype\nreduce,f32\n"), 0);
    tu_result r = run_pack((const char *const[]){"--tables", "--drop-rows", empty, NULL});
    assert_int_equal(r.status, 2);
    assert_int_equal(tu_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, empty));
    assert_false(tu_exists(tu_path(empty, TABLES_DIR)));
    assert_true(tu_exists(tu_path(empty, "confirm.csv"))); /* not packed either: every DIR is checked first */
    tu_result_free(&r);
    const char *dir = screen_copy("alone");
    r = run_pack((const char *const[]){"--drop-rows", dir, NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--drop-rows needs --tables"));
    assert_true(tu_exists(tu_path(dir, "results.csv.gz")));
    tu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_winners_are_minima), cmocka_unit_test(test_winners_ranks),
        cmocka_unit_test(test_medians),            cmocka_unit_test(test_heatmap_cells),
        cmocka_unit_test(test_skipped_counts),     cmocka_unit_test(test_small_run),
        cmocka_unit_test(test_long_run_chunks),    cmocka_unit_test(test_pack_tables_gz),
        cmocka_unit_test(test_drop_rows),          cmocka_unit_test(test_refusals),
    };
    /* one group (tools/count-tests.sh reads one summary a log); its setup writes the committed run's tables */
    return cmocka_run_group_tests(tests, setup_screen, teardown_screen);
}
