/* The dry-run rendering of a plan (harness/plan.h: plan_print). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "harness/plan.h"

static void mask_names(unsigned mask, int count, const char *(*name)(int), char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        if (!(mask & (1u << i))) continue;
        if (buf[0]) strncat(buf, ",", len - strlen(buf) - 1);
        strncat(buf, name(i), len - strlen(buf) - 1);
    }
}

static const char *dname(int i) { return dtype_name((dtype_t)i); }
static const char *oname(int i) { return op_name((op_t)i); }
static const char *sname(int i) { return scan_mode_name((scan_mode_t)i); }
static const char *fname(int i) { return finish_name((finish_t)i); }

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

/* "64,128,256": block dims and coarse factors read best as plain numbers. */
static void plain_list(const size_list *l, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->count && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%zu", i ? "," : "", l->v[i]);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

void plan_print(FILE *f, const experiment *e, const sweep_plan *p, const estimate_model *m)
{
    char a[1024], b[256], c[256], d[256];
    fprintf(f, "experiment %s (%s)\n", e->name, e->source[0] ? e->source : "built in");
    if (e->description[0]) fprintf(f, "  %s\n", e->description);
    glob_text(&e->variants, a, sizeof a);
    glob_text(&e->families, b, sizeof b);
    fprintf(f, "variants:  %s   families: %s\n", a, b);
    format_size_list(&e->sizes, a, sizeof a);
    fprintf(f, "sizes:     %s\n", a);
    plain_list(&e->block_dims, a, sizeof a);
    plain_list(&e->coarse, b, sizeof b);
    fprintf(f, "block dims: %s   coarse: %s (where a variant has these axes)\n", a, b);
    mask_names(e->dtypes, DTYPE_COUNT, dname, a, sizeof a);
    mask_names(e->ops, OP_COUNT, oname, b, sizeof b);
    mask_names(e->scan_modes, SCAN_MODE_COUNT, sname, c, sizeof c);
    if (e->finish_policy == FINISHES_FIRST) snprintf(d, sizeof d, "first (each variant's first)");
    else if (e->finish_policy == FINISHES_ALL) snprintf(d, sizeof d, "all");
    else mask_names(e->finishes, FINISH_COUNT, fname, d, sizeof d);
    fprintf(f, "dtypes: %s   ops: %s   scan modes: %s   finishes: %s\n", a, b, c, d);
    if (e->validate_all_to) {
        format_size(e->validate_all_to, a, sizeof a);
        fprintf(f, "validate: every configuration up to n = %s; above, the first of each variant, dtype, op, "
                   "finish/mode and n\n",
                a);
    } else {
        fprintf(f, "validate: every configuration\n");
    }
    fprintf(f, "timing: min %u samples, max %u, max noise %.3g %%, timeout %.3g s per configuration\n",
            e->timing.min_samples, e->timing.max_samples, e->timing.max_noise * 100, e->timing.timeout_s);
    if (e->metrics_mode == METRICS_NONE) fprintf(f, "metrics: none\n");
    else if (e->metrics_mode == METRICS_DEFAULT) fprintf(f, "metrics: the profiler's default set\n");
    else {
        fprintf(f, "metrics:");
        for (size_t i = 0; i < e->metric_count; i++) fprintf(f, "%s%s", i ? ", " : " ", e->metrics[i]);
        fprintf(f, "\n");
    }

    fprintf(f, "\n%-34s %-6s %8s %8s %12s\n", "variant", "kind", "configs", "skipped", "estimate");
    double total_v = 0, total_m = 0;
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
            total_v += ev;
            total_m += em;
            est += ev + em;
        }
        format_duration(est, a, sizeof a);
        fprintf(f, "%-34s %-6s %8zu %8zu %12s\n", v->name, kind_name(v->kind), run, skip, a);
    }

    if (p->skipped) {
        fprintf(f, "\nskipped configurations, by reason:\n");
        /* Group (variant, reason) in plan order. */
        for (size_t k = 0; k < p->count; k++) {
            const sweep_config *x = &p->configs[k];
            if (!x->skip_reason) continue;
            int seen = 0;
            for (size_t j = 0; j < k && !seen; j++)
                seen = p->configs[j].skip_reason && p->configs[j].v == x->v &&
                       !strcmp(p->configs[j].skip_reason, x->skip_reason);
            if (seen) continue;
            size_t count = 0;
            for (size_t j = k; j < p->count; j++)
                if (p->configs[j].skip_reason && p->configs[j].v == x->v &&
                    !strcmp(p->configs[j].skip_reason, x->skip_reason))
                    count++;
            fprintf(f, "  %6zu  %s: %s\n", count, x->v->name, x->skip_reason);
        }
    }
    size_t to_run = p->count - p->skipped;
    format_duration(total_v + total_m + RUN_STARTUP_S, a, sizeof a);
    format_duration(total_v, b, sizeof b);
    format_duration(total_m, c, sizeof c);
    fprintf(f, "\nplan: %zu configurations to run, %zu skipped (%zu rows), %zu variants\n", to_run, p->skipped,
            p->count, p->variants);
    fprintf(f, "estimated time: %s (validation %s, timing %s), modelled for %.0f GB/s and %zu MiB of L2\n", a, b, c,
            m->peak_GBps, m->l2_bytes >> 20);
}
