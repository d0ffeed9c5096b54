/* The results writers reproduce the committed H200 results byte for byte:
 * results.csv read through the one reader (results_read_csv_any) and written
 * again through the columns table (csv_write_header, csv_write_row), and
 * summary.md printed again from those rows and run.json's fields, equal the
 * committed files, for harris-ladder and scan-ladder (schema 3) and vs-cub
 * (schema 4: the conditions columns, and a summary that opens with
 * confirm.csv's table and closes with run.json's drift and conditions). run.json itself is
 * checked key by key outside "timing": the committed files were written
 * before the timing rule's text changed, so that part cannot come back. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftw.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/run/drift.h"
#include "harness/results/results_conditions.h"
#include "harness/results/results.h"
#include "harness/results/results_columns.h"
#include "results_io/columns.h"
#include "results_io/confirm_io.h"
#include "results_io/run_keys.h"
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

/* ---- every committed run ------------------------------------------------------------------- */

/* Every results.csv and run.json under experiments/results/, whatever its
 * schema and device: the study's committed data. */
typedef struct committed_files {
    char **csv, **json;
    size_t ncsv, njson;
} committed_files;
static committed_files committed;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (type != FTW_F) return 0;
    if (!strcmp(base, "results.csv")) {
        committed.csv = realloc(committed.csv, (committed.ncsv + 1) * sizeof *committed.csv);
        committed.csv[committed.ncsv++] = strdup(path);
    } else if (!strcmp(base, "run.json")) {
        committed.json = realloc(committed.json, (committed.njson + 1) * sizeof *committed.json);
        committed.json[committed.njson++] = strdup(path);
    }
    return 0;
}

static void collect_committed(void)
{
    if (committed.ncsv) return;
    const char *one = tu_data_file(RESULTS "vs-cub/results.csv");
    char root[4096];
    snprintf(root, sizeof root, "%.*s", (int)(strstr(one, "experiments/results/") - one), one);
    strcat(root, "experiments/results");
    assert_int_equal(nftw(root, collect, 16, 0), 0);
    /* the h100 and h200 runs, the drift and beyond-cub ones: far more than the three above */
    assert_true(committed.ncsv >= 100);
    assert_true(committed.njson >= 100);
}

/* Every committed results.csv, read through the one reader (a variant of
 * any build: the row carries it) and written again in its own schema
 * through the columns table, comes back byte for byte. */
static void test_every_committed_csv(void **state)
{
    (void)state;
    collect_committed();
    for (size_t k = 0; k < committed.ncsv; k++) {
        const char *path = committed.csv[k];
        char *want = tu_read_file(path), err[512], *text = NULL;
        size_t len = 0;
        results_file rf;
        if (results_read_csv_any(path, &rf, err, sizeof err)) fail_msg("%s", err);
        FILE *m = open_memstream(&text, &len);
        metric_columns mc = {rf.metrics, rf.metric_count};
        csv_write_header_schema(m, mc, rf.schema);
        for (size_t i = 0; i < rf.count; i++) csv_write_row_schema(m, &rf.rows[i], mc, rf.schema);
        fclose(m);
        assert_same_text(path, want, text, len);
        free(text);
        free(want);
        results_file_free(&rf);
    }
}

static void check_keys(const char *path, const json_t *o)
{
    const char *key;
    const json_t *v;
    size_t i;
    if (json_is_array(o)) json_array_foreach(o, i, v) check_keys(path, v);
    if (!json_is_object(o)) return;
    json_object_foreach((json_t *)o, key, v)
    {
        if (run_key_named(key) < 0) fail_msg("%s: key '%s' is not in results_io/run_keys.def", path, key);
        check_keys(path, v);
    }
}

/* Every key of every committed run.json, at any depth, is one of the list
 * of keys the writer and the readers share. */
static void test_run_keys_cover_committed(void **state)
{
    (void)state;
    collect_committed();
    for (size_t k = 0; k < committed.njson; k++) {
        json_t *o = tu_load_json(committed.json[k]);
        check_keys(committed.json[k], o);
        json_decref(o);
    }
    for (int i = 0; i < RUN_KEYS; i++) assert_int_equal(run_key_named(run_keys[i].key), i); /* no key twice */
}

/* The measured figures' tags: each has a description and a schema this
 * build reads, no name twice; a figure stored VALUE goes to results.csv and
 * back through the generic entry alone. */
static void test_measure_tags(void **state)
{
    (void)state;
    for (int i = 0; i < RC_COUNT; i++) {
        const results_col_info *c = &results_cols[i];
        assert_int_equal(results_col_named(c->name), i);
        assert_true(c->schema >= SWEEP_SCHEMA_OLDEST && c->schema <= SWEEP_SCHEMA_VERSION);
        if (c->measure && !c->description[0]) fail_msg("%s has no description", c->name);
        assert_true(!c->value || c->measure);
    }
    assert_int_equal(results_cols[RC_STATUS].measure, 1);
    assert_int_equal(results_cols[RC_SCAN_MODE].measure, 0);

    const char *csv_path = tu_data_file(RESULTS "vs-cub/results.csv");
    results_file rf;
    char err[512], path[] = "/tmp/measure_tags_XXXXXX";
    assert_int_equal(results_read_csv_any(csv_path, &rf, err, sizeof err), 0);
    sweep_row *r = &rf.rows[0];
    for (int i = 0; i < RC_COUNT; i++)
        if (results_cols[i].value) r->values[i] = 1000.0 + i / 8.0; /* exact in binary and in %.10g */
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    metric_columns mc = {rf.metrics, rf.metric_count};
    assert_int_equal(results_write_csv(path, r, 1, mc, err, sizeof err), 0);
    results_file back;
    if (results_read_csv_any(path, &back, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(back.count, 1);
    for (int i = 0; i < RC_COUNT; i++)
        if (results_cols[i].value && back.rows[0].values[i] != r->values[i])
            fail_msg("%s: wrote %g, read %g", results_cols[i].name, r->values[i], back.rows[0].values[i]);
    results_file_free(&back);
    results_file_free(&rf);
    unlink(path);
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
        cmocka_unit_test(test_every_committed_csv),
        cmocka_unit_test(test_run_keys_cover_committed),
        cmocka_unit_test(test_measure_tags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
