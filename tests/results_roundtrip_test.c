/* The results writers reproduce the committed H200 results byte for byte:
 * results.csv read through the one reader (results_read_csv_any) and written
 * again through the columns table (csv_write_header, csv_write_row), and
 * summary.md printed again from those rows and run.json's fields, equal the
 * committed files, for harris-ladder and scan-ladder (schema 3) and vs-cub
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
    committed = tu_read_file(tu_data_file(rel));
    assert_non_null(committed);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_harris_ladder),
        cmocka_unit_test(test_scan_ladder),
        cmocka_unit_test(test_vs_cub),
        cmocka_unit_test(test_columns_are_the_shared_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
