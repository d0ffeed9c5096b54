/* The sweep's profile phase end to end on the fake device layer (no GPU):
 * --metrics and the experiment's [profile] metrics (unknown names: exit 2
 * with the closest names, nothing written; known names: one results.csv
 * column `m:<name>[<unit>]` each, the list and pass count in run.json), and
 * a profiler that cannot measure (SWEEP_FAKE_PROFILER=unavailable, as under
 * ncu or nsys; =privileges): one warning, the metric columns present and
 * empty, run.json saying why, the "profile" NVTX range still there for each
 * configuration. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/device/profiler.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
/* two variants, one size, one block dim: two configurations */
#define TWO "--variants", "reduce0,scan_kogge_stone", "--sizes", "1K", "--block-dims", "256", "--min-samples", "2"
#define TWO_ROWS 2

/* The header line of results.csv (malloc'd), and the data lines in *rows. */
static char *csv_header(const char *dir, char **rows)
{
    char *t = tu_read_file(tu_path(dir, "results.csv"));
    assert_non_null(t);
    char *nl = strchr(t, '\n');
    assert_non_null(nl);
    *nl = '\0';
    *rows = nl + 1;
    return t;
}

static void expect_exit_2(const char *const *env, const char *const *args, const char *out, const char *needle1,
                          const char *needle2)
{
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 2) fail_msg("exit %d (want 2): %s", r.status, r.err);
    if (!strstr(r.err, needle1)) fail_msg("stderr '%s' lacks '%s'", r.err, needle1);
    if (needle2 && !strstr(r.err, needle2)) fail_msg("stderr '%s' lacks '%s'", r.err, needle2);
    assert_int_equal(tu_count_lines(r.err), 1); /* one clear message */
    assert_false(tu_exists(out));               /* nothing written */
    tu_result_free(&r);
}

static void test_unknown_names_exit_2(void **state)
{
    (void)state;
    const char *base = tu_tempdir("unknown");
    const char *out = tu_path(base, "never");
    const char *env[] = {FAKE, NULL};

    /* a typo of a study key: the closest names */
    const char *a1[] = {TWO, "--metrics", "warp_eficiency", "--out", out, NULL};
    expect_exit_2(env, a1, out, "--metrics: unknown metric 'warp_eficiency'", "closest: warp_efficiency");
    /* not a metric name at all */
    const char *a2[] = {TWO, "--metrics", "dram_bytes-read", "--out", out, NULL};
    expect_exit_2(env, a2, out, "--metrics: ", "dram_bytes-read");
    /* an empty item */
    const char *a3[] = {TWO, "--metrics", " , ", "--out", out, NULL};
    expect_exit_2(env, a3, out, "--metrics: empty list", NULL);
    /* --metrics=... form, one bad name among good ones */
    const char *a4[] = {TWO, "--metrics=dram__bytes_read.sum,achieved_ocupancy", "--out", out, NULL};
    expect_exit_2(env, a4, out, "unknown metric 'achieved_ocupancy'", "closest: achieved_occupancy");

    /* the experiment file's [profile] metrics: file:line */
    const char *ini = tu_path(base, "m.ini");
    assert_int_equal(tu_write_file(ini, "[experiment]\nname = m\n[profile]\nmetrics = dram__bytes_read.sum,\n"
                                        "    l2_hitrate\n"),
                     0);
    const char *a5[] = {TWO, "--experiment", ini, "--out", out, NULL};
    char want[4300];
    snprintf(want, sizeof want, "%s:4: metrics: unknown metric 'l2_hitrate'", ini);
    expect_exit_2(env, a5, out, want, "closest: l2_hit_rate");

    /* well formed, but the device's check does not know it (after the device opened) */
    const char *env2[] = {FAKE, "SWEEP_FAKE_PROFILER=unknown", NULL};
    const char *a6[] = {TWO, "--metrics", "dram__bytes_red.sum", "--out", out, NULL};
    expect_exit_2(env2, a6, out, "sweep: --metrics: unknown metric 'dram__bytes_red.sum'",
                  "closest: dram__bytes_read.sum");
    const char *ini2 = tu_path(base, "m2.ini");
    assert_int_equal(tu_write_file(ini2, "[profile]\nmetrics = dram__bytes_red.sum\n"), 0);
    const char *a7[] = {TWO, "--experiment", ini2, "--out", out, NULL};
    expect_exit_2(env2, a7, out, "sweep: [profile] metrics: unknown metric 'dram__bytes_red.sum'", NULL);
}

static void test_known_names_become_columns(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("known");
    const char *env[] = {FAKE, NULL};
    /* a CUPTI name of the metric table, a study key, a legacy nvprof name, a
     * CUPTI name outside the table, and a repeat */
    const char *args[] = {TWO,     "--metrics",
                          "dram__bytes_read.sum, warp_efficiency,inst_executed,"
                          "sm__throughput.avg.pct_of_peak_sustained_elapsed,warp_efficiency",
                          "--out", dir,
                          "--force", "--quiet",
                          NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    assert_null(strstr(r.err, "profiler unavailable"));
    tu_result_free(&r);
    char *rows;
    char *header = csv_header(dir, &rows);
    const char *want = ",m:dram__bytes_read.sum[bytes],m:warp_efficiency[fraction],"
                       "m:instructions[warp instructions],m:sm__throughput.avg.pct_of_peak_sustained_elapsed[]";
    size_t hl = strlen(header), wl = strlen(want);
    if (hl < wl || strcmp(header + hl - wl, want)) fail_msg("header ends '%s', not '%s'", header, want);
    assert_int_equal(tu_count(rows, "\n"), TWO_ROWS);
    free(header);

    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    json_t *m = json_object_get(o, "metrics"), *u = json_object_get(o, "metric_units");
    assert_int_equal(json_array_size(m), 4);
    assert_string_equal(json_string_value(json_array_get(m, 0)), "dram__bytes_read.sum");
    assert_string_equal(json_string_value(json_array_get(m, 1)), "warp_efficiency");
    assert_string_equal(json_string_value(json_array_get(m, 2)), "instructions");
    assert_string_equal(json_string_value(json_array_get(u, 2)), "warp instructions");
    assert_int_equal(json_integer_value(json_object_get(o, "profiler_passes")), 1);
    assert_non_null(strstr(json_string_value(json_object_get(o, "profiler_status")), "ok"));
    json_decref(o);

    /* none: no columns; default: the profiler's default set */
    const char *args_none[] = {TWO, "--metrics", "none", "--out", dir, "--force", "--quiet", NULL};
    r = tu_run(NULL, env, args_none);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    header = csv_header(dir, &rows);
    assert_null(strstr(header, "m:"));
    free(header);
    o = tu_load_json(tu_path(dir, "run.json"));
    assert_int_equal(json_array_size(json_object_get(o, "metrics")), 0);
    assert_non_null(strstr(json_string_value(json_object_get(o, "profiler_status")), "off:"));
    json_decref(o);

    const char *args_def[] = {TWO, "--metrics", "default", "--out", dir, "--force", "--quiet", NULL};
    r = tu_run(NULL, env, args_def);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    header = csv_header(dir, &rows);
    assert_non_null(strstr(header, ",m:dram__bytes.sum[byte],m:gpu__time_duration.sum[ns]"));
    free(header);
}

/* Runs with SWEEP_FAKE_PROFILER=<mode>; checks the common "unavailable" picture
 * and returns run.json's profiler_status (malloc'd). */
static char *run_unavailable(const char *mode, int quiet, size_t *profile_ranges)
{
    const char *lib = getenv("NVTX_INJECTION_LIB");
    if (!lib || !*lib) lib = tu_runfile("tests/libnvtx_injection.so", "libnvtx_injection.so");
    assert_non_null(lib);
    const char *dir = tu_tempdir(mode);
    const char *out = tu_path(dir, "out");
    char knob[64], inj[4300], rec[4300];
    const char *record = tu_path(dir, "record.txt");
    snprintf(knob, sizeof knob, "SWEEP_FAKE_PROFILER=%s", mode);
    snprintf(inj, sizeof inj, "NVTX_INJECTION64_PATH=%s", lib);
    snprintf(rec, sizeof rec, "NVTX_RECORD_FILE=%s", record);
    const char *env[] = {FAKE, knob, inj, rec, NULL};
    const char *args[] = {TWO, "--metrics", "dram__bytes_read.sum,warp_efficiency", "--out", out,
                          quiet ? "--quiet" : NULL, NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    /* warned once, whatever the number of configurations */
    assert_int_equal(tu_count(r.err, "sweep: profiler unavailable: "), 1);
    assert_int_equal(tu_count(r.err, "metric columns left empty"), 1);
    tu_result_free(&r);

    /* the columns are there, every row's metric fields empty */
    char *rows;
    char *header = csv_header(out, &rows);
    assert_non_null(strstr(header, ",m:dram__bytes_read.sum[bytes],m:warp_efficiency[fraction]"));
    assert_int_equal(tu_count(rows, ",ok,"), TWO_ROWS);
    assert_int_equal(tu_count(rows, ",,\n"), TWO_ROWS); /* both metric fields empty, and no error */
    assert_null(strstr(rows, "profile:"));
    free(header);

    json_t *o = tu_load_json(tu_path(out, "run.json"));
    assert_int_equal(json_array_size(json_object_get(o, "metrics")), 2);
    assert_int_equal(json_integer_value(json_object_get(o, "profiler_passes")), 0);
    char *status = strdup(json_string_value(json_object_get(o, "profiler_status")));
    json_decref(o);

    /* the profile phase still ran, once per configuration, inside its own range */
    char *text = tu_read_file(record);
    if (!text) fail_msg("no NVTX record at %s", record);
    *profile_ranges = tu_count(text, "push\tsweep\tprofile");
    free(text);
    return status;
}

static void test_unavailable_other_profiler(void **state)
{
    (void)state;
    size_t ranges = 0;
    char *status = run_unavailable("unavailable", 1, &ranges);
    assert_string_equal(status, "unavailable: " SWEEP_PROFILER_TEXT_OTHER_PROFILER);
    assert_string_equal(status, "unavailable: another profiler (ncu/nsys) is attached; metric columns left empty");
    assert_int_equal(ranges, TWO_ROWS);
    free(status);
    /* without --quiet too (the warning is not progress output) */
    status = run_unavailable("unavailable", 0, &ranges);
    free(status);
}

static void test_unavailable_privileges(void **state)
{
    (void)state;
    size_t ranges = 0;
    char *status = run_unavailable("privileges", 1, &ranges);
    assert_non_null(strstr(status, "unavailable: GPU performance counters are restricted"));
    assert_non_null(strstr(status, "NVreg_RestrictProfilingToAdminUsers=0"));
    assert_null(strchr(status, '\n')); /* one line */
    assert_int_equal(ranges, TWO_ROWS);
    free(status);
}

static void test_profiler_declines(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("off");
    const char *env[] = {FAKE, "SWEEP_FAKE_PROFILER=off", NULL};
    const char *args[] = {TWO, "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.err, "profiler unavailable"));
    tu_result_free(&r);
    char *rows;
    char *header = csv_header(dir, &rows);
    assert_null(strstr(header, "m:"));
    free(header);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    assert_non_null(strstr(json_string_value(json_object_get(o, "profiler_status")), "off: "));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_names_exit_2),
        cmocka_unit_test(test_known_names_become_columns),
        cmocka_unit_test(test_unavailable_other_profiler),
        cmocka_unit_test(test_unavailable_privileges),
        cmocka_unit_test(test_profiler_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
