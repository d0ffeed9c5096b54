/* The command line is parsed once: cli_parse leaves each value parsed in
 * sweep_options (settings, --axis, --shard, --devices), and cli_apply puts
 * those values over the experiment read from the file. */
#define _POSIX_C_SOURCE 200809L
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

static char err[8192];

static sweep_options *parse(int argc, char **argv)
{
    sweep_options *o = malloc(sizeof *o);
    assert_non_null(o);
    if (cli_parse(argc, argv, o, err, sizeof err)) fail_msg("%s", err);
    return o;
}

static void test_values_parsed_by_cli_parse(void **state)
{
    (void)state;
    char *argv[] = {"sweep",  "--sizes",  "2^12,2^14", "--finish",    "all",   "--metrics",
                    "none",   "--coarse", "4,1",       "--axis",      "items_per_thread=16,8",
                    "--shard", "1/3",     "--devices", "2,0",         "--dry-run"};
    sweep_options *o = parse((int)(sizeof argv / sizeof *argv), argv);
    assert_int_equal(o->parsed.sizes.count, 2);
    assert_int_equal(o->parsed.sizes.v[1], 1u << 14);
    assert_int_equal(o->parsed.finish_policy, FINISHES_ALL);
    assert_int_equal(o->parsed.metrics_mode, METRICS_NONE);
    assert_int_equal(o->parsed.coarse.count, 2);
    assert_int_equal(o->parsed.coarse.v[0], 1);
    assert_int_equal(o->n_axis_args, 1);
    assert_string_equal(o->axis_args[0].name, "items_per_thread");
    assert_int_equal(o->axis_args[0].values.v[0], 8);
    assert_int_equal(o->shard_spec.index, 1);
    assert_int_equal(o->shard_spec.count, 3);
    assert_int_equal(o->n_device_ordinals, 2);
    assert_false(o->devices_all);
    free(o);
}

/* cli_apply copies the parsed values: the experiment gets them, with the
 * flag as their origin, and the rest of it stays as the file said. */
static void test_apply_puts_parsed_values(void **state)
{
    (void)state;
    experiment *e = malloc(sizeof *e);
    assert_non_null(e);
    if (experiment_parse_string("[axes]\nsizes = 2^20\nblock_dims = 128\n[timing]\nmin_samples = 20\n",
                                "experiments/t.ini", e, err, sizeof err))
        fail_msg("%s", err);
    char *argv[] = {"sweep", "--sizes", "2^12,2^14", "--coarse", "4", "--finish", "all", "--max-samples", "30",
                    "--axis", "vectors_in_flight=2"};
    sweep_options *o = parse((int)(sizeof argv / sizeof *argv), argv);
    if (cli_apply(o, e, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(e->sizes.count, 2);
    assert_int_equal(e->block_dims.count, 1); /* from the file */
    assert_int_equal(e->block_dims.v[0], 128);
    assert_int_equal(e->coarse.count, 1);
    assert_string_equal(e->coarse_origin, "--coarse");
    assert_int_equal(e->finish_policy, FINISHES_ALL);
    assert_int_equal(e->timing.min_samples, 20);
    assert_int_equal(e->timing.max_samples, 30);
    const axis_values *a = axis_values_of(e, "vectors_in_flight");
    assert_non_null(a);
    assert_int_equal(a->values.count, 1);
    assert_string_equal(a->origin, "--axis");
    /* the cross-setting check still sees the applied values */
    char *bad[] = {"sweep", "--max-samples", "10"};
    free(o);
    o = parse(3, bad);
    assert_int_equal(cli_apply(o, e, err, sizeof err), -1);
    assert_non_null(strstr(err, "--max-samples: min samples (20) above max samples (10)"));
    free(o);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_parsed_by_cli_parse),
        cmocka_unit_test(test_apply_puts_parsed_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
