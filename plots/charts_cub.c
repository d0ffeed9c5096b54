/* Two charts against the library baseline (CUB, family "cub": reduce_cub,
 * scan_cub), per group (kind x dtype x op), each with a cold-L2 panel and,
 * where results.csv has hot times, a hot-L2 panel beside it:
 *
 *   speedup-vs-cub-<group>  CUB's median / the variant's median at each n,
 *                           one line per variant other than CUB, a line at 1
 *   pct-copy-<group>        bytes moved / median as a percentage of the copy
 *                           bandwidth measured in the run (run.json), one line
 *                           per variant, CUB included, a line at 100 %
 *
 * Each point is the variant's fastest configuration at that n in that L2
 * state (lowest cold median for the cold panel, lowest hot median for the hot
 * one), and CUB's likewise, so the two panels may compare different
 * configurations. Computed from the medians, not from the speedup_vs_cub
 * column (cold only); the cold panel's values equal that column for the
 * variant's fastest row where the results hold one scan mode. A group without
 * CUB rows is skipped with a note. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/charts_util.h"

enum { COLD = 0, HOT = 1 };

/* The fastest ok row of variant var of group g at n in the given L2 state;
 * NULL when none has that median. Cold: the same row as the group's point. */
static const row *fastest(const results *r, const group *g, int var, unsigned long long n, int hot)
{
    const row *best = NULL;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!w->ok || w->var != var || w->n != n) continue;
        if (strcmp(w->kind, g->kind) || strcmp(w->dtype, g->dtype) || strcmp(w->op, g->op)) continue;
        double t = hot ? w->t_hot : w->t_cold;
        if (!(t > 0)) continue;
        if (!best || t < (hot ? best->t_hot : best->t_cold)) best = w;
    }
    return best;
}

/* The fastest CUB row (of any CUB variant of the group) at n. */
static const row *fastest_cub(const results *r, const group *g, unsigned long long n, int hot)
{
    const row *best = NULL;
    for (size_t i = 0; i < g->ns; i++) {
        if (!r->vars[g->s[i].var].is_cub) continue;
        const row *w = fastest(r, g, g->s[i].var, n, hot);
        if (w && (!best || (hot ? w->t_hot < best->t_hot : w->t_cold < best->t_cold))) best = w;
    }
    return best;
}

static double median_of(const row *w, int hot) { return w ? (hot ? w->t_hot : w->t_cold) : NAN; }

/* GB/s: bytes moved / median, else the bandwidth column */
static double bandwidth_of(const row *w, int hot)
{
    if (!w) return NAN;
    double t = median_of(w, hot);
    if (w->bytes > 0 && t > 0) return w->bytes / (t * 1e6);
    return hot ? w->bw_hot : w->bw_cold;
}

static int group_has_cub(const results *r, const group *g)
{
    for (size_t i = 0; i < g->ns; i++)
        if (r->vars[g->s[i].var].is_cub) return 1;
    return 0;
}

/* The value of variant var at n in one L2 state: the speed-up over CUB, or
 * the percentage of the copy bandwidth. */
static double value_at(const render_ctx *ctx, const group *g, int pct, int var, unsigned long long n, int hot,
                       const row **used)
{
    const results *r = ctx->r;
    const row *w = fastest(r, g, var, n, hot);
    *used = w;
    if (!w) return NAN;
    if (pct) return bandwidth_of(w, hot) / r->run.copy_GBps * 100.0;
    const row *c = fastest_cub(r, g, n, hot);
    return c ? median_of(c, hot) / median_of(w, hot) : NAN;
}

/* Write the data (one block per variant with at least one value) and draw.
 * pct: 0 for the speed-up chart, 1 for the percentage of the copy bandwidth. */
static void chart_vs_cub(render_ctx *ctx, int gi, const char *stem, int pct)
{
    const results *r = ctx->r;
    const group *g = &r->groups[gi];
    const run_info *ri = &r->run;
    char cstem[200], title[160];
    snprintf(cstem, sizeof cstem, "%s-%s", pct ? "pct-copy" : "speedup-vs-cub", stem);
    if (pct) snprintf(title, sizeof title, "%s bandwidth as %% of the measured copy vs n", kind_word(g->kind));
    else snprintf(title, sizeof title, "%s speed-up over CUB vs n", kind_word(g->kind));
    chart *c = new_chart(ctx, gi, cstem, title);
    if (!c) return;
    int two = 0; /* a hot panel: some point has a hot median */
    if (r->has_hot)
        for (size_t i = 0; i < g->ns && !two; i++)
            for (size_t j = 0; j < g->s[i].npts && !two; j++) two = fastest(r, g, g->s[i].var, g->s[i].pts[j].n, HOT) != NULL;
    if (pct)
        snprintf(c->caption, sizeof c->caption,
                 "Bandwidth (bytes moved%s ÷ median time) of each variant, CUB included, as a percentage of the copy "
                 "bandwidth measured in this run (%.0f GB/s, read + write), against n; %s. Each point is the "
                 "variant's fastest configuration at that n in that L2 state. Dashed: 100 %%.",
                 strcmp(g->kind, "scan") == 0 ? ", read + write" : "", ri->copy_GBps,
                 two ? "left: cold L2 (flushed before each launch), right: hot (the same input reused)"
                     : "cold L2 (flushed before each launch); results.csv has no hot times");
    else
        snprintf(c->caption, sizeof c->caption,
                 "Speed-up over CUB (CUB's median time ÷ the variant's, at the same n) of each other variant against "
                 "n; %s. Each point compares the variant's fastest configuration at that n with CUB's, both in that "
                 "L2 state. Above the dashed line at 1 the variant beats CUB.",
                 two ? "left: cold L2 (flushed before each launch), right: hot (the same input reused)"
                     : "cold L2 (flushed before each launch); results.csv has no hot times");
    if (!group_has_cub(r, g)) {
        skip_chart(ctx, c, "no CUB rows (family cub, e.g. %s_cub) with status ok for %s %s %s", g->kind, g->kind,
                   g->dtype, g->op);
        return;
    }
    if (pct && !isfinite(ri->copy_GBps)) {
        skip_chart(ctx, c, "the measured copy bandwidth is unknown (run.json copy_bandwidth_GBps)");
        return;
    }
    if (pct && !r->has_bw) {
        skip_chart(ctx, c, "results.csv has neither bytes_moved nor bw_cold_GBps");
        return;
    }

    char dat[220], err[512];
    snprintf(dat, sizeof dat, "%s.dat", cstem);
    FILE *f = open_data(ctx, dat, err, sizeof err);
    if (!f) {
        skip_chart(ctx, c, "%s", err);
        return;
    }
    fprintf(f, "# %s %s %s: %s, per variant (one block each, in this order); each value from the variant's fastest "
               "configuration at n in that L2 state\n",
            g->kind, g->dtype, g->op,
            pct ? "bytes moved / median time as % of the measured copy bandwidth"
                : "speed-up over CUB (CUB's fastest median / the variant's fastest median)");
    fprintf(f, "# n cold hot cold_block_dim cold_coarse hot_block_dim hot_coarse\n");
    int *vars = malloc((g->ns ? g->ns : 1) * sizeof *vars);
    size_t nv = 0;
    double lo = INFINITY, hi = 0;
    unsigned long long nlo = 0, nhi = 0;
    for (size_t i = 0; vars && i < g->ns; i++) {
        int var = g->s[i].var;
        if (!pct && r->vars[var].is_cub) continue;
        int header = 0;
        for (size_t j = 0; j < g->s[i].npts; j++) {
            unsigned long long n = g->s[i].pts[j].n;
            const row *wc, *wh;
            double vc = value_at(ctx, g, pct, var, n, COLD, &wc), vh = value_at(ctx, g, pct, var, n, HOT, &wh);
            if (!(vc > 0) && !(vh > 0)) continue;
            if (!header) {
                fprintf(f, "# %s\n", r->vars[var].name);
                header = 1;
                vars[nv++] = var;
            }
            fprintf(f, "%llu", n);
            dat_num(f, vc > 0 ? vc : NAN);
            dat_num(f, vh > 0 ? vh : NAN);
            fprintf(f, " %ld %ld %ld %ld\n", wc ? wc->block_dim : -1, wc ? wc->coarse : -1, wh ? wh->block_dim : -1,
                    wh ? wh->coarse : -1);
            for (int k = 0; k < 2; k++) {
                double v = k ? vh : vc;
                if (!(v > 0)) continue;
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
            if (!nlo || n < nlo) nlo = n;
            if (n > nhi) nhi = n;
        }
        if (header) fputs("\n\n", f);
    }
    if (close_data(f, ctx, dat, err, sizeof err)) {
        free(vars);
        skip_chart(ctx, c, "%s", err);
        return;
    }
    if (!nv) {
        free(vars);
        skip_chart(ctx, c, "%s", pct ? "no bandwidth in any ok row" : "no variant other than CUB shares an n with it");
        return;
    }

    double xmin, xmax, xstart;
    int xstep;
    n_axis(nlo, nhi, &xmin, &xmax, &xstep, &xstart);
    double ymin, ymax;
    pbuf yt = {0};
    if (pct) {
        ymin = 0;
        ymax = (hi > 100 ? hi : 100) * 1.08;
    } else {
        if (lo > 1) lo = 1;
        if (hi < 1) hi = 1;
        ymin = lo / 1.25;
        ymax = hi * 1.25;
        log_tics(ymin, ymax, &yt);
    }
    char folded[256], sub[600];
    folded_text(g->folded, folded, sizeof folded);
    snprintf(sub, sizeof sub, "%s; each point: the variant's fastest configuration at n in that L2 state (%s)",
             two ? "left: cold L2, right: hot L2" : "cold L2; no hot times in these results",
             g->folded ? "over its configurations" : "one configuration each");
    pbuf p = {0};
    common_titles(ctx, g, &p, title, sub);
    p_str(&p, "data", dat);
    p_int(&p, "nvar", (long long)nv);
    var_lists(ctx, vars, nv, &p);
    free(vars);
    p_int(&p, "npanel", two ? 2 : 1);
    p_num(&p, "xmin", xmin);
    p_num(&p, "xmax", xmax);
    p_int(&p, "xstep", xstep);
    p_num(&p, "xstart", xstart);
    p_num(&p, "ymin", ymin);
    p_num(&p, "ymax", ymax);
    p_int(&p, "ylog", !pct);
    p_str(&p, "yt", yt.s ? yt.s : "");
    free(yt.s);
    p_str(&p, "ylab", pct ? "% of the measured copy bandwidth" : "speed-up over CUB (×, log scale)");
    p_num(&p, "ref", pct ? 100.0 : 1.0);
    p_str(&p, "reflab", pct ? "100 % of copy" : "CUB (1×)");
    int w = two ? 1720 : 1280, h = 720;
    if (w < titles_px(ctx, g, title, sub)) w = titles_px(ctx, g, title, sub);
    /* the key, right of the panels: the longest name */
    size_t longest = 14;
    for (size_t i = 0; i < g->ns; i++) {
        size_t l = strlen(r->vars[g->s[i].var].name);
        if (l > longest) longest = l;
    }
    p_num(&p, "right", 1.0 - ((double)longest * 7.5 + 70) / w);
    draw(ctx, c, "vscub.gp", w, h, p.s ? p.s : "");
    free(p.s);
}

void chart_speedup_vs_cub(render_ctx *ctx, int gi, const char *stem) { chart_vs_cub(ctx, gi, stem, 0); }

void chart_pct_copy(render_ctx *ctx, int gi, const char *stem) { chart_vs_cub(ctx, gi, stem, 1); }
