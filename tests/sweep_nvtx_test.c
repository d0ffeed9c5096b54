/* The sweep's NVTX tree, recorded by tests/nvtx_injection.c loaded through
 * NVTX_INJECTION64_PATH into the sweep binary running on the fake device:
 *   run > <experiment> > <variant> > <configuration> > validate|warmup|cold|hot
 *                                     <configuration> > refine > cold|hot
 *                                     <configuration> > profile
 * with copy_bandwidth directly under run, every range popped, and one
 * configuration range per configuration the plan runs; a configuration the
 * screen keeps for the full rule opens its range again for "refine" (on the
 * fake device every one: its times tie); with the profile
 * phase, each configuration's range opens once more, later, under the same
 * variant range, for its profile phase alone (they run in batches, one per
 * run of configurations on the same buffers, after their timings; with
 * --order size a batch holds several variants, each slot under its own). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/plan.h"
#include "kernels/registry.h"
#include "tests/sweep_test_util.h"

#define VARIANTS "reduce0,reduce_cub,scan_kogge_stone,reduce_unroll_last_warp"
#define SIZES "1K,4K"
#define BLOCKS "32,256"

typedef struct event {
    int push;
    char domain[64];
    char name[512];
} event;

static event *parse_record(char *text, size_t *count)
{
    size_t cap = tu_count_lines(text) + 1, n = 0;
    event *ev = calloc(cap, sizeof *ev);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[4] = {0};
        int k = 0;
        for (char *p = line; k < 4 && p;) {
            f[k++] = p;
            p = strchr(p, '\t');
            if (p) *p++ = '\0';
        }
        assert_true(k >= 2);
        event *e = &ev[n++];
        e->push = !strcmp(f[0], "push");
        if (!e->push) assert_string_equal(f[0], "pop");
        snprintf(e->domain, sizeof e->domain, "%s", f[1]);
        if (e->push) {
            assert_true(k >= 3);
            snprintf(e->name, sizeof e->name, "%s", f[2]);
        }
    }
    *count = n;
    return ev;
}

static size_t planned_configs(size_t *variants)
{
    experiment e;
    sweep_plan p;
    char err[1024];
    experiment_defaults(&e);
    parse_globs(VARIANTS, &e.variants, err, sizeof err);
    parse_sizes(SIZES, &e.sizes, err, sizeof err);
    parse_pow2_list(BLOCKS, 32, 1024, "block dims", &e.block_dims, err, sizeof err);
    assert_int_equal(plan_build(&e, &p, err, sizeof err), 0);
    size_t n = p.count - p.skipped;
    assert_true(p.skipped > 0); /* reduce_unroll_last_warp at 32: skipped ranges are not pushed */
    *variants = p.variants;
    plan_free(&p);
    return n;
}

static void check_tree(int with_profile, int order_size)
{
    const char *lib = getenv("NVTX_INJECTION_LIB");
    if (!lib || !*lib) lib = tu_runfile("tests/libnvtx_injection.so", "libnvtx_injection.so");
    assert_non_null(lib);
    const char *dir = tu_tempdir("nvtx");
    char record[4200], inj[4300], rec[4300], out[4200];
    snprintf(record, sizeof record, "%s/record.txt", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(inj, sizeof inj, "NVTX_INJECTION64_PATH=%s", lib);
    snprintf(rec, sizeof rec, "NVTX_RECORD_FILE=%s", record);
    const char *env[] = {"SWEEP_FAKE_DEVICE=1", inj, rec, NULL};
    const char *args_p[] = {"--variants", VARIANTS, "--sizes", SIZES, "--block-dims", BLOCKS, "--out", out,
                            "--quiet", "--order", "variant", NULL};
    const char *args_n[] = {"--variants", VARIANTS, "--sizes", SIZES, "--block-dims", BLOCKS, "--out", out,
                            "--quiet", "--no-cupti", "--order", "variant", NULL};
    const char *args_s[] = {"--variants", VARIANTS, "--sizes", SIZES, "--block-dims", BLOCKS, "--out", out,
                            "--quiet", "--order", "size", NULL};
    tu_result r = tu_run(NULL, env, order_size ? args_s : with_profile ? args_p : args_n);
    if (r.status != 0) fail_msg("sweep exit %d: %s", r.status, r.err);
    tu_result_free(&r);

    char *text = tu_read_file(record);
    if (!text) fail_msg("no record at %s: the injection library was not loaded", record);
    size_t n;
    event *ev = parse_record(text, &n);
    size_t variants;
    size_t want_configs = planned_configs(&variants);

    static const char *const measure_phases[] = {"validate", "warmup", "cold", "hot"};
    static const char *const profile_phases[] = {"profile"};
    static const char *const refine_phases[] = {"refine"};
    static const char *const refine_steps[] = {"cold", "hot"};
    size_t refined = 0, next_step = 0;
    const char *const *phases = measure_phases;
    size_t n_phases = 4;
    char (*waiting)[512] = calloc(want_configs + 1, sizeof *waiting); /* measured, not yet profiled */
    size_t n_waiting = 0, profiled = 0;
    char stack[8][512];
    int depth = 0;
    size_t configs = 0, variant_ranges = 0, experiment_ranges = 0, run_ranges = 0, copy_ranges = 0;
    size_t next_phase = 0, after_ranges = 0, after_configs = 0;
    char variant[512] = "";
    for (size_t i = 0; i < n; i++) {
        event *e = &ev[i];
        if (strcmp(e->domain, "sweep")) continue; /* other libraries' domains */
        if (!e->push) {
            assert_true(depth > 0);
            if (depth == 4 && strcmp(stack[2], "process warm-up"))
                assert_int_equal(next_phase, n_phases); /* every phase, in order */
            if (depth == 5 && !strcmp(stack[4], "refine")) assert_int_equal(next_step, 2); /* its steps, in order */
            depth--;
            continue;
        }
        /* after the run: the drift check (and, with library rows, the confirmation), each configuration in one range */
        if (depth == 0 && run_ranges == 1 && (!strcmp(e->name, "drift check") || !strcmp(e->name, "confirm"))) {
            after_ranges++;
            snprintf(stack[depth++], sizeof stack[0], "%s", e->name);
            continue;
        }
        if (depth == 1 && (!strcmp(stack[0], "drift check") || !strcmp(stack[0], "confirm"))) {
            assert_string_equal(e->name, strcmp(stack[0], "confirm") ? "drift" : "confirm");
            after_configs++;
            snprintf(stack[depth++], sizeof stack[0], "%s", e->name);
            continue;
        }
        assert_true(depth < 5 || (depth == 5 && !strcmp(stack[4], "refine"))); /* nothing below a phase but refine's */
        switch (depth) {
        case 0:
            assert_string_equal(e->name, "run");
            run_ranges++;
            break;
        case 1:
            if (!strcmp(e->name, "copy_bandwidth")) {
                copy_ranges++;
                assert_int_equal(experiment_ranges, 0); /* measured first */
            } else {
                assert_string_equal(e->name, "default");
                experiment_ranges++;
            }
            break;
        case 2:
            assert_string_equal(stack[1], "default");
            if (!strcmp(e->name, "process warm-up")) { /* the first configuration once, untimed, before the rows */
                assert_int_equal(variant_ranges, 0);
                break;
            }
            assert_non_null(registry_find(e->name));
            assert_string_not_equal(e->name, variant); /* each variant once, contiguous (by size: once a run) */
            snprintf(variant, sizeof variant, "%s", e->name);
            variant_ranges++;
            break;
        case 3: {
            if (!strcmp(stack[2], "process warm-up")) { /* its validation, then its untimed measurement */
                assert_string_equal(e->name, "measure");
                break;
            }
            /* "<variant> f32 sum n=1024 block=256 [<own axis>=V] <finish|mode>" */
            size_t l = strlen(variant);
            if (strncmp(e->name, variant, l) || e->name[l] != ' ') fail_msg("'%s' under '%s'", e->name, variant);
            assert_non_null(strstr(e->name, " f32 sum n="));
            assert_non_null(strstr(e->name, " block="));
            assert_null(strstr(e->name, " coarse="));
            const variant_axis *own_axes = registry_find(variant)->axes; /* `variant` is the name here */
            for (size_t k = 0; k < VARIANT_AXES_MAX && own_axes[k].name; k++) {
                char own[80];
                snprintf(own, sizeof own, " %s=", own_axes[k].name);
                if (!strstr(e->name, own)) fail_msg("'%s' does not name its axis %s", e->name, own_axes[k].name);
            }
            if (strstr(e->name, "reduce_unroll_last_warp") && strstr(e->name, "block=32 "))
                fail_msg("a skipped configuration got a range: %s", e->name);
            next_phase = 0;
            size_t w = 0;
            while (w < n_waiting && strcmp(waiting[w], e->name)) w++;
            if (w < n_waiting) { /* its refine, then its profile phase: once each, after its measurement */
                phases = refine_phases; /* or profile: its first child says (case 4) */
                n_phases = 1;
                break;
            }
            configs++;
            phases = measure_phases;
            n_phases = 4;
            snprintf(waiting[n_waiting++], sizeof *waiting, "%s", e->name);
            break;
        }
        case 4:
            assert_true(next_phase < n_phases);
            if (phases == refine_phases && !strcmp(e->name, "profile")) { /* the configuration's last visit */
                assert_true(with_profile);
                size_t w = 0;
                while (w < n_waiting && strcmp(waiting[w], stack[3])) w++;
                assert_true(w < n_waiting);
                memmove(waiting[w], waiting[w + 1], (n_waiting - w - 1) * sizeof *waiting);
                n_waiting--;
                phases = profile_phases;
                profiled++;
            }
            assert_string_equal(e->name, phases[next_phase]);
            if (phases == refine_phases) refined++, next_step = 0;
            next_phase++;
            break;
        case 5:
            assert_true(next_step < 2);
            assert_string_equal(e->name, refine_steps[next_step]);
            next_step++;
            break;
        }
        snprintf(stack[depth], sizeof stack[depth], "%s", e->name);
        depth++;
    }
    assert_int_equal(depth, 0); /* balanced */
    assert_int_equal(run_ranges, 1);
    assert_true(after_ranges >= 1 && after_configs >= 1);
    assert_int_equal(copy_ranges, 1);
    assert_int_equal(experiment_ranges, 1);
    if (order_size) assert_true(variant_ranges > variants); /* once per input: every variant at 1K, then at 4K */
    else assert_int_equal(variant_ranges, variants);
    assert_int_equal(configs, want_configs);
    assert_int_equal(profiled, with_profile ? want_configs : 0);
    assert_int_equal(refined, want_configs); /* the fake device's times tie: every one could be its variant's fastest */
    assert_int_equal(n_waiting, with_profile ? 0 : want_configs);
    free(waiting);
    free(ev);
    free(text);
}

static void test_tree_with_profile(void **state)
{
    (void)state;
    check_tree(1, 0);
}

static void test_tree_without_profile(void **state)
{
    (void)state;
    check_tree(0, 0);
}

/* order = size: the profile batches hold several variants (1K's reductions:
 * reduce0, reduce_cub, reduce_unroll_last_warp), and each slot's ranges
 * still open under its own variant's range. */
static void test_tree_order_size(void **state)
{
    (void)state;
    check_tree(1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_with_profile),
        cmocka_unit_test(test_tree_order_size),
        cmocka_unit_test(test_tree_without_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
