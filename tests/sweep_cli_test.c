/* The sweep's command line: every bad usage is one message naming the option
 * and the value (with the closest names for a typo); a value a variant lacks
 * and an empty plan are refused; the dry run's profile estimate; the no-device
 * messages, `sweep confirm`'s among them; the notes of values a variant
 * cannot honour in run.json and summary.md (fake device); overrides land in
 * the experiment; experiment names and user
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
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/config/axes.h"
#include "harness/config/cli.h"
#include "harness/device/device.h"
#include "harness/core/files.h"
#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "kernels/registry.h"
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
        const char *a[] = {"--sizes", "2^41", NULL};
        expect_usage_error(a, "--sizes: '2^41': n must be at most 2^40");
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
    /* the way to try the sweep without a GPU is documented, with its variable */
    assert_non_null(strstr(text, "--fake-device"));
    assert_non_null(strstr(text, "SWEEP_FAKE_DEVICE=1"));
    /* what becomes of a value a variant cannot take */
    assert_non_null(strstr(text, "runs its own"));
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

    /* unknown names: the directory the user sees, the names there, the closest */
    snprintf(file, sizeof file, "%s/default.ini", exps);
    assert_int_equal(tu_write_file(file, "[axes]\nsizes = 1K\n"), 0);
    assert_int_equal(find_experiment("unrelated", path, sizeof path, &builtin, err, sizeof err), -1);
    char want[8300];
    snprintf(want, sizeof want, "--experiment: no experiment 'unrelated' in %s (experiments: default, mine)", exps);
    assert_string_equal(err, want); /* nothing close */
    assert_int_equal(find_experiment("defualt", path, sizeof path, &builtin, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "--experiment: no experiment 'defualt' in %s (experiments: default, mine); closest: default", exps);
    assert_string_equal(err, want);
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

/* Inside Bazel's tree (runfiles) the names are listed, the directory is not. */
static void test_experiment_typo_hides_bazel_dirs(void **state)
{
    (void)state;
    char path[4096], dir[4300], file[4400], err2[8192];
    int builtin;
    const char *base = tu_tempdir("rf");
    snprintf(dir, sizeof dir, "%s/sweep.runfiles", base);
    assert_int_equal(mkdir(dir, 0777), 0);
    setenv("RUNFILES_DIR", dir, 1);
    snprintf(dir, sizeof dir, "%s/sweep.runfiles/gpu_reduce_scan", base);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(dir, sizeof dir, "%s/sweep.runfiles/gpu_reduce_scan/experiments", base);
    assert_int_equal(mkdir(dir, 0777), 0);
    const char *names[] = {"coarsening", "default", "vs-cub"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/%s.ini", dir, names[i]);
        assert_int_equal(tu_write_file(file, "[axes]\nsizes = 1K\n"), 0);
    }
    unsetenv("BUILD_WORKSPACE_DIRECTORY");
    assert_int_equal(find_experiment("vscub", path, sizeof path, &builtin, err2, sizeof err2), -1);
    unsetenv("RUNFILES_DIR");
    assert_non_null(strstr(err2, "(experiments: coarsening, default, vs-cub); closest: vs-cub"));
    if (strstr(err2, ".runfiles") || strstr(err2, "bazel-out") || strstr(err2, "execroot"))
        fail_msg("names a directory inside Bazel's tree: %s", err2);
}

/* Did-you-mean, one rule for flags, variants and experiments (cupti/metrics.h's). */
static void test_did_you_mean(void **state)
{
    (void)state;
    {
        const char *a[] = {"--block-dim", "256", NULL};
        expect_usage_error(a, "unknown option '--block-dim' (see --help); closest: --block-dims");
    }
    {
        const char *a[] = {"--dryrun", NULL};
        expect_usage_error(a, "unknown option '--dryrun' (see --help); closest: --dry-run");
    }
    {
        const char *a[] = {"--fake-devise", NULL};
        expect_usage_error(a, "closest: --fake-device");
    }
    /* nothing near: no suggestion at all */
    const char *far[] = {"--frobnicate", NULL};
    expect_usage_error(far, "unknown option '--frobnicate' (see --help)");
    assert_null(strstr(err, "closest"));

    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_cubb", &e.variants, err, sizeof err), 0);
    snprintf(e.variants_origin, sizeof e.variants_origin, "--variants");
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--variants: 'reduce_cubb' matches no variant name or alias (see --list); closest: "
                                "reduce_cub"));
    /* an alias is a name too */
    assert_int_equal(parse_globs("reduce7", &e.variants, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "closest: reduce0"));
    /* a glob that matches nothing is not a typo of one name: no suggestion */
    assert_int_equal(parse_globs("warp_*", &e.variants, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_null(strstr(err, "closest"));
}

/* Why there is no device, for each case the runtime lumps together. */
static void test_no_device_messages(void **state)
{
    (void)state;
    char msg[512];
    device_explain_absence(cudaErrorInsufficientDriver, 0, 13000, 0, msg, sizeof msg);
    assert_string_equal(msg, "no CUDA device: no NVIDIA driver on this machine (no libcuda.so.1, no /dev/nvidia*)");
    device_explain_absence(cudaErrorInsufficientDriver, 12020, 13000, 1, msg, sizeof msg);
    assert_string_equal(msg, "no CUDA device: the NVIDIA driver is too old for this build: it supports CUDA 12.2, "
                             "the runtime needs CUDA 13.0 (update the driver)");
    unsetenv("CUDA_VISIBLE_DEVICES");
    device_explain_absence(cudaErrorNoDevice, 13000, 13000, 1, msg, sizeof msg);
    assert_string_equal(msg, "no CUDA device: the NVIDIA driver (CUDA 13.0) sees no GPU");
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    device_explain_absence(cudaErrorNoDevice, 13000, 13000, 1, msg, sizeof msg);
    assert_non_null(strstr(msg, "sees no GPU (CUDA_VISIBLE_DEVICES is set: it may hide them)"));
    unsetenv("CUDA_VISIBLE_DEVICES");
    device_explain_absence(cudaErrorInitializationError, 13000, 13000, 1, msg, sizeof msg);
    assert_int_equal(strncmp(msg, "no CUDA device: ", 16), 0);
    assert_non_null(strstr(msg, "cudaErrorInitializationError"));
    /* this machine: whatever it has, the message starts the same way */
    int count;
    if (device_count(&count, msg, sizeof msg) != 0) assert_int_equal(strncmp(msg, "no CUDA device: ", 16), 0);
}

/* Runs of device configurations in plan order on the same buffers (the
 * sweep's batches): a new one where kind, dtype or n changes, or at 64. */
static size_t count_groups(const sweep_plan *p)
{
    size_t groups = 0, in = 0, ws = 0;
    const sweep_config *first = NULL;
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue;
        if (c->v->runner != RUNNER_DEVICE) {
            first = NULL;
            continue;
        }
        /* [profile] batch (512, the default), a sixteenth of the H200's 140 GiB (8 GiB) of workspaces, one input */
        int same = first && in < 512 && ws < ((size_t)8 << 30) && first->v->kind == c->v->kind &&
                   first->dtype == c->dtype && first->n == c->n && first->op == c->op &&
                   (c->v->kind != KIND_SCAN || first->scan_mode == c->scan_mode);
        if (!same) {
            groups++;
            first = c;
            in = 0;
            ws = 0;
        }
        ws += config_workspace_size(c);
        in++;
    }
    return groups;
}

/* The default experiment's plan. */
static void default_plan(experiment *e, sweep_plan *p)
{
    experiment_defaults(e);
    assert_int_equal(plan_build(e, p, err, sizeof err), 0);
}

/* The timing's two stages add up to the timing the estimate prints: every
 * configuration screened, a share of them refined; with --screen 0, one stage. */
static void test_timing_stages(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    estimate_model m = estimate_model_default();
    default_plan(&e, &p);
    for (int pass = 0; pass < 2; pass++) {
        double total = 0, v, s, screen, refine, refined;
        size_t configs = 0;
        for (size_t i = 0; i < p.count; i++) {
            if (p.configs[i].skip_reason) continue;
            estimate_config_parts(&p.configs[i], &e.timing, &m, &v, &s);
            total += s;
            configs++;
        }
        estimate_timing_stages(&p, &e.timing, &m, &screen, &refine, &refined);
        assert_true(fabs(screen + refine - total) <= 1e-9 * total);
        if (pass == 0) { /* the default screens, then refines about a fifth (JOURNAL 10) */
            assert_true(refined > 0.05 * (double)configs && refined < 0.5 * (double)configs);
            assert_true(screen > 0 && refine > 0);
        } else {
            assert_true(refine == 0 && refined == 0);
        }
        e.timing.screen_samples = 0; /* --screen 0: every configuration to the full rule at once */
    }
    plan_free(&p);
}

/* The dry run's profile phase: every configuration run on the device, in one
 * batch per group, at the model's cost; none with --no-cupti or no metrics. */
static void test_profile_estimate(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    estimate_model m = estimate_model_default();
    default_plan(&e, &p);
    size_t configs, device_rows = 0;
    unsigned passes;
    char how[512];
    for (size_t i = 0; i < p.count; i++)
        device_rows += !p.configs[i].skip_reason && p.configs[i].v->runner == RUNNER_DEVICE;
    double s = estimate_profile_s(&p, &e, &m, &configs, &passes, how, sizeof how);
    assert_int_equal(configs, device_rows);
    assert_int_equal(passes, 2); /* the default set's hardware counters: 2 passes on GH100 (the host API's count) */
    size_t batches = 0;
    assert_int_equal(sscanf(how, "%zu batches, one per run of configurations on the same buffers", &batches), 1);
    assert_int_equal(batches, count_groups(&p));
    assert_true(batches > 1 && batches < configs);
    /* each batch at least its session and passes (0.016 s + 0.095 s a pass), each configuration at least
     * 0.15 ms + 1.23 ms a pass, and 0.28 ms + 0.55 ms a pass of its batch's session and passes (one
     * process alone, h200/range-cost); at most the kernels beside; far below one session a
     * configuration (0.222 s each, default-metrics) */
    double floor = batches * (0.016 + 2 * 0.095) + configs * (0.00015 + 0.00028 + 2 * (0.00123 + 0.00055));
    if (s < floor || s > floor + configs * 0.010) fail_msg("%.1f s modelled, %.1f s from its constants", s, floor);
    if (s / (double)configs > 0.222 / 20) fail_msg("%.3f s per configuration", s / (double)configs);
    /* the SASS-patched metrics: a pass of their own, and their kernels' cost beside */
    char perr[256];
    double hw = s;
    assert_int_equal(parse_metrics("all", &e, perr, sizeof perr), 0);
    double all = estimate_profile_s(&p, &e, &m, &configs, &passes, how, sizeof how);
    assert_int_equal(passes, 3);
    assert_true(all > hw * 1.2);
    assert_non_null(strstr(how, "SASS-patched pass"));
    /* two metrics: one pass (run44-vs-cub/run.json: profiler_passes 1) */
    assert_int_equal(parse_metrics("dram_read_bytes, dram_write_bytes", &e, perr, sizeof perr), 0);
    estimate_profile_s(&p, &e, &m, &configs, &passes, how, sizeof how);
    assert_int_equal(passes, 1);
    assert_int_equal(parse_metrics("none", &e, perr, sizeof perr), 0);
    assert_true(estimate_profile_s(&p, &e, &m, &configs, &passes, how, sizeof how) == 0);
    assert_int_equal(configs, 0);
    assert_int_equal(parse_metrics("default", &e, perr, sizeof perr), 0);
    m.no_profile = 1;
    assert_true(estimate_profile_s(&p, &e, &m, &configs, &passes, how, sizeof how) == 0);
    plan_free(&p);
}

/* The time model's variant speeds (plan_speed.c): each names a registered
 * variant, once, and is a fraction of peak; a variant without one (a new
 * one) runs at PLAN_SPEED_UNKNOWN. */
static void test_variant_speeds(void **state)
{
    (void)state;
    size_t listed = 0;
    for (const char *name; (name = plan_speed_variant(listed)); listed++) {
        const variant *v = registry_find(name);
        if (!v) fail_msg("plan_speed.c lists '%s', which is not a registered variant", name);
        for (size_t j = 0; j < listed; j++)
            if (!strcmp(plan_speed_variant(j), name)) fail_msg("'%s' listed twice", name);
        double f = plan_variant_speed(v);
        if (!(f > 0 && f <= 1)) fail_msg("%s: speed %g is not a fraction of peak", name, f);
    }
    assert_true(listed >= 30);
    variant unknown = *registry_get(0);
    unknown.name = "reduce_not_measured";
    assert_true(plan_variant_speed(&unknown) == PLAN_SPEED_UNKNOWN);
}

/* order = size: the same configurations, sorted by input (dtype, op, kind,
 * scan mode, n) with the variant order kept within an input, so every
 * validation group's validator still comes first; fewer CPU references and
 * fewer profile batches than order = variant, by the model. */
static size_t plan_index_of(const sweep_plan *p, const sweep_config *c)
{
    for (size_t i = 0; i < p->count; i++)
        if (config_same_axes(&p->configs[i], c)) return i;
    return SIZE_MAX;
}

static int input_cmp(const sweep_config *x, const sweep_config *y)
{
    long a[5] = {x->dtype, x->op, x->v->kind, x->v->kind == KIND_SCAN ? (long)x->scan_mode : 0, (long)x->n};
    long b[5] = {y->dtype, y->op, y->v->kind, y->v->kind == KIND_SCAN ? (long)y->scan_mode : 0, (long)y->n};
    for (int k = 0; k < 5; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static void test_order_size(void **state)
{
    (void)state;
    experiment e;
    sweep_plan byv, bys;
    estimate_model m = estimate_model_default();
    assert_int_equal(experiment_parse_string("[experiment]\nvariants = reduce_*, scan_*\n[axes]\n"
                                             "sizes = 2^10..2^28:x4\ndtypes = f32, i32\nops = sum, max\n"
                                             "scan_modes = all\n",
                                             "t.ini", &e, err, sizeof err),
                     0);
    assert_int_equal(e.order, PLAN_ORDER_SIZE); /* the default */
    e.order = PLAN_ORDER_VARIANT;
    assert_int_equal(plan_build(&e, &byv, err, sizeof err), 0);
    e.order = PLAN_ORDER_SIZE;
    assert_int_equal(plan_build(&e, &bys, err, sizeof err), 0);
    assert_int_equal(bys.count, byv.count);
    assert_int_equal(bys.skipped, byv.skipped);
    size_t prev_at = 0;
    for (size_t i = 0; i < bys.count; i++) {
        const sweep_config *c = &bys.configs[i];
        size_t at = plan_index_of(&byv, c);
        assert_true(at != SIZE_MAX);
        assert_int_equal(c->validate, byv.configs[at].validate);
        assert_true((c->skip_reason == NULL) == (byv.configs[at].skip_reason == NULL));
        if (i) {
            int cmp = input_cmp(&bys.configs[i - 1], c);
            assert_true(cmp <= 0);            /* sorted by input */
            if (cmp == 0) assert_true(at > prev_at); /* the variant plan's order within an input */
        }
        prev_at = at;
    }
    /* one CPU reference per input, fewer profile batches */
    size_t cv, cs;
    unsigned passes;
    char hv[512], hs[512];
    size_t bv = 0, bs = 0;
    estimate_profile_s(&byv, &e, &m, &cv, &passes, hv, sizeof hv);
    estimate_profile_s(&bys, &e, &m, &cs, &passes, hs, sizeof hs);
    assert_int_equal(cs, cv);
    assert_int_equal(sscanf(hv, "%zu", &bv), 1);
    assert_int_equal(sscanf(hs, "%zu", &bs), 1);
    assert_int_equal(bs, count_groups(&bys));
    if (!(bs * 2 < bv)) fail_msg("%zu batches by size, %zu by variant", bs, bv);
    double rv = estimate_references_s(&byv, &m), rs = estimate_references_s(&bys, &m);
    if (!(rs * 2 < rv)) fail_msg("references: %.1f s by size, %.1f s by variant", rs, rv);
    plan_free(&byv);
    plan_free(&bys);
    /* a bad value: one line naming it */
    assert_int_equal(experiment_parse_string("[experiment]\norder = random\n", "t.ini", &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "'random': order is variant or size"));
}

/* The profile model against the committed runs its session constants were
 * fitted to (one configuration a session then): the pass rule gives each
 * run's profiler_passes, and the vs-cub plan with run 44's metrics (its rows
 * only: no checks after them then), profiled in batches, is estimated below
 * run 44's wall time on the H200 (the batched model is to be fitted again on
 * an H200 run). */
#define RUN44_HOST_VALIDATION_S 115.0

static void test_profile_model_on_committed_runs(void **state)
{
    (void)state;
    json_t *dm = tu_load_json(tu_data_file("experiments/results/h200/default-metrics/run.json"));
    json_t *r44 = tu_load_json(tu_data_file("experiments/results/h200/beyond-cub/run44-vs-cub/run.json"));
    experiment e;
    sweep_plan p;
    estimate_model m = estimate_model_default();
    size_t configs;
    unsigned passes;
    experiment_defaults(&e); /* default-metrics ran the 19 metrics that are `all` now */
    assert_int_equal(parse_metrics("all", &e, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    estimate_profile_s(&p, &e, &m, &configs, &passes, NULL, 0);
    assert_int_equal(passes, json_integer_value(json_object_get(dm, "profiler_passes")));
    plan_free(&p);

    assert_int_equal(experiment_load(tu_data_file("experiments/vs-cub.ini"), &e, err, sizeof err), 0);
    /* run 44 ran vs-cub's sizes before they went past 2^30 */
    assert_int_equal(parse_sizes("2^10..2^30", &e.sizes, err, sizeof err), 0);
    e.max_input_bytes = 0;
    char list[1024] = "";
    const json_t *names = json_object_get(r44, "metrics");
    for (size_t i = 0; i < json_array_size(names); i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                 json_string_value(json_array_get(names, i)));
    assert_int_equal(parse_metrics(list, &e, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    assert_int_equal(p.count, json_integer_value(json_object_get(r44, "rows")));
    double profile = estimate_profile_s(&p, &e, &m, &configs, &passes, NULL, 0);
    assert_int_equal(passes, json_integer_value(json_object_get(r44, "profiler_passes")));
    /* Run 44 validated every configuration on the host, before validation
     * moved to the device: its validation is what the host model of then
     * gave this plan (1 min 55 s), not what the device check's model gives. */
    double validation_now = estimate_references_s(&p, &m);
    for (size_t i = 0; i < p.count; i++) {
        double v = 0, s = 0;
        if (!p.configs[i].skip_reason) estimate_config_parts(&p.configs[i], &e.timing, &m, &v, &s);
        validation_now += v;
    }
    double total = estimate_plan_s(&p, &e.timing, &m) + profile - validation_now + RUN44_HOST_VALIDATION_S;
    double wall = json_number_value(json_object_get(r44, "wall_time_s"));
    if (!(total < wall)) fail_msg("vs-cub with 2 metrics in batches: modelled %.0f s, run 44 (one a session) took %.0f s",
                                  total, wall);
    plan_free(&p);
    json_decref(dm);
    json_decref(r44);
}

/* A value a variant lacks: refused when asked of it alone, noted when a list
 * for several does not apply to it; a plan that runs nothing is refused. */
static void test_unheeded_and_empty(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    char notes[2048];
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_cub", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_block_dims("512", &e.block_dims, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_string_equal(err, "--block-dims: reduce_cub runs at block dim 256 only, not 512 (leave it out for this "
                             "variant, or ask for 256)");
    /* with another variant the list is for both: reduce_cub runs 256, said */
    assert_int_equal(parse_globs("reduce_cub,reduce0", &e.variants, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    for (size_t i = 0; i < p.count; i++)
        if (!strcmp(p.configs[i].v->name, "reduce_cub")) assert_int_equal(p.configs[i].block_dim, 256);
    plan_free(&p);
    plan_unheeded_notes(&e, notes, sizeof notes);
    assert_string_equal(notes, "reduce_cub block dim 256 (asked 512)");
    /* ... unless an [axes:GLOB] section that matches reduce_cub alone asks it */
    assert_int_equal(experiment_parse_string("[experiment]\nvariants = reduce_cub, reduce0\n"
                                             "[axes:reduce_cub]\nblock_dims = 512\n",
                                             "x.ini", &e, err, sizeof err),
                     0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_string_equal(err, "x.ini:3: [axes:reduce_cub] block_dims: reduce_cub runs at block dim 256 only, not 512 "
                             "(leave it out for this variant, or ask for 256)");
    /* a section that matches several variants is a list for them: noted */
    assert_int_equal(experiment_parse_string("[experiment]\nvariants = reduce_cub, reduce0\n"
                                             "[axes:reduce_*]\nblock_dims = 512\n",
                                             "x.ini", &e, err, sizeof err),
                     0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    plan_free(&p);
    plan_unheeded_notes(&e, notes, sizeof notes);
    assert_string_equal(notes, "reduce_cub block dim 256 (asked 512)");
    /* coarse factors and finishes alike */
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce0", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_coarse("8", &e.coarse, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--coarse: reduce_interleaved_divergent runs at coarse factor 1 only, not 8"));
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_cub", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_finishes("atomic", &e.finish_policy, &e.finishes, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--finish: reduce_cub runs at finish none only, not atomic"));
    /* the default experiment asks nothing a variant lacks */
    experiment_defaults(&e);
    plan_unheeded_notes(&e, notes, sizeof notes);
    assert_string_equal(notes, "");
    /* every configuration skipped: refused with the reason */
    assert_int_equal(parse_globs("scan_naive", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_sizes("2^30", &e.sizes, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "the plan runs nothing: all 5 configurations are skipped (scan_naive: n above"));
}

/* .alias is optional: a variant without one is selected by its name and
 * globs, labelled, and written to results.csv with an empty alias. */
static void test_variant_without_alias(void **state)
{
    (void)state;
    variant bare = *registry_find("reduce_cub");
    bare.alias = NULL;
    experiment e;
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_cub", &e.variants, err, sizeof err), 0);
    assert_true(experiment_selects(&e, &bare));
    assert_int_equal(parse_globs("reduce_*,!reduce0", &e.variants, err, sizeof err), 0);
    assert_true(experiment_selects(&e, &bare));
    assert_int_equal(parse_globs("cub::DeviceReduce", &e.variants, err, sizeof err), 0);
    assert_false(experiment_selects(&e, &bare)); /* its alias is gone */
    sweep_row row;
    sweep_config cfg = {.v = &bare,
                        .dtype = DTYPE_F32, .op = OP_SUM, .n = 1024, .block_dim = 256, .axis = {1, 1}};
    assert_int_equal(row_init(&row, &cfg, 0), 0);
    char label[256];
    config_label(&row.cfg, label, sizeof label);
    assert_string_equal(label, "reduce_cub f32 sum n=1024 block=256 none");
    const char *csv = tu_path(tu_tempdir("noalias"), "results.csv");
    metric_columns mc = {0};
    assert_int_equal(results_write_csv(csv, &row, 1, mc, err, sizeof err), 0);
    char *text = tu_read_file(csv);
    assert_non_null(text);
    assert_non_null(strstr(text, "\nreduce_cub,,cub,reduce,f32,sum,1024,256,,"));
    free(text);
}

/* A small run on the fake device into dir (extra args before --out); fails the test otherwise. */
static void fake_run(const char *dir, const char *block_dims)
{
    const char *env[] = {"SWEEP_FAKE_DEVICE=1", NULL};
    const char *args[] = {"--variants", "reduce0,reduce_cub", "--sizes", "1K", "--block-dims", block_dims, "--out", dir,
                          "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("fake run: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
}

/* `sweep confirm DIR` where there is no GPU: the reason and the way to try it
 * (--fake-device), exit 1, nothing written; with --fake-device it runs. */
static void test_confirm_no_device(void **state)
{
    (void)state;
    const char *base = tu_tempdir("confirm-nodev");
    char *dir = tu_path(base, "run"), *out = tu_path(base, "confirmed");
    fake_run(dir, "128");
    int count;
    char msg[512];
    if (device_count(&count, msg, sizeof msg) == 0) {
        print_message("this machine has a CUDA device: the no-device message is not shown here\n");
    } else {
        const char *env[] = {"SWEEP_FAKE_DEVICE=", NULL};
        const char *args[] = {"confirm", dir, NULL};
        char *before = tu_read_file(tu_path(dir, "summary.md"));
        tu_result r = tu_run(NULL, env, args);
        assert_int_equal(r.status, 1);
        if (strncmp(r.err, "sweep confirm: no CUDA device: ", 31) || tu_count_lines(r.err) != 2 ||
            !strstr(r.err, "\nsweep confirm: to try it without a GPU, add --fake-device (synthetic times"))
            fail_msg("stderr: %s", r.err);
        /* the run's own confirmation stands: no confirm.json, summary.md as it was */
        assert_false(tu_exists(tu_path(dir, "confirm.json")));
        char *after = tu_read_file(tu_path(dir, "summary.md"));
        assert_string_equal(before, after);
        free(before);
        free(after);
        tu_result_free(&r);
    }
    const char *env[] = {"SWEEP_FAKE_DEVICE=", NULL};
    const char *args[] = {"confirm", dir, "--fake-device", "--out", out, NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("confirm --fake-device: exit %d: %s", r.status, r.err);
    assert_true(tu_exists(tu_path(out, "confirm.csv")) && tu_exists(tu_path(out, "confirm.json")));
    tu_result_free(&r);
}

/* The note of a value a variant cannot honour, in run.json ("notes") and summary.md;
 * none in a run that asks nothing a variant lacks. */
static void expect_notes(const char *dir, const char *note)
{
    json_t *run = tu_load_json(tu_path(dir, "run.json"));
    const json_t *notes = json_object_get(run, "notes");
    assert_true(json_is_array(notes));
    assert_int_equal(json_array_size(notes), note ? 1 : 0);
    if (note) assert_string_equal(json_string_value(json_array_get(notes, 0)), note);
    json_decref(run);
    char *md = tu_read_file(tu_path(dir, "summary.md"));
    assert_non_null(md);
    if (!note) assert_null(strstr(md, "Note: asked values"));
    else {
        char line[512];
        snprintf(line, sizeof line, "\nNote: asked values some variants do not have; they ran their own: %s.\n", note);
        if (!strstr(md, line)) fail_msg("summary.md lacks '%s':\n%s", line + 1, md);
    }
    free(md);
}

static void test_notes_recorded(void **state)
{
    (void)state;
    const char *base = tu_tempdir("notes");
    char *dir = tu_path(base, "run"), *plain = tu_path(base, "plain"), *out = tu_path(base, "confirmed"),
         *merged = tu_path(base, "merged");
    const char *note = "reduce_cub block dim 256 (asked 128,512)";
    fake_run(dir, "128,512");
    expect_notes(dir, note);
    fake_run(plain, "128,256");
    expect_notes(plain, NULL);
    /* kept where summary.md is written again: confirm and merge */
    const char *env[] = {"SWEEP_FAKE_DEVICE=1", NULL};
    const char *confirm[] = {"confirm", dir, "--out", out, NULL};
    tu_result r = tu_run(NULL, env, confirm);
    if (r.status != 0) fail_msg("confirm: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    char *md = tu_read_file(tu_path(out, "summary.md"));
    assert_non_null(strstr(md, note));
    free(md);
    const char *merge[] = {"merge", merged, dir, "--quiet", NULL};
    r = tu_run(NULL, env, merge);
    if (r.status != 0) fail_msg("merge: exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    expect_notes(merged, note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_ok),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_user_paths),
        cmocka_unit_test(test_find_experiment),
        cmocka_unit_test(test_experiment_typo_hides_bazel_dirs),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_no_device_messages),
        cmocka_unit_test(test_timing_stages),
        cmocka_unit_test(test_profile_estimate),
        cmocka_unit_test(test_order_size),
        cmocka_unit_test(test_variant_speeds),
        cmocka_unit_test(test_profile_model_on_committed_runs),
        cmocka_unit_test(test_unheeded_and_empty),
        cmocka_unit_test(test_variant_without_alias),
        cmocka_unit_test(test_confirm_no_device),
        cmocka_unit_test(test_notes_recorded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
