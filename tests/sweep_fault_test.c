/* Faults and interruptions on the fake device layer (no GPU): a failed launch
 * or validation is a row with the CUDA error text and the run goes on; a
 * sticky error stops the run, keeps the rows and says why; an allocation
 * failure skips that size; configurations that cannot fit in device memory
 * are skipped rows; an interrupted run resumed ends with the configurations
 * of an uninterrupted one. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "kernels/registry.h"
#include "tests/sweep_rows_util.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
/* registry order (order = variant): reduce_interleaved_divergent (reduce0), reduce_cub, scan_kogge_stone */
#define SMALL "--variants", "reduce0,reduce_cub,scan_kogge_stone", "--sizes", "1K,4K", "--block-dims", "128,256", \
              "--order", "variant"
#define SMALL_ROWS 10 /* reduce0 2 x 2, reduce_cub 2 (CUB's own block dim), scan 2 x 2 */

/* dir/run.json, parsed. */
static json_t *load_run_json(const char *dir)
{
    char *p = tu_path(dir, "run.json");
    json_t *o = tu_load_json(p);
    free(p);
    return o;
}

/* The rows of dir/results.csv (the fake profiler's two metric columns unless no_metrics). */
static sweep_row *load_rows(const char *dir, size_t *n, int no_metrics)
{
    static const sweep_metric m[2] = {{"dram__bytes.sum", "byte"}, {"gpu__time_duration.sum", "ns"}};
    metric_columns mc = {m, no_metrics ? 0 : 2};
    return tu_load_rows(dir, mc, n);
}


static const sweep_row *find_row(const sweep_row *rows, size_t n, const char *variant, size_t size, unsigned block)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].cfg.v->name, variant) && rows[i].cfg.n == size &&
            (!block || rows[i].cfg.block_dim == block))
            return &rows[i];
    return NULL;
}

static void test_launch_and_validation_errors_are_rows(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("launch");
    const char *env[] = {FAKE, "SWEEP_FAKE_LAUNCH_ERROR=reduce_cub", "SWEEP_FAKE_ERROR=scan_kogge_stone", NULL};
    const char *args[] = {SMALL, "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 1); /* something failed */
    assert_non_null(strstr(r.err, "ERROR reduce_cub f32 sum n=1024"));
    assert_non_null(strstr(r.err, "6 configurations failed"));
    assert_null(strstr(r.err, "stopped early"));
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n, 0);
    assert_int_equal(n, SMALL_ROWS); /* the run went on past every failure */
    for (size_t i = 0; i < n; i++) {
        const char *v = rows[i].cfg.v->name;
        if (!strcmp(v, "reduce_cub")) {
            assert_int_equal(rows[i].status, ROW_ERROR);
            assert_non_null(strstr(rows[i].error, "(cudaErrorLaunchOutOfResources)"));
            assert_int_equal(rows[i].cold.samples, 0);
        } else if (!strcmp(v, "scan_kogge_stone")) {
            assert_int_equal(rows[i].status, ROW_ERROR);
            assert_non_null(strstr(rows[i].error, "(cudaErrorIllegalAddress)"));
        } else {
            assert_int_equal(rows[i].status, ROW_OK);
        }
    }
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_int_equal(json_integer_value(json_object_get(j, "failures")), 6);
    assert_true(json_is_true(json_object_get(j, "complete")));
    assert_true(json_is_null(json_object_get(j, "stop_reason")));
    json_decref(j);
}

static void test_sticky_error_stops_and_resumes(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("sticky");
    const char *env[] = {FAKE, "SWEEP_FAKE_STICKY=reduce_cub", NULL};
    const char *args[] = {SMALL, "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "sweep: stopped early: the CUDA context is lost (sticky error: "));
    assert_non_null(strstr(r.err, "--resume --out "));
    tu_result_free(&r);
    /* the rows before it and its own error row are flushed; nothing after it */
    size_t n;
    sweep_row *rows = load_rows(dir, &n, 0);
    assert_int_equal(n, 5);
    const sweep_row *cub = find_row(rows, n, "reduce_cub", 1024, 0);
    assert_non_null(cub);
    assert_int_equal(cub->status, ROW_ERROR);
    assert_non_null(strstr(cub->error, "cudaErrorIllegalAddress"));
    assert_null(find_row(rows, n, "scan_kogge_stone", 1024, 0));
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_true(json_is_false(json_object_get(j, "interrupted")));
    assert_non_null(strstr(json_string_value(json_object_get(j, "stop_reason")), "context is lost"));
    json_decref(j);

    /* a new process finishes the plan; the recorded failure still counts */
    const char *env2[] = {FAKE, NULL};
    const char *args2[] = {SMALL, "--out", dir, "--resume", "--quiet", NULL};
    r = tu_run(NULL, env2, args2);
    assert_int_equal(r.status, 1);
    tu_result_free(&r);
    rows = load_rows(dir, &n, 0);
    assert_int_equal(n, SMALL_ROWS);
    tu_free_rows(rows, n);
    j = load_run_json(dir);
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_decref(j);
}

static void test_out_of_memory_skips_the_size(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("oom");
    const char *env[] = {FAKE, "SWEEP_FAKE_OOM_N=4096", NULL};
    const char *args[] = {SMALL, "--out", dir, "--force", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0); /* skipped, not failed */
    assert_non_null(strstr(r.err, "SKIPPED reduce_interleaved_divergent f32 sum n=4096 block=128"));
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n, 0);
    assert_int_equal(n, SMALL_ROWS);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].cfg.n == 1024) {
            assert_int_equal(rows[i].status, ROW_OK);
            continue;
        }
        assert_int_equal(rows[i].status, ROW_SKIPPED);
        assert_non_null(rows[i].skip_reason);
        assert_non_null(strstr(rows[i].skip_reason, "out of device memory"));
    }
    /* the first one at 4K says what CUDA said; the next of that variant refers to it */
    const sweep_row *first = find_row(rows, n, "reduce_interleaved_divergent", 4096, 128);
    const sweep_row *next = find_row(rows, n, "reduce_interleaved_divergent", 4096, 256);
    assert_non_null(strstr(first->skip_reason, "(cudaErrorMemoryAllocation)"));
    assert_non_null(strstr(next->skip_reason, "out of device memory at n=2^12 for this variant and dtype"));
    tu_free_rows(rows, n);
}


/* reduce_cub and scan_cub at `sizes` and `dtypes` on a fake device of `mem`
 * (SWEEP_FAKE_MEM_BYTES=...): exit 0, `says` on stderr, the rows. */
static sweep_row *run_on_memory(const char *dir, const char *mem, const char *sizes, const char *dtypes,
                                const char *says, size_t *n)
{
    const char *env[] = {FAKE, mem, NULL};
    const char *args[] = {"--variants", "reduce_cub,scan_cub", "--sizes", sizes, "--dtype", dtypes,
                          "--min-samples", "2", "--out", dir, "--force", NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    if (!strstr(r.err, says)) fail_msg("stderr does not say '%s': %s", says, r.err);
    tu_result_free(&r);
    return load_rows(dir, n, 0);
}

/* 2 GiB: 1.75 GiB usable. At 2^27 f32 a reduction (512 MiB + the 1 GiB
 * validation allowance + the 120 MiB flush buffer) fits, a scan (1 GiB +
 * 1 GiB + 120 MiB) does not. */
static void test_memory_check_skips_what_cannot_fit(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("fit");
    size_t n;
    sweep_row *rows = run_on_memory(dir, "SWEEP_FAKE_MEM_BYTES=2G", "1K,2^27", "f32",
                                    "1 configuration does not fit in device 0's memory: skipped", &n);
    assert_int_equal(n, 4);
    assert_int_equal(find_row(rows, n, "reduce_cub", 1u << 27, 0)->status, ROW_OK);
    assert_int_equal(find_row(rows, n, "scan_cub", 1024, 0)->status, ROW_OK);
    const sweep_row *big = find_row(rows, n, "scan_cub", 1u << 27, 0);
    assert_int_equal(big->status, ROW_SKIPPED);
    assert_non_null(strstr(big->skip_reason, "does not fit in device memory: needs 2.1 GiB, the device has 2.0 GiB free"));
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "plan"), "skipped")), 1);
    json_decref(j);
}

/* 2^34 on an 80 GiB device: an f32 reduction (64 GiB + 1 GiB allowance +
 * the flush buffer) fits and runs; a scan (128 GiB + ...) and an f64
 * reduction (128 GiB + ...) are skipped rows naming both numbers; the
 * small sizes all run. No OOM rows: nothing that does not fit is tried. */
static void test_big_n_skips_what_the_device_cannot_hold(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("bign");
    size_t n;
    sweep_row *rows = run_on_memory(dir, "SWEEP_FAKE_MEM_BYTES=80G", "1K,2^34", "f32,f64",
                                    "3 configurations do not fit in device 0's memory: skipped", &n);
    assert_int_equal(n, 8);
    size_t ok = 0, skipped = 0, big = (size_t)1 << 34;
    for (size_t i = 0; i < n; i++) {
        const sweep_row *x = &rows[i];
        int fits = x->cfg.n < big || (!strcmp(x->cfg.v->name, "reduce_cub") && x->cfg.dtype == DTYPE_F32);
        if (fits) {
            if (x->status != ROW_OK)
                fail_msg("%s n=%zu: status %d, expected ok", x->cfg.v->name, x->cfg.n, (int)x->status);
            ok++;
            continue;
        }
        assert_int_equal(x->status, ROW_SKIPPED);
        assert_non_null(strstr(x->skip_reason, "does not fit in device memory: needs "));
        assert_non_null(strstr(x->skip_reason, " GiB, the device has 80.0 GiB free"));
        skipped++;
    }
    assert_int_equal(ok, 5);
    assert_int_equal(skipped, 3);
    tu_free_rows(rows, n);
}

/* What a run covered (tests/sweep_rows_util.h). */
static char *coverage(const char *dir)
{
    size_t n;
    sweep_row *rows = load_rows(dir, &n, 1);
    char *text = tu_coverage_text(rows, n);
    tu_free_rows(rows, n);
    return text;
}

static void interrupt_resume_equals_uninterrupted(int sig)
{
    const char *base = tu_tempdir("intr");
    const char *dir = tu_path(base, "run");
    const char *whole = tu_path(base, "whole");
    /* via a glob, reduce_atomic_* f32 max rows are skipped with their reason */
    const char *plan[] = {"--variants", "reduce_*", "--sizes", "1K,4K", "--block-dims", "128,256", "--op",
                          "sum,max", "--no-cupti", "--quiet"};
    const char *args[16], *args_whole[16], *args_resume[16];
    size_t k = 0;
    for (; k < sizeof plan / sizeof plan[0]; k++) args[k] = args_whole[k] = args_resume[k] = plan[k];
    args[k] = args_resume[k] = "--out";
    args_whole[k] = "--out";
    args[k + 1] = args_resume[k + 1] = dir;
    args_whole[k + 1] = whole;
    args[k + 2] = args_whole[k + 2] = NULL;
    args_resume[k + 2] = "--resume";
    args_resume[k + 3] = NULL;

    const char *slow[] = {FAKE, "SWEEP_FAKE_DELAY_MS=30", NULL};
    char o[4200], e[4200];
    snprintf(o, sizeof o, "%s/stdout", base);
    snprintf(e, sizeof e, "%s/stderr", base);
    pid_t pid = tu_spawn(NULL, slow, args, o, e);
    tu_wait_for_rows(dir, 5, pid);
    kill(pid, sig);
    int status = tu_wait(pid);
    assert_int_equal(status, 128 + sig);
    json_t *j = load_run_json(dir);
    assert_true(json_is_true(json_object_get(j, "interrupted")));
    assert_true(json_is_false(json_object_get(j, "complete")));
    json_decref(j);

    const char *fast[] = {FAKE, NULL};
    tu_result r = tu_run(NULL, fast, args_resume);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    r = tu_run(NULL, fast, args_whole);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);

    char *a = coverage(dir), *b = coverage(whole);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "reduce_atomic_global f32 max n=1024 block=128 none | skipped | max/min only"));
    free(a);
    free(b);
    j = load_run_json(dir);
    assert_true(json_is_false(json_object_get(j, "interrupted")));
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_decref(j);
}

static void test_sigint_resume_equals_uninterrupted(void **state)
{
    (void)state;
    interrupt_resume_equals_uninterrupted(SIGINT);
}

static void test_sigterm_resume_equals_uninterrupted(void **state)
{
    (void)state;
    interrupt_resume_equals_uninterrupted(SIGTERM);
}

/* A run killed from outside (SIGKILL: no handler, no end written) still
 * leaves a run.json that says how far it got: the rows results.csv held at
 * its last rewrite while the run went on, the time, "unfinished". --resume
 * then ends it like any run. */
static void test_killed_run_leaves_its_progress_in_run_json(void **state)
{
    (void)state;
    const char *base = tu_tempdir("killed");
    const char *dir = tu_path(base, "run");
    const char *args[] = {"--variants", "reduce_*", "--sizes", "1K,4K", "--block-dims", "128,256", "--op", "sum,max",
                          "--no-cupti", "--quiet", "--out", dir, NULL};
    const char *resume[] = {"--variants", "reduce_*", "--sizes", "1K,4K", "--block-dims", "128,256", "--op",
                            "sum,max", "--no-cupti", "--quiet", "--out", dir, "--resume", NULL};
    const char *slow[] = {FAKE, "SWEEP_FAKE_DELAY_MS=30", "SWEEP_FAKE_CHECKPOINT_S=0.2", NULL};
    char o[4200], e[4200];
    snprintf(o, sizeof o, "%s/stdout", base);
    snprintf(e, sizeof e, "%s/stderr", base);
    pid_t pid = tu_spawn(NULL, slow, args, o, e);
    tu_wait_for_rows(dir, 8, pid);
    struct timespec pause = {0, 500 * 1000 * 1000}; /* past at least one rewrite after those rows */
    nanosleep(&pause, NULL);
    kill(pid, SIGKILL);
    assert_int_equal(tu_wait(pid), 128 + SIGKILL);

    json_t *j = load_run_json(dir);
    size_t n_csv;
    sweep_row *rows = load_rows(dir, &n_csv, 1);
    json_int_t rows_json = json_integer_value(json_object_get(j, "rows"));
    assert_true(rows_json >= 8);           /* the rows before the pause, at least */
    assert_true((size_t)rows_json <= n_csv); /* never more than results.csv holds */
    assert_true(json_real_value(json_object_get(j, "wall_time_s")) > 0.2);
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_true(json_is_false(json_object_get(j, "interrupted")));
    const char *why = json_string_value(json_object_get(j, "stop_reason"));
    assert_non_null(why);
    assert_non_null(strstr(why, "unfinished"));
    json_decref(j);
    tu_free_rows(rows, n_csv);

    const char *fast[] = {FAKE, NULL};
    tu_result r = tu_run(NULL, fast, resume);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    j = load_run_json(dir);
    assert_true(json_is_true(json_object_get(j, "complete")));
    assert_true(json_is_null(json_object_get(j, "stop_reason")));
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_and_validation_errors_are_rows),
        cmocka_unit_test(test_killed_run_leaves_its_progress_in_run_json),
        cmocka_unit_test(test_sticky_error_stops_and_resumes),
        cmocka_unit_test(test_out_of_memory_skips_the_size),
        cmocka_unit_test(test_memory_check_skips_what_cannot_fit),
        cmocka_unit_test(test_big_n_skips_what_the_device_cannot_hold),
        cmocka_unit_test(test_sigint_resume_equals_uninterrupted),
        cmocka_unit_test(test_sigterm_resume_equals_uninterrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
