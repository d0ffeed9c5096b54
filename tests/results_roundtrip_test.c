/* The results writers reproduce the committed H200 results byte for byte:
 * results.csv read through the one reader (results_read_csv_any) and written
 * again through the columns table in its own schema (csv_write_header_schema,
 * csv_write_row_schema) equals the committed file; written in this build's
 * schema (the own axes by name for `coarse`) it reads back to the same rows;
 * and summary.md printed again from those rows and run.json's fields equals
 * the committed file with its `coarse` column as named axes, for harris-ladder and scan-ladder (schema 3) and vs-cub
 * (schema 4: the conditions columns, and a summary that opens with
 * confirm.csv's table and closes with run.json's drift and conditions). run.json itself is
 * checked key by key outside "timing": the committed files were written
 * before the timing rule's text changed, so that part cannot come back. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/drift.h"
#include "harness/results_conditions.h"
#include "harness/results.h"
#include "harness/results_columns.h"
#include "results_io/axis_names.h"
#include "results_io/columns.h"
#include "results_io/confirm_io.h"
#include "tests/sweep_test_util.h"

#define RESULTS "experiments/results/h200/"

/* Fail at the first differing byte, showing both sides there. */
static void assert_same_text(const char *what, const char *want, const char *got, size_t got_len)
{
    size_t wl = strlen(want), i = 0;
    while (i < wl && i < got_len && want[i] == got[i]) i++;
    if (i == wl && i == got_len) return;
    size_t from = i > 40 ? i - 40 : 0;
    fail_msg("%s differs at byte %zu (of %zu, rewritten %zu):\n committed: '%.80s'\n rewritten: '%.80s'", what, i, wl,
             got_len, want + from, got + (from < got_len ? from : got_len));
}

/* A committed summary.md (schema 4 and before) as this build prints it: each
 * table's `coarse` column becomes `axes`, its cells the variant's own axis by
 * name ("items_per_thread=16"; empty where it has none, from the readers'
 * table results_io/axis_names.c). Nothing else changes. */
static char *summary_with_named_axes(const char *md)
{
    char *out = malloc(strlen(md) * 2 + 1), *o = out;
    int in_table = 0;
    for (const char *p = md; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p += len;
        if (strstr(line, "| n | best variant | block | coarse |")) {
            in_table = 1;
            char *c = strstr(line, "| coarse |");
            o += sprintf(o, "%.*s| axes |%s", (int)(c - line), line, c + 10);
            continue;
        }
        if (in_table == 1) { /* the alignment row: the 4th column left-aligned */
            in_table = 2;
            char *c = line;
            for (int bars = 0; bars < 4; c++) bars += *c == '|';
            o += sprintf(o, "%.*s---%s", (int)(c - line), line, c + 4);
            continue;
        }
        if (in_table == 2 && line[0] == '|') {
            char cell[8][256];
            const char *q = line + 1;
            for (int k = 0; k < 4; k++) { /* n, variant, block, coarse */
                const char *bar = strchr(q, '|');
                snprintf(cell[k], sizeof cell[k], "%.*s", (int)(bar - q - 2), q + 1);
                q = bar + 1;
            }
            char vname[256];
            snprintf(vname, sizeof vname, "%s", cell[1]);
            const results_axis_name *a = results_axis_of_variant(strtok(vname, " "));
            o += sprintf(o, "| %s | %s | %s |", cell[0], cell[1], cell[2]);
            if (a) o += sprintf(o, " %s=%s |", a->axis, cell[3]);
            else o += sprintf(o, " |");
            o += sprintf(o, "%s", q);
            continue;
        }
        in_table = 0;
        o += sprintf(o, "%s", line);
    }
    *o = '\0';
    return out;
}

/* Old rows written in this build's schema (the own axes by name) read back
 * equal: the same configuration (own axis values included), status and times. */
static void migrated_reads_back(const results_file *rf, metric_columns mc)
{
    const char *path = tu_path(tu_tempdir("migrated"), "results.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    csv_write_header(f, mc);
    for (size_t i = 0; i < rf->count; i++) csv_write_row(f, &rf->rows[i], mc);
    fclose(f);
    char *text = tu_read_file(path);
    assert_non_null(strstr(text, ",block_dim,axes,finish,"));
    assert_null(strstr(text, ",coarse,"));
    free(text);
    results_file back;
    char err[512];
    if (results_read_csv_any(path, &back, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(back.schema, SWEEP_SCHEMA_VERSION);
    assert_int_equal(back.count, rf->count);
    for (size_t i = 0; i < rf->count; i++) {
        const sweep_row *a = &rf->rows[i], *b = &back.rows[i];
        if (!config_same_axes(&a->cfg, &b->cfg)) fail_msg("row %zu: configuration changed", i);
        assert_int_equal(a->status, b->status);
        if (memcmp(&a->cold.median, &b->cold.median, sizeof a->cold.median) && !(isnan(a->cold.median) && isnan(b->cold.median)))
            fail_msg("row %zu: cold median %.17g, read back %.17g", i, a->cold.median, b->cold.median);
    }
    results_file_free(&back);
}

static void roundtrip(const char *experiment)
{
    char rel[256];
    snprintf(rel, sizeof rel, RESULTS "%s/results.csv", experiment);
    const char *csv_path = tu_data_file(rel);
    char *committed = tu_read_file(csv_path);
    assert_non_null(committed);
    results_file rf;
    char err[512];
    if (results_read_csv_any(csv_path, &rf, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(rf.torn, 0);
    assert_true(rf.count > 0);

    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    metric_columns mc = {rf.metrics, rf.metric_count};
    /* committed files of an older schema are written back in theirs */
    assert_true(rf.schema >= SWEEP_SCHEMA_OLDEST && rf.schema <= SWEEP_SCHEMA_VERSION);
    csv_write_header_schema(m, mc, rf.schema);
    for (size_t i = 0; i < rf.count; i++) csv_write_row_schema(m, &rf.rows[i], mc, rf.schema);
    fclose(m);
    assert_same_text(rel, committed, text, len);
    free(text);
    free(committed);
    migrated_reads_back(&rf, mc);

    snprintf(rel, sizeof rel, RESULTS "%s/run.json", experiment);
    json_t *run = tu_load_json(tu_data_file(rel));
    run_info ri;
    drift_report drift;
    run_json_summary_info(run, &ri);
    run_json_conditions_read(run, &ri, &drift);
    confirm_line *lines = NULL;
    size_t n_lines = 0;
    snprintf(rel, sizeof rel, RESULTS "%s/confirm.csv", experiment);
    const char *confirm_path = tu_runfile(rel, rel);
    if (confirm_path) {
        assert_int_equal(confirm_read_csv(confirm_path, &lines, &n_lines, err, sizeof err), 0);
        ri.confirm = lines;
        ri.confirm_count = n_lines;
    }
    snprintf(rel, sizeof rel, RESULTS "%s/summary.md", experiment);
    char *as_written = tu_read_file(tu_data_file(rel));
    assert_non_null(as_written);
    committed = summary_with_named_axes(as_written);
    free(as_written);
    m = open_memstream(&text, &len);
    summary_print(m, rf.rows, rf.count, &ri);
    fclose(m);
    assert_same_text(rel, committed, text, len);
    free(text);
    free(committed);
    json_decref(run);
    results_file_free(&rf);
    free(lines);
}

static void test_harris_ladder(void **state)
{
    (void)state;
    roundtrip("harris-ladder");
}

static void test_scan_ladder(void **state)
{
    (void)state;
    roundtrip("scan-ladder");
}

/* The sweep's columns table is the shared list's (results_io/columns.def),
 * name for name and unit for unit, in its order: the list the renderer reads by. */
static void test_columns_are_the_shared_list(void **state)
{
    (void)state;
    assert_int_equal(results_column_count, RC_COUNT);
    for (size_t i = 0; i < RC_COUNT; i++) {
        assert_string_equal(results_columns[i].name, results_cols[i].name);
        assert_string_equal(results_columns[i].unit, results_cols[i].unit);
        assert_non_null(results_columns[i].write);
    }
}

static void test_vs_cub(void **state)
{
    (void)state;
    roundtrip("vs-cub");
}

/* Every committed run named in the migration's brief reads (old schema,
 * `coarse`), and reads back equal from this build's schema, its own axes by
 * name: reduce_one_launch's coarse is vectors_in_flight, the scans' and
 * reduce_coarsened's items_per_thread, reduce_bulk_ring's ring_stage_vectors. */
static void test_migration_of_committed_runs(void **state)
{
    (void)state;
    const char *runs[] = {"h200/default", "h200/vs-cub", "h100/vs-cub", "h200/dtypes-ops", "h200/harris-ladder"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char rel[256], err[512];
        snprintf(rel, sizeof rel, "experiments/results/%s/results.csv", runs[i]);
        results_file rf;
        if (results_read_csv_any(tu_data_file(rel), &rf, err, sizeof err)) fail_msg("%s", err);
        assert_true(rf.schema < 5);
        metric_columns mc = {rf.metrics, rf.metric_count};
        migrated_reads_back(&rf, mc);
        for (size_t k = 0; k < rf.count; k++) { /* the value the old coarse held, now under its name */
            const sweep_row *r = &rf.rows[k];
            const results_axis_name *a = results_axis_of_variant(r->cfg.v->name);
            if (a) assert_string_equal(r->cfg.v->axes[0].name, a->axis);
            else assert_int_equal(r->cfg.a.axis[0], 1);
        }
        print_message("%s: %zu rows migrated (schema %d -> %d)\n", runs[i], rf.count, rf.schema,
                      SWEEP_SCHEMA_VERSION);
        results_file_free(&rf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_harris_ladder),
        cmocka_unit_test(test_scan_ladder),
        cmocka_unit_test(test_vs_cub),
        cmocka_unit_test(test_columns_are_the_shared_list),
        cmocka_unit_test(test_migration_of_committed_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
