/* The variants' own axes by name: their declarations (kernels/variant.h),
 * --axis NAME=LIST and its errors, `coarse` as the alias of each variant's
 * one own axis, and [axes] / [axes:GLOB] keys named by axis. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/axis_values.h"
#include "harness/config/cli.h"
#include "harness/config/plan.h"
#include "harness/config/plan_axes.h"
#include "kernels/registry.h"
#include "results_io/axis_names.h"

static char err[4096];

/* The values of own axis k the plan gives variant `name`, as bits (bit j: 2^j). */
static unsigned own_values(const sweep_plan *p, const char *name, size_t k)
{
    unsigned bits = 0;
    for (size_t i = 0; i < p->count; i++)
        if (!strcmp(p->configs[i].v->name, name)) bits |= 1u << __builtin_ctz(p->configs[i].axis[k]);
    return bits;
}

/* The sweep's command line over the built-in default, then its plan: 0, or -1 and err. */
static int plan_from_args(int argc, char **argv, experiment *e, sweep_plan *p)
{
    sweep_options o;
    experiment_defaults(e);
    if (cli_parse(argc, argv, &o, err, sizeof err) || cli_apply(&o, e, err, sizeof err)) return -1;
    return plan_build(e, p, err, sizeof err);
}

static void test_declarations(void **state)
{
    (void)state;
    const variant *with[] = {registry_find("reduce_coarsened"), registry_find("reduce_one_launch"),
                             registry_find("reduce_bulk_ring"), registry_find("scan_coarsened"),
                             registry_find("scan_lookback_vectorized")};
    const char *names[] = {"items_per_thread", "vectors_in_flight", "ring_stage_vectors", "items_per_thread",
                           "items_per_thread"};
    for (size_t i = 0; i < 5; i++) {
        assert_non_null(with[i]);
        assert_string_equal(with[i]->axes[0].name, names[i]);
        assert_int_equal(variant_axis_index(with[i], names[i]), 0);
    }
    /* The values are the kernels' compile-time instances (kernels/variant.h's lists). */
    assert_int_equal(variant_axis_set(with[0], 0), 0x7Fu);           /* 1..64 */
    assert_int_equal(variant_axis_set(with[1], 0), 0xFu);            /* 1..8 */
    assert_int_equal(variant_axis_set(with[4], 0), (1u << 3) | (1u << 4) | (1u << 5)); /* 8..32 */
    /* Every declaration is whole; one name, one unit, wherever it is used. */
    for (size_t r = 0; r < registry_count(); r++) {
        const variant *v = registry_get(r);
        for (size_t k = 0; k < VARIANT_AXES_MAX && v->axes[k].name; k++) {
            const variant_axis *x = &v->axes[k];
            if (!x->unit || !x->unit[0] || !x->meaning || !x->meaning[0] || !x->values)
                fail_msg("%s: axis %s lacks a unit, a meaning or values", v->name, x->name);
            for (size_t q = 0; q < registry_count(); q++) {
                int j = variant_axis_index(registry_get(q), x->name);
                if (j >= 0 && strcmp(registry_get(q)->axes[j].unit, x->unit))
                    fail_msg("axis %s: unit '%s' in %s, '%s' in %s", x->name, x->unit, v->name,
                             registry_get(q)->axes[j].unit, registry_get(q)->name);
            }
        }
        if (!v->axes[0].name) assert_int_equal(variant_axis_set(v, 0), AXIS_NONE);
        assert_int_equal(variant_axis_set(v, 1) & ~v->axes[1].values, v->axes[1].name ? 0 : AXIS_NONE);
    }
}

/* The readers' table (results_io/axis_names.c) says what the registry says:
 * every variant with an own axis is in it, with that axis's name and unit. */
static void test_readers_table(void **state)
{
    (void)state;
    size_t with_axis = 0;
    for (size_t r = 0; r < registry_count(); r++) {
        const variant *v = registry_get(r);
        const results_axis_name *a = results_axis_of_variant(v->name);
        if (!v->axes[0].name) {
            if (a) fail_msg("%s: in the readers' table, but it has no own axis", v->name);
            continue;
        }
        with_axis++;
        if (!a) fail_msg("%s: axis %s missing from results_io/axis_names.c", v->name, v->axes[0].name);
        if (strcmp(a->axis, v->axes[0].name) || strcmp(a->unit, v->axes[0].unit))
            fail_msg("%s: table says %s (%s), the variant %s (%s)", v->name, a->axis, a->unit, v->axes[0].name,
                     v->axes[0].unit);
    }
    assert_int_equal(results_axis_name_count(), with_axis);
}

static void test_axis_flag(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    char *argv[] = {"sweep", "--variants", "reduce_coarsened,reduce_one_launch", "--sizes", "2^20",
                    "--block-dims", "256", "--axis", "items_per_thread=4,16", "--axis", "vectors_in_flight=2", NULL};
    if (plan_from_args(11, argv, &e, &p)) fail_msg("%s", err);
    assert_int_equal(own_values(&p, "reduce_coarsened", 0), (1u << 2) | (1u << 4));
    assert_int_equal(own_values(&p, "reduce_one_launch", 0), 1u << 1);
    assert_int_equal(own_values(&p, "reduce_coarsened", 1), 1u); /* no second axis: 1 */
    assert_int_equal(p.count, 2 + 1);
    plan_free(&p);

    /* A later --axis of the same name wins. */
    char *again[] = {"sweep", "--variants", "reduce_coarsened", "--sizes", "2^20", "--block-dims", "256",
                     "--axis", "items_per_thread=4", "--axis=items_per_thread=8", NULL};
    if (plan_from_args(10, again, &e, &p)) fail_msg("%s", err);
    assert_int_equal(own_values(&p, "reduce_coarsened", 0), 1u << 3);
    plan_free(&p);

    /* The dry run names them. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    plan_axes_print(f, &e);
    fclose(f);
    assert_non_null(strstr(buf, "   items_per_thread: 8 (--axis)\n"));
    free(buf);
}

/* One bad --axis: cli_parse or the plan refuses it with `needle` in the message. */
static void expect_axis_error(const char *variants, const char *value, const char *needle)
{
    experiment e;
    sweep_plan p;
    char *argv[] = {"sweep", "--variants", (char *)variants, "--axis", (char *)value, NULL};
    err[0] = '\0';
    if (plan_from_args(5, argv, &e, &p) == 0) {
        plan_free(&p);
        fail_msg("--axis %s accepted", value);
    }
    if (!strstr(err, needle)) fail_msg("message '%s' lacks '%s'", err, needle);
}

static void test_axis_errors(void **state)
{
    (void)state;
    expect_axis_error("reduce_*", "items_per_threads=4",
                      "--axis: 'items_per_threads': no variant has an axis of that name; closest: items_per_thread");
    expect_axis_error("reduce_*", "vector_in_flight=4", "closest: vectors_in_flight");
    expect_axis_error("reduce_*", "bogus=4", "'bogus': no variant has an axis of that name (axes: items_per_thread, "
                                             "vectors_in_flight, ring_stage_vectors, cluster_size)");
    expect_axis_error("reduce_*", "items_per_thread", "--axis: 'items_per_thread': expected NAME=LIST");
    expect_axis_error("reduce_*", "=4", "expected NAME=LIST");
    expect_axis_error("reduce_*", "items_per_thread=3", "--axis: items_per_thread: '3': not a power of two");
    expect_axis_error("reduce_*", "items_per_thread=128", "'128': above 64");
    /* Declared, but by no selected variant: the selection's axes are offered. */
    expect_axis_error("reduce_coarsened", "vectors_in_flight=4",
                      "--axis: 'vectors_in_flight': no selected variant has this axis (axes: items_per_thread)");
    expect_axis_error("reduce_interleaved_divergent", "items_per_thread=4", "no selected variant has this axis");
}

/* --coarse goes to each selected variant's one own axis, whatever its name,
 * unless that axis is set by name. */
static void test_coarse_alias(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    char *argv[] = {"sweep", "--variants", "reduce_coarsened,reduce_one_launch,scan_coarsened,reduce_first_add",
                    "--sizes", "2^20", "--block-dims", "256", "--coarse", "2,4", NULL};
    if (plan_from_args(9, argv, &e, &p)) fail_msg("%s", err);
    assert_int_equal(own_values(&p, "reduce_coarsened", 0), (1u << 1) | (1u << 2));
    assert_int_equal(own_values(&p, "reduce_one_launch", 0), (1u << 1) | (1u << 2));
    assert_int_equal(own_values(&p, "scan_coarsened", 0), (1u << 1) | (1u << 2));
    assert_int_equal(own_values(&p, "reduce_first_add", 0), 1u); /* no own axis: runs its 1 */
    plan_free(&p);

    char *named[] = {"sweep", "--variants", "reduce_coarsened,reduce_one_launch", "--sizes", "2^20",
                     "--block-dims", "256", "--coarse", "2", "--axis", "items_per_thread=32", NULL};
    if (plan_from_args(11, named, &e, &p)) fail_msg("%s", err);
    assert_int_equal(own_values(&p, "reduce_coarsened", 0), 1u << 5); /* the name wins */
    assert_int_equal(own_values(&p, "reduce_one_launch", 0), 1u << 1);
    plan_free(&p);
    /* Where it came from is kept, for the ambiguity message (a variant with two axes). */
    assert_string_equal(e.coarse_origin, "--coarse");
}

static void expect_file_error(const char *text, const char *needle)
{
    experiment e;
    sweep_plan p;
    err[0] = '\0';
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err) == 0) {
        if (plan_build(&e, &p, err, sizeof err) == 0) {
            plan_free(&p);
            fail_msg("accepted:\n%s", text);
        }
    }
    if (!strstr(err, needle)) fail_msg("message '%s' lacks '%s'", err, needle);
}

#define BASE "[experiment]\nvariants = reduce_coarsened, reduce_one_launch, scan_coarsened\n[axes]\nsizes = 2^20\n" \
             "block_dims = 256\n"

static void test_experiment_keys(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    const char *text = BASE "items_per_thread = 4, 8\n[axes:scan_*]\nitems_per_thread = 16\n";
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err)) fail_msg("%s", err);
    assert_string_equal(axis_values_of(&e, "items_per_thread")->origin, "experiments/t.ini:6");
    if (plan_build(&e, &p, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(own_values(&p, "reduce_coarsened", 0), (1u << 2) | (1u << 3));
    assert_int_equal(own_values(&p, "scan_coarsened", 0), 1u << 4); /* its section wins */
    assert_int_equal(own_values(&p, "reduce_one_launch", 0), 0x3Fu); /* the default coarse list (16, 32: skipped rows) */
    plan_free(&p);

    /* The command line beats the file's section for that name. */
    sweep_options o;
    char *argv[] = {"sweep", "--axis", "items_per_thread=2", NULL};
    assert_int_equal(cli_parse(3, argv, &o, err, sizeof err), 0);
    assert_int_equal(cli_apply(&o, &e, err, sizeof err), 0);
    if (plan_build(&e, &p, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(own_values(&p, "scan_coarsened", 0), 1u << 1);
    plan_free(&p);

    expect_file_error(BASE "item_per_thread = 4\n", "experiments/t.ini:6: unknown key 'item_per_thread' in [axes]");
    expect_file_error(BASE "item_per_thread = 4\n", "closest: items_per_thread");
    expect_file_error(BASE "[axes:scan_*]\nitems_per_thread = 3\n",
                      "experiments/t.ini:7: [axes:scan_*] items_per_thread: items_per_thread: '3': not a power");
    expect_file_error(BASE "ring_stage_vectors = 2\n",
                      "experiments/t.ini:6: 'ring_stage_vectors': no selected variant has this axis");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_declarations),   cmocka_unit_test(test_readers_table),
        cmocka_unit_test(test_axis_flag),
        cmocka_unit_test(test_axis_errors),    cmocka_unit_test(test_coarse_alias),
        cmocka_unit_test(test_experiment_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
