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
#include "results_io/axis_names.h"
#include "results_io/columns.h"
#include "results_io/confirm_io.h"
#include "results_io/csv.h"
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

/* A committed results file's text: results.csv, or results.csv.gz inflated. */
static char *committed_text(const char *path)
{
    size_t len = 0;
    char e[1024];
    char *t = csv_slurp(path, &len, e, sizeof e);
    if (!t) fail_msg("%s", e);
    return t;
}

static void roundtrip(const char *experiment)
{
    char rel[256];
    snprintf(rel, sizeof rel, RESULTS "%s/results.csv", experiment);
    const char *csv_path = tu_data_file(rel);
    char *committed = committed_text(csv_path);
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
    if (!strcmp(base, "results.csv") || !strcmp(base, "results.csv.gz")) { /* plain, or packed (sweep pack) */
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
        char *want = committed_text(path), err[512], *text = NULL;
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
        if (results_cols[i].value) r->plain.values[i] = 1000.0 + i / 8.0; /* exact in binary and in %.10g */
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    metric_columns mc = {rf.metrics, rf.metric_count};
    assert_int_equal(results_write_csv(path, r, 1, mc, err, sizeof err), 0);
    results_file back;
    if (results_read_csv_any(path, &back, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(back.count, 1);
    for (int i = 0; i < RC_COUNT; i++)
        if (results_cols[i].value && back.rows[0].plain.values[i] != r->plain.values[i])
            fail_msg("%s: wrote %g, read %g", results_cols[i].name, r->plain.values[i], back.rows[0].plain.values[i]);
    results_file_free(&back);
    results_file_free(&rf);
    unlink(path);
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
            else assert_int_equal(r->cfg.axis[0], 1);
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
        cmocka_unit_test(test_every_committed_csv),
        cmocka_unit_test(test_run_keys_cover_committed),
        cmocka_unit_test(test_measure_tags),
        cmocka_unit_test(test_migration_of_committed_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
