/* The dry-run rendering of a plan (harness/config/plan.h: plan_print). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/plan.h"
#include "harness/config/plan_axes.h"
#include "harness/check/check_scratch.h"
#include "harness/config/plan_fit.h"
#include "harness/config/shard.h"

static void glob_text(const glob_list *g, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!g->count) {
        snprintf(buf, len, "*");
        return;
    }
    for (size_t i = 0; i < g->count; i++) {
        if (i) strncat(buf, ",", len - strlen(buf) - 1);
        strncat(buf, g->pat[i], len - strlen(buf) - 1);
    }
}

/* The experiment: its source, axes, validation, timing rule and metrics. */
static void print_experiment(FILE *f, const experiment *e)
{
    char a[1024], b[256];
    fprintf(f, "experiment %s (%s)\n", e->name, e->source[0] ? e->source : "built in");
    if (e->description[0]) fprintf(f, "  %s\n", e->description);
    glob_text(&e->variants, a, sizeof a);
    glob_text(&e->families, b, sizeof b);
    fprintf(f, "variants:  %s   families: %s\n", a, b);
    plan_axes_print(f, e);
    if (e->validate_all_to) {
        format_size(e->validate_all_to, a, sizeof a);
        fprintf(f, "validate: every configuration up to n = %s; above, the first of each variant, dtype, op, "
                   "finish/mode and n, and every one from 2^31\n",
                a);
    } else {
        fprintf(f, "validate: every configuration\n");
    }
    fprintf(f, "order: %s\n", e->order == PLAN_ORDER_SIZE
                                  ? "size (every variant at one input -- dtype, op, kind, scan mode, n -- before the next)"
                                  : "variant (each variant's configurations together)");
    fprintf(f, "timing: min %u samples, max %u, max noise %.3g %%, timeout %.3g s per configuration\n",
            e->timing.min_samples, e->timing.max_samples, e->timing.max_noise * 100, e->timing.timeout_s);
    if (e->timing.screen_samples)
        fprintf(f, "screen: %u samples a phase for every configuration; refined to the rule above: each variant's "
                   "possible fastest at an input, and those within %.3g %% of the input's fastest\n",
                e->timing.screen_samples, e->timing.refine_within * 100);
    else fprintf(f, "screen: none (every configuration to the rule above)\n");
    if (e->timing.hot_below_l2)
        fprintf(f, "hot phase: inputs under %u x the device's L2 (from there cold only)\n", e->timing.hot_below_l2);
    else fprintf(f, "hot phase: every input\n");
    if (e->metrics_mode == METRICS_NONE) fprintf(f, "metrics: none\n");
    else if (e->metrics_mode == METRICS_DEFAULT) fprintf(f, "metrics: the profiler's default set\n");
    else {
        fprintf(f, "metrics:");
        for (size_t i = 0; i < e->metric_count; i++) fprintf(f, "%s%s", i ? ", " : " ", e->metrics[i]);
        fprintf(f, "\n");
    }
}

/* One line per variant (configurations, skipped, estimate); the estimate's
 * two parts summed over the plan into *total_v and *total_m. */
static void print_variants(FILE *f, const experiment *e, const sweep_plan *p, const estimate_model *m,
                           double *total_v, double *total_m)
{
    char a[64];
    fprintf(f, "\n%-34s %-6s %8s %8s %12s\n", "variant", "kind", "configs", "skipped", "estimate");
    size_t i = 0;
    while (i < p->count) {
        const variant *v = p->configs[i].v;
        size_t run = 0, skip = 0;
        double est = 0;
        for (; i < p->count && p->configs[i].v == v; i++) {
            const sweep_config *cfg = &p->configs[i];
            if (cfg->skip_reason) {
                skip++;
                continue;
            }
            run++;
            double ev, em;
            estimate_config_parts(cfg, &e->timing, m, &ev, &em);
            *total_v += ev;
            *total_m += em;
            est += ev + em;
        }
        format_duration(est, a, sizeof a);
        fprintf(f, "%-34s %-6s %8zu %8zu %12s\n", v->name, kind_name(v->kind), run, skip, a);
    }
}

static int same_skip(const sweep_config *x, const sweep_config *y)
{
    return x->skip_reason && x->v == y->v && !strcmp(x->skip_reason, y->skip_reason);
}

/* Skipped configurations, (variant, reason) groups in plan order. */
static void print_skips(FILE *f, const sweep_plan *p)
{
    if (!p->skipped) return;
    fprintf(f, "\nskipped configurations, by reason:\n");
    for (size_t k = 0; k < p->count; k++) {
        const sweep_config *x = &p->configs[k];
        if (!x->skip_reason) continue;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++) seen = same_skip(&p->configs[j], x);
        if (seen) continue;
        size_t count = 0;
        for (size_t j = k; j < p->count; j++) count += same_skip(&p->configs[j], x);
        fprintf(f, "  %6zu  %s: %s\n", count, x->v->name, x->skip_reason);
    }
}

/* Per size from 2^28 (where a device's memory starts to matter), what the
 * largest configuration at that size needs (fit.h: config_device_bytes); the
 * run skips what does not fit in the device's free memory. */
static void print_memory_needs(FILE *f, const sweep_plan *p)
{
    const size_t from = (size_t)1 << 28;
    size_t last = 0;
    for (;;) {
        size_t n = 0, best = 0, need = 0; /* the smallest size above `last`, and its largest need */
        for (size_t i = 0; i < p->count; i++) {
            const sweep_config *c = &p->configs[i];
            if (c->skip_reason || c->n < from || c->n <= last || (n && c->n > n)) continue;
            kernel_args a;
            config_kernel_args(c, &a);
            size_t bytes = config_device_bytes(c->v, &a);
            if (c->n < n || !n || bytes > need) {
                n = c->n;
                best = i;
                need = bytes;
            }
        }
        if (!n) return;
        if (!last) fprintf(f, "\ndevice memory, the largest configuration per size (the run skips what does not fit):\n");
        const sweep_config *c = &p->configs[best];
        kernel_args a;
        config_kernel_args(c, &a);
        size_t elem = dtype_size(c->dtype), out = c->v->kind == KIND_SCAN ? c->n * elem : elem;
        size_t ws = c->v->workspace_size ? c->v->workspace_size(&a) : 0;
        char n_s[32], t[32], in_s[32], out_s[32], ws_s[32], chk[32];
        format_size(n, n_s, sizeof n_s);
        format_bytes((double)need, t, sizeof t);
        format_bytes((double)(c->n * elem), in_s, sizeof in_s);
        format_bytes((double)out, out_s, sizeof out_s);
        format_bytes((double)ws, ws_s, sizeof ws_s);
        format_bytes((double)CHECK_DEVICE_SCRATCH_BYTES, chk, sizeof chk);
        fprintf(f, "  %s %s %s (%s): needs %s (input %s + output %s + workspace %s + validation %s) + the L2 flush "
                   "buffer\n",
                n_s, dtype_name(c->dtype), kind_name(c->v->kind), c->v->name, t, in_s, out_s, ws_s, chk);
        last = n;
    }
}

/* --shard: this part's place among all N (the whole plan built again and
 * dealt as every process deals it) and what cutting the plan costs. */
static void print_shards(FILE *f, const experiment *e, const estimate_model *m, unsigned index, unsigned count)
{
    sweep_plan whole;
    char err[1024], a[64], b[64], c[64], d[64], w[64];
    if (plan_build(e, &whole, err, sizeof err)) return;
    double *est = malloc(count * sizeof *est);
    if (!est || shard_estimates(&whole, e, m, count, est)) {
        free(est);
        plan_free(&whole);
        return;
    }
    double lo = est[0], hi = est[0], sum = 0;
    for (unsigned s = 0; s < count; s++) {
        lo = est[s] < lo ? est[s] : lo;
        hi = est[s] > hi ? est[s] : hi;
        sum += est[s];
    }
    double all = estimate_rows_s(&whole, e, m);
    format_duration(est[index], a, sizeof a);
    format_duration(lo, b, sizeof b);
    format_duration(hi, c, sizeof c);
    format_duration(sum, d, sizeof d);
    format_duration(all, w, sizeof w);
    fprintf(f, "shards: this part %s; the %u parts %s .. %s (max/min %.2f), together %s against %s for the whole "
               "plan in one process (%+.1f %%: each part's start-up, and the references and profile batches of the "
               "groups split between parts)\n",
            a, count, b, c, hi / (lo > 0 ? lo : 1e-9), d, w, 100 * (sum / all - 1));
    free(est);
    plan_free(&whole);
}

/* --devices: the workers' wall time against one worker's, then what comes after the rows. */
static void print_devices(FILE *f, const experiment *e, const sweep_plan *p, const estimate_model *m, double drift,
                          double confirm)
{
    unsigned workers = e->spread.workers;
    if (e->spread.workers_all && e->spread.fake) { /* the fake layer's count (sweep_device_fake.c) */
        const char *s = getenv("SWEEP_FAKE_DEVICES");
        long k = s && *s ? atol(s) : 1;
        workers = k >= 1 && k <= 1024 ? (unsigned)k : 1;
    } else if (e->spread.workers_all) {
        fprintf(f, "devices: all -- as many workers as the driver counts, which the dry-run does not ask (it starts "
                   "no CUDA); --dry-run --devices 0,1,2,3 models four\n");
        return;
    }
    if (!workers) return;
    unsigned passes = m->no_profile ? 0 : estimate_profile_passes(e);
    devices_modelled many, one;
    if (devices_model(p, &e->timing, m, passes, workers, &many) || devices_model(p, &e->timing, m, passes, 1, &one))
        return;
    char a[64], b[64], c[64], d[64];
    format_duration(many.wall, a, sizeof a);
    format_duration(one.wall, b, sizeof b);
    format_duration(many.first_end, c, sizeof c);
    fprintf(f, "devices: %u worker%s, the rows in %s (one worker: %s; %.2fx); %zu pieces of %zu input groups (%zu "
               "split), heaviest first to the worker free first, each worker %.0f s to start; the first worker done "
               "at %s\n",
            workers, workers == 1 ? "" : "s", a, b, one.wall / many.wall, many.pieces, many.groups, many.split,
            RUN_STARTUP_S, c);
    /* the confirmation: one job per input, dealt over the workers after the rows */
    double spread_confirm = confirm / workers;
    format_duration(spread_confirm, c, sizeof c);
    format_duration(many.wall + spread_confirm, d, sizeof d);
    if (confirm > 0)
        fprintf(f, "devices: then the confirmation, each input's on one worker, about %s over the %u: %s in all "
                   "(the drift check does not run with --devices)\n",
                c, workers, d);
    (void)drift;
}

void plan_print(FILE *f, const experiment *e, const sweep_plan *p, const estimate_model *m)
{
    char a[64], b[64], c[64], notes[2048];
    double total_v = 0, total_m = 0;
    print_experiment(f, e);
    print_variants(f, e, p, m, &total_v, &total_m);
    total_v += estimate_references_s(p, m);
    print_skips(f, p);
    plan_unheeded_notes(e, notes, sizeof notes);
    if (notes[0]) fprintf(f, "\nasked values some variants do not have (they run their own): %s\n", notes);
    size_t to_run = p->count - p->skipped;
    fprintf(f, "\nplan: %zu configurations to run, %zu skipped (%zu rows), %zu variants\n", to_run, p->skipped,
            p->count, p->variants);
    /* --shard I/N (or auto, the launcher's): p is that part */
    unsigned shard_index = e->spread.shard_index, shard_count = e->spread.shard_count;
    if (e->spread.shard_auto) {
        shard_spec s;
        char err[512];
        if (!shard_from_env(&s, err, sizeof err)) shard_index = s.index, shard_count = s.count;
    }
    double drift, confirm;
    size_t sizes, profiled;
    unsigned passes;
    char how[512];
    estimate_after_rows(p, e, m, &drift, &confirm, &sizes);
    double profile = estimate_profile_s(p, e, m, &profiled, &passes, how, sizeof how);
    double after = shard_count ? 0 : e->spread.workers || e->spread.workers_all ? confirm : drift + confirm;
    format_duration(total_v + total_m + profile + after + RUN_STARTUP_S, a, sizeof a);
    format_duration(total_v, b, sizeof b);
    format_duration(total_m, c, sizeof c);
    fprintf(f, "estimated time: %s (validation %s, timing %s", a, b, c);
    format_duration(profile, b, sizeof b);
    if (profiled) fprintf(f, ", profile %s", b);
    format_duration(drift, b, sizeof b);
    format_duration(confirm, c, sizeof c);
    if (shard_count)
        fprintf(f, "; a --shard part runs no drift check or confirmation: `sweep confirm` the merged run");
    else if (e->spread.workers || e->spread.workers_all)
        fprintf(f, ", confirmation of %zu size%s %s; on one device, without the drift check, which --devices does not run",
                sizes, sizes == 1 ? "" : "s", c);
    else
        fprintf(f, ", drift check %s, confirmation of %zu size%s %s", b, sizes, sizes == 1 ? "" : "s", c);
    fprintf(f, "), modelled for %.0f GB/s and %zu MiB of L2\n", m->peak_GBps, m->l2_bytes >> 20);
    double screen, refine, refined;
    estimate_timing_stages(p, &e->timing, m, &screen, &refine, &refined);
    format_duration(screen, a, sizeof a);
    format_duration(refine, b, sizeof b);
    if (e->timing.screen_samples)
        fprintf(f, "timing stages: %zu configurations screened (%u samples a phase) ~ %s, about %.0f refined to the full rule "
                   "~ %s\n",
                to_run, e->timing.screen_samples, a, refined, b);
    format_duration(profile, a, sizeof a);
    if (profiled)
        fprintf(f, "profile: %zu configurations x %u pass%s ~ %s (model: %s; --no-cupti or --metrics none leaves "
                   "it out)\n",
                profiled, passes, passes == 1 ? "" : "es", a, how);
    else
        fprintf(f, "profile: none (%s)\n", m->no_profile ? "--no-cupti" : "no metrics asked for");
    if (shard_count) print_shards(f, e, m, shard_index, shard_count);
    print_devices(f, e, p, m, drift, confirm);
    print_memory_needs(f, p);
}
