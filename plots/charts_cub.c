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
#include "results_io/confirm_io.h"

enum { COLD = 0, HOT = 1 };

/* The fastest ok row of variant var of group g at n in the given L2 state;
 * NULL when none has that median. Cold: the same row as the group's point. */
static const row *fastest(const results *r, const group *g, int var, unsigned long long n, int hot)
{
    const row *best = NULL;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!w->ok || w->var != var || w->base.cfg.n != n) continue;
        if (strcmp(w->base.cfg.kind, g->kind) || strcmp(w->base.cfg.dtype, g->dtype) || strcmp(w->base.cfg.op, g->op))
            continue;
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

/* What the data file holds: the variants with a block, the value and n ranges. */
typedef struct vs_cub_sum {
    int pct;
    int *vars;
    size_t nv;
    double lo, hi;
    unsigned long long nlo, nhi;
    confirm_line *conf; /* confirm.csv's lines (none: NULL) */
    size_t nconf;
    int nconfirmed, nnoise; /* points with the confirmation's interval, with the rows' */
} vs_cub_sum;

static double noise_of(const row *w, int hot) { return results_row_noise_pct(&w->base, hot); }

/* The confirmation's line for variant var at n in one L2 state (the fastest
 * of its scan modes); NULL when it has none. */
static const confirm_line *confirmed(const vs_cub_sum *s, const group *g, const char *var, unsigned long long n,
                                     int hot)
{
    const confirm_line *best = NULL;
    for (size_t i = 0; i < s->nconf; i++) {
        const confirm_line *l = &s->conf[i];
        if (l->n != n || strcmp(l->role, "candidate") || strcmp(l->phase, hot ? "hot" : "cold") ||
            strcmp(l->variant, var) || strcmp(l->kind, g->kind) || strcmp(l->dtype, g->dtype) || strcmp(l->op, g->op))
            continue;
        if (isfinite(l->speedup) && (!best || l->median_ms < best->median_ms)) best = l;
    }
    return best;
}

/* The value of variant var at n in one L2 state, its 95 % interval and
 * where that came from (0: none, 1: the rows' noise, 2: the confirmation):
 * the speed-up over CUB, or the percentage of the copy bandwidth. */
static double value_at(const chart_job *j, const vs_cub_sum *s, int var, unsigned long long n, int hot,
                       const row **used, double iv[2], int *src)
{
    const results *r = j->ctx->r;
    const row *w = fastest(r, j->g, var, n, hot);
    *used = w;
    iv[0] = iv[1] = NAN, *src = 0;
    if (!w) return NAN;
    double lo, hi, t = median_of(w, hot);
    median_interval(t, noise_of(w, hot), &lo, &hi);
    *src = isfinite(noise_of(w, hot));
    if (s->pct) {
        double v = bandwidth_of(w, hot) / r->run.copy_GBps * 100.0;
        iv[0] = v * t / hi, iv[1] = v * t / lo;
        return v;
    }
    const confirm_line *l = confirmed(s, j->g, r->vars[var].name, n, hot);
    if (l) {
        iv[0] = l->ci_lo, iv[1] = l->ci_hi, *src = 2;
        return l->speedup;
    }
    const row *c = fastest_cub(r, j->g, n, hot);
    if (!c) return NAN;
    /* the ratio's interval: the two medians' relative errors in quadrature */
    double v = median_of(c, hot) / t, ec = (hi - t) / t, clo, chi;
    median_interval(median_of(c, hot), noise_of(c, hot), &clo, &chi);
    double e = sqrt(ec * ec + pow((chi - median_of(c, hot)) / median_of(c, hot), 2));
    *src = *src || isfinite(noise_of(c, hot));
    iv[0] = v / (1 + e), iv[1] = v * (1 + e);
    return v;
}

/* ---- the chart table's functions (charts.c): pct 0 the speed-up chart, 1 the
 * percentage of the copy bandwidth ------------------------------------------------------ */

static int title_vs_cub(chart_job *j, int pct)
{
    if (pct) snprintf(j->title, 160, "%s bandwidth as %% of the measured copy vs n", kind_word(j->g->kind));
    else snprintf(j->title, 160, "%s speed-up over CUB vs n", kind_word(j->g->kind));
    return 1;
}

int title_speedup_vs_cub(chart_job *j) { return title_vs_cub(j, 0); }
int title_pct_copy(chart_job *j) { return title_vs_cub(j, 1); }

/* A hot panel: some point has a hot median (kept in j->flag). */
static int hot_panel(const results *r, const group *g)
{
    if (!r->has_hot) return 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++)
            if (fastest(r, g, g->s[i].var, g->s[i].pts[j].n, HOT)) return 1;
    return 0;
}

static const char *panels_text(int two)
{
    return two ? "left: cold L2 (flushed before each launch), right: hot (the same input reused)"
               : "cold L2 (flushed before each launch); results.csv has no hot times";
}

void caption_speedup_vs_cub(chart_job *j)
{
    j->flag = hot_panel(j->ctx->r, j->g);
    snprintf(j->c->caption, sizeof j->c->caption,
             "Speed-up over CUB (CUB's median time ÷ the variant's, at the same n) of each other variant against "
             "n; %s. Each point compares the variant's fastest configuration at that n with CUB's, both in that "
             "L2 state. Above the dashed line at 1 the variant beats CUB. Error bars: 95 %% intervals: the "
             "confirmation's (confirm.csv: its speed-up and bootstrap interval) where it measured the point, else "
             "from the two medians' noise. Log y where the speed-ups span more than 4×.",
             panels_text(j->flag));
}

void caption_pct_copy(chart_job *j)
{
    j->flag = hot_panel(j->ctx->r, j->g);
    snprintf(j->c->caption, sizeof j->c->caption,
             "Bandwidth (bytes moved%s ÷ median time) of each variant, CUB included, as a percentage of the copy "
             "bandwidth measured in this run (%.0f GB/s, read + write), against n; %s. Each point is the "
             "variant's fastest configuration at that n in that L2 state. Dashed: 100 %%. Error bars: each median's "
             "95 %% interval from its noise (noise_cold_pct, noise_hot_pct).",
             strcmp(j->g->kind, "scan") == 0 ? ", read + write" : "", j->ctx->r->run.copy_GBps, panels_text(j->flag));
}

/* Variant var's block of the data file (none when it has no value). */
static void vs_cub_block(FILE *f, const chart_job *j, int pct, int var, const series *sr, vs_cub_sum *s)
{
    int header = 0;
    for (size_t k = 0; k < sr->npts; k++) {
        unsigned long long n = sr->pts[k].n;
        const row *wc, *wh;
        double ic[2], ih[2];
        int sc, sh;
        double vc = value_at(j, s, var, n, COLD, &wc, ic, &sc), vh = value_at(j, s, var, n, HOT, &wh, ih, &sh);
        if (!(vc > 0) && !(vh > 0)) continue;
        if (!header) {
            fprintf(f, "# %s\n", j->ctx->r->vars[var].name);
            header = 1;
            s->vars[s->nv++] = var;
        }
        fprintf(f, "%llu", n);
        dat_num(f, vc > 0 ? vc : NAN);
        dat_num(f, vh > 0 ? vh : NAN);
        fprintf(f, " %ld %ld %ld %ld", wc ? wc->base.cfg.block_dim : -1, wc ? wc->base.cfg.axis[0] : -1,
                wh ? wh->base.cfg.block_dim : -1, wh ? wh->base.cfg.axis[0] : -1);
        for (int h = 0; h < 2; h++) {
            double v = h ? vh : vc, *iv = h ? ih : ic;
            int src = h ? sh : sc;
            dat_num(f, v > 0 ? iv[0] : NAN);
            dat_num(f, v > 0 ? iv[1] : NAN);
            if (!(v > 0)) continue;
            s->nconfirmed += src == 2, s->nnoise += src == 1;
            s->lo = fmin(s->lo, fmin(v, iv[0]));
            s->hi = fmax(s->hi, fmax(v, iv[1]));
        }
        fprintf(f, " %d %d\n", vc > 0 ? sc : 0, vh > 0 ? sh : 0);
        if (!s->nlo || n < s->nlo) s->nlo = n;
        if (n > s->nhi) s->nhi = n;
    }
    if (header) fputs("\n\n", f);
}

/* The data: one block per variant with at least one value. */
static void vs_cub_rows(FILE *f, chart_job *j, void *arg)
{
    vs_cub_sum *s = arg;
    const group *g = j->g;
    fprintf(f, "# %s %s %s: %s, per variant (one block each, in this order); each value from the variant's fastest "
               "configuration at n in that L2 state\n",
            g->kind, g->dtype, g->op,
            s->pct ? "bytes moved / median time as % of the measured copy bandwidth"
                   : "speed-up over CUB (CUB's fastest median / the variant's fastest median)");
    fprintf(f, "# n cold hot cold_block_dim cold_coarse hot_block_dim hot_coarse cold_lo cold_hi hot_lo hot_hi "
               "cold_source hot_source (the 95 %% interval; source 2: confirm.csv's speed-up and interval, 1: the "
               "rows' medians and noise, 0: no interval)\n");
    for (size_t i = 0; s->vars && i < g->ns; i++)
        if (s->pct || !j->ctx->r->vars[g->s[i].var].is_cub) vs_cub_block(f, j, s->pct, g->s[i].var, &g->s[i], s);
}

/* What the error bars are, for the subtitle. */
static void bars_text(const vs_cub_sum *s, char *out, size_t len)
{
    if (s->nconfirmed)
        snprintf(out, len, "bars: 95 %% intervals, at %d point%s the confirmation's (confirm.csv, its speed-up "
                 "drawn), elsewhere from the medians' noise", s->nconfirmed, s->nconfirmed > 1 ? "s" : "");
    else if (s->nnoise) snprintf(out, len, "bars: 95 %% intervals from the medians' noise (± 1.96 standard errors)");
    else snprintf(out, len, "no intervals: the results have no noise columns");
}

static void vs_cub_params(chart_job *j, int pct, const char *dat, vs_cub_sum *s)
{
    const group *g = j->g;
    pbuf *p = &j->p;
    double ymin = 0, ymax = (s->hi > 100 ? s->hi : 100) * 1.08;
    int ylog = s->hi / s->lo > LOG_Y_SPAN;
    if (pct && ylog) ymin = s->lo / 1.5, ymax = fmax(s->hi, 100) * 1.5;
    if (!pct) {
        /* the speed-ups on a log scale where they span more than 4x:
         * 2x and 1/2x then lie equally far from 1 */
        s->lo = fmin(s->lo, 1), s->hi = fmax(s->hi, 1);
        ylog = s->hi / s->lo > 4;
        ymin = ylog ? s->lo / 1.25 : s->lo - (s->hi - s->lo) * 0.08;
        ymax = ylog ? s->hi * 1.25 : s->hi + (s->hi - s->lo) * 0.08;
    }
    char bars[200];
    bars_text(s, bars, sizeof bars);
    snprintf(j->sub, sizeof j->sub, "%s; each point: the variant's fastest configuration at n in that L2 state (%s); %s",
             j->flag ? "left: cold L2, right: hot L2" : "cold L2; no hot times in these results",
             g->folded ? "over its configurations" : "one configuration each", bars);
    p_y_axis(p, ylog, ymin, ymax);
    p_int(p, "hasconf", s->nconfirmed > 0);
    p_str(p, "ylab", pct ? (ylog ? "% of the measured copy bandwidth (log scale)" : "% of the measured copy bandwidth")
                         : (ylog ? "speed-up over CUB (×, log scale)" : "speed-up over CUB (×)"));
    p_str(p, "data", dat);
    p_int(p, "nvar", (long long)s->nv);
    var_lists(j->ctx, s->vars, s->nv, p);
    p_int(p, "npanel", j->flag ? 2 : 1);
    p_n_axis(p, s->nlo, s->nhi);
    p_num(p, "ref", pct ? 100.0 : 1.0);
    p_str(p, "reflab", pct ? "100 % of copy" : "CUB (1×)");
    j->w = j->flag ? 1720 : 1280;
    fit_titles(j);
    /* the key, right of the panels: the longest name */
    size_t longest = 14;
    for (size_t i = 0; i < g->ns; i++) {
        size_t l = strlen(j->ctx->r->vars[g->s[i].var].name);
        if (l > longest) longest = l;
    }
    p_num(p, "right", 1.0 - ((double)longest * 7.5 + 70) / j->w);
}

/* confirm.csv beside results.csv, where the run has one: 0 (read, or absent),
 * -1 when it could not be read (the chart is skipped, naming why). */
static int read_confirm(chart_job *j, vs_cub_sum *s)
{
    char path[PATH_LEN], err[512];
    join_path(path, sizeof path, j->ctx->dir, "confirm.csv");
    int rc = confirm_read_csv(path, &s->conf, &s->nconf, err, sizeof err);
    if (rc < 0) skip_chart(j->ctx, j->c, "%s", err);
    if (rc) s->conf = NULL, s->nconf = 0;
    return rc < 0 ? -1 : 0;
}

static int data_vs_cub(chart_job *j, int pct)
{
    const results *r = j->ctx->r;
    const group *g = j->g;
    if (!group_has_cub(r, g)) {
        skip_chart(j->ctx, j->c, "no CUB rows (family cub, e.g. %s_cub) with status ok for %s %s %s", g->kind,
                   g->kind, g->dtype, g->op);
        return -1;
    }
    const char *why = !pct                         ? NULL
                      : !isfinite(r->run.copy_GBps) ? "the measured copy bandwidth is unknown (run.json copy_bandwidth_GBps)"
                      : !r->has_bw                  ? "results.csv has neither bytes_moved nor bw_cold_GBps"
                                                    : NULL;
    if (why) {
        skip_chart(j->ctx, j->c, "%s", why);
        return -1;
    }
    char dat[340];
    vs_cub_sum s = {.pct = pct, .vars = malloc((g->ns ? g->ns : 1) * sizeof *s.vars), .lo = INFINITY};
    if (!pct && read_confirm(j, &s)) {
        free(s.vars);
        return -1;
    }
    int rc = chart_data_file(j, dat, sizeof dat, vs_cub_rows, &s);
    if (!rc && !s.nv) {
        skip_chart(j->ctx, j->c, "%s", pct ? "no bandwidth in any ok row" : "no variant other than CUB shares an n with it");
        rc = -1;
    }
    if (!rc) vs_cub_params(j, pct, dat, &s);
    free(s.vars);
    free(s.conf);
    return rc;
}

int data_speedup_vs_cub(chart_job *j) { return data_vs_cub(j, 0); }
int data_pct_copy(chart_job *j) { return data_vs_cub(j, 1); }
