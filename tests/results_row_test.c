/* The one row type (results_io/row.h) against the sweep's reader on every
 * committed results.csv: each row read as plain data through the column
 * table (what the renderer, compare and merge share) names the same
 * variant, axes and status as the sweep's row, and holds the same figures
 * (tagged values, timing summaries, metrics). And the plain reader's own
 * rules: named axes, an older file's coarse as the variant's first axis,
 * one clear message for a bad cell. And the one run.json reader
 * (results_io/run_info.h) on every committed run. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftw.h>

#include <cmocka.h>

#include "harness/results/results.h"
#include "kernels/registry.h"
#include "results_io/columns.h"
#include "results_io/row.h"
#include "results_io/run_info.h"
#include "tests/sweep_test_util.h"

static char **csvs;
static size_t ncsv;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (type == FTW_F && (!strcmp(base, "results.csv") || !strcmp(base, "results.csv.gz"))) { /* plain or packed */
        csvs = realloc(csvs, (ncsv + 1) * sizeof *csvs);
        csvs[ncsv++] = strdup(path);
    }
    return 0;
}

static void collect_committed(void)
{
    const char *one = tu_data_file("experiments/results/h200/vs-cub/results.csv");
    char root[4096];
    snprintf(root, sizeof root, "%.*s", (int)(strstr(one, "experiments/results/") - one), one);
    strcat(root, "experiments/results");
    assert_int_equal(nftw(root, collect, 16, 0), 0);
    assert_true(ncsv >= 100);
}

static int same_number(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void expect_text(const char *path, size_t line, const char *what, const char *want, const char *got)
{
    if (strcmp(want ? want : "", got)) fail_msg("%s:%zu: %s '%s', plain row '%s'", path, line, what, want, got);
}

static void expect_number(const char *path, size_t line, const char *what, double want, double got)
{
    if (!same_number(want, got)) fail_msg("%s:%zu: %s %.17g, plain row %.17g", path, line, what, want, got);
}

static void check_config(const char *path, const sweep_row *r, const results_row *p)
{
    const variant *v = r->cfg.v;
    const sweep_config *a = &r->cfg;
    int scan = v->kind == KIND_SCAN;
    expect_text(path, p->line, "variant", v->name, p->cfg.variant);
    expect_text(path, p->line, "alias", v->alias, p->cfg.alias);
    expect_text(path, p->line, "family", v->family, p->cfg.family);
    expect_text(path, p->line, "kind", kind_name(v->kind), p->cfg.kind);
    expect_text(path, p->line, "dtype", dtype_name(a->dtype), p->cfg.dtype);
    expect_text(path, p->line, "op", op_name(a->op), p->cfg.op);
    expect_text(path, p->line, "finish", scan ? "" : finish_name(a->finish), p->cfg.finish);
    expect_text(path, p->line, "scan_mode", scan ? scan_mode_name(a->scan_mode) : "", p->cfg.scan_mode);
    expect_number(path, p->line, "n", (double)a->n, (double)p->cfg.n);
    expect_number(path, p->line, "block_dim", a->block_dim, (double)p->cfg.block_dim);
    for (size_t k = 0; k < VARIANT_AXES_MAX && k < RESULTS_ROW_AXES; k++) {
        if (!v->axes[k].name) continue;
        expect_text(path, p->line, "axis name", v->axes[k].name, p->cfg.axis_name[k]);
        expect_number(path, p->line, v->axes[k].name, a->axis[k], (double)p->cfg.axis[k]);
        expect_number(path, p->line, "axis by name", a->axis[k], (double)results_row_axis(&p->cfg, v->axes[k].name));
    }
}

/* The sweep row's own plain part is the row the plain reader read. */
static void check_embedded(const char *path, const sweep_row *r, const results_row *p, size_t metric_count)
{
    const results_row_config *e = &r->plain.cfg, *g = &p->cfg;
    expect_text(path, p->line, "embedded variant", e->variant, g->variant);
    expect_text(path, p->line, "embedded alias", e->alias, g->alias);
    expect_text(path, p->line, "embedded family", e->family, g->family);
    expect_text(path, p->line, "embedded kind", e->kind, g->kind);
    expect_text(path, p->line, "embedded dtype", e->dtype, g->dtype);
    expect_text(path, p->line, "embedded op", e->op, g->op);
    expect_text(path, p->line, "embedded finish", e->finish, g->finish);
    expect_text(path, p->line, "embedded scan_mode", e->scan_mode, g->scan_mode);
    expect_number(path, p->line, "embedded n", (double)e->n, (double)g->n);
    expect_number(path, p->line, "embedded block_dim", (double)e->block_dim, (double)g->block_dim);
    for (size_t k = 0; k < RESULTS_ROW_AXES; k++) {
        expect_text(path, p->line, "embedded axis name", e->axis_name[k], g->axis_name[k]);
        expect_number(path, p->line, "embedded axis", (double)e->axis[k], (double)g->axis[k]);
    }
    expect_text(path, p->line, "embedded status", r->plain.status, p->status);
    assert_int_equal(r->plain.metric_count, metric_count);
    /* compare and merge match rows by the plain label: the sweep's label of the row */
    char want[256], plain[256], read[256];
    config_label(&r->cfg, want, sizeof want);
    results_row_label(e, plain, sizeof plain);
    results_row_label(g, read, sizeof read);
    expect_text(path, p->line, "label", want, plain);
    expect_text(path, p->line, "label as read", want, read);
}

static void check_figures(const char *path, const sweep_row *r, const results_row *p, size_t metric_count)
{
    expect_text(path, p->line, "status", row_status_name(r->status), p->status);
    expect_text(path, p->line, "skip_reason", r->skip_reason, p->skip_reason);
    expect_text(path, p->line, "error", r->error, p->error);
    expect_text(path, p->line, "device", r->device, p->device);
    expect_text(path, p->line, "clock_events", r->clock_events, p->clock_events);
    for (int k = 0; k < RC_COUNT; k++)
        if (results_cols[k].value) expect_number(path, p->line, results_cols[k].name, r->plain.values[k], p->values[k]);
    expect_number(path, p->line, "cold median", r->cold.samples ? r->cold.median : NAN,
                  p->values[RC_TIME_COLD_MEDIAN_MS]);
    expect_number(path, p->line, "hot median", r->hot.samples ? r->hot.median : NAN,
                  p->values[RC_TIME_HOT_MEDIAN_MS]);
    assert_int_equal(p->metric_count, metric_count);
    for (size_t m = 0; m < metric_count; m++) expect_number(path, p->line, "metric", r->plain.metrics[m], p->metrics[m]);
}

/* Every committed row, read as the sweep's row and as the plain row, is
 * the same row. */
static void test_plain_rows_match_sweep_rows(void **state)
{
    (void)state;
    collect_committed();
    size_t rows = 0, axes = 0;
    for (size_t k = 0; k < ncsv; k++) {
        results_file rf;
        char err[512];
        if (results_read_csv_any(csvs[k], &rf, err, sizeof err)) fail_msg("%s", err);
        assert_non_null(rf.plain);
        for (size_t i = 0; i < rf.count; i++) {
            check_config(csvs[k], &rf.rows[i], &rf.plain[i]);
            check_figures(csvs[k], &rf.rows[i], &rf.plain[i], rf.metric_count);
            check_embedded(csvs[k], &rf.rows[i], &rf.plain[i], rf.metric_count);
            axes += rf.plain[i].cfg.axis_name[0][0] != '\0';
        }
        rows += rf.count;
        results_file_free(&rf);
    }
    /* thousands of rows, and the coarsened variants among them */
    assert_true(rows > 1000);
    assert_true(axes > 100);
}

/* One row of text through the plain reader. */
static int read_one(const char *text, results_row *w, char *err, size_t errlen)
{
    csv_table t;
    if (csv_parse(text, strlen(text), &t, err, errlen)) return -1;
    results_row_columns c;
    results_row_columns_find(&t, &c);
    unsigned char strict[RC_COUNT] = {0};
    strict[RC_TIME_COLD_MEDIAN_MS] = 1;
    static csv_table keep; /* the row's strings point into it */
    csv_free(&keep);
    keep = t;
    return results_row_read(&keep, &c, 0, strict, w, "x.csv", err, errlen);
}

static void test_axes_cells(void **state)
{
    (void)state;
    results_row w;
    char err[256];
    assert_int_equal(read_one("variant,n,block_dim,axes,status\nreduce_x,8,256,a=2;b=16,ok\n", &w, err, sizeof err),
                     0);
    assert_string_equal(w.cfg.axis_name[0], "a");
    assert_string_equal(w.cfg.axis_name[1], "b");
    assert_int_equal(w.cfg.axis[0], 2);
    assert_int_equal(w.cfg.axis[1], 16);
    assert_int_equal(results_row_axis(&w.cfg, "b"), 16);
    assert_int_equal(results_row_axis(&w.cfg, "c"), -1);
    /* none: both 1, unnamed */
    assert_int_equal(read_one("variant,n,block_dim,axes,status\nreduce_x,8,256,,ok\n", &w, err, sizeof err), 0);
    assert_int_equal(w.cfg.axis[0], 1);
    assert_string_equal(w.cfg.axis_name[0], "");
    /* an older file's coarse: the variant's first own axis, by the readers' table */
    assert_int_equal(
        read_one("variant,n,block_dim,coarse,status\nreduce_coarsened,8,256,4,ok\n", &w, err, sizeof err), 0);
    assert_string_equal(w.cfg.axis_name[0], "items_per_thread");
    assert_int_equal(w.cfg.axis[0], 4);
}

static void test_bad_cells(void **state)
{
    (void)state;
    results_row w;
    char err[256];
    assert_int_equal(read_one("variant,n,block_dim,axes\nreduce_x,8,256,a2\n", &w, err, sizeof err), -1);
    assert_string_equal(err, "x.csv:2: block_dim or axes: not an integer: \"256\", \"a2\"");
    assert_int_equal(read_one("variant,n,block_dim,axes\nreduce_x,0,256,\n", &w, err, sizeof err), -1);
    assert_string_equal(err, "x.csv:2: column n: not a positive integer: \"0\"");
    assert_int_equal(read_one("variant,n\n,8\n", &w, err, sizeof err), -1);
    assert_string_equal(err, "x.csv:2: empty variant");
    /* a strict figure must be a number; another is NaN when it is none */
    assert_int_equal(read_one("variant,time_cold_median_ms\nreduce_x,fast\n", &w, err, sizeof err), -1);
    assert_string_equal(err, "x.csv:2: column time_cold_median_ms: not a number: \"fast\"");
    assert_int_equal(read_one("variant,time_hot_median_ms\nreduce_x,fast\n", &w, err, sizeof err), 0);
    assert_true(isnan(w.values[RC_TIME_HOT_MEDIAN_MS]));
}

/* Every committed run.json reads, and a run on one device names the device
 * its rows name (the rows' device column, schema 3 on). */
static void test_committed_runs(void **state)
{
    (void)state;
    collect_committed();
    size_t checked_rows = 0;
    for (size_t k = 0; k < ncsv; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%.*s/run.json", (int)(strrchr(csvs[k], '/') - csvs[k]), csvs[k]);
        results_run run;
        if (results_run_load(path, &run)) fail_msg("%s: %s", path, run.error);
        assert_true(run.schema_version >= 1);
        assert_true(run.experiment[0] != '\0');
        assert_int_equal(strlen(run.day), 10);
        assert_true(run.have_device);
        char id[320];
        run_json_device_id(path, id, sizeof id);
        assert_string_equal(id, run.device_id);
        results_file rf;
        char err[512];
        if (results_read_csv_any(csvs[k], &rf, err, sizeof err)) fail_msg("%s", err);
        for (size_t i = 0; rf.schema >= 3 && run.n_devices <= 1 && i < rf.count; i++) {
            if (!rf.plain[i].device[0]) continue;
            if (strcmp(rf.plain[i].device, run.device_id))
                fail_msg("%s:%zu: device '%s', run.json's '%s'", csvs[k], rf.plain[i].line, rf.plain[i].device,
                         run.device_id);
            checked_rows++;
        }
        results_file_free(&rf);
        results_run_free(&run);
    }
    assert_true(checked_rows > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_rows_match_sweep_rows),
        cmocka_unit_test(test_axes_cells),
        cmocka_unit_test(test_bad_cells),
        cmocka_unit_test(test_committed_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
