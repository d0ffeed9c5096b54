/* The profile phase in batches (harness/device/profiler.h, 2b) end to end on the
 * fake device layer (no GPU): the same rows in the same order as a run
 * without metrics, every valid row with its metric values, one batch per
 * run of configurations on the same buffers (kind, dtype, n) and its
 * boundaries where that changes (with --order size a batch spans variants);
 * a failing batch leaves its rows with
 * the profile error and empty metrics; an interrupt with a batch half full
 * loses none of its rows, and --resume then completes the run. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "tests/sweep_rows_util.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
/* three variants, two sizes; reduce_coarsened has 2 x 3 configurations a group */
#define PLAN                                                                                                    \
    "--variants", "reduce0,reduce_coarsened,scan_kogge_stone", "--sizes", "1K,4K", "--block-dims", "128,256", \
        "--coarse", "1,2,4", "--min-samples", "2", "--quiet"

static const sweep_metric fake_metrics[] = {{"dram__bytes.sum", "byte"}, {"gpu__time_duration.sum", "ns"}};
static const metric_columns with_metrics = {fake_metrics, 2};
static const metric_columns no_metrics = {NULL, 0};

static sweep_row *run_rows(const char *const *env, const char *out, int metrics, const char *extra, int want_exit,
                           size_t *n)
{
    const char *args[24] = {PLAN};
    size_t k = 0;
    while (args[k]) k++;
    args[k++] = "--out";
    args[k++] = out;
    if (!metrics) args[k++] = "--no-cupti";
    if (extra) args[k++] = extra;
    args[k] = NULL;
    tu_result r = tu_run(NULL, env, args);
    if (r.status != want_exit) fail_msg("sweep exit %d (want %d): %s", r.status, want_exit, r.err);
    tu_result_free(&r);
    return tu_load_rows(out, metrics ? with_metrics : no_metrics, n);
}

static void label_of(const sweep_row *row, char *buf, size_t len) { config_label(&row->cfg, buf, len); }

/* The fake profiler's values: the variant's bytes, then 1. */
static void expect_fake_metrics(const sweep_row *row)
{
    char label[256];
    label_of(row, label, sizeof label);
    kernel_args a;
    config_kernel_args(&row->cfg, &a);
    double bytes = row->cfg.v->bytes_moved(&a);
    if (row->plain.metrics[0] != bytes || row->plain.metrics[1] != 1.0)
        fail_msg("%s: metrics %g, %g (want %g, 1)", label, row->plain.metrics[0], row->plain.metrics[1], bytes);
}

/* The same buffers: kind, dtype and n (the input's seed is the dtype's and n's). */
static int same_group(const sweep_row *x, const sweep_row *y)
{
    return x->cfg.v->kind == y->cfg.v->kind && x->cfg.dtype == y->cfg.dtype && x->cfg.n == y->cfg.n;
}

/* The log's batches against the valid rows, in order: slot by slot the same
 * configuration, a batch's slots one group, a new batch exactly where the
 * group changes. */
static size_t check_batches(const char *log, const sweep_row *rows, size_t n)
{
    char *text = tu_read_file(log);
    assert_non_null(text);
    size_t next = 0, batches = 0, in_batch = 0, batch_len = 0, mixed = 0;
    int batch_mixed = 0;
    const sweep_row *first = NULL;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t count, k, sn;
        unsigned block;
        char name[128];
        if (sscanf(line, "batch\t%zu", &count) == 1) {
            assert_int_equal(in_batch, batch_len); /* the previous batch had its slots */
            batches++;
            batch_len = count;
            in_batch = 0;
            continue;
        }
        assert_int_equal(sscanf(line, "slot\t%zu\t%127s\t%zu\t%u", &k, name, &sn, &block), 4);
        while (next < n && rows[next].status != ROW_OK) next++;
        assert_true(next < n);
        const sweep_row *r = &rows[next++];
        assert_int_equal(k, in_batch);
        assert_string_equal(name, r->cfg.v->name);
        assert_int_equal(sn, r->cfg.n);
        assert_int_equal(block, r->cfg.block_dim);
        if (k == 0) {
            if (first) assert_false(same_group(first, r)); /* a new batch: a new group */
            first = r;
        } else {
            assert_true(same_group(first, r));
            if (r->cfg.v != first->cfg.v && !batch_mixed) mixed++, batch_mixed = 1; /* a batch of several variants */
        }
        if (k == 0) batch_mixed = 0;
        in_batch++;
    }
    assert_int_equal(in_batch, batch_len);
    while (next < n && rows[next].status != ROW_OK) next++;
    assert_int_equal(next, n); /* every valid row was profiled */
    assert_true(batches >= 2);
    free(text);
    printf("profile batches: %zu for %zu rows, %zu of several variants\n", batches, n, mixed);
    return mixed;
}

/* base/batches.log, and the knob that has the fake profiler log its batches there. */
static const char *batch_log(const char *base, char *knob, size_t len)
{
    const char *log = tu_path(base, "batches.log");
    snprintf(knob, len, "SWEEP_FAKE_PROFILE_LOG=%s", log);
    return log;
}

static void test_batches_follow_groups(void **state)
{
    (void)state;
    const char *base = tu_tempdir("batch");
    char knob[4200];
    const char *log = batch_log(base, knob, sizeof knob);
    /* reduce0's validation fails: its rows are not profiled, and still keep their place */
    const char *env[] = {FAKE, knob, "SWEEP_FAKE_FAIL=reduce_interleaved_divergent", NULL};
    size_t n1, n0;
    sweep_row *batched = run_rows(env, tu_path(base, "metrics"), 1, NULL, 1, &n1);
    const char *env0[] = {FAKE, "SWEEP_FAKE_FAIL=reduce_interleaved_divergent", NULL};
    sweep_row *plain = run_rows(env0, tu_path(base, "plain"), 0, NULL, 1, &n0);

    assert_int_equal(n1, n0);
    size_t ok = 0, invalid = 0;
    for (size_t i = 0; i < n1; i++) {
        char a[256], b[256];
        label_of(&batched[i], a, sizeof a);
        label_of(&plain[i], b, sizeof b);
        assert_string_equal(a, b); /* the same order */
        assert_int_equal(batched[i].status, plain[i].status);
        if (batched[i].status == ROW_OK) {
            ok++;
            if (batched[i].error) fail_msg("%s: error '%s'", a, batched[i].error);
            expect_fake_metrics(&batched[i]);
        } else {
            invalid++;
            assert_true(isnan(batched[i].plain.metrics[0]) && isnan(batched[i].plain.metrics[1]));
        }
    }
    assert_true(ok >= 12 && invalid >= 2);
    check_batches(log, batched, n1);
    tu_free_rows(batched, n1);
    tu_free_rows(plain, n0);
}

/* --order size: the same rows as by variant, every variant's reductions at
 * one n in one batch (reduce0's 2 and reduce_coarsened's 6 at 1K, then at
 * 4K), each slot its own configuration, every valid row with its metrics. */
static void test_batches_span_variants_by_size(void **state)
{
    (void)state;
    const char *base = tu_tempdir("batchsize");
    char knob[4200];
    const char *log = batch_log(base, knob, sizeof knob);
    const char *env[] = {FAKE, knob, NULL};
    size_t ns, nv;
    sweep_row *bysize = run_rows(env, tu_path(base, "size"), 1, "--order=size", 0, &ns);
    const char *env0[] = {FAKE, NULL};
    sweep_row *byvariant = run_rows(env0, tu_path(base, "variant"), 1, NULL, 0, &nv);
    assert_int_equal(ns, nv);
    for (size_t i = 0; i < ns; i++) {
        size_t j = 0;
        while (j < nv && !config_same_axes(&bysize[i].cfg, &byvariant[j].cfg)) j++;
        assert_true(j < nv); /* the same configurations */
        assert_int_equal(bysize[i].status, ROW_OK);
        if (bysize[i].error) fail_msg("row %zu: error '%s'", i, bysize[i].error);
        expect_fake_metrics(&bysize[i]);
        if (i) assert_true(bysize[i - 1].cfg.n <= bysize[i].cfg.n || bysize[i - 1].cfg.v->kind != bysize[i].cfg.v->kind);
    }
    assert_int_equal(check_batches(log, bysize, ns), 2); /* the reductions at 1K and at 4K */
    tu_free_rows(bysize, ns);
    tu_free_rows(byvariant, nv);
}

static void test_failed_batch_marks_its_rows(void **state)
{
    (void)state;
    const char *base = tu_tempdir("batchfail");
    const char *env[] = {FAKE, "SWEEP_FAKE_PROFILER=batch-fail", NULL};
    size_t n;
    sweep_row *rows = run_rows(env, tu_path(base, "out"), 1, NULL, 0, &n);
    assert_true(n >= 12);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].status, ROW_OK); /* as for a failing profile phase one at a time */
        assert_non_null(rows[i].error);
        assert_string_equal(rows[i].error, "profile: the fake profiler was told to fail its batches [fake]");
        assert_true(isnan(rows[i].plain.metrics[0]) && isnan(rows[i].plain.metrics[1]));
    }
    tu_free_rows(rows, n);
}

static void test_interrupt_mid_batch_loses_no_row(void **state)
{
    (void)state;
    const char *base = tu_tempdir("batchintr");
    const char *dir = tu_path(base, "run"), *whole = tu_path(base, "whole");
    /* by size, the first piece is the reductions at 1K (reduce0's 2 and reduce_coarsened's 6), the next
     * those at 4K: the 10th queued configuration is the 2nd of that piece, which is not finished (its
     * profile stage was cut short), so its rows are not kept; the first piece's 8 are */
    const char *env[] = {FAKE, "SWEEP_FAKE_INTERRUPT_QUEUED=10", NULL};
    size_t n, nw;
    sweep_row *rows = run_rows(env, dir, 1, NULL, 128 + SIGINT, &n);
    const char *env_plain[] = {FAKE, NULL};
    sweep_row *all = run_rows(env_plain, whole, 1, NULL, 0, &nw);
    assert_int_equal(n, 8);
    for (size_t i = 0; i < n; i++) {
        char a[256], b[256];
        label_of(&rows[i], a, sizeof a);
        label_of(&all[i], b, sizeof b);
        assert_string_equal(a, b);
        assert_int_equal(rows[i].status, ROW_OK);
        assert_null(rows[i].error);
        expect_fake_metrics(&rows[i]);
    }
    assert_true(!same_group(&rows[7], &all[8]) && same_group(&all[8], &all[9])); /* it stopped in the next group */
    tu_free_rows(rows, n);

    rows = run_rows(env_plain, dir, 1, "--resume", 0, &n);
    assert_int_equal(n, nw);
    char *got = tu_coverage_text(rows, n), *want = tu_coverage_text(all, nw);
    assert_string_equal(got, want);
    for (size_t i = 0; i < n; i++) expect_fake_metrics(&rows[i]);
    free(got);
    free(want);
    tu_free_rows(rows, n);
    tu_free_rows(all, nw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches_follow_groups),
        cmocka_unit_test(test_batches_span_variants_by_size),
        cmocka_unit_test(test_failed_batch_marks_its_rows),
        cmocka_unit_test(test_interrupt_mid_batch_loses_no_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
