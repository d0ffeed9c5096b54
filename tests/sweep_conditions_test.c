/* The sweep's measurement conditions and second looks, end to end on the
 * fake device: the confirmation phase (confirm.csv, run.json, summary.md)
 * and `sweep confirm DIR`; throttled samples taken again and counted in
 * their rows; the drift check seeing a device that slowed down; NVML absent
 * (the run completes and says why) and present (the fake library's figures
 * in every row and in run.json); inputs timed cold only and their
 * confirmation; bad values of the new settings. */
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

#include "results_io/confirm_io.h"
#include "results_io/csv.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
#define NO_NVML "SWEEP_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"
/* vs-cub at two sizes, f32: two reduction and two scan groups with CUB rows */
#define VS_CUB "--experiment", "vs-cub", "--sizes", "2^16,2^20", "--dtype", "f32", "--no-cupti", \
               "--throttle-recovery-delay", "0", "--quiet", "--force"

static const char *fake_nvml(void) { return tu_runfile("tests/libfake_nvml.so", "libfake_nvml.so"); }

/* Every line of confirm.csv consistent: one library line per group and
 * phase, at most `cand` candidates, verdicts from the intervals. */
static size_t check_confirm(const char *dir, unsigned rounds, unsigned cand)
{
    confirm_line *l;
    size_t n;
    char err[512];
    assert_int_equal(confirm_read_csv(tu_path(dir, "confirm.csv"), &l, &n, err, sizeof err), 0);
    size_t libs = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(l[i].rounds, rounds);
        if (!strcmp(l[i].role, "library")) {
            libs++;
            assert_string_equal(l[i].verdict, "reference");
            continue;
        }
        assert_true(l[i].ci_lo <= l[i].speedup && l[i].speedup <= l[i].ci_hi);
        assert_string_equal(l[i].verdict, confirm_verdict(l[i].ci_lo, l[i].ci_hi, 0.01));
        assert_true(l[i].median_ms > 0 && l[i].pct_copy > 0);
    }
    assert_int_equal(libs, 8); /* 4 groups x cold, hot */
    assert_true(n > libs && n <= libs * (1 + cand));
    free(l);
    return n;
}

static void confirmation_phase(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("confirm");
    const char *env[] = {FAKE, NO_NVML, NULL};
    const char *args[] = {VS_CUB, "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    size_t n = check_confirm(dir, 10, 3);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    json_t *c = json_object_get(o, "confirm");
    assert_int_equal(json_integer_value(json_object_get(c, "lines")), n);
    assert_int_equal(json_integer_value(json_object_get(c, "rounds")), 10);
    json_decref(o);
    char *md = tu_read_file(tu_path(dir, "summary.md"));
    const char *conf = strstr(md, "## Confirmed against the library"), *best = strstr(md, "## Best configuration");
    assert_non_null(conf);
    assert_true(best && conf < best); /* the answer first */
    assert_non_null(strstr(md, "| 2^16 |"));
    free(md);

    /* again, in another process: `sweep confirm DIR` */
    const char *again[] = {"confirm", dir, "--confirm-rounds", "12", "--confirm-candidates", "2", NULL};
    r = tu_run(NULL, env, again);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    check_confirm(dir, 12, 2);
    o = tu_load_json(tu_path(dir, "confirm.json"));
    assert_int_equal(json_integer_value(json_object_get(o, "rounds")), 12);
    json_decref(o);

    /* bad values: exit 2, one line, confirm.csv untouched */
    char *before = tu_read_file(tu_path(dir, "confirm.csv"));
    const char *bad[][4] = {{"confirm", dir, "--confirm-rounds", "5"},
                            {"confirm", dir, "--confirm-within", "0"},
                            {"confirm", dir, "--confirm-margin", "x"},
                            {"confirm", dir, "--bogus", "1"}};
    for (size_t i = 0; i < 4; i++) {
        const char *a[] = {bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL};
        r = tu_run(NULL, env, a);
        assert_int_equal(r.status, 2);
        assert_int_equal(tu_count_lines(r.err), 1);
        tu_result_free(&r);
    }
    char *after = tu_read_file(tu_path(dir, "confirm.csv"));
    assert_string_equal(before, after);
    free(before);
    free(after);
}

static void nothing_to_confirm(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("nolib");
    const char *env[] = {FAKE, NO_NVML, NULL};
    const char *args[] = {"--variants", "reduce_warp_shuffle", "--sizes", "2^16", "--no-cupti", "--quiet",
                          "--force", "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_false(tu_exists(tu_path(dir, "confirm.csv"))); /* no library row: no phase */
    const char *c[] = {"confirm", dir, NULL};
    r = tu_run(NULL, env, c);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "nothing to confirm against"));
    tu_result_free(&r);
}

/* A results.csv column's values, by header name. */
static char **column(const char *dir, const char *name, size_t *n)
{
    csv_table t;
    char err[512];
    assert_int_equal(csv_read_file(tu_path(dir, "results.csv"), &t, err, sizeof err), 0);
    int c = csv_column(&t, name), v = csv_column(&t, "variant");
    assert_true(c >= 0);
    char **out = calloc(2 * t.nrows, sizeof *out);
    for (size_t i = 0; i < t.nrows; i++) {
        out[2 * i] = strdup(t.rows[i][v]);
        out[2 * i + 1] = strdup(t.rows[i][c]);
    }
    *n = t.nrows;
    csv_free(&t);
    return out;
}

static void throttled_samples(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("throttle");
    const char *env[] = {FAKE, NO_NVML, "SWEEP_FAKE_THROTTLE=reduce_cub", NULL};
    const char *args[] = {VS_CUB, "--confirm-rounds", "0", "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    size_t n;
    char **thr = column(dir, "throttled_cold", &n), **clk = column(dir, "sm_clock_cold_min_MHz", &n);
    size_t cub = 0;
    for (size_t i = 0; i < n; i++) {
        int is_cub = !strcmp(thr[2 * i], "reduce_cub");
        cub += is_cub;
        if (is_cub) assert_true(atoi(thr[2 * i + 1]) > 0);
        else assert_string_equal(thr[2 * i + 1], "0");
        assert_true(fabs(atof(clk[2 * i + 1]) - 1980.0) < 1e-6); /* no kept sample below the threshold */
    }
    assert_int_equal(cub, 2);
    char *md = tu_read_file(tu_path(dir, "summary.md"));
    assert_non_null(strstr(md, "discarded as throttled and taken again, in 2 rows"));
    free(md);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    json_t *c = json_object_get(o, "conditions");
    assert_true(json_real_value(json_object_get(c, "throttle_threshold_pct")) == 75.0);
    json_decref(o);
}

static void drift_seen(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("drift");
    /* every configuration after the 8th runs 4 % slower: the first 8, measured again at the end, show it */
    const char *env[] = {FAKE, NO_NVML, "SWEEP_FAKE_SLOW_AFTER=8", NULL};
    /* --screen 0: one warm-up a configuration, so the 8 are the first 8 rows' */
    const char *args[] = {VS_CUB, "--confirm-rounds", "0", "--drift-check", "8", "--screen", "0", "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    json_t *d = json_object_get(o, "drift");
    assert_int_equal(json_integer_value(json_object_get(d, "configurations")), 8);
    assert_true(fabs(json_real_value(json_object_get(d, "cold_ratio")) - 1.04) < 0.015);
    assert_true(fabs(json_real_value(json_object_get(d, "hot_ratio")) - 1.04) < 0.015);
    assert_int_equal(json_array_size(json_object_get(d, "items")), 8);
    json_decref(o);
    char *md = tu_read_file(tu_path(dir, "summary.md"));
    assert_non_null(strstr(md, "- Drift: the first 8 configurations"));
    assert_non_null(strstr(md, "rows measured at different times that differ by less than that are ties"));
    free(md);
}

static void nvml_absent_and_present(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("nvml");
    const char *env[] = {FAKE, NO_NVML, NULL};
    const char *args[] = {VS_CUB, "--confirm-rounds", "0", "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    json_t *c = json_object_get(o, "conditions");
    assert_non_null(strstr(json_string_value(json_object_get(c, "nvml")), "NVML not available"));
    assert_true(json_is_null(json_object_get(c, "start")));
    json_decref(o);
    size_t n;
    char **temp = column(dir, "gpu_temp_C", &n);
    for (size_t i = 0; i < n; i++) assert_string_equal(temp[2 * i + 1], "");

    assert_non_null(fake_nvml());
    char lib[4200];
    snprintf(lib, sizeof lib, "SWEEP_NVML_LIBRARY=%s", fake_nvml());
    const char *env2[] = {FAKE, lib, "FAKE_NVML_TEMP=63", "FAKE_NVML_REASONS=0x5", NULL};
    r = tu_run(NULL, env2, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    o = tu_load_json(tu_path(dir, "run.json"));
    c = json_object_get(o, "conditions");
    assert_string_equal(json_string_value(json_object_get(c, "nvml")), "read");
    json_t *end = json_object_get(c, "end");
    assert_true(json_real_value(json_object_get(end, "temperature_C")) == 63.0);
    assert_string_equal(json_string_value(json_object_get(end, "clock_events")), "gpu_idle|sw_power_cap");
    json_decref(o);
    temp = column(dir, "gpu_temp_C", &n);
    char **events = column(dir, "clock_events", &n), **power = column(dir, "gpu_power_W", &n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(temp[2 * i + 1], "63");
        assert_string_equal(events[2 * i + 1], "sw_power_cap"); /* idle left out */
        assert_string_equal(power[2 * i + 1], "312");
    }
}

/* From 16 x L2 (the fake device's L2 is 60 MiB: f32 from 2^28) the rows are
 * timed cold only, and so is the confirmation: cold and hot lines at 2^20,
 * cold lines alone at 2^28, and summary.md says why a hot cell is empty. The
 * NVML figures read after a row's last phase reach the cold-only rows too. */
static void confirmation_cold_only_from_16_l2(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("confirm-cold-only");
    char nvml[1100];
    snprintf(nvml, sizeof nvml, "SWEEP_NVML_LIBRARY=%s", fake_nvml());
    const char *env[] = {FAKE, nvml, NULL};
    const char *args[] = {"--experiment", "vs-cub", "--sizes", "2^20,2^28", "--dtype", "f32", "--no-cupti",
                          "--throttle-recovery-delay", "0", "--quiet", "--force", "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    confirm_line *l;
    size_t n, lib[2][2] = {{0}}; /* [big n][hot] library lines */
    char err[512];
    assert_int_equal(confirm_read_csv(tu_path(dir, "confirm.csv"), &l, &n, err, sizeof err), 0);
    for (size_t i = 0; i < n; i++) {
        int big = l[i].n >= ((unsigned long long)1 << 28), hot = !strcmp(l[i].phase, "hot");
        assert_false(big && hot);
        if (!strcmp(l[i].role, "library")) lib[big][hot]++;
    }
    free(l);
    assert_int_equal(lib[0][0], 2); /* reduce, scan at 2^20: cold and hot */
    assert_int_equal(lib[0][1], 2);
    assert_int_equal(lib[1][0], 2); /* at 2^28: cold alone */
    char *md = tu_read_file(tu_path(dir, "summary.md"));
    assert_non_null(strstr(md, "no hot cells where the inputs were timed cold only"));
    free(md);
    size_t k, big = 0;
    char **temp = column(dir, "gpu_temp_C", &k), **hot = column(dir, "samples_hot", &k);
    char **n_col = column(dir, "n", &k), **status = column(dir, "status", &k);
    for (size_t i = 0; i < k; i++) {
        if (strcmp(status[2 * i + 1], "ok")) continue;
        assert_string_not_equal(temp[2 * i + 1], "");
        int is_big = !strcmp(n_col[2 * i + 1], "268435456");
        big += is_big;
        assert_int_equal(is_big, atoi(hot[2 * i + 1]) == 0);
    }
    assert_true(big > 0);
}

static void bad_settings(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("bad");
    const char *env[] = {FAKE, NO_NVML, NULL};
    const char *bad[][2] = {{"--throttle-threshold", "120"}, {"--throttle-recovery-delay", "11"},
                            {"--throttle-recovery-delay", "-1"}, {"--confirm-rounds", "3"},
                            {"--confirm-candidates", "0"}, {"--drift-check", "x"},
                            {"--hot-below", "-1"},           {"--hot-below", "16x"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"--experiment", "smoke", bad[i][0], bad[i][1], "--out", dir, "--force", NULL};
        tu_result r = tu_run(NULL, env, args);
        assert_int_equal(r.status, 2);
        assert_int_equal(tu_count_lines(r.err), 1);
        assert_non_null(strstr(r.err, bad[i][0]));
        tu_result_free(&r);
        assert_false(tu_exists(tu_path(dir, "results.csv")));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(confirmation_phase), cmocka_unit_test(nothing_to_confirm),
        cmocka_unit_test(throttled_samples),  cmocka_unit_test(drift_seen),
        cmocka_unit_test(nvml_absent_and_present), cmocka_unit_test(confirmation_cold_only_from_16_l2),
        cmocka_unit_test(bad_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
