/* The configuration's label names the variant's own axes as results.csv's
 * axes column does; labels of older runs (coarse=, results schema 4 and
 * before) still read: confirm.csv's labels give the same block x axis shape
 * in either form and, migrated, name their own rows; samples.csv's series
 * pair with their rows (the committed H200 runs). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "kernels/registry.h"
#include "results_io/axis_names.h"
#include "results_io/confirm_io.h"

#define RESULTS "experiments/results/"

static char err[4096];

static sweep_config config_of(const char *variant, size_t n, unsigned block, unsigned a0, unsigned a1)
{
    sweep_config c;
    memset(&c, 0, sizeof c);
    c.v = registry_find(variant);
    assert_non_null(c.v);
    c.dtype = DTYPE_F32;
    c.op = OP_SUM;
    c.n = n;
    c.block_dim = block;
    c.axis[0] = a0;
    c.axis[1] = a1;
    return c;
}

static void test_label_names_own_axes(void **state)
{
    (void)state;
    char label[256], axes[128];
    sweep_config c = config_of("reduce_one_launch", 1024, 256, 1, 1);
    config_label(&c, label, sizeof label);
    assert_string_equal(label, "reduce_one_launch f32 sum n=1024 block=256 vectors_in_flight=1 none");
    c = config_of("reduce_coarsened", 1u << 22, 512, 16, 1);
    c.finish = FINISH_RECURSIVE;
    config_label(&c, label, sizeof label);
    assert_string_equal(label, "reduce_coarsened f32 sum n=4194304 block=512 items_per_thread=16 recursive");
    c = config_of("scan_lookahead_bulk", 1u << 20, 128, 32, 1);
    c.scan_mode = SCAN_INCLUSIVE;
    config_label(&c, label, sizeof label);
    assert_string_equal(label, "scan_lookahead_bulk f32 sum n=1048576 block=128 items_per_thread=32 inclusive");
    c = config_of("reduce_cub", 1024, 256, 1, 1);
    config_label(&c, label, sizeof label);
    assert_string_equal(label, "reduce_cub f32 sum n=1024 block=256 none");
    assert_int_equal(config_axes_text(&c, ";", axes, sizeof axes), 0);
    assert_string_equal(axes, "");
}

/* Every configuration of the default plan: no coarse=, each own axis by its
 * name and value, in the order results.csv's axes column writes them. */
static void test_default_plan_labels(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t with_axis = 0;
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        char label[256], axes[128], want[160];
        config_label(c, label, sizeof label);
        assert_null(strstr(label, "coarse="));
        config_axes_text(c, " ", axes, sizeof axes);
        snprintf(want, sizeof want, " block=%u%s%s ", c->block_dim, axes[0] ? " " : "", axes);
        if (!strstr(label, want)) fail_msg("'%s' lacks '%s'", label, want);
        for (size_t k = 0; k < VARIANT_AXES_MAX && c->v->axes[k].name; k++) {
            snprintf(want, sizeof want, " %s=%u ", c->v->axes[k].name, c->axis[k]);
            assert_non_null(strstr(label, want));
            with_axis += k == 0;
        }
        unsigned block = 0, axis[VARIANT_AXES_MAX];
        int na = confirm_label_shape(label, &block, axis, VARIANT_AXES_MAX);
        assert_int_equal(block, c->block_dim);
        for (int k = 0; k < na; k++) assert_int_equal(axis[k], c->axis[k]);
        assert_true(na == 0 || c->v->axes[na - 1].name);
    }
    assert_true(with_axis > 0 && with_axis < p.count);
    plan_free(&p);
}

/* The launch boundary: every configuration of the full plan becomes a
 * kernel_args holding each of its named values and no buffers, which the
 * variant accepts exactly when the plan did not skip it. */
static void test_kernel_args_of_full_plan(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    if (experiment_load("experiments/full.ini", &e, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    assert_true(p.count > 0);
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        kernel_args a;
        memset(&a, 0xa5, sizeof a);
        config_kernel_args(c, &a);
        assert_int_equal(a.dtype, c->dtype);
        assert_int_equal(a.op, c->op);
        assert_int_equal(a.n, c->n);
        assert_int_equal(a.block_dim, c->block_dim);
        assert_memory_equal(a.axis, c->axis, sizeof a.axis);
        assert_int_equal(a.finish, c->finish);
        assert_int_equal(a.scan_mode, c->scan_mode);
        assert_null(a.in);
        assert_null(a.out);
        assert_null(a.workspace);
        assert_int_equal(a.workspace_bytes, 0);
        assert_int_equal(variant_accepts(c->v, &a, NULL) == 0, c->skip_reason == NULL);
    }
    plan_free(&p);
}

/* The label reader on both forms and on none. */
static void test_label_shape(void **state)
{
    (void)state;
    char dims[64];
    assert_int_equal(confirm_label_dims("reduce_one_launch f32 sum n=1024 block=256 coarse=4 none", "x", dims,
                                        sizeof dims), 0);
    assert_string_equal(dims, "256x4");
    assert_int_equal(confirm_label_dims("reduce_one_launch f32 sum n=1024 block=256 vectors_in_flight=4 none",
                                        "×", dims, sizeof dims), 0);
    assert_string_equal(dims, "256×4");
    assert_int_equal(confirm_label_dims("reduce_cub f32 sum n=1024 block=256 none", "x", dims, sizeof dims), 0);
    assert_string_equal(dims, "256x1");
    assert_int_equal(confirm_label_dims("x f32 sum n=1024 block=64 a=2 b=8 inclusive", "x", dims, sizeof dims), 0);
    assert_string_equal(dims, "64x2x8");
    assert_int_equal(confirm_label_dims("cpu_baseline f32 sum n=1024", "x", dims, sizeof dims), -1);
    assert_string_equal(dims, "");
}

static int has_label(const results_file *rf, const char *label)
{
    char mine[256];
    for (size_t i = 0; i < rf->count; i++) {
        config_label(&rf->rows[i].cfg, mine, sizeof mine);
        if (!strcmp(mine, label)) return 1;
    }
    return 0;
}

/* The committed confirm.csv files (schema 4, coarse=): each label, migrated,
 * names a row of its own run's results.csv, and has the shape it had. */
static void confirm_of_run(const char *run)
{
    char path[512];
    results_file rf;
    confirm_line *l = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, RESULTS "%s/results.csv", run);
    if (results_read_csv_any(path, &rf, err, sizeof err)) fail_msg("%s", err);
    snprintf(path, sizeof path, RESULTS "%s/confirm.csv", run);
    assert_int_equal(confirm_read_csv(path, &l, &n, err, sizeof err), 0);
    assert_true(n > 10);
    for (size_t i = 0; i < n; i++) {
        char now[256], a[64], b[64];
        assert_non_null(strstr(l[i].config, " coarse="));
        results_label_migrate(l[i].config, now, sizeof now);
        assert_null(strstr(now, "coarse="));
        if (!has_label(&rf, now)) fail_msg("%s: '%s' (was '%s') names no row", run, now, l[i].config);
        assert_int_equal(confirm_label_dims(l[i].config, "x", a, sizeof a), 0);
        assert_int_equal(confirm_label_dims(now, "x", b, sizeof b), 0);
        assert_string_equal(a, b);
    }
    free(l);
    results_file_free(&rf);
}

static void test_committed_confirm_labels(void **state)
{
    (void)state;
    confirm_of_run("h200/vs-cub");
    confirm_of_run("h100/vs-cub");
}

/* samples.csv of a committed run (coarse= labels): every measured phase of
 * every row finds its series by today's label, with the row's sample count. */
static void test_committed_samples_pair(void **state)
{
    (void)state;
    results_file rf;
    samples_file sf;
    if (results_read_csv_any(RESULTS "h200/default-rerun/results.csv", &rf, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(samples_read_csv(RESULTS "h200/default-rerun/samples.csv", &sf, err, sizeof err), 0);
    size_t paired = 0;
    for (size_t i = 0; i < rf.count; i++) {
        const sweep_row *r = &rf.rows[i];
        char label[256];
        config_label(&r->cfg, label, sizeof label);
        for (int hot = 0; hot < 2; hot++) {
            const timing_stats *t = hot ? &r->hot : &r->cold;
            if (r->status != ROW_OK || !t->samples) continue;
            const sample_series *s = samples_find(&sf, label, hot);
            if (!s) fail_msg("no samples for '%s' %s", label, hot ? "hot" : "cold");
            assert_true(s->n >= t->samples);
            paired++;
        }
    }
    assert_true(paired > 1000);
    samples_file_free(&sf);
    results_file_free(&rf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_names_own_axes),
        cmocka_unit_test(test_default_plan_labels),
        cmocka_unit_test(test_label_shape),
        cmocka_unit_test(test_kernel_args_of_full_plan),
        cmocka_unit_test(test_committed_confirm_labels),
        cmocka_unit_test(test_committed_samples_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
