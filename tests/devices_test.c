/* --devices on the fake device layer (SWEEP_FAKE_DEVICES=N fake devices, no
 * GPU): every configuration runs exactly once across the workers; a worker
 * killed with SIGKILL mid-run loses none of its rows and its configuration is
 * dealt again (or, with no worker left, --resume finishes the run); SIGINT to
 * the parent leaves a consistent results.csv that --resume --devices all
 * completes; a run over 3 devices covers what a single-device run covers. */
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
#include "tests/sweep_rows_util.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
#define SMALL "--variants", "reduce0,reduce_cub,scan_kogge_stone", "--sizes", "1K,4K", "--block-dims", "128,256"
#define SMALL_ROWS 10
/* a bigger plan, for interrupting midway */
#define MORE "--variants", "reduce0,reduce_cub,scan_kogge_stone", "--sizes", "1K,4K,16K,64K", "--block-dims", \
             "128,256", "--op", "sum,max"

static sweep_row *load_rows(const char *dir, size_t *n)
{
    metric_columns none = {NULL, 0};
    return tu_load_rows(dir, none, n);
}


static json_t *load_run_json(const char *dir)
{
    char *p = tu_path(dir, "run.json");
    json_t *o = tu_load_json(p);
    free(p);
    return o;
}

/* No configuration twice. */
static void assert_no_duplicates(const sweep_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (config_same_axes(&rows[i].cfg, &rows[j].cfg)) {
                char label[256];
                config_label(&rows[i].cfg, label, sizeof label);
                fail_msg("%s is in results.csv twice (rows %zu and %zu)", label, i + 1, j + 1);
            }
}

/* Rows whose device column names ordinal d. */
static size_t rows_of_device(const sweep_row *rows, size_t n, int d)
{
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%d:", d);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += !strncmp(rows[i].device, prefix, strlen(prefix));
    return k;
}

static json_int_t device_configs(json_t *run, size_t i)
{
    return json_integer_value(json_object_get(json_array_get(json_object_get(run, "devices"), i), "configurations"));
}

static void test_every_configuration_once(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("dev-once");
    const char *env[] = {FAKE, "SWEEP_FAKE_DEVICES=3", "SWEEP_FAKE_DELAY_MS=20", NULL};
    const char *args[] = {SMALL, "--devices", "all", "--no-cupti", "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    assert_int_equal(n, SMALL_ROWS);
    assert_no_duplicates(rows, n);
    json_t *j = load_run_json(dir);
    assert_int_equal(json_array_size(json_object_get(j, "devices")), 3);
    json_int_t sum = 0;
    for (int d = 0; d < 3; d++) {
        json_int_t ran = device_configs(j, (size_t)d);
        assert_true(ran > 0); /* every worker ran some */
        assert_int_equal(rows_of_device(rows, n, d), ran);
        sum += ran;
    }
    assert_int_equal(sum, SMALL_ROWS);
    assert_non_null(strstr(rows[0].device, ":fake device (no GPU used):0000:0"));
    assert_true(json_is_true(json_object_get(j, "complete")));
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")), SWEEP_SCHEMA_VERSION);
    json_decref(j);
    tu_free_rows(rows, n);
}

static void test_killed_worker_is_requeued(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("dev-kill");
    const char *env[] = {FAKE, "SWEEP_FAKE_DEVICES=3", "SWEEP_FAKE_DELAY_MS=20", "SWEEP_FAKE_DIE_AFTER=1", NULL};
    const char *args[] = {SMALL, "--devices", "all", "--no-cupti", "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 1); /* a device was lost: said in the exit status */
    assert_non_null(strstr(r.err, "sweep: device 1 lost: worker killed by signal 9"));
    assert_non_null(strstr(r.err, "dealt to another device"));
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    assert_int_equal(n, SMALL_ROWS); /* the run completed on the others */
    assert_no_duplicates(rows, n);
    json_t *j = load_run_json(dir);
    assert_true(json_is_true(json_object_get(j, "complete")));
    assert_int_equal(json_integer_value(json_object_get(j, "worker_faults")), 1);
    json_t *dev1 = json_array_get(json_object_get(j, "devices"), 1);
    assert_non_null(strstr(json_string_value(json_object_get(dev1, "fault")), "signal 9"));
    /* it died in its first piece (the 2nd warm-up: its second configuration's screen): no row of that piece
     * was finished, every one is dealt again */
    assert_int_equal(device_configs(j, 1), 0);
    assert_int_equal(rows_of_device(rows, n, 1), 0);
    json_decref(j);
    tu_free_rows(rows, n);
}

static void test_last_worker_killed_then_resume(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("dev-kill-resume");
    /* the 3rd warm-up: after its first piece (order = variant: one variant at one input, at most 2
     * configurations, each with one warm-up: the refine stage has none) */
    const char *env[] = {FAKE, "SWEEP_FAKE_DEVICES=2", "SWEEP_FAKE_DIE_AFTER=2", NULL};
    const char *args[] = {SMALL, "--order", "variant", "--devices", "1", "--no-cupti", "--out", dir, "--force",
                          "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "sweep: device 1 lost"));
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    size_t finished = n;
    assert_true(finished >= 1 && finished <= 2); /* its first piece's rows, kept */
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_int_equal(json_integer_value(json_object_get(j, "left_for_resume")), SMALL_ROWS - finished);
    json_decref(j);
    /* on another device */
    const char *env2[] = {FAKE, "SWEEP_FAKE_DEVICES=2", NULL};
    const char *resume[] = {SMALL, "--order", "variant", "--devices", "0", "--no-cupti", "--out", dir, "--resume",
                            "--quiet", NULL};
    r = tu_run(NULL, env2, resume);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    rows = load_rows(dir, &n);
    assert_int_equal(n, SMALL_ROWS);
    assert_no_duplicates(rows, n);
    assert_int_equal(rows_of_device(rows, n, 1), finished);
    assert_int_equal(rows_of_device(rows, n, 0), SMALL_ROWS - finished);
    tu_free_rows(rows, n);
}

/* What a run covered (tests/sweep_rows_util.h). */
static char *coverage(const char *dir)
{
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    char *text = tu_coverage_text(rows, n);
    tu_free_rows(rows, n);
    return text;
}

static void test_sigint_then_resume_all(void **state)
{
    (void)state;
    const char *base = tu_tempdir("dev-intr");
    const char *dir = tu_path(base, "run"), *whole = tu_path(base, "whole");
    const char *slow[] = {FAKE, "SWEEP_FAKE_DEVICES=2", "SWEEP_FAKE_DELAY_MS=40", NULL};
    const char *args[] = {MORE, "--devices", "all", "--no-cupti", "--out", dir, "--quiet", NULL};
    char o[4200], e[4200];
    snprintf(o, sizeof o, "%s/stdout", base);
    snprintf(e, sizeof e, "%s/stderr", base);
    pid_t pid = tu_spawn(NULL, slow, args, o, e);
    tu_wait_for_rows(dir, 4, pid);
    kill(pid, SIGINT);
    assert_int_equal(tu_wait(pid), 128 + SIGINT);
    char *text = tu_read_file(tu_path(dir, "results.csv"));
    assert_non_null(text);
    assert_int_equal(text[strlen(text) - 1], '\n'); /* no torn line */
    free(text);
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    assert_true(n >= 4);
    assert_no_duplicates(rows, n);
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_true(json_is_true(json_object_get(j, "interrupted")));
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_int_equal(json_integer_value(json_object_get(j, "rows")), n);
    json_decref(j);

    const char *fast[] = {FAKE, "SWEEP_FAKE_DEVICES=3", NULL};
    const char *resume[] = {MORE, "--devices", "all", "--no-cupti", "--out", dir, "--resume", "--quiet", NULL};
    tu_result r = tu_run(NULL, fast, resume);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    const char *one[] = {MORE, "--no-cupti", "--out", whole, "--quiet", NULL};
    r = tu_run(NULL, fast, one);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    rows = load_rows(dir, &n);
    assert_no_duplicates(rows, n);
    tu_free_rows(rows, n);
    char *a = coverage(dir), *b = coverage(whole);
    assert_string_equal(a, b);
    free(a);
    free(b);
    j = load_run_json(dir);
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_decref(j);
}

/* --time-limit: no input is started that would end after the limit (the
 * first always starts); the run stops with every finished row, exit 75 and
 * run.json saying so; --resume finishes what a run without a limit covers.
 * On several devices and on one. */
static void check_time_limit(const char *name, const char *devices)
{
    const char *base = tu_tempdir(name);
    const char *dir = tu_path(base, "run"), *whole = tu_path(base, "whole");
    const char *slow[] = {FAKE, "SWEEP_FAKE_DEVICES=2", "SWEEP_FAKE_DELAY_MS=20", NULL};
    const char *multi[] = {MORE, "--devices", devices, "--no-cupti", "--time-limit", "400ms", "--out", dir, "--quiet",
                           NULL};
    const char *one[] = {MORE, "--no-cupti", "--time-limit", "400ms", "--out", dir, "--quiet", NULL};
    tu_result r = tu_run(NULL, slow, devices ? multi : one);
    if (r.status != 75) fail_msg("exit %d, not 75: %s", r.status, r.err);
    assert_non_null(strstr(r.err, "stopped at --time-limit 0.4 s with"));
    assert_non_null(strstr(r.err, "--resume --out"));
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    assert_true(n > 0); /* the first input always runs */
    assert_no_duplicates(rows, n);
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_non_null(strstr(json_string_value(json_object_get(j, "stop_reason")), "--time-limit"));
    assert_int_equal(json_integer_value(json_object_get(j, "rows")), n);
    json_decref(j);
    const char *fast[] = {FAKE, "SWEEP_FAKE_DEVICES=2", NULL};
    const char *resume[] = {MORE, "--no-cupti", "--out", dir, "--resume", "--quiet", NULL};
    r = tu_run(NULL, fast, resume);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    const char *plain[] = {MORE, "--no-cupti", "--out", whole, "--quiet", NULL};
    r = tu_run(NULL, fast, plain);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    char *a = coverage(dir), *b = coverage(whole);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static void test_time_limit_then_resume(void **state)
{
    (void)state;
    check_time_limit("dev-limit", "all");
    check_time_limit("one-limit", NULL);
}

static void test_three_devices_cover_one(void **state)
{
    (void)state;
    const char *base = tu_tempdir("dev-same");
    const char *multi = tu_path(base, "multi"), *single = tu_path(base, "single");
    const char *env[] = {FAKE, "SWEEP_FAKE_DEVICES=3", NULL};
    const char *a1[] = {MORE, "--devices", "3,0,1", "--no-cupti", "--out", multi, "--quiet", NULL};
    const char *a2[] = {MORE, "--no-cupti", "--out", single, "--quiet", NULL};
    tu_result r = tu_run(NULL, env, a1); /* 3 is not a device of 3: bad usage, refused before any row */
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--devices: 3 is out of range (this host has 3 devices: 0..2)"));
    assert_false(tu_exists(multi));
    tu_result_free(&r);
    const char *a3[] = {MORE, "--devices", "2,0,1", "--no-cupti", "--out", multi, "--force", "--quiet", NULL};
    r = tu_run(NULL, env, a3);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    r = tu_run(NULL, env, a2);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    /* the report lists each device's copy bandwidth and rows; chart titles say how many ran */
    char *report = tu_read_file(tu_path(multi, "report.md"));
    assert_non_null(report);
    for (int d = 0; d < 3; d++) {
        char key[32];
        snprintf(key, sizeof key, "| device %d |", d);
        if (!strstr(report, key)) fail_msg("no '%s' row in report.md", key);
    }
    assert_non_null(strstr(report, "measured copy"));
    free(report);
    char *commands = tu_read_file(tu_path(multi, "plots-data/commands.sh"));
    if (commands) assert_non_null(strstr(commands, "×3"));
    free(commands);
    char *x = coverage(multi), *y = coverage(single);
    assert_string_equal(x, y);
    free(x);
    free(y);
    size_t n;
    sweep_row *rows = load_rows(single, &n);
    assert_int_equal(rows_of_device(rows, n, 0), n); /* a single-device run names its device too */
    tu_free_rows(rows, n);
}

/* One CSV line with its field `at` (0-based; no quotes in it) as an older
 * schema's coarse: "items_per_thread=4" -> "4", "" -> "1". */
static size_t axes_as_coarse(const char *line, size_t len, size_t at, char *out)
{
    size_t field = 0, k = 0;
    int quoted = 0;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (field == at && !quoted && c != ',') {
            size_t end = i;
            while (end < len && line[end] != ',') end++;
            const char *eq = memchr(line + i, '=', end - i);
            const char *from = eq ? eq + 1 : line + i;
            memcpy(out + k, from, (size_t)(line + end - from));
            k += (size_t)(line + end - from);
            i = end - 1;
            continue;
        }
        if (field == at && c == ',' && !quoted && (i == 0 || line[i - 1] == ',')) out[k++] = '1'; /* empty */
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted) field++;
        out[k++] = c;
    }
    return k;
}

/* dir's run as an older build wrote it: schema 2, no device column, the
 * variants' own axes as coarse, first `keep` rows. */
static void make_schema2(const char *dir, size_t keep)
{
    char *csv = tu_path(dir, "results.csv"), *text = tu_read_file(csv);
    assert_non_null(text);
    size_t len = strlen(text), k = 0, line = 0;
    char *out = calloc(1, 2 * len + 16); /* an empty axes cell grows to "1" */
    /* the device column and those after it (schema 4's conditions): none holds a comma */
    size_t trailing = 1;
    for (const char *h = strstr(text, ",device,"); h && *h != '\n'; h++) trailing += *h == ',';
    trailing--;
    for (char *p = text; *p && line <= keep; line++) {
        char *eol = strchr(p, '\n'), *comma = eol;
        for (size_t t = 0; t < trailing; t++)
            do comma--;
            while (comma > p && *comma != ',');
        if (line == 0) { /* the header: axes back to coarse */
            const char *axes = strstr(p, ",axes,");
            assert_true(axes && axes < comma);
            k += (size_t)sprintf(out + k, "%.*s,coarse%.*s", (int)(axes - p), p, (int)(comma - axes - 5), axes + 5);
        } else {
            k += axes_as_coarse(p, (size_t)(comma - p), 8, out + k);
        }
        out[k++] = '\n';
        p = eol + 1;
    }
    assert_int_equal(tu_write_file(csv, out), 0);
    free(out);
    free(text);
    char *jp = tu_path(dir, "run.json");
    json_t *j = tu_load_json(jp);
    json_object_set_new(j, "schema_version", json_integer(2));
    assert_int_equal(json_dump_file(j, jp, JSON_INDENT(2)), 0);
    json_decref(j);
}

static void test_resume_schema2_run(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("dev-schema2");
    const char *env[] = {FAKE, "SWEEP_FAKE_DEVICES=2", NULL};
    const char *args[] = {SMALL, "--no-cupti", "--out", dir, "--force", "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    make_schema2(dir, 4);
    const char *resume[] = {SMALL, "--devices", "all", "--no-cupti", "--out", dir, "--resume", "--quiet", NULL};
    r = tu_run(NULL, env, resume);
    if (r.status != 0) fail_msg("resume: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    size_t n;
    sweep_row *rows = load_rows(dir, &n);
    assert_int_equal(n, SMALL_ROWS);
    assert_no_duplicates(rows, n);
    for (size_t i = 0; i < n; i++) assert_true(rows[i].device[0]); /* the old rows: run.json's device */
    assert_true(rows_of_device(rows, n, 0) >= 4);
    tu_free_rows(rows, n);
    json_t *j = load_run_json(dir);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")), SWEEP_SCHEMA_VERSION);
    json_decref(j);
}

static void test_bad_usage(void **state)
{
    (void)state;
    const char *env[] = {FAKE, NULL};
    const char *bad[][4] = {{"--devices", "0,0", NULL, NULL},
                            {"--devices", "x", NULL, NULL},
                            {"--devices", "all", "--device", "1"},
                            {"--devices", "all", "--samples", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {SMALL, bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL};
        tu_result r = tu_run(NULL, env, args);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "--device"));
        tu_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_configuration_once),
        cmocka_unit_test(test_killed_worker_is_requeued),
        cmocka_unit_test(test_last_worker_killed_then_resume),
        cmocka_unit_test(test_sigint_then_resume_all),
        cmocka_unit_test(test_three_devices_cover_one),
        cmocka_unit_test(test_time_limit_then_resume),
        cmocka_unit_test(test_resume_schema2_run),
        cmocka_unit_test(test_bad_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
