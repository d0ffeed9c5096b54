/* The sweep binary end to end on the fake device layer (no GPU): outputs and
 * where they go (BUILD_WORKING_DIRECTORY), exit codes, usage errors leaving
 * nothing behind, --force, --resume (and what it refuses), interrupts, the
 * metric columns, --list and --dry-run (its profile estimate), a value a
 * variant lacks in a list for several, and "no CUDA device" (why, and the
 * fake device). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/device/device.h"
#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "kernels/registry.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
/* A small plan: 3 variants x 2 sizes x 2 block dims (CUB collapses to one). */
#define SMALL "--variants", "reduce0,reduce_cub,scan_kogge_stone", "--sizes", "1K,4K", "--block-dims", "128,256"

static size_t small_plan_rows(void)
{
    experiment e;
    sweep_plan p;
    char err[1024];
    experiment_defaults(&e);
    parse_globs("reduce0,reduce_cub,scan_kogge_stone", &e.variants, err, sizeof err);
    parse_sizes("1K,4K", &e.sizes, err, sizeof err);
    parse_pow2_list("128,256", 32, 1024, "block dims", &e.block_dims, err, sizeof err);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t n = p.count;
    plan_free(&p);
    return n;
}

static size_t csv_rows(const char *path)
{
    char *t = tu_read_file(path);
    assert_non_null(t);
    size_t n = tu_count_lines(t) - 1;
    free(t);
    return n;
}

static void test_outputs_under_working_directory(void **state)
{
    (void)state;
    const char *bwd = tu_tempdir("bwd");
    const char *elsewhere = tu_tempdir("cwd");
    char bwd_env[4200];
    snprintf(bwd_env, sizeof bwd_env, "BUILD_WORKING_DIRECTORY=%s", bwd);
    const char *env[] = {FAKE, bwd_env, NULL};
    const char *args[] = {SMALL, "--out", "runs/one", "--quiet", NULL};
    tu_result r = tu_run(elsewhere, env, args);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    const char *dir = tu_path(bwd, "runs/one");
    assert_true(tu_exists(tu_path(dir, "results.csv")));
    assert_true(tu_exists(tu_path(dir, "run.json")));
    assert_true(tu_exists(tu_path(dir, "summary.md")));
    assert_false(tu_exists(tu_path(elsewhere, "runs")));
    assert_int_equal(csv_rows(tu_path(dir, "results.csv")), small_plan_rows());
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    assert_true(json_is_false(json_object_get(o, "interrupted")));
    assert_int_equal(json_integer_value(json_object_get(o, "rows")), small_plan_rows());
    assert_int_equal(json_integer_value(json_object_get(o, "failures")), 0);
    assert_string_equal(json_string_value(json_object_get(o, "experiment")), "default");
    assert_true(json_is_true(json_object_get(o, "fake_device")));
    assert_true(json_real_value(json_object_get(o, "copy_bandwidth_GBps")) > 0);
    assert_string_equal(json_string_value(json_object_get(o, "copy_timing")), "cold"); /* compare reads it */
    json_decref(o);
    assert_string_equal(r.out, ""); /* --quiet */
    tu_result_free(&r);

    /* no --out: results/<timestamp>-<experiment> there */
    const char *args2[] = {SMALL, "--quiet", NULL};
    r = tu_run(elsewhere, env, args2);
    assert_int_equal(r.status, 0);
    DIR *d = opendir(tu_path(bwd, "results"));
    assert_non_null(d);
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 8 && !strcmp(e->d_name + l - 8, "-default") && e->d_name[8] == '-') found++;
    }
    closedir(d);
    assert_int_equal(found, 1);
    tu_result_free(&r);
}

/* Inputs of 16 x L2 and more are timed cold only in every stage (the fake device's L2 is 60 MiB:
 * f32 from 2^28): there no row has hot samples, whether it stopped at the screen or was refined;
 * below, every row has both. `--hot-below 0` times the hot phase everywhere. */
static void count_hot_rows(const char *dir, const char *hot_below, size_t *cold_only, size_t *refined_big)
{
    const char *env[] = {FAKE, NULL};
    const char *args[] = {"--variants", "scan_*", "--sizes", "2^20,2^28", "--dtype", "f32", "--op", "sum",
                          "--scan-mode", "inclusive", "--hot-below", hot_below, "--no-cupti", "--out", dir, "--force",
                          "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    results_file rf;
    char err[512];
    if (results_read_csv_any(tu_path(dir, "results.csv"), &rf, err, sizeof err)) fail_msg("%s", err);
    int every = !strcmp(hot_below, "0");
    *cold_only = *refined_big = 0;
    for (size_t i = 0; i < rf.count; i++) {
        const sweep_row *w = &rf.rows[i];
        if (w->status != ROW_OK) continue;
        assert_true(w->cold.samples >= 3);
        int big = w->cfg.n >= ((size_t)1 << 28), refined = w->cold.stop != STOP_SCREEN;
        if (!big || every) assert_true(w->hot.samples >= (refined ? 10u : 3u));
        else assert_int_equal(w->hot.samples, 0);
        if (big) {
            *cold_only += !w->hot.samples;
            if (refined) assert_true(w->cold.samples >= 10);
            *refined_big += refined;
        }
    }
    results_file_free(&rf);
}

static void test_hot_below_16_l2(void **state)
{
    (void)state;
    size_t cold_only, refined_big;
    count_hot_rows(tu_tempdir("cold-only"), "16", &cold_only, &refined_big);
    assert_true(cold_only > 0 && refined_big > 0);
    count_hot_rows(tu_tempdir("hot-everywhere"), "0", &cold_only, &refined_big);
    assert_true(cold_only == 0 && refined_big > 0);
}

static void test_csv_content_and_metrics(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("content");
    const char *env[] = {FAKE, NULL};
    const char *args[] = {SMALL, "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    char *csv = tu_read_file(tu_path(dir, "results.csv"));
    assert_non_null(strstr(csv, ",m:dram__bytes.sum[byte],m:gpu__time_duration.sum[ns]\n"));
    assert_non_null(strstr(csv, "reduce_interleaved_divergent,\"reduce0, reduce_v0, sum_reduce\",harris,reduce,f32,sum,1024,128,,"));
    assert_int_equal(tu_count(csv, ",ok,"), small_plan_rows());
    free(csv);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    assert_int_equal(json_array_size(json_object_get(o, "metrics")), 2);
    json_decref(o);

    /* --no-cupti: no metric columns, profiler off */
    const char *args2[] = {SMALL, "--out", dir, "--force", "--quiet", "--no-cupti", NULL};
    r = tu_run(NULL, env, args2);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    csv = tu_read_file(tu_path(dir, "results.csv"));
    assert_null(strstr(csv, "m:"));
    free(csv);
    o = tu_load_json(tu_path(dir, "run.json"));
    assert_int_equal(json_array_size(json_object_get(o, "metrics")), 0);
    assert_non_null(strstr(json_string_value(json_object_get(o, "profiler_status")), "--no-cupti"));
    json_decref(o);
}

static void test_usage_errors_write_nothing(void **state)
{
    (void)state;
    const char *base = tu_tempdir("usage");
    const char *env[] = {FAKE, NULL};
    const char *out = tu_path(base, "never");
    struct {
        const char *a[8];
        const char *needle;
    } cases[] = {
        {{"--sizes", "2^41", "--out", NULL}, "--sizes: '2^41': n must be at most 2^40"},
        {{"--variants", "reduce_nonesuch", "--out", NULL}, "--variants: 'reduce_nonesuch' matches no variant"},
        {{"--experiment", "nonesuch", "--out", NULL}, "--experiment: no experiment 'nonesuch'"},
        {{"--bogus", "--out", NULL}, "unknown option '--bogus'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[10];
        size_t k = 0;
        for (; cases[i].a[k]; k++) args[k] = cases[i].a[k];
        args[k++] = out;
        args[k] = NULL;
        tu_result r = tu_run(NULL, env, args);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, cases[i].needle)) fail_msg("stderr '%s' lacks '%s'", r.err, cases[i].needle);
        assert_int_equal(tu_count_lines(r.err), 1); /* one clear message */
        assert_false(tu_exists(out));
        tu_result_free(&r);
    }
    /* an experiment file with a bad value: file:line */
    const char *ini = tu_path(base, "bad.ini");
    assert_int_equal(tu_write_file(ini, "[experiment]\nname = bad\n[axes]\nblock_dims = 64, 96\n"), 0);
    const char *args[] = {"--experiment", ini, "--out", out, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 2);
    char want[4300];
    snprintf(want, sizeof want, "%s:4: block_dims: '96'", ini);
    if (!strstr(r.err, want)) fail_msg("stderr '%s' lacks '%s'", r.err, want);
    assert_false(tu_exists(out));
    tu_result_free(&r);
}

static void test_existing_directory_needs_force(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("exists");
    assert_int_equal(tu_write_file(tu_path(dir, "results.csv"), "precious\n"), 0);
    const char *env[] = {FAKE, NULL};
    const char *args[] = {SMALL, "--out", dir, "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "exists (--force replaces its results"));
    tu_result_free(&r);
    char *t = tu_read_file(tu_path(dir, "results.csv"));
    assert_string_equal(t, "precious\n");
    free(t);
    const char *args2[] = {SMALL, "--out", dir, "--quiet", "--force", NULL};
    r = tu_run(NULL, env, args2);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_int_equal(csv_rows(tu_path(dir, "results.csv")), small_plan_rows());
}

static void test_validation_failure_exit_1(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("fail");
    const char *env[] = {FAKE, "SWEEP_FAKE_FAIL=scan_*", "SWEEP_FAKE_ERROR=reduce_cub", NULL};
    const char *args[] = {SMALL, "--out", dir, "--force", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "INVALID scan_kogge_stone f32 sum n=1024"));
    assert_non_null(strstr(r.err, "configurations failed"));
    assert_non_null(strstr(r.out, "## Failures (6)")); /* 4 scan configs + 2 cub */
    char *csv = tu_read_file(tu_path(dir, "results.csv"));
    assert_int_equal(tu_count(csv, ",invalid,"), 4);
    assert_int_equal(tu_count(csv, ",error,,"), 2); /* status, empty skip_reason (the header has ",error,v") */
    free(csv);
    json_t *o = tu_load_json(tu_path(dir, "run.json"));
    assert_int_equal(json_integer_value(json_object_get(o, "failures")), 6);
    json_decref(o);
    tu_result_free(&r);
}

static void test_no_device(void **state)
{
    (void)state;
    const char *base = tu_tempdir("nodev");
    const char *out = tu_path(base, "out");
    const char *env[] = {FAKE, "SWEEP_FAKE_NO_DEVICE=1", NULL};
    const char *args[] = {SMALL, "--out", out, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no CUDA device: "));
    assert_non_null(strstr(r.err, "sweep: to try the sweep without a GPU, add --fake-device"));
    assert_false(tu_exists(out));
    tu_result_free(&r);
    /* The real device layer: on a host without a GPU the same; with one, a tiny run. */
    const char *env2[] = {"SWEEP_FAKE_DEVICE=", NULL};
    const char *args2[] = {"--variants", "reduce0", "--sizes", "1K", "--block-dims", "256", "--min-samples", "1",
                           "--out", out, "--quiet", NULL};
    r = tu_run(NULL, env2, args2);
    if (r.status == 1 && strstr(r.err, "no CUDA device: ")) {
        assert_false(tu_exists(out));
        assert_non_null(strstr(r.err, "--fake-device"));
        /* not the runtime's "insufficient driver" where there is no driver at all */
        if (!device_driver_present()) assert_non_null(strstr(r.err, "no NVIDIA driver on this machine"));
    } else {
        assert_int_equal(r.status, 0);
        assert_true(tu_exists(tu_path(out, "results.csv")));
    }
    tu_result_free(&r);
}

static void wait_for_rows(const char *csv, size_t rows, pid_t pid)
{
    for (int i = 0; i < 3000; i++) {
        char *t = tu_read_file(csv);
        size_t n = t ? tu_count_lines(t) : 0;
        free(t);
        if (n >= rows + 1) return;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    fail_msg("no %zu rows in %s after 15 s", rows, csv);
}

static void interrupt_and_resume(int sig, int want_status)
{
    const char *base = tu_tempdir("intr");
    const char *dir = tu_path(base, "run");
    const char *env[] = {FAKE, "SWEEP_FAKE_DELAY_MS=40", NULL};
    const char *args[] = {"--variants", "reduce_*", "--sizes", "1K,4K", "--block-dims", "128,256", "--out", dir,
                          "--quiet", NULL};
    char o[4200], e[4200];
    snprintf(o, sizeof o, "%s/stdout", base);
    snprintf(e, sizeof e, "%s/stderr", base);
    pid_t pid = tu_spawn(NULL, env, args, o, e);
    wait_for_rows(tu_path(dir, "results.csv"), 3, pid);
    kill(pid, sig);
    int status = tu_wait(pid);
    char *err = tu_read_file(e);
    if (status != want_status) fail_msg("exit %d, want %d: %s", status, want_status, err);
    assert_non_null(strstr(err, "--resume --out"));
    free(err);
    /* a valid CSV of finished rows, and run.json says interrupted */
    sweep_row *rows;
    size_t n;
    char msg[1024];
    metric_columns mc = {NULL, 0};
    /* the fake profiler's two columns */
    sweep_metric m[2] = {{"dram__bytes.sum", "byte"}, {"gpu__time_duration.sum", "ns"}};
    mc.m = m;
    mc.count = 2;
    if (results_read_csv(tu_path(dir, "results.csv"), mc, &rows, &n, msg, sizeof msg)) fail_msg("%s", msg);
    assert_true(n >= 3);
    size_t first = n;
    for (size_t i = 0; i < n; i++) {
        assert_true(rows[i].status == ROW_OK || rows[i].status == ROW_SKIPPED);
        row_free(&rows[i]);
    }
    free(rows);
    json_t *j = tu_load_json(tu_path(dir, "run.json"));
    assert_true(json_is_true(json_object_get(j, "interrupted")));
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_int_equal(json_integer_value(json_object_get(j, "rows")), first);
    json_decref(j);

    /* --resume finishes it: every configuration once */
    const char *env2[] = {FAKE, NULL};
    const char *args2[] = {"--variants", "reduce_*", "--sizes", "1K,4K", "--block-dims", "128,256", "--out", dir,
                           "--quiet", "--resume", NULL};
    tu_result r = tu_run(NULL, env2, args2);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    if (results_read_csv(tu_path(dir, "results.csv"), mc, &rows, &n, msg, sizeof msg)) fail_msg("%s", msg);
    experiment ex;
    sweep_plan p;
    experiment_defaults(&ex);
    parse_globs("reduce_*", &ex.variants, msg, sizeof msg);
    parse_sizes("1K,4K", &ex.sizes, msg, sizeof msg);
    parse_pow2_list("128,256", 32, 1024, "block dims", &ex.block_dims, msg, sizeof msg);
    assert_int_equal(plan_build(&ex, &p, msg, sizeof msg), 0);
    assert_int_equal(n, p.count);
    for (size_t i = 0; i < p.count; i++) {
        size_t hits = 0;
        for (size_t k = 0; k < n; k++) hits += config_same_axes(&rows[k].cfg, &p.configs[i]);
        assert_int_equal(hits, 1);
    }
    /* speedups are filled across the resumed and the new rows */
    int speedups = 0;
    for (size_t k = 0; k < n; k++) speedups += rows[k].status == ROW_OK && rows[k].plain.values[RC_SPEEDUP_VS_CUB] > 0;
    assert_true(speedups > 0);
    for (size_t k = 0; k < n; k++) row_free(&rows[k]);
    free(rows);
    plan_free(&p);
    j = tu_load_json(tu_path(dir, "run.json"));
    assert_true(json_is_false(json_object_get(j, "interrupted")));
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_decref(j);

    /* resuming again has nothing to do; another experiment is refused */
    const char *args3[] = {"--experiment", "smoke", "--out", dir, "--resume", "--quiet", NULL};
    r = tu_run(NULL, env2, args3);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "holds experiment 'default', not 'smoke'"));
    tu_result_free(&r);
}

static void test_sigint(void **state)
{
    (void)state;
    interrupt_and_resume(SIGINT, 130);
}

static void test_sigterm(void **state)
{
    (void)state;
    interrupt_and_resume(SIGTERM, 143);
}

static void test_resume_refusals(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("refuse");
    const char *env[] = {FAKE, NULL};
    const char *args[] = {"--resume", "--out", dir, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not a sweep's output"));
    tu_result_free(&r);
    const char *args1[] = {SMALL, "--out", dir, "--force", "--quiet", NULL};
    r = tu_run(NULL, env, args1);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    /* another schema version */
    json_t *j = tu_load_json(tu_path(dir, "run.json"));
    json_object_set_new(j, "schema_version", json_integer(SWEEP_SCHEMA_VERSION + 1));
    json_dump_file(j, tu_path(dir, "run.json"), 0);
    json_decref(j);
    const char *args2[] = {SMALL, "--out", dir, "--resume", "--quiet", NULL};
    r = tu_run(NULL, env, args2);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "schema version"));
    tu_result_free(&r);
    /* another metric set (a different header) */
    j = tu_load_json(tu_path(dir, "run.json"));
    json_object_set_new(j, "schema_version", json_integer(SWEEP_SCHEMA_VERSION));
    json_dump_file(j, tu_path(dir, "run.json"), 0);
    json_decref(j);
    const char *args3[] = {SMALL, "--out", dir, "--resume", "--quiet", "--no-cupti", NULL};
    r = tu_run(NULL, env, args3);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "header differs"));
    tu_result_free(&r);
    /* the same settings resume (nothing left to do) */
    r = tu_run(NULL, env, args2);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    assert_int_equal(csv_rows(tu_path(dir, "results.csv")), small_plan_rows());
}

static void test_list_and_dry_run(void **state)
{
    (void)state;
    const char *base = tu_tempdir("list");
    char bwd_env[4200];
    snprintf(bwd_env, sizeof bwd_env, "BUILD_WORKING_DIRECTORY=%s", base);
    const char *env[] = {bwd_env, NULL};
    const char *args[] = {"--list", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    for (size_t i = 0; i < registry_count(); i++) { /* .alias is optional */
        const variant *v = registry_get(i);
        if (!strstr(r.out, v->name) || (v->alias && !strstr(r.out, v->alias)) || !strstr(r.out, v->description))
            fail_msg("--list lacks %s (alias %s)", v->name, v->alias ? v->alias : "none");
    }
    tu_result_free(&r);
    const char *args2[] = {"--dry-run", NULL};
    r = tu_run(NULL, env, args2);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "plan: "));
    assert_non_null(strstr(r.out, "estimated time: "));
    /* the default metrics: the profile phase is in the estimate, with its model */
    assert_non_null(strstr(r.out, ", profile "));
    assert_non_null(strstr(r.out, "configurations x 2 passes ~ "));
    assert_non_null(strstr(r.out, "timing stages: "));
    assert_non_null(strstr(r.out, " batches, one per run of configurations on the same buffers (at most 512, and 8 GiB of "
                                  "their workspaces); a batch of b: its session 0.016 s + 0.28 ms x b, each pass's start "
                                  "and stop 0.095 s + 0.55 ms x b; each configuration 0.15 ms and a pass 1.2 ms, plus the kernels; "
                                  "measured alone on an H200"));
    tu_result_free(&r);
    const char *args2b[] = {"--dry-run", "--no-cupti", NULL};
    r = tu_run(NULL, env, args2b);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, ", profile "));
    assert_non_null(strstr(r.out, "profile: none (--no-cupti)"));
    tu_result_free(&r);
    const char *args3[] = {"--dry-run", "--experiment", "full", NULL};
    r = tu_run(NULL, env, args3);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "experiment full"));
    tu_result_free(&r);
    assert_false(tu_exists(tu_path(base, "results")));
    const char *args4[] = {"--help", NULL};
    r = tu_run(NULL, env, args4);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: "));
    tu_result_free(&r);
}

/* A block dim asked of two variants, one of which has only 256: it runs
 * 256, the run says so once, and its rows hold what ran. */
static void test_unheeded_value_noted(void **state)
{
    (void)state;
    const char *out = tu_path(tu_tempdir("unheeded"), "out");
    const char *env[] = {FAKE, NULL};
    const char *args[] = {"--variants", "reduce0,reduce_cub", "--sizes", "1K", "--block-dims", "512", "--no-cupti",
                          "--out", out, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    assert_int_equal(tu_count(r.err, "sweep: note: asked values some variants do not have; they run their own: "
                                     "reduce_cub block dim 256 (asked 512)\n"),
                     1);
    tu_result_free(&r);
    sweep_row *rows = NULL;
    size_t n = 0;
    metric_columns mc = {0};
    char err[512];
    assert_int_equal(results_read_csv(tu_path(out, "results.csv"), mc, &rows, &n, err, sizeof err), 0);
    size_t cub = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].cfg.v->runner == RUNNER_HOST) continue;
        int is_cub = !strcmp(rows[i].cfg.v->name, "reduce_cub");
        cub += is_cub;
        assert_int_equal(rows[i].cfg.block_dim, is_cub ? 256 : 512);
    }
    assert_int_equal(cub, 1);
    for (size_t i = 0; i < n; i++) row_free(&rows[i]);
    free(rows);
}

/* Runs the fake-device sweep with `args` (output in `out`), expects exit 0,
 * and returns the rows of its results.csv. */
static sweep_row *run_and_read_rows(const char **env, const char **args, const char *out, size_t *n)
{
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    sweep_row *rows = NULL;
    metric_columns mc = {0};
    char err[512];
    assert_int_equal(results_read_csv(tu_path(out, "results.csv"), mc, &rows, n, err, sizeof err), 0);
    return rows;
}

static void free_rows(sweep_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) row_free(&rows[i]);
    free(rows);
}

/* One samples.csv line: variant,n,"config",phase,batch,sample,time_ms. */
typedef struct sample_line {
    char variant[64], label[256], phase[8];
    size_t n, idx;
    unsigned batch;
    double ms;
} sample_line;

static void parse_sample_line(const char *line, sample_line *s)
{
    assert_int_equal(sscanf(line, "%63[^,],%zu,\"%255[^\"]\",%7[^,],%u,%zu,%lf", s->variant, &s->n, s->label,
                            s->phase, &s->batch, &s->idx, &s->ms),
                     7);
    assert_true(s->ms > 0);
}

/* cpu_baseline = yes: one validated, timed cpu_serial row per dtype, op and n
 * of the reductions; --resume reads such rows back without redoing them. */
static void test_cpu_baseline(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("cpu");
    char *ini = tu_path(dir, "cpu.ini");
    assert_int_equal(tu_write_file(ini, "[experiment]\nname = cpu\nvariants = reduce0, scan_kogge_stone\n"
                                        "cpu_baseline = yes\n[axes]\nsizes = 1000, 2^16\nblock_dims = 256\n"
                                        "dtypes = f32, i32\nops = sum, max\n[timing]\nmin_samples = 3\n"
                                        "timeout = 20ms\n[profile]\nmetrics = none\n"),
                     0);
    char *out = tu_path(dir, "out");
    const char *env[] = {FAKE, NULL};
    const char *args[] = {"--experiment", ini, "--out", out, "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    char *csv = tu_read_file(tu_path(out, "results.csv"));
    assert_non_null(csv);
    /* 2 dtypes x 2 ops x 2 sizes, each validated against the reference and timed */
    assert_int_equal(tu_count(csv, "\ncpu_serial,"), 8);
    assert_non_null(strstr(csv, "\ncpu_serial,\"CPU version, sum_host.cu (seed 003)\",cpu,reduce,f32,sum,1000,1,,none,"));
    assert_non_null(strstr(csv, "\ncpu_serial,\"CPU version, sum_host.cu (seed 003)\",cpu,reduce,i32,max,65536,1,,none,"));
    sweep_row *rows = NULL;
    size_t n = 0;
    metric_columns mc = {0};
    char err[512];
    assert_int_equal(results_read_csv(tu_path(out, "results.csv"), mc, &rows, &n, err, sizeof err), 0);
    size_t cpu = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].cfg.v->name, "cpu_serial")) continue;
        cpu++;
        assert_int_equal(rows[i].status, ROW_OK);
        assert_true(rows[i].cold.samples >= 3);
        assert_true(rows[i].cold.median > 0);
        assert_true(rows[i].plain.values[RC_VALIDATION_ERROR_ABS] <= rows[i].plain.values[RC_VALIDATION_TOLERANCE_ABS]);
        assert_true(rows[i].plain.values[RC_BW_COLD_GBPS] > 0);
    }
    assert_int_equal(cpu, 8);
    free_rows(rows, n);
    free(csv);

    /* resume: everything is there already */
    const char *args2[] = {"--experiment", ini, "--out", out, "--resume", "--quiet", NULL};
    r = tu_run(NULL, env, args2);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    csv = tu_read_file(tu_path(out, "results.csv"));
    assert_int_equal(tu_count(csv, "\ncpu_serial,"), 8);
    free(csv);

    /* a bad value names the file and line */
    assert_int_equal(tu_write_file(ini, "[experiment]\nname = cpu\ncpu_baseline = maybe\n"), 0);
    const char *args3[] = {"--experiment", ini, "--out", tu_path(dir, "bad"), NULL};
    r = tu_run(NULL, env, args3);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cpu.ini:3"));
    assert_non_null(strstr(r.err, "cpu_baseline is yes or no"));
    tu_result_free(&r);
}

/* --samples: samples.csv holds every timed sample of every row, in its phase,
 * with the row's batch, and the row's median is the median of those samples. */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --screen 0 in the two tests below: samples.csv in row order, one measurement a phase (with a
 * screen, a refined row's screen-cold and screen-hot samples come first, with its input's) */
static void test_samples_file(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("samples");
    char *out = tu_path(dir, "out");
    const char *env[] = {FAKE, NULL};
    const char *args[] = {"--variants", "reduce0,scan_kogge_stone", "--sizes", "1000,2^20", "--block-dims", "256",
                          "--min-samples", "5", "--timeout", "20ms", "--no-cupti", "--screen", "0", "--samples", "--out", out,
                          "--quiet", NULL};
    size_t n = 0;
    sweep_row *rows = run_and_read_rows(env, args, out, &n);
    FILE *f = fopen(tu_path(out, "samples.csv"), "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "variant,n,config,phase,batch,sample,time_ms\n");
    size_t lines = 0, expected = 0, ok_rows = 0;
    double xs[4096];
    for (size_t i = 0; i < n; i++) {
        if (rows[i].status != ROW_OK) continue;
        ok_rows++;
        for (int hot = 0; hot < 2; hot++) {
            const timing_stats *t = hot ? &rows[i].hot : &rows[i].cold;
            unsigned batch = hot ? rows[i].hot_batch : rows[i].cold_batch;
            size_t k = 0;
            for (; k < t->samples; k++) {
                assert_non_null(fgets(line, sizeof line, f));
                lines++;
                sample_line sl;
                parse_sample_line(line, &sl);
                assert_string_equal(sl.variant, rows[i].cfg.v->name);
                assert_int_equal(sl.n, rows[i].cfg.n);
                assert_string_equal(sl.phase, hot ? "hot" : "cold");
                assert_int_equal(sl.batch, batch);
                assert_int_equal(sl.idx, k);
                assert_true(k < sizeof xs / sizeof xs[0]);
                xs[k] = sl.ms;
            }
            expected += t->samples;
            qsort(xs, k, sizeof xs[0], cmp_dbl);
            double med = k % 2 ? xs[k / 2] : 0.5 * (xs[k / 2 - 1] + xs[k / 2]);
            assert_true(fabs(med - t->median) <= 1e-6 * t->median);
        }
    }
    assert_int_equal(ok_rows, 4);
    assert_null(fgets(line, sizeof line, f));
    assert_int_equal(lines, expected);
    fclose(f);
    free_rows(rows, n);
}

/* The spread rule: samples spread over SAMPLE_MAX_SPREAD are taken again with
 * twice the batch. The fake's SWEEP_FAKE_SPREAD samples spread about 2.3 %
 * (stdev) at the first batch, shrinking as 1/sqrt(batch). From samples.csv,
 * which keeps every attempt: each attempt but the last spread over the
 * limit, each doubled the batch, each retry shrank the spread to
 * SAMPLE_SPREAD_SHRINK of the try before, and the last is the row's (its
 * batch, its samples, its median), under the limit unless the retries ran
 * out or the spread stopped shrinking. */
static void test_spread_retry(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("spread");
    char *out = tu_path(dir, "out");
    const char *env[] = {FAKE, "SWEEP_FAKE_SPREAD=reduce_interleaved_divergent", NULL};
    const char *args[] = {"--variants", "reduce0,reduce1", "--sizes", "2^24", "--block-dims", "256",
                          "--min-samples", "10", "--timeout", "50ms", "--no-cupti", "--screen", "0", "--samples", "--out", out,
                          "--quiet", NULL};
    size_t n = 0;
    sweep_row *rows = run_and_read_rows(env, args, out, &n);
    assert_int_equal(n, 2);
    FILE *f = fopen(tu_path(out, "samples.csv"), "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    static double xs[8][1000];
    for (size_t i = 0; i < n; i++) {
        int spread = !strcmp(rows[i].cfg.v->name, "reduce_interleaved_divergent");
        assert_int_equal(rows[i].status, ROW_OK);
        for (int hot = 0; hot < 2; hot++) {
            const timing_stats *t = hot ? &rows[i].hot : &rows[i].cold;
            unsigned final = hot ? rows[i].hot_batch : rows[i].cold_batch;
            unsigned batches[8], nb = 0;
            size_t count[8] = {0};
            long pos = ftell(f);
            while (fgets(line, sizeof line, f)) {
                sample_line sl;
                parse_sample_line(line, &sl);
                if (strcmp(sl.variant, rows[i].cfg.v->name) || strcmp(sl.phase, hot ? "hot" : "cold")) {
                    fseek(f, pos, SEEK_SET);
                    break;
                }
                pos = ftell(f);
                if (nb == 0 || sl.idx == 0) {
                    assert_true(nb < SAMPLE_SPREAD_RETRIES + 1);
                    if (nb) assert_int_equal(sl.batch, 2 * batches[nb - 1]);
                    batches[nb++] = sl.batch;
                }
                assert_int_equal(sl.batch, batches[nb - 1]);
                assert_int_equal(sl.idx, count[nb - 1]);
                assert_true(count[nb - 1] < 1000);
                xs[nb - 1][count[nb - 1]++] = sl.ms;
            }
            assert_true(nb >= 1);
            double before = INFINITY;
            for (unsigned k = 0; k < nb; k++) {
                timing_stats ts;
                timing_stats_compute(xs[k], count[k], &ts);
                double spread = ts.stdev / ts.median;
                if (k + 1 < nb) assert_true(spread > SAMPLE_MAX_SPREAD && spread <= SAMPLE_SPREAD_SHRINK * before);
                else {
                    assert_true(spread <= SAMPLE_MAX_SPREAD || nb == SAMPLE_SPREAD_RETRIES + 1 ||
                                spread > SAMPLE_SPREAD_SHRINK * before);
                    assert_true(fabs(ts.median - t->median) <= 1e-6 * t->median);
                }
                before = spread;
            }
            assert_int_equal(batches[nb - 1], final);
            assert_int_equal(count[nb - 1], t->samples);
            if (spread) assert_true(nb >= 2); /* 2.3 % at the first batch */
            else assert_int_equal(nb, 1);     /* the fake's usual 0.6 % */
        }
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    free_rows(rows, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_under_working_directory),
        cmocka_unit_test(test_csv_content_and_metrics),
        cmocka_unit_test(test_hot_below_16_l2),
        cmocka_unit_test(test_usage_errors_write_nothing),
        cmocka_unit_test(test_existing_directory_needs_force),
        cmocka_unit_test(test_validation_failure_exit_1),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_sigterm),
        cmocka_unit_test(test_resume_refusals),
        cmocka_unit_test(test_list_and_dry_run),
        cmocka_unit_test(test_unheeded_value_noted),
        cmocka_unit_test(test_cpu_baseline),
        cmocka_unit_test(test_samples_file),
        cmocka_unit_test(test_spread_retry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
