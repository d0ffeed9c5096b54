/* The sweep's plan: axis values, experiment files (file:line errors,
 * duplicate and unknown keys), the expansion against the registry, skip and
 * collapse rules, validation sampling, estimates. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/axes.h"
#include "harness/config/cli.h"
#include "harness/config/plan.h"
#include "harness/config/plan_axes.h"
#include "kernels/registry.h"
#include "tests/sweep_test_util.h"

static char err[8192];

/* ---- axis values ------------------------------------------------------------------- */

static void test_sizes(void **state)
{
    (void)state;
    size_list l;
    assert_int_equal(parse_sizes("2^10..2^30:x4", &l, err, sizeof err), 0);
    assert_int_equal(l.count, 11);
    assert_int_equal(l.v[0], 1024);
    assert_int_equal(l.v[10], (size_t)1 << 30);
    assert_int_equal(parse_sizes("2^10..2^12", &l, err, sizeof err), 0); /* x2 by default */
    assert_int_equal(l.count, 3);
    assert_int_equal(parse_sizes("1000..5000:+1000, 1K, 1M, 1G, 7", &l, err, sizeof err), 0);
    assert_int_equal(l.count, 9);
    assert_int_equal(l.v[0], 7); /* sorted */
    assert_int_equal(l.v[8], (size_t)1 << 30);
    assert_int_equal(parse_sizes("4, 4, 2^2", &l, err, sizeof err), 0); /* duplicates fold */
    assert_int_equal(l.count, 1);
    assert_int_equal(parse_sizes("2^31 - 1", &l, err, sizeof err), -1);
    assert_int_equal(parse_sizes("2147483647", &l, err, sizeof err), 0);
    assert_int_equal(l.v[0], 2147483647u);
    assert_int_equal(parse_sizes("2^31..2^34, 2^40", &l, err, sizeof err), 0); /* 64-bit sizes */
    assert_int_equal(l.count, 5);
    assert_int_equal(l.v[0], (size_t)1 << 31);
    assert_int_equal(l.v[3], (size_t)1 << 34);
    assert_int_equal(l.v[4], (size_t)1 << 40);
    assert_int_equal(parse_sizes("1099511627777", &l, err, sizeof err), -1); /* 2^40 + 1 */
    assert_non_null(strstr(err, "'1099511627777': n must be at most 2^40"));

    struct {
        const char *text, *needle;
    } bad[] = {
        {"2^41", "'2^41': n must be at most 2^40"},
        {"0", "'0': n must be at least 1"},
        {"2^20..2^10", "runs backwards"},
        {"1..8:x1", "does not advance"},
        {"1..8:/2", "must be xK"},
        {"abc", "'abc' is not a number"},
        {"1,,2", "empty item"},
        {"1,", "empty item"},
        {"", "empty list"},
        {"3^4", "only powers of two"},
        {"1T", "unknown suffix 'T'"},
        {"99999999999999999999999", "too large"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(parse_sizes(bad[i].text, &l, err, sizeof err), -1);
        if (!strstr(err, bad[i].needle)) fail_msg("sizes '%s': message '%s' lacks '%s'", bad[i].text, err, bad[i].needle);
    }
}

static void test_pow2_and_names(void **state)
{
    (void)state;
    size_list l;
    assert_int_equal(parse_pow2_list("64..1024", 32, 1024, "block dims", &l, err, sizeof err), 0);
    assert_int_equal(l.count, 5);
    assert_int_equal(parse_pow2_list("all", 32, 1024, "block dims", &l, err, sizeof err), 0);
    assert_int_equal(l.count, 6);
    assert_int_equal(parse_pow2_list("96", 32, 1024, "block dims", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "'96': block dims must be powers of two"));
    assert_int_equal(parse_pow2_list("2048", 32, 1024, "block dims", &l, err, sizeof err), -1);

    unsigned mask;
    assert_int_equal(parse_dtypes("f32, f64", &mask, err, sizeof err), 0);
    assert_int_equal(mask, (1u << DTYPE_F32) | (1u << DTYPE_F64));
    assert_int_equal(parse_dtypes("all", &mask, err, sizeof err), 0);
    assert_int_equal(mask, 7u);
    assert_int_equal(parse_dtypes("f16", &mask, err, sizeof err), -1);
    assert_non_null(strstr(err, "'f16': unknown dtype (known: f32, f64, i32, all)"));
    assert_int_equal(parse_ops("max,min", &mask, err, sizeof err), 0);
    assert_int_equal(mask, (1u << OP_MAX) | (1u << OP_MIN));
    assert_int_equal(parse_scan_modes("exclusive", &mask, err, sizeof err), 0);
    assert_int_equal(mask, 1u << SCAN_EXCLUSIVE);

    finish_policy fp;
    assert_int_equal(parse_finishes("first", &fp, &mask, err, sizeof err), 0);
    assert_int_equal(fp, FINISHES_FIRST);
    assert_int_equal(parse_finishes("all", &fp, &mask, err, sizeof err), 0);
    assert_int_equal(fp, FINISHES_ALL);
    assert_int_equal(parse_finishes("two_step, atomic", &fp, &mask, err, sizeof err), 0);
    assert_int_equal(fp, FINISHES_LIST);
    assert_int_equal(mask, (1u << FINISH_TWO_STEP) | (1u << FINISH_ATOMIC));
    assert_int_equal(parse_finishes("first, atomic", &fp, &mask, err, sizeof err), -1);
    assert_int_equal(parse_finishes("sideways", &fp, &mask, err, sizeof err), -1);
    assert_non_null(strstr(err, "'sideways'"));

    double d;
    assert_int_equal(parse_percent("0.5%", &d, err, sizeof err), 0);
    assert_true(d > 0.00499 && d < 0.00501);
    assert_int_equal(parse_percent("2", &d, err, sizeof err), 0);
    assert_true(d > 0.0199 && d < 0.0201);
    assert_int_equal(parse_percent("0", &d, err, sizeof err), -1);
    assert_int_equal(parse_percent("x%", &d, err, sizeof err), -1);
    assert_int_equal(parse_seconds("500ms", &d, err, sizeof err), 0);
    assert_true(d > 0.499 && d < 0.501);
    assert_int_equal(parse_seconds("2s", &d, err, sizeof err), 0);
    assert_int_equal(parse_seconds("1m", &d, err, sizeof err), 0);
    assert_true(d == 60.0);
    assert_int_equal(parse_seconds("-1", &d, err, sizeof err), -1);
    assert_int_equal(parse_seconds("5h", &d, err, sizeof err), -1);
    long x;
    assert_int_equal(parse_count("12", 1, 100, &x, err, sizeof err), 0);
    assert_int_equal(x, 12);
    assert_int_equal(parse_count("0", 1, 100, &x, err, sizeof err), -1);
    assert_int_equal(parse_count("1.5", 1, 100, &x, err, sizeof err), -1);
}

static void test_globs(void **state)
{
    (void)state;
    glob_list g;
    assert_int_equal(parse_globs("reduce_*, !reduce_cub", &g, err, sizeof err), 0);
    assert_int_equal(g.count, 2);
    assert_true(globs_match(&g, "reduce_warp_shuffle"));
    assert_false(globs_match(&g, "reduce_cub"));
    assert_false(globs_match(&g, "scan_naive"));
    assert_int_equal(parse_globs("!scan_*", &g, err, sizeof err), 0);
    assert_true(globs_match(&g, "reduce_cub")); /* only exclusions: everything else passes */
    assert_false(globs_match(&g, "scan_cub"));
    assert_int_equal(parse_globs("!", &g, err, sizeof err), -1);
    assert_int_equal(parse_globs("a b", &g, err, sizeof err), -1);
}

/* ---- experiment files ------------------------------------------------------------------ */

static void expect_file_error(const char *text, const char *needle)
{
    experiment e;
    err[0] = '\0';
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err) == 0)
        fail_msg("parsed without error:\n%s", text);
    if (!strstr(err, needle)) fail_msg("message '%s' lacks '%s'", err, needle);
}

static void test_experiment_file(void **state)
{
    (void)state;
    experiment e;
    const char *text = "; comment\n"
                       "[experiment]\n"
                       "name = mine\n"
                       "variants = reduce_*, !reduce_cub\n"
                       "validate = all\n"
                       "\n"
                       "[axes]\n"
                       "sizes = 2^10,\n"
                       "    2^12, 2^14   ; continued lines join\n"
                       "block_dims = 128, 256\n"
                       "dtypes = f32, i32\n"
                       "ops = all\n"
                       "finishes = all\n"
                       "[timing]\n"
                       "min_samples = 3\n"
                       "max_noise = 1%\n"
                       "timeout = 250ms\n"
                       "[profile]\n"
                       "metrics = dram__bytes_read.sum, sm__throughput.avg.pct_of_peak_sustained_elapsed\n";
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err)) fail_msg("%s", err);
    assert_string_equal(e.name, "mine");
    assert_int_equal(e.variants.count, 2);
    assert_int_equal(e.validate_all_to, 0);
    assert_int_equal(e.sizes.count, 3);
    assert_int_equal(e.sizes.v[2], 1u << 14);
    assert_int_equal(e.block_dims.count, 2);
    assert_int_equal(e.dtypes, (1u << DTYPE_F32) | (1u << DTYPE_I32));
    assert_int_equal(e.ops, 7u);
    assert_int_equal(e.finish_policy, FINISHES_ALL);
    assert_int_equal(e.timing.min_samples, 3);
    assert_true(e.timing.timeout_s > 0.249 && e.timing.timeout_s < 0.251);
    assert_int_equal(e.metrics_mode, METRICS_LIST);
    assert_int_equal(e.metric_count, 2);
    assert_string_equal(e.metrics[0], "dram__bytes_read.sum");
    /* untouched keys keep the defaults */
    assert_int_equal(e.coarse.count, 6);
    assert_string_equal(e.variants_origin, "experiments/t.ini:4");

    /* the name defaults to the file's */
    assert_int_equal(experiment_parse_string("[axes]\nsizes = 1K\n", "x/quick.ini", &e, err, sizeof err), 0);
    assert_string_equal(e.name, "quick");

    expect_file_error("[experiment]\nname = a\n[axes]\nsizes = 1K\nsizes = 2K\n",
                      "experiments/t.ini:5: duplicate key 'sizes' in [axes] (first at line 4)");
    expect_file_error("[axes]\nsize = 1K\n", "experiments/t.ini:2: unknown key 'size' in [axes] (known: sizes,");
    expect_file_error("[experiment]\nname = a\n\n[axis]\n", "experiments/t.ini:4: unknown section [axis]");
    expect_file_error("[axes]\n[timing]\n[axes]\n", "experiments/t.ini:3: section [axes] repeated (first at line 1)");
    expect_file_error("name = x\n", "experiments/t.ini:1: 'name' is outside a section");
    expect_file_error("[axes]\n\n\nsizes = 2^41\n", "experiments/t.ini:4: sizes: '2^41': n must be at most 2^40");
    expect_file_error("[axes]\nblock_dims = 100\n", "experiments/t.ini:2: block_dims: '100': not a multiple of 32");
    expect_file_error("[axes]\ndtypes = f32, bf16\n", "experiments/t.ini:2: dtypes: 'bf16': unknown dtype");
    expect_file_error("[timing]\nmax_noise = lots\n", "experiments/t.ini:2: max_noise: 'lots' is not a percentage");
    expect_file_error("[timing]\nmin_samples = 20\nmax_samples = 10\n",
                      "experiments/t.ini:3: max_samples (10) is below min_samples (20)");
    expect_file_error("[experiment]\nname = a/b\n", "experiments/t.ini:2: name: 'a/b'");
    expect_file_error("[experiment]\njust a line\n", "experiments/t.ini:2: syntax error");
    expect_file_error("[profile]\nmetrics = a b\n", "experiments/t.ini:2: metrics: 'a b' is not a metric name");
    expect_file_error("[experiment]\nvalidate = 2^10..2^12\n", "experiments/t.ini:2: validate:");
    char longline[600];
    snprintf(longline, sizeof longline, "[axes]\nsizes = %0500d\n", 1);
    expect_file_error(longline, "experiments/t.ini:2: line longer than");
}

static void test_experiment_load_missing(void **state)
{
    (void)state;
    experiment e;
    assert_int_equal(experiment_load("/nonexistent/x.ini", &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/x.ini: cannot open"));
}

/* experiments/default.ini says the same as the built-in default; full and
 * smoke parse. */
static void test_shipped_experiments(void **state)
{
    (void)state;
    const char *dflt = tu_runfile("experiments/default.ini", "../experiments/default.ini");
    assert_non_null(dflt);
    experiment file, builtin;
    if (experiment_load(dflt, &file, err, sizeof err)) fail_msg("%s", err);
    experiment_defaults(&builtin);
    assert_string_equal(file.name, builtin.name);
    assert_string_equal(file.description, builtin.description);
    assert_memory_equal(&file.sizes, &builtin.sizes, sizeof file.sizes);
    assert_memory_equal(&file.block_dims, &builtin.block_dims, sizeof file.block_dims);
    assert_memory_equal(&file.coarse, &builtin.coarse, sizeof file.coarse);
    assert_int_equal(file.dtypes, builtin.dtypes);
    assert_int_equal(file.ops, builtin.ops);
    assert_int_equal(file.scan_modes, builtin.scan_modes);
    assert_int_equal(file.finish_policy, builtin.finish_policy);
    assert_int_equal(file.validate_all_to, builtin.validate_all_to);
    assert_int_equal(file.seed, builtin.seed);
    assert_memory_equal(&file.timing, &builtin.timing, sizeof file.timing);
    assert_int_equal(file.metrics_mode, builtin.metrics_mode);
    sweep_plan a, b;
    assert_int_equal(plan_build(&file, &a, err, sizeof err), 0);
    assert_int_equal(plan_build(&builtin, &b, err, sizeof err), 0);
    assert_int_equal(a.count, b.count);
    assert_int_equal(a.skipped, b.skipped);
    plan_free(&a);
    plan_free(&b);

    const char *names[] = {"full", "smoke", "big-n", "vs-cub"};
    for (size_t i = 0; i < 4; i++) {
        char rel[64], bundle[64];
        snprintf(rel, sizeof rel, "experiments/%s.ini", names[i]);
        snprintf(bundle, sizeof bundle, "../experiments/%s.ini", names[i]);
        const char *p = tu_runfile(rel, bundle);
        assert_non_null(p);
        if (experiment_load(p, &file, err, sizeof err)) fail_msg("%s", err);
        assert_string_equal(file.name, names[i]);
        assert_int_equal(plan_build(&file, &a, err, sizeof err), 0);
        assert_true(a.count > 0);
        plan_free(&a);
    }
}

/* ---- expansion ------------------------------------------------------------------------- */

/* [axes] max_input_bytes stops each dtype at its own n (2^34 f32, 2^33 f64
 * under 64G), and from 2^31 every configuration validates itself. */
static void test_big_sizes_per_dtype(void **state)
{
    (void)state;
    experiment e;
    const char *text = "[experiment]\nname = big\nvariants = reduce_coarsened, scan_cub\nvalidate = 2^26\n"
                       "[axes]\nsizes = 2^30..2^34\ndtypes = f32, f64\nblock_dims = 256, 512\ncoarse = 4, 16\n"
                       "max_input_bytes = 64G\n";
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(e.max_input_bytes, (size_t)64 << 30);
    sweep_plan p;
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t big_f32 = 0, big_f64 = 0, capped = 0;
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        size_t in = c->n * dtype_size(c->dtype);
        if (in > ((size_t)64 << 30)) {
            assert_non_null(c->skip_reason);
            assert_non_null(strstr(c->skip_reason, "max_input_bytes"));
            capped++;
            continue;
        }
        assert_null(c->skip_reason);
        if (c->n > VALIDATE_EACH_ABOVE) assert_true(c->validate); /* every one, not one per group */
        if (c->n == (size_t)1 << 34) big_f32 += c->dtype == DTYPE_F32;
        if (c->n == (size_t)1 << 33) big_f64 += c->dtype == DTYPE_F64;
    }
    assert_int_equal(capped, 5);  /* f64 at 2^34: 4 reduce_coarsened + 1 scan_cub */
    assert_int_equal(big_f32, 5); /* 2 x 2 reduce_coarsened + scan_cub */
    assert_int_equal(big_f64, 5);
    plan_free(&p);
    size_t v;
    assert_int_equal(parse_max_input_bytes("none", &v, err, sizeof err), 0);
    assert_int_equal(v, 0);
    assert_int_equal(parse_max_input_bytes("2^36", &v, err, sizeof err), 0);
    assert_int_equal(v, (size_t)1 << 36);
    assert_int_equal(parse_max_input_bytes("1G, 2G", &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "'1G, 2G': 'none' or one byte count"));
    expect_file_error("[axes]\nmax_input_bytes = lots\n", "experiments/t.ini:2: max_input_bytes: 'lots': 'none' or one");
}

static int popcount(unsigned x) { return __builtin_popcount(x); }

/* The default plan, recounted from the registry independently. */
static void test_default_plan_counts(void **state)
{
    (void)state;
    experiment e;
    experiment_defaults(&e);
    sweep_plan p;
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t want = 0, want_skipped = 0;
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        size_t bd = popcount(v->block_dims) == 1 ? 1 : 5;
        size_t cf = popcount(variant_axis_set(v, 0)) == 1 ? 1 : 6;
        size_t second = (size_t)popcount(variant_axis_set(v, 1)); /* unnamed: every value it accepts */
        want += 11 * bd * cf * second;
    }
    assert_int_equal(p.count, want);
    assert_int_equal(p.variants, registry_count());
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        const char *why = NULL;
        kernel_args a;
        config_kernel_args(c, &a);
        int accepted = variant_accepts(c->v, &a, &why) == 0;
        assert_int_equal(accepted, c->skip_reason == NULL);
        if (!accepted) {
            assert_string_equal(c->skip_reason, why);
            want_skipped++;
        }
        assert_int_equal(c->dtype, DTYPE_F32);
        assert_int_equal(c->op, OP_SUM);
        if (c->v->kind == KIND_REDUCE)
            assert_int_equal(c->finish, __builtin_ctz(c->v->finishes)); /* the first finish only */
        else
            assert_int_equal(c->scan_mode, SCAN_INCLUSIVE);
        if (popcount(variant_axis_set(c->v, 0)) == 1) assert_int_equal(c->axis[0], variant_axis_set(c->v, 0));
        if (popcount(c->v->block_dims) == 1) assert_int_equal(c->block_dim, c->v->block_dims);
    }
    assert_int_equal(p.skipped, want_skipped);
    /* order = size (the default): inputs by kind, then n; within each input the variants in registry order. */
    size_t vi = 0;
    for (size_t i = 0; i < p.count; i++) {
        if (i && !config_same_input(&p.configs[i - 1], &p.configs[i])) {
            if (p.configs[i].v->kind == p.configs[i - 1].v->kind) assert_true(p.configs[i].n > p.configs[i - 1].n);
            vi = 0;
        }
        while (vi < registry_count() && registry_get(vi) != p.configs[i].v) vi++;
        assert_true(vi < registry_count());
    }
    plan_free(&p);
}

static const sweep_config *find_config(const sweep_plan *p, const char *variant, size_t n, unsigned bd, unsigned c)
{
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *x = &p->configs[i];
        if (!strcmp(x->v->name, variant) && x->n == n && x->block_dim == bd && x->axis[0] == c) return x;
    }
    return NULL;
}

static void test_collapse_and_skips(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    /* reduce_atomic_global through a glob: its f32 max rows are skipped (named
     * exactly, f32 max would be a usage error: see the end of this test) */
    assert_int_equal(parse_globs("reduce_cub, reduce0, reduce_unroll_last_warp, reduce_atomic_gl*", &e.variants,
                                 err, sizeof err),
                     0);
    assert_int_equal(parse_sizes("1K, 1M", &e.sizes, err, sizeof err), 0);
    assert_int_equal(parse_pow2_list("32, 256", 32, 1024, "block dims", &e.block_dims, err, sizeof err), 0);
    assert_int_equal(parse_dtypes("f32", &e.dtypes, err, sizeof err), 0);
    assert_int_equal(parse_ops("sum, max", &e.ops, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    /* reduce_cub: block dim and coarse are CUB's own: one configuration per n and op */
    size_t cub = 0;
    for (size_t i = 0; i < p.count; i++)
        if (!strcmp(p.configs[i].v->name, "reduce_cub")) {
            cub++;
            assert_int_equal(p.configs[i].block_dim, 256);
            assert_int_equal(p.configs[i].axis[0], 1);
            assert_int_equal(p.configs[i].finish, FINISH_NONE);
        }
    assert_int_equal(cub, 2 * 2);
    /* a block dim the variant lacks: a skipped row with its reason */
    const sweep_config *c = find_config(&p, "reduce_unroll_last_warp", 1024, 32, 1);
    assert_non_null(c);
    assert_non_null(c->skip_reason);
    assert_non_null(strstr(c->skip_reason, "block dim"));
    /* a dtype/op pair the variant excludes: skipped with its limits */
    const variant *ag = registry_find("reduce_atomic_global");
    assert_non_null(ag);
    if (ag->excluded_pairs & PAIR_BIT(DTYPE_F32, OP_MAX)) {
        int seen = 0;
        for (size_t i = 0; i < p.count; i++) {
            const sweep_config *x = &p.configs[i];
            if (x->v == ag && x->op == OP_MAX) {
                assert_non_null(x->skip_reason);
                assert_string_equal(x->skip_reason, ag->limits);
                seen++;
            }
        }
        assert_int_equal(seen, 2 * 2);
    }
    plan_free(&p);

    /* named exactly with a pair it cannot do (both axes narrowed): an error naming both */
    assert_int_equal(parse_globs("reduce0, reduce_atomic_global", &e.variants, err, sizeof err), 0);
    snprintf(e.variants_origin, sizeof e.variants_origin, "--variants");
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    if (!strstr(err, "--variants: reduce_atomic_global does not do f32 max: ") || !strstr(err, ag->limits))
        fail_msg("message '%s'", err);
    /* ... but with every op asked for, a skipped row again */
    assert_int_equal(parse_ops("all", &e.ops, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    plan_free(&p);

    /* n above a variant's max_n */
    const variant *naive = registry_find("scan_naive");
    if (naive && naive->max_n) {
        experiment_defaults(&e);
        assert_int_equal(parse_globs("scan_naive", &e.variants, err, sizeof err), 0);
        e.sizes.count = 2;
        e.sizes.v[0] = naive->max_n;
        e.sizes.v[1] = naive->max_n * 2;
        assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
        for (size_t i = 0; i < p.count; i++) {
            const sweep_config *x = &p.configs[i];
            if (x->n > naive->max_n) {
                assert_non_null(x->skip_reason);
                assert_non_null(strstr(x->skip_reason, "max_n"));
            }
        }
        plan_free(&p);
    }
}

static void test_finishes_and_modes(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce0", &e.variants, err, sizeof err), 0); /* an alias */
    assert_int_equal(parse_sizes("1K", &e.sizes, err, sizeof err), 0);
    assert_int_equal(parse_pow2_list("256", 32, 1024, "block dims", &e.block_dims, err, sizeof err), 0);
    e.finish_policy = FINISHES_ALL;
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    const variant *r0 = registry_find("reduce0");
    assert_non_null(r0);
    assert_int_equal(p.count, (size_t)popcount(r0->finishes));
    for (size_t i = 0; i < p.count; i++) assert_ptr_equal(p.configs[i].v, r0);
    plan_free(&p);

    /* a listed finish the variant does not take is a skipped row */
    assert_int_equal(parse_finishes("two_step, none", &e.finish_policy, &e.finishes, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    assert_int_equal(p.count, 2);
    size_t skipped = 0;
    for (size_t i = 0; i < p.count; i++)
        if (p.configs[i].finish == FINISH_NONE && !(r0->finishes & 1u)) {
            assert_non_null(p.configs[i].skip_reason);
            skipped++;
        }
    assert_int_equal(p.skipped, skipped);
    plan_free(&p);

    /* scans: both modes */
    experiment_defaults(&e);
    assert_int_equal(parse_globs("scan_*", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_sizes("1K", &e.sizes, err, sizeof err), 0);
    assert_int_equal(parse_pow2_list("256", 32, 1024, "block dims", &e.block_dims, err, sizeof err), 0);
    assert_int_equal(parse_pow2_list("1", 1, 1024, "coarse", &e.coarse, err, sizeof err), 0);
    e.scan_modes = 3;
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t scans = 0; /* each scan once per value of its second own axis (unnamed: every value) */
    for (size_t i = 0; i < registry_count(); i++)
        if (registry_get(i)->kind == KIND_SCAN) scans += (size_t)popcount(variant_axis_set(registry_get(i), 1));
    assert_int_equal(p.count, 2 * scans);
    plan_free(&p);
}

static void test_globs_and_aliases(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    /* wildcards match names only: no scan through an alias like reduce_then_scan */
    assert_int_equal(parse_globs("reduce_*", &e.variants, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    for (size_t i = 0; i < p.count; i++) assert_int_equal(p.configs[i].v->kind, KIND_REDUCE);
    plan_free(&p);
    /* an exact alias selects its variant; exclusions by alias too */
    assert_int_equal(parse_globs("reduce0, reduce_cub, !cub::DeviceReduce", &e.variants, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    assert_int_equal(p.variants, 1);
    assert_string_equal(p.configs[0].v->name, "reduce_interleaved_divergent");
    plan_free(&p);
}

static void test_glob_errors(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_*, reduce_nonesuch*", &e.variants, err, sizeof err), 0);
    snprintf(e.variants_origin, sizeof e.variants_origin, "--variants");
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--variants: 'reduce_nonesuch*' matches no variant name or alias"));
    assert_int_equal(experiment_parse_string("[experiment]\n\nfamilies = harris, nope\n", "e/x.ini", &e, err,
                                             sizeof err),
                     0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "e/x.ini:3: families: 'nope' matches no variant family"));
    /* both lists select, but nothing in common */
    experiment_defaults(&e);
    assert_int_equal(parse_globs("scan_*", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_globs("harris", &e.families, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "no variant is selected"));
}

static void test_validation_sampling(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_warp_shuffle, reduce_cub", &e.variants, err, sizeof err), 0);
    assert_int_equal(parse_sizes("2^10, 2^14", &e.sizes, err, sizeof err), 0);
    e.validate_all_to = 1u << 12;
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t validating_big = 0;
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        if (c->skip_reason) continue;
        if (c->n <= (1u << 12)) assert_true(c->validate);
        else validating_big += c->validate;
    }
    assert_int_equal(validating_big, 2); /* one per variant at 2^14 */
    plan_free(&p);
    e.validate_all_to = 0;
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    for (size_t i = 0; i < p.count; i++)
        if (!p.configs[i].skip_reason) assert_true(p.configs[i].validate);
    plan_free(&p);
    size_t v;
    assert_int_equal(parse_validate("all", &v, err, sizeof err), 0);
    assert_int_equal(v, 0);
    assert_int_equal(parse_validate("2^26", &v, err, sizeof err), 0);
    assert_int_equal(v, 1u << 26);
    assert_int_equal(parse_validate("some", &v, err, sizeof err), -1);
}

static void test_label_and_estimates(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(parse_globs("reduce_warp_shuffle", &e.variants, err, sizeof err), 0);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    char label[256];
    const sweep_config *c = find_config(&p, "reduce_warp_shuffle", 1u << 20, 256, 1);
    assert_non_null(c);
    config_label(c, label, sizeof label);
    char want[256];
    snprintf(want, sizeof want, "reduce_warp_shuffle f32 sum n=1048576 block=256 %s", finish_name(c->finish));
    assert_string_equal(label, want);
    estimate_model m = estimate_model_default();
    const sweep_config *small = find_config(&p, "reduce_warp_shuffle", 1u << 10, 256, 1);
    const sweep_config *big = find_config(&p, "reduce_warp_shuffle", 1u << 30, 256, 1);
    assert_true(estimate_config_s(small, &e.timing, &m) < estimate_config_s(big, &e.timing, &m));
    sweep_config skipped = *small;
    skipped.skip_reason = "x";
    assert_true(estimate_config_s(&skipped, &e.timing, &m) == 0.0);
    assert_true(estimate_plan_s(&p, &e.timing, &m) > 0);
    plan_free(&p);
    char buf[32];
    format_duration(42.4, buf, sizeof buf);
    assert_string_equal(buf, "42 s");
    format_duration(192, buf, sizeof buf);
    assert_string_equal(buf, "3 min 12 s");
    format_duration(3720, buf, sizeof buf);
    assert_string_equal(buf, "1 h 02 min");
}

/* The default experiment is sized for 10 minutes on one H200; its estimate
 * keeps a margin for the model's error. */
static void test_default_fits_budget(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    experiment_defaults(&e);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    estimate_model m = estimate_model_default();
    double s = estimate_plan_s(&p, &e.timing, &m);
    if (s > 300) fail_msg("the default experiment is estimated at %.0f s; keep it under 300 s (10 min with margin)", s);
    plan_free(&p);
}

/* ---- per-variant axes: [axes:GLOB] ------------------------------------------------------ */

#define OV_BASE                                                                                               \
    "[experiment]\nvariants = reduce_one_launch, reduce_coarsened, scan_lookback_vectorized, "               \
    "scan_decoupled_lookback\n[axes]\nsizes = 2^16, 2^22\nblock_dims = 512\ncoarse = 4\n"

/* The block dims and coarse factors the plan gives one variant, as bits (bit k: 2^k). */
static void axes_of(const sweep_plan *p, const char *name, unsigned *bd, unsigned *cf)
{
    *bd = *cf = 0;
    for (size_t i = 0; i < p->count; i++)
        if (!strcmp(p->configs[i].v->name, name)) {
            *bd |= 1u << __builtin_ctz(p->configs[i].block_dim);
            *cf |= 1u << __builtin_ctz(p->configs[i].axis[0]);
        }
}

static void test_axes_override_applies_to_matching(void **state)
{
    (void)state;
    experiment e;
    const char *text = OV_BASE "[axes:reduce_one_launch]\nblock_dims = 256, 1024\ncoarse = 1, 8\n"
                               "[axes:scan_*]\ncoarse = 16, 32\n"
                               "[axes:scan_lookback_vectorized]\ncoarse = 2\n"; /* shadowed: first wins */
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(e.n_overrides, 3);
    assert_string_equal(e.overrides[1].glob, "scan_*");
    assert_int_equal(e.overrides[1].line, 10);
    sweep_plan p;
    if (plan_build(&e, &p, err, sizeof err)) fail_msg("%s", err);
    unsigned bd, cf;
    axes_of(&p, "reduce_one_launch", &bd, &cf);
    assert_int_equal(bd, (1u << 8) | (1u << 10));
    assert_int_equal(cf, (1u << 0) | (1u << 3));
    axes_of(&p, "reduce_coarsened", &bd, &cf); /* no section: [axes] */
    assert_int_equal(bd, 1u << 9);
    assert_int_equal(cf, 1u << 2);
    axes_of(&p, "scan_lookback_vectorized", &bd, &cf); /* scan_* (first), block dims from [axes] */
    assert_int_equal(bd, 1u << 9);
    assert_int_equal(cf, (1u << 4) | (1u << 5));
    axes_of(&p, "scan_decoupled_lookback", &bd, &cf);
    assert_int_equal(cf, (1u << 4) | (1u << 5));
    /* 2 sizes x (2x2 + 1 + 2 + 2) */
    assert_int_equal(p.count, 2 * (4 + 1 + 2 + 2));
    plan_free(&p);

    /* the dry run shows each section under the axes lines */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    plan_axes_print(f, &e);
    fclose(f);
    assert_non_null(strstr(buf, "axes for reduce_one_launch (experiments/t.ini:7): block_dims 256,1024; coarse 1,8\n"));
    assert_non_null(strstr(buf, "axes for scan_* (experiments/t.ini:10): coarse 16,32\n"));
    free(buf);
}

static void test_axes_override_command_line_wins(void **state)
{
    (void)state;
    experiment e;
    const char *text = OV_BASE "[axes:reduce_one_launch]\nblock_dims = 256, 1024\ncoarse = 1, 8\n";
    if (experiment_parse_string(text, "experiments/t.ini", &e, err, sizeof err)) fail_msg("%s", err);
    sweep_options o;
    char *argv[] = {"sweep", "--coarse", "2", NULL};
    assert_int_equal(cli_parse(3, argv, &o, err, sizeof err), 0);
    assert_int_equal(cli_apply(&o, &e, err, sizeof err), 0);
    assert_int_equal(e.n_overrides, 1); /* block_dims stays */
    assert_int_equal(e.overrides[0].n_keys, 1);
    sweep_plan p;
    if (plan_build(&e, &p, err, sizeof err)) fail_msg("%s", err);
    unsigned bd, cf;
    axes_of(&p, "reduce_one_launch", &bd, &cf);
    assert_int_equal(bd, (1u << 8) | (1u << 10));
    assert_int_equal(cf, 1u << 1);
    plan_free(&p);

    char *argv2[] = {"sweep", "--block-dims", "128", NULL};
    assert_int_equal(cli_parse(3, argv2, &o, err, sizeof err), 0);
    assert_int_equal(cli_apply(&o, &e, err, sizeof err), 0);
    assert_int_equal(e.n_overrides, 0); /* a section left empty goes */
    if (plan_build(&e, &p, err, sizeof err)) fail_msg("%s", err);
    axes_of(&p, "reduce_one_launch", &bd, &cf);
    assert_int_equal(bd, 1u << 7);
    assert_int_equal(cf, 1u << 1);
    plan_free(&p);
}

static void test_axes_override_errors(void **state)
{
    (void)state;
    expect_file_error(OV_BASE "[axes:reduce_one_launch]\nsizes = 2^10\n",
                      "experiments/t.ini:8: 'sizes' in [axes:reduce_one_launch]: sizes is global only, set it in "
                      "[axes] (per-variant keys: block_dims, coarse, scan_modes, finishes)");
    expect_file_error(OV_BASE "[axes:reduce_one_launch]\ndtypes = f64\n", "dtypes is global only");
    expect_file_error(OV_BASE "[axes:reduce_one_launch]\nops = max\n", "ops is global only");
    expect_file_error(OV_BASE "[axes:reduce_one_launch]\nbogus = 1\n",
                      "experiments/t.ini:8: unknown key 'bogus' in [axes:reduce_one_launch] (known: block_dims, "
                      "coarse, scan_modes, finishes)");
    expect_file_error(OV_BASE "[axes:reduce_one_launch]\ncoarse = 3\n",
                      "experiments/t.ini:8: [axes:reduce_one_launch] coarse: '3': not a power of two");
    expect_file_error(OV_BASE "[axes:reduce_one_launch]\nblock_dims = 2048\n", "t.ini:8: [axes:reduce_one_launch] "
                                                                               "block_dims: '2048': above 1024");
    expect_file_error(OV_BASE "[axes:reduce_*]\ncoarse = 2\n[axes:reduce_*]\ncoarse = 4\n",
                      "t.ini:9: section [axes:reduce_*] repeated (first at line 7)");
    expect_file_error(OV_BASE "[axes:reduce_*]\ncoarse = 2\ncoarse = 4\n", "t.ini:9: duplicate key 'coarse'");
    expect_file_error(OV_BASE "[axes:]\ncoarse = 2\n", "t.ini:7: [axes:]: '' is not a variant glob");
    expect_file_error(OV_BASE "[axes:a, b]\ncoarse = 2\n", "t.ini:7: [axes:a, b]: 'a, b' is not a variant glob");
    /* a glob that matches no variant: when the plan is built, still at file:line */
    experiment e;
    sweep_plan p;
    if (experiment_parse_string(OV_BASE "[axes:reduce_nonesuch*]\ncoarse = 2\n", "experiments/t.ini", &e, err,
                                sizeof err))
        fail_msg("%s", err);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), -1);
    assert_string_equal(err, "experiments/t.ini:7: [axes:reduce_nonesuch*]: 'reduce_nonesuch*' matches no variant "
                             "name or alias (see --list)");
}

/* Without [axes:GLOB] sections, and with sections that change nothing, the
 * plan is the one it was: configuration for configuration. */
static void test_axes_override_absent_plans_as_before(void **state)
{
    (void)state;
    experiment a, b;
    if (experiment_parse_string(OV_BASE, "experiments/t.ini", &a, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(a.n_overrides, 0);
    if (experiment_parse_string(OV_BASE "[axes:reduce_*]\nblock_dims = 512\ncoarse = 4\n"
                                        "[axes:reduce_cub]\nblock_dims = 64\nfinishes = first\n",
                                "experiments/t.ini", &b, err, sizeof err))
        fail_msg("%s", err);
    sweep_plan pa, pb;
    if (plan_build(&a, &pa, err, sizeof err)) fail_msg("%s", err);
    if (plan_build(&b, &pb, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(pa.count, pb.count);
    assert_int_equal(pa.skipped, pb.skipped);
    assert_int_equal(pa.variants, pb.variants);
    for (size_t i = 0; i < pa.count; i++) {
        assert_ptr_equal(pa.configs[i].v, pb.configs[i].v);
        const sweep_config *x = &pa.configs[i], *y = &pb.configs[i];
        assert_int_equal(x->dtype, y->dtype);
        assert_int_equal(x->op, y->op);
        assert_int_equal(x->n, y->n);
        assert_int_equal(x->block_dim, y->block_dim);
        assert_memory_equal(x->axis, y->axis, sizeof x->axis);
        assert_int_equal(x->finish, y->finish);
        assert_int_equal(x->scan_mode, y->scan_mode);
        assert_int_equal(pa.configs[i].validate, pb.configs[i].validate);
    }
    plan_free(&pa);
    plan_free(&pb);
    /* every shipped experiment but vs-cub has none */
    const char *names[] = {"default", "full", "smoke", "harris-ladder", "scan-ladder", "coarsening", "sum-16m",
                           "dtypes-ops"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char rel[64], bundle[64];
        snprintf(rel, sizeof rel, "experiments/%s.ini", names[i]);
        snprintf(bundle, sizeof bundle, "../experiments/%s.ini", names[i]);
        const char *path = tu_runfile(rel, bundle);
        assert_non_null(path);
        if (experiment_load(path, &a, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(a.n_overrides, 0);
    }
}

static void test_vs_cub_overrides(void **state)
{
    (void)state;
    const char *path = tu_runfile("experiments/vs-cub.ini", "../experiments/vs-cub.ini");
    assert_non_null(path);
    experiment e;
    if (experiment_load(path, &e, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(e.n_overrides, 6);
    sweep_plan p;
    if (plan_build(&e, &p, err, sizeof err)) fail_msg("%s", err);
    unsigned bd, cf;
    axes_of(&p, "reduce_one_launch", &bd, &cf);
    assert_int_equal(bd, (1u << 8) | (1u << 9) | (1u << 10));
    assert_int_equal(cf, 0xfu);
    axes_of(&p, "reduce_bulk_ring", &bd, &cf);
    assert_int_equal(bd, 1u << 8);
    assert_int_equal(cf, (1u << 2) | (1u << 3));
    axes_of(&p, "scan_lookback_vectorized", &bd, &cf);
    assert_int_equal(bd, (1u << 7) | (1u << 8) | (1u << 9));
    assert_int_equal(cf, (1u << 4) | (1u << 5));
    axes_of(&p, "scan_lookahead_bulk", &bd, &cf);
    assert_int_equal(bd, (1u << 7) | (1u << 8));
    assert_int_equal(cf, (1u << 4) | (1u << 5));
    axes_of(&p, "reduce_coarsened", &bd, &cf);
    assert_int_equal(bd, (1u << 8) | (1u << 9));
    assert_int_equal(cf, (1u << 2) | (1u << 4));
    axes_of(&p, "scan_decoupled_lookback", &bd, &cf);
    assert_int_equal(bd, 1u << 9);
    assert_int_equal(cf, (1u << 3) | (1u << 4));
    /* 33 configurations per size and dtype (2079 over 21 sizes x 3 dtypes: 1701 + scan_lookahead_bulk's
     * 2 x 2 x 21 x 3 + reduce_bulk_ring's 1 x 2 x 21 x 3), now over 25 sizes (2^10..2^34); f64 at 2^34 is
     * above max_input_bytes: its 33 configurations are skipped */
    assert_int_equal(p.count, 2475);
    assert_int_equal(p.skipped, 33);
    plan_free(&p);
}

/* Each run configuration's peers (the refine stage's count in the time model)
 * are its variant's run configurations at its input, counted here the long way;
 * a skipped one has none. */
static void test_peers(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    char why[1024];
    experiment_defaults(&e);
    assert_int_equal(plan_build(&e, &p, why, sizeof why), 0);
    size_t run = 0;
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        if (c->skip_reason) {
            assert_int_equal(c->peers, 0);
            continue;
        }
        unsigned same = 0;
        for (size_t j = 0; j < p.count; j++) {
            const sweep_config *d = &p.configs[j];
            same += !d->skip_reason && d->v == c->v && config_same_input(c, d);
        }
        assert_int_equal(c->peers, same);
        run++;
    }
    assert_true(run > 1000);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_peers),
        cmocka_unit_test(test_pow2_and_names),
        cmocka_unit_test(test_globs),
        cmocka_unit_test(test_experiment_file),
        cmocka_unit_test(test_experiment_load_missing),
        cmocka_unit_test(test_shipped_experiments),
        cmocka_unit_test(test_default_plan_counts),
        cmocka_unit_test(test_collapse_and_skips),
        cmocka_unit_test(test_finishes_and_modes),
        cmocka_unit_test(test_globs_and_aliases),
        cmocka_unit_test(test_glob_errors),
        cmocka_unit_test(test_validation_sampling),
        cmocka_unit_test(test_big_sizes_per_dtype),
        cmocka_unit_test(test_label_and_estimates),
        cmocka_unit_test(test_default_fits_budget),
        cmocka_unit_test(test_axes_override_applies_to_matching),
        cmocka_unit_test(test_axes_override_command_line_wins),
        cmocka_unit_test(test_axes_override_errors),
        cmocka_unit_test(test_axes_override_absent_plans_as_before),
        cmocka_unit_test(test_vs_cub_overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
