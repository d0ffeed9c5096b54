/* --shard and `sweep merge` on the fake device layer: the dealing (disjoint,
 * covering, balanced) for N = 1..7, a sharded-then-merged run against an
 * unsharded one, --shard auto's launchers, and every case merge refuses
 * (exit 2, one line, nothing written). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/config/plan.h"
#include "harness/config/shard.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
/* --shard and --devices on `full`: max/min of the parts' estimates, their sum
 * over the whole plan's (beside N start-ups), the --devices wall over
 * one worker's / N. Measured 1.02 / +0.1 % / 1.00 at 32, 4 and 2. */
#define SHARD_SPREAD_MAX 1.05
#define SHARD_SUM_MAX 1.01
#define DEVICES_WALL_MAX 1.02
/* No launcher's variables leak in from the machine that runs the tests. */
#define NO_LAUNCHER "SLURM_PROCID=", "SLURM_NTASKS=", "SLURM_NPROCS=", "SLURM_LOCALID=", "OMPI_COMM_WORLD_RANK=", \
                    "OMPI_COMM_WORLD_SIZE=", "OMPI_COMM_WORLD_LOCAL_RANK=", "PMI_RANK=", "PMI_SIZE=", "PMIX_RANK=", \
                    "PMIX_SIZE="

static void load_plan(const char *name, experiment *e, sweep_plan *p)
{
    char err[1024], rel[64];
    snprintf(rel, sizeof rel, "experiments/%s.ini", name);
    const char *path = tu_runfile(rel, rel + strlen("experiments/"));
    assert_non_null(path);
    if (experiment_load(path, e, err, sizeof err)) fail_msg("%s", err);
    if (plan_build(e, p, err, sizeof err)) fail_msg("%s", err);
}

/* Every configuration in exactly one shard, the shards' parts in plan order,
 * and the loads within one piece's cost of each other (LPT dealing of pieces). */
static void check_dealing(const char *name)
{
    experiment e;
    sweep_plan whole;
    load_plan(name, &e, &whole);
    for (unsigned n = 1; n <= 7; n++) {
        unsigned *seen = calloc(whole.count, sizeof *seen), *owner = malloc(whole.count * sizeof *owner);
        double *load = calloc(n, sizeof *load), lo = 1e300, hi = 0;
        plan_piece *pc;
        size_t np;
        assert_int_equal(plan_pieces(&whole, &e.timing, n, &pc, &np), 0);
        assert_int_equal(shard_deal_loads(&whole, &e.timing, n, owner, load), 0);
        for (unsigned i = 0; i < n; i++) {
            sweep_plan part = whole;
            part.configs = malloc(whole.count * sizeof *part.configs);
            memcpy(part.configs, whole.configs, whole.count * sizeof *part.configs);
            shard_spec s = {.active = 1, .index = i, .count = n};
            size_t *pos = NULL;
            assert_int_equal(shard_select(&part, &e.timing, &s, &pos), 0);
            for (size_t k = 0; k < part.count; k++) {
                assert_true(k == 0 || pos[k] > pos[k - 1]); /* plan order */
                assert_true(config_same_axes(&part.configs[k], &whole.configs[pos[k]]));
                assert_int_equal(owner[pos[k]], i);
                seen[pos[k]]++;
            }
            lo = load[i] < lo ? load[i] : lo;
            hi = load[i] > hi ? load[i] : hi;
            /* the part's variant count: its distinct variants, in whatever order the plan has them */
            size_t distinct = 0;
            for (size_t k = 0; k < part.count; k++) {
                size_t j = 0;
                while (j < k && part.configs[j].v != part.configs[k].v) j++;
                distinct += j == k;
            }
            assert_int_equal(part.variants, distinct);
            free(part.configs);
            free(pos);
        }
        for (size_t k = 0; k < whole.count; k++)
            if (seen[k] != 1) fail_msg("%s, N=%u: configuration %zu is in %u shards", name, n, k, seen[k]);
        assert_true(hi - lo <= pc[0].cost_s + 1e-9); /* pc[0]: the heaviest piece */
        free(seen);
        free(owner);
        free(load);
        free(pc);
    }
    plan_free(&whole);
}

/* Pieces: every configuration in exactly one; none crosses an input group;
 * heaviest first, ties in plan order; each costed on its own (its reference
 * and profile batches: estimate_piece_s), so a split group's pieces each
 * carry them; none split for one worker. Returns how many groups were split. */
static size_t check_pieces(const sweep_plan *p, const timing_params *t, unsigned workers)
{
    estimate_model m = estimate_model_default();
    plan_group *g;
    size_t ng, np, split = 0;
    plan_piece *pc;
    assert_int_equal(plan_groups(p, &g, &ng), 0);
    assert_int_equal(plan_pieces(p, t, workers, &pc, &np), 0);
    size_t *group_of = malloc(p->count * sizeof *group_of);
    unsigned *seen = calloc(p->count, sizeof *seen);
    for (size_t k = 0; k < ng; k++)
        for (size_t i = g[k].first; i < g[k].first + g[k].count; i++) group_of[i] = k;
    for (size_t k = 0; k < np; k++) {
        const plan_piece *x = &pc[k];
        assert_true(x->count >= 1 && x->first + x->count <= p->count);
        assert_true(x->part < x->parts);
        if (k) assert_true(pc[k - 1].cost_s > x->cost_s || (pc[k - 1].cost_s == x->cost_s && pc[k - 1].first < x->first));
        for (size_t i = x->first; i < x->first + x->count; i++) {
            seen[i]++;
            if (group_of[i] != group_of[x->first]) fail_msg("N=%u: piece at %zu crosses an input group at %zu", workers, x->first, i);
        }
        assert_true(fabs(x->cost_s - estimate_piece_s(p, x->first, x->count, t, &m, p->profile_passes)) < 1e-9);
        if (x->parts == 1) { /* the whole group */
            assert_int_equal(x->first, g[group_of[x->first]].first);
            assert_int_equal(x->count, g[group_of[x->first]].count);
            continue;
        }
        split += x->part == 0;
        assert_true(workers > 1);
        /* its own time, plus its input's reference (where one of it validates) and at least one profile batch */
        double own = 0, ref = 0;
        int live = 0;
        for (size_t i = x->first; i < x->first + x->count; i++) {
            const sweep_config *c = &p->configs[i];
            own += estimate_config_own_s(c, t, &m, p->profile_passes);
            live |= !c->skip_reason;
            if (!c->skip_reason && c->validate) ref = estimate_reference_s(c, &m);
        }
        assert_true(live);
        assert_true(x->cost_s >= own + ref - 1e-9);
        if (p->profile_passes) assert_true(x->cost_s > own + ref + 0.1); /* a batch: 0.22 s at least */
    }
    for (size_t i = 0; i < p->count; i++)
        if (seen[i] != 1) fail_msg("N=%u: configuration %zu is in %u pieces", workers, i, seen[i]);
    free(group_of);
    free(seen);
    free(g);
    free(pc);
    return split;
}

static void test_pieces(void **state)
{
    (void)state;
    const char *names[] = {"smoke", "default", "vs-cub"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        experiment e;
        sweep_plan p;
        load_plan(names[k], &e, &p);
        assert_int_equal(check_pieces(&p, &e.timing, 1), 0);
        check_pieces(&p, &e.timing, 4);
        size_t split = check_pieces(&p, &e.timing, 64);
        if (!strcmp(names[k], "default")) assert_true(split > 0); /* groups above 1/128 of the plan are cut */
        plan_free(&p);
    }
}

/* The full plan (343035 rows): --shard N for 2, 4 and 32, and --devices. */
static void test_full_balance(void **state)
{
    (void)state;
    experiment e;
    sweep_plan p;
    load_plan("full", &e, &p);
    estimate_model m = estimate_model_default();
    /* Groups above whole / 64 are cut for 32 workers: only the heaviest
     * inputs, at 2^29-2^30, come near it (the small ones cost little since the
     * screen's 0.1 ms samples and the two-pass default metrics). */
    size_t split = check_pieces(&p, &e.timing, 32);
    print_message("full, 32 workers: %zu of 567 groups split\n", split);
    assert_true(split <= 8);
    double whole = estimate_rows_s(&p, &e, &m);
    const unsigned counts[] = {2, 4, 32};
    for (size_t k = 0; k < 3; k++) {
        unsigned n = counts[k];
        double *est = calloc(n, sizeof *est), lo = 1e300, hi = 0, sum = 0;
        assert_int_equal(shard_estimates(&p, &e, &m, n, est), 0);
        for (unsigned s = 0; s < n; s++) {
            lo = est[s] < lo ? est[s] : lo;
            hi = est[s] > hi ? est[s] : hi;
            sum += est[s];
        }
        print_message("full, %u shards: %.1f .. %.1f s (max/min %.4f), sum %.1f s, whole %.1f s (%+.2f %%)\n", n, lo,
                      hi, hi / lo, sum, whole, 100 * (sum / whole - 1));
        /* Balance: LPT ends the parts within one piece of each other, and the
         * pieces are at most whole / (2 N); the plan's 567 groups are each
         * far below that, so the parts come within a few per cent. */
        assert_true(hi / lo <= SHARD_SPREAD_MAX);
        /* What cutting costs: each part's start-up, and the references and
         * profile batches its groups no longer share with their neighbours. */
        assert_true(sum <= whole * SHARD_SUM_MAX + n * RUN_STARTUP_S);
        free(est);
        unsigned passes = estimate_profile_passes(&e);
        devices_modelled one, many;
        assert_int_equal(devices_model(&p, &e.timing, &m, passes, 1, &one), 0);
        assert_int_equal(devices_model(&p, &e.timing, &m, passes, n, &many), 0);
        print_message("full, --devices of %u: %.1f s, one worker %.1f s\n", n, many.wall, one.wall);
        /* Balance: the workers end within 2 % of their mean. Side by side each
         * pays the host's share of CUPTI's parts, so together they do more than
         * one worker alone, never less. */
        assert_true(many.wall <= many.busy / n * DEVICES_WALL_MAX + RUN_STARTUP_S);
        assert_true(many.busy >= one.wall);
    }
    plan_free(&p);
}

static void test_dealing_smoke(void **state)
{
    (void)state;
    check_dealing("smoke");
}

static void test_dealing_default(void **state)
{
    (void)state;
    check_dealing("default");
}

/* order = size: a variant's configurations are spread over the plan */
static void test_dealing_by_size(void **state)
{
    (void)state;
    check_dealing("vs-cub");
}

static void test_parse(void **state)
{
    (void)state;
    shard_spec s;
    char err[256];
    assert_int_equal(shard_parse("2/5", &s, err, sizeof err), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 5);
    assert_int_equal(shard_parse("auto", &s, err, sizeof err), 0);
    assert_true(s.is_auto);
    const char *bad[] = {"5/5", "1/0", "-1/3", "1/", "/3", "a/b", "1", "1/3x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (shard_parse(bad[i], &s, err, sizeof err) == 0) fail_msg("'%s' was accepted", bad[i]);
}

/* ---- the binary ---------------------------------------------------------------------------- */

static void run_ok(const char *const *args)
{
    const char *env[] = {FAKE, NO_LAUNCHER, NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_result_free(&r);
}

static void run_shard(const char *dir, const char *spec, const char *extra)
{
    const char *args[] = {"--experiment", "smoke", "--quiet", "--shard", spec, "--out", dir,
                          extra ? extra : "--no-cupti", extra ? "7" : NULL, NULL};
    run_ok(args);
}

/* results.csv's lines, each cut to its first `fields` columns (the fake
 * device's times depend on what ran before them in the process). */
static char *identity_columns(const char *path, int fields)
{
    char *t = tu_read_file(path), *out = calloc(strlen(t) + 1, 1), *o = out;
    assert_non_null(t);
    int field = 0, quoted = 0;
    for (const char *c = t; *c; c++) {
        if (*c == '"') quoted = !quoted;
        if (*c == '\n' && !quoted) {
            *o++ = '\n';
            field = 0;
            continue;
        }
        if (*c == ',' && !quoted) field++;
        if (field < fields) *o++ = *c;
    }
    free(t);
    return out;
}

static void test_merge_equals_unsharded(void **state)
{
    (void)state;
    const char *base = tu_tempdir("shard-merge");
    const char *whole = tu_path(base, "whole"), *merged = tu_path(base, "merged");
    const char *args[] = {"--experiment", "smoke", "--quiet", "--out", whole, NULL};
    run_ok(args);
    char spec[16], name[32];
    for (int i = 0; i < 3; i++) {
        snprintf(spec, sizeof spec, "%d/3", i);
        snprintf(name, sizeof name, "s%d", i);
        run_shard(tu_path(base, name), spec, NULL);
    }
    const char *margs[] = {"merge", merged, tu_path(base, "s2"), tu_path(base, "s0"), tu_path(base, "s1"), NULL};
    run_ok(margs);
    /* variant .. bytes_moved: the configuration, its status and reasons */
    char *a = identity_columns(tu_path(whole, "results.csv"), 17);
    char *b = identity_columns(tu_path(merged, "results.csv"), 17);
    assert_string_equal(a, b);
    free(a);
    free(b);
    json_t *w = tu_load_json(tu_path(whole, "run.json")), *m = tu_load_json(tu_path(merged, "run.json"));
    assert_string_equal(json_string_value(json_object_get(w, "plan_fingerprint")),
                        json_string_value(json_object_get(m, "plan_fingerprint")));
    assert_int_equal(json_array_size(json_object_get(m, "shards")), 3);
    assert_int_equal(json_integer_value(json_object_get(m, "rows")), json_integer_value(json_object_get(w, "rows")));
    assert_true(tu_exists(tu_path(merged, "summary.md")));
    json_decref(w);
    json_decref(m);
}

/* --dry-run models --shard (every part's estimate) and --devices (the
 * workers' wall time beside one worker's; all: the fake layer's count). */
static void test_dry_run_spread(void **state)
{
    (void)state;
    const char *env[] = {FAKE, NO_LAUNCHER, "SWEEP_FAKE_DEVICES=3", NULL};
    struct { const char *a, *b, *says; } cases[] = {
        {"--shard", "1/4", "shards: this part "},
        {"--devices", "0,1", "devices: 2 workers, the rows in "},
        {"--devices", "all", "devices: 3 workers, the rows in "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"--experiment", "smoke", "--dry-run", cases[i].a, cases[i].b, NULL};
        tu_result r = tu_run(NULL, env, args);
        if (r.status != 0 || !strstr(r.out, cases[i].says))
            fail_msg("%s %s: exit %d, no '%s' in: %s", cases[i].a, cases[i].b, r.status, cases[i].says, r.out);
        tu_result_free(&r);
    }
}

/* --shard auto: each launcher's variables, and none. */
static void test_auto(void **state)
{
    (void)state;
    struct { const char *a, *b, *c, *said; } cases[] = {
        {"SLURM_PROCID=1", "SLURM_NTASKS=3", "SLURM_LOCALID=0", "shard 1 of 3 from Slurm"},
        {"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_RANK=0", "shard 2 of 3 from Open MPI"},
        {"PMI_RANK=0", "PMI_SIZE=2", "X=", "shard 0 of 2 from MPICH/PMI"},
        {"PMIX_RANK=1", "PMIX_SIZE=4", "X=", "shard 1 of 4 from PMIx"},
    };
    const char *args[] = {"--experiment", "smoke", "--shard", "auto", "--dry-run", NULL};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *env[] = {FAKE, NO_LAUNCHER, cases[i].a, cases[i].b, cases[i].c, NULL};
        tu_result r = tu_run(NULL, env, args);
        if (r.status != 0 || !strstr(r.err, cases[i].said)) fail_msg("%s: exit %d: %s", cases[i].said, r.status, r.err);
        tu_result_free(&r);
    }
    const char *env[] = {FAKE, NO_LAUNCHER, NULL};
    tu_result r = tu_run(NULL, env, args);
    assert_int_equal(r.status, 2);
    assert_int_equal(tu_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "no launcher found"));
    tu_result_free(&r);
}

/* ---- what merge refuses ----------------------------------------------------------------------- */

static void copy_dir(const char *from, const char *to)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

static void edit_json(const char *dir, const char *key, json_t *value)
{
    const char *path = tu_path(dir, "run.json");
    json_t *o = tu_load_json(path);
    json_object_set_new(o, key, value);
    assert_int_equal(json_dump_file(o, path, JSON_INDENT(2)), 0);
    json_decref(o);
}

/* dir gets the first row of `from` once more: in results.csv, plan_positions and rows. */
static void add_duplicate_row(const char *dir, const char *from)
{
    char *csv = tu_read_file(tu_path(from, "results.csv"));
    char *line = strchr(csv, '\n') + 1, *end = strchr(line, '\n');
    end[1] = '\0';
    FILE *f = fopen(tu_path(dir, "results.csv"), "a");
    fputs(line, f);
    fclose(f);
    free(csv);
    json_t *src = tu_load_json(tu_path(from, "run.json")), *o = tu_load_json(tu_path(dir, "run.json"));
    json_array_append(json_object_get(o, "plan_positions"), json_array_get(json_object_get(src, "plan_positions"), 0));
    json_object_set_new(o, "rows", json_integer(json_integer_value(json_object_get(o, "rows")) + 1));
    assert_int_equal(json_dump_file(o, tu_path(dir, "run.json"), JSON_INDENT(2)), 0);
    json_decref(o);
    json_decref(src);
}

static void expect_refused(const char *out, const char *const *dirs, const char *says)
{
    const char *args[16] = {"merge", out};
    size_t n = 2;
    for (size_t i = 0; dirs[i]; i++) args[n++] = dirs[i];
    args[n] = NULL;
    const char *env[] = {FAKE, NULL};
    int existed = tu_exists(out);
    char *before = existed ? tu_read_file(tu_path(out, "results.csv")) : NULL;
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 2 || tu_count_lines(r.err) != 1 || !strstr(r.err, says))
        fail_msg("expected exit 2 and one line saying '%s'; got exit %d: %s", says, r.status, r.err);
    if (!existed) assert_false(tu_exists(out));
    char *after = existed ? tu_read_file(tu_path(out, "results.csv")) : NULL;
    if (existed) assert_string_equal(before, after); /* left as it was */
    free(before);
    free(after);
    tu_result_free(&r);
}

/* s with every `from` replaced by `to` (malloc'd). */
static char *replace_all(const char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = strstr(s, from); p; p = strstr(p + fl, from)) n++;
    char *out = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
    assert_non_null(out);
    for (const char *p; (p = strstr(s, from)); s = p + fl) {
        memcpy(o, s, (size_t)(p - s));
        o += p - s;
        memcpy(o, to, tl);
        o += tl;
    }
    strcpy(o, s);
    return out;
}

/* Shards holding a variant this build does not have (a run of another
 * build) merge all the same: the rows carry their own variant, and the
 * merged results.csv is, byte for byte, that of the shards as they were
 * with the variant's name replaced. */
#define OTHER_BUILDS_VARIANT "reduce_from_another_build"
static void test_merge_variant_not_in_build(void **state)
{
    (void)state;
    const char *base = tu_tempdir("shard-other-build");
    char spec[16], name[32], *plain[3], *other[3];
    int changed = 0;
    for (int i = 0; i < 2; i++) {
        snprintf(spec, sizeof spec, "%d/2", i);
        snprintf(name, sizeof name, "s%d", i);
        plain[i] = tu_path(base, name);
        run_shard(plain[i], spec, NULL);
        snprintf(name, sizeof name, "o%d", i);
        other[i] = tu_path(base, name);
        copy_dir(plain[i], other[i]);
        const char *csv = tu_path(other[i], "results.csv");
        char *was = tu_read_file(csv), *now = replace_all(was, "\nreduce_warp_shuffle,", "\n" OTHER_BUILDS_VARIANT ",");
        changed += strcmp(was, now) != 0; /* the shard has rows of it */
        FILE *f = fopen(csv, "w");
        fputs(now, f);
        fclose(f);
        free(was);
        free(now);
    }
    assert_true(changed >= 1); /* the time model deals its rows to one shard or both */
    plain[2] = other[2] = NULL;
    const char *m1 = tu_path(base, "m-plain"), *m2 = tu_path(base, "m-other");
    run_ok((const char *const[]){"merge", m1, plain[0], plain[1], NULL});
    run_ok((const char *const[]){"merge", m2, other[0], other[1], NULL});
    char *a = tu_read_file(tu_path(m1, "results.csv")), *b = tu_read_file(tu_path(m2, "results.csv"));
    char *expect = replace_all(a, "\nreduce_warp_shuffle,", "\n" OTHER_BUILDS_VARIANT ",");
    assert_string_equal(b, expect);
    char *md = tu_read_file(tu_path(m2, "summary.md"));
    assert_non_null(md);
    free(md);
    free(a);
    free(b);
    free(expect);
}

static void test_merge_refuses(void **state)
{
    (void)state;
    const char *base = tu_tempdir("shard-bad");
    char *s[3], spec[16], name[32];
    for (int i = 0; i < 3; i++) {
        snprintf(spec, sizeof spec, "%d/3", i);
        snprintf(name, sizeof name, "s%d", i);
        s[i] = tu_path(base, name);
        run_shard(s[i], spec, NULL);
    }
    char *other = tu_path(base, "other"), *torn = tu_path(base, "torn"), *dup = tu_path(base, "dup");
    run_shard(other, "1/3", "--seed"); /* another plan: another seed */
    copy_dir(s[1], torn);
    edit_json(torn, "complete", json_false());
    copy_dir(s[1], dup);
    add_duplicate_row(dup, s[0]);
    const char *out = tu_path(base, "out");
    expect_refused(out, (const char *const[]){s[0], s[1], NULL}, "shard 2 of 3 is missing");
    expect_refused(out, (const char *const[]){s[0], other, s[2], NULL}, "another plan");
    expect_refused(out, (const char *const[]){s[0], torn, s[2], NULL}, "interrupted or incomplete");
    expect_refused(out, (const char *const[]){s[0], dup, s[2], NULL}, "duplicate row");
    expect_refused(out, (const char *const[]){s[0], s[1], s[2], dup, NULL}, "duplicate shard");
    expect_refused(out, (const char *const[]){s[0], tu_path(base, "nowhere"), s[2], NULL}, "no such directory");
    const char *full = tu_path(base, "full");
    copy_dir(s[0], full); /* OUT not empty */
    expect_refused(full, (const char *const[]){s[0], s[1], s[2], NULL}, "not empty");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_dealing_smoke),
        cmocka_unit_test(test_dealing_default),
        cmocka_unit_test(test_dealing_by_size),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_full_balance),
        cmocka_unit_test(test_dry_run_spread),
        cmocka_unit_test(test_merge_equals_unsharded),
        cmocka_unit_test(test_merge_variant_not_in_build),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_merge_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
