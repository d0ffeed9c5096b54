/* The sweep's command line: every bad usage is one message naming the option
 * and the value; overrides land in the experiment; experiment names and user
 * paths resolve the way `bazel run` needs (BUILD_WORKING_DIRECTORY,
 * BUILD_WORKSPACE_DIRECTORY). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/cli.h"
#include "harness/files.h"
#include "harness/plan.h"
#include "tests/sweep_test_util.h"

static char err[8192];

static int parse(sweep_options *o, const char *const *args)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "sweep";
    for (size_t i = 0; args[i]; i++) argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    err[0] = '\0';
    return cli_parse(argc, argv, o, err, sizeof err);
}

static void expect_usage_error(const char *const *args, const char *needle)
{
    sweep_options o;
    if (parse(&o, args) == 0) fail_msg("parsed: %s ...", args[0]);
    if (!strstr(err, needle)) fail_msg("message '%s' lacks '%s'", err, needle);
}

static void test_parse_ok(void **state)
{
    (void)state;
    sweep_options o;
    const char *args[] = {"--experiment", "smoke", "--variants=reduce_*", "--sizes", "1K,1M", "--block-dims",
                          "128", "--coarse", "1..4", "--dtype", "f64", "--op", "max", "--scan-mode", "exclusive",
                          "--finish", "all", "--out", "o", "--device", "1", "--min-samples", "3",
                          "--max-samples", "50", "--max-noise", "2%", "--timeout", "200ms", "--seed", "7",
                          "--validate", "all", "--resume", "--no-cupti", "--quiet", NULL};
    assert_int_equal(parse(&o, args), 0);
    assert_string_equal(o.experiment, "smoke");
    assert_string_equal(cli_value(&o, "--variants"), "reduce_*");
    assert_int_equal(o.device, 1);
    assert_true(o.resume && o.no_cupti && o.quiet);
    assert_false(o.force || o.list || o.dry_run || o.help || o.fake_device);

    experiment e;
    experiment_defaults(&e);
    assert_int_equal(cli_apply(&o, &e, err, sizeof err), 0);
    assert_int_equal(e.sizes.count, 2);
    assert_int_equal(e.block_dims.count, 1);
    assert_int_equal(e.coarse.count, 3);
    assert_int_equal(e.dtypes, 1u << DTYPE_F64);
    assert_int_equal(e.ops, 1u << OP_MAX);
    assert_int_equal(e.scan_modes, 1u << SCAN_EXCLUSIVE);
    assert_int_equal(e.finish_policy, FINISHES_ALL);
    assert_int_equal(e.timing.min_samples, 3);
    assert_int_equal(e.timing.max_samples, 50);
    assert_true(e.timing.max_noise > 0.0199 && e.timing.max_noise < 0.0201);
    assert_true(e.timing.timeout_s > 0.199 && e.timing.timeout_s < 0.201);
    assert_int_equal(e.seed, 7);
    assert_int_equal(e.validate_all_to, 0);
    assert_string_equal(e.variants_origin, "--variants");

    const char *flags[] = {"--list", "--dry-run", "--force", "--help", "--fake-device", NULL};
    assert_int_equal(parse(&o, flags), 0);
    assert_true(o.list && o.dry_run && o.force && o.help && o.fake_device);
    const char *h[] = {"-h", NULL};
    assert_int_equal(parse(&o, h), 0);
    assert_true(o.help);
}

static void test_usage_errors(void **state)
{
    (void)state;
    {
        const char *a[] = {"--sizes", "2^40", NULL};
        expect_usage_error(a, "--sizes: '2^40': n must be below 2^31");
    }
    {
        const char *a[] = {"--block-dims=96", NULL};
        expect_usage_error(a, "--block-dims: '96': not a power of two (variants take 32..1024, powers of two)");
    }
    {
        const char *a[] = {"--coarse", "3", NULL};
        expect_usage_error(a, "--coarse: '3'");
    }
    {
        const char *a[] = {"--dtype", "f16", NULL};
        expect_usage_error(a, "--dtype: 'f16': unknown dtype");
    }
    {
        const char *a[] = {"--op", "prod", NULL};
        expect_usage_error(a, "--op: 'prod': unknown op");
    }
    {
        const char *a[] = {"--finish", "sideways", NULL};
        expect_usage_error(a, "--finish: 'sideways'");
    }
    {
        const char *a[] = {"--scan-mode", "both", NULL};
        expect_usage_error(a, "--scan-mode: 'both'");
    }
    {
        const char *a[] = {"--device", "x", NULL};
        expect_usage_error(a, "--device: 'x' is not a whole number");
    }
    {
        const char *a[] = {"--min-samples", "0", NULL};
        expect_usage_error(a, "--min-samples: '0' is out of range");
    }
    {
        const char *a[] = {"--max-noise", "lots", NULL};
        expect_usage_error(a, "--max-noise: 'lots' is not a percentage");
    }
    {
        const char *a[] = {"--timeout", "5h", NULL};
        expect_usage_error(a, "--timeout: '5h': unknown unit 'h'");
    }
    {
        const char *a[] = {"--variants", "a b", NULL};
        expect_usage_error(a, "--variants: 'a b'");
    }
    {
        const char *a[] = {"--validate", "maybe", NULL};
        expect_usage_error(a, "--validate: 'maybe'");
    }
    {
        const char *a[] = {"--sizes", NULL};
        expect_usage_error(a, "--sizes needs a value");
    }
    {
        const char *a[] = {"--frobnicate", NULL};
        expect_usage_error(a, "unknown option '--frobnicate' (see --help)");
    }
    {
        const char *a[] = {"--frobnicate=3", NULL};
        expect_usage_error(a, "unknown option '--frobnicate'");
    }
    {
        const char *a[] = {"default", NULL};
        expect_usage_error(a, "unexpected argument 'default'");
    }
    {
        const char *a[] = {"--quiet=yes", NULL};
        expect_usage_error(a, "--quiet takes no value");
    }
    {
        const char *a[] = {"--resume", "--force", NULL};
        expect_usage_error(a, "--resume and --force contradict each other");
    }
    {
        const char *a[] = {"--out", "", NULL};
        expect_usage_error(a, "--out: empty value");
    }
    /* min above max only shows once both are known */
    sweep_options o;
    const char *a[] = {"--min-samples", "100", "--max-samples", "10", NULL};
    assert_int_equal(parse(&o, a), 0);
    experiment e;
    experiment_defaults(&e);
    assert_int_equal(cli_apply(&o, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "--max-samples: min samples (100) above max samples (10)"));
}

static void test_help_lists_every_option(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cli_usage(f);
    fclose(f);
    const char *opts[] = {"--experiment", "--variants", "--sizes", "--block-dims", "--coarse", "--dtype",
                          "--op", "--out", "--list", "--dry-run", "--device", "--min-samples", "--max-noise",
                          "--timeout", "--resume", "--force", "--no-cupti", "--quiet", "--help", "--scan-mode",
                          "--finish", "--validate", "--seed", "--max-samples"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strstr(text, opts[i])) fail_msg("--help does not mention %s", opts[i]);
    assert_null(strstr(text, "--fake-device")); /* a test hook, not for users */
    assert_non_null(strstr(text, "BUILD_WORKING_DIRECTORY") ? text : strstr(text, "`bazel run` was started from"));
    free(text);
}

static void test_user_paths(void **state)
{
    (void)state;
    char out[4096], cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    const char *dir = tu_tempdir("bwd");
    setenv("BUILD_WORKING_DIRECTORY", dir, 1);
    assert_int_equal(resolve_user_path("results/x", out, sizeof out), 0);
    char want[4200];
    snprintf(want, sizeof want, "%s/results/x", dir);
    assert_string_equal(out, want);
    assert_int_equal(resolve_user_path("./y", out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/y", dir);
    assert_string_equal(out, want);
    assert_int_equal(resolve_user_path("/abs/z", out, sizeof out), 0);
    assert_string_equal(out, "/abs/z");
    user_base_dir(out, sizeof out);
    assert_string_equal(out, dir);
    unsetenv("BUILD_WORKING_DIRECTORY");
    assert_int_equal(resolve_user_path("w", out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/w", cwd);
    assert_string_equal(out, want);
}

static void test_find_experiment(void **state)
{
    (void)state;
    char path[4096];
    int builtin;
    const char *ws = tu_tempdir("ws");
    char exps[4200], file[4300];
    snprintf(exps, sizeof exps, "%s/experiments", ws);
    assert_int_equal(mkdir(exps, 0777), 0);
    snprintf(file, sizeof file, "%s/mine.ini", exps);
    assert_int_equal(tu_write_file(file, "[axes]\nsizes = 1K\n"), 0);
    setenv("BUILD_WORKSPACE_DIRECTORY", ws, 1);
    assert_int_equal(find_experiment("mine", path, sizeof path, &builtin, err, sizeof err), 0);
    assert_string_equal(path, file);
    assert_false(builtin);

    /* unknown names list where they were looked for */
    assert_int_equal(find_experiment("nope", path, sizeof path, &builtin, err, sizeof err), -1);
    assert_non_null(strstr(err, "--experiment: no experiment 'nope' (looked for nope.ini in: "));
    assert_non_null(strstr(err, exps));
    assert_int_equal(find_experiment("bad name", path, sizeof path, &builtin, err, sizeof err), -1);

    /* files resolve against the directory bazel run started from */
    const char *bwd = tu_tempdir("bwd2");
    char f2[4200];
    snprintf(f2, sizeof f2, "%s/local.ini", bwd);
    assert_int_equal(tu_write_file(f2, "[axes]\nsizes = 2K\n"), 0);
    setenv("BUILD_WORKING_DIRECTORY", bwd, 1);
    assert_int_equal(find_experiment("local.ini", path, sizeof path, &builtin, err, sizeof err), 0);
    assert_string_equal(path, f2);
    assert_int_equal(find_experiment("./sub/none.ini", path, sizeof path, &builtin, err, sizeof err), -1);
    assert_non_null(strstr(err, "no such file"));
    unsetenv("BUILD_WORKING_DIRECTORY");
    unsetenv("BUILD_WORKSPACE_DIRECTORY");

    /* "default" always resolves: its file, or the built-in one */
    assert_int_equal(find_experiment(NULL, path, sizeof path, &builtin, err, sizeof err), 0);
    assert_true(builtin || strstr(path, "default.ini"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_ok),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_user_paths),
        cmocka_unit_test(test_find_experiment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
