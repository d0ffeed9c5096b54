/* The charts: for each group (kind x dtype x op) and each row of the chart
 * table below (file prefix, script, size, title, caption and data
 * functions), write the data gnuplot reads into plots-data/, then draw the
 * chart with chart_draw (one function for all): plots/<script> run twice (PNG
 * and SVG) with the parameters on the command line (-e). Here: the line
 * charts against n (bandwidth, time, hot vs cold); the bar charts at one n
 * are in charts_bars.c, the heatmaps in charts_heatmap.c, the charts against
 * CUB in charts_cub.c, the helpers in charts_util.c and charts_common.c.
 * Every variant keeps its palette slot (palette.h) in all of them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/charts_util.h"

static int is_scan(const group *g) { return strcmp(g->kind, "scan") == 0; }

/* data=series-<stem>.dat, nvar, and the variant lists */
static void p_series(chart_job *j, int nvar)
{
    char dat[220];
    snprintf(dat, sizeof dat, "series-%s.dat", j->stem);
    p_str(&j->p, "data", dat);
    if (nvar) p_int(&j->p, "nvar", (long long)j->g->ns);
    series_lists(j->ctx, j->g, &j->p);
}

/* ---- 1. bandwidth vs n ---------------------------------------------------------- */

static int title_bandwidth(chart_job *j)
{
    snprintf(j->title, sizeof j->title, "%s bandwidth vs n", kind_word(j->g->kind));
    return 1;
}

static void caption_bandwidth(chart_job *j)
{
    char folded[256];
    folded_text(j->g->folded, folded, sizeof folded);
    snprintf(j->c->caption, sizeof j->c->caption,
             "Cold-L2 bandwidth (bytes moved%s ÷ median time) per variant against n; each point is %s. "
             "Dashed: the device's theoretical peak; dotted: the copy bandwidth measured in this run. The y axis is "
             "logarithmic where the bandwidths span more than %.0f×." BARS_CAPTION,
             is_scan(j->g) ? ", counting read + write," : "", folded, LOG_Y_SPAN);
}

static int data_bandwidth(chart_job *j)
{
    const group *g = j->g;
    if (!j->ctx->r->has_bw) {
        skip_chart(j->ctx, j->c, "results.csv has neither bw_cold_GBps nor bytes_moved");
        return -1;
    }
    double maxbw = 0, minbw = INFINITY;
    size_t npts = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t k = 0; k < g->s[i].npts; k++) {
            double b = g->s[i].pts[k].best->bw_cold;
            if (isfinite(b) && b > 0) {
                npts++;
                if (b > maxbw) maxbw = b;
                if (b < minbw) minbw = b;
            }
        }
    if (!npts) {
        skip_chart(j->ctx, j->c, "no cold bandwidth in any ok row");
        return -1;
    }
    const results_run *ri = &j->ctx->r->run;
    if (isfinite(ri->peak_GBps) && ri->peak_GBps > maxbw) maxbw = ri->peak_GBps;
    if (isfinite(ri->copy_GBps) && ri->copy_GBps > maxbw) maxbw = ri->copy_GBps;
    unsigned long long lo, hi;
    series_extent(g, &lo, &hi);
    char folded[256];
    folded_text(g->folded, folded, sizeof folded);
    int ylog = maxbw / minbw > LOG_Y_SPAN;
    snprintf(j->sub, sizeof j->sub, "cold L2 (flushed before each launch); each point: %s; %s", folded, BARS_TEXT);
    p_series(j, 1);
    p_num(&j->p, "peak", ri->peak_GBps);
    p_num(&j->p, "copy", ri->copy_GBps);
    p_n_axis(&j->p, lo, hi);
    p_y_axis(&j->p, ylog, ylog ? minbw / 1.5 : 0, ylog ? maxbw * 1.5 : maxbw * 1.08);
    p_str(&j->p, "ylab", is_scan(g) ? (ylog ? "bandwidth, cold (GB/s, read + write, log scale)"
                                             : "bandwidth, cold (GB/s, read + write)")
                                    : (ylog ? "bandwidth, cold (GB/s, log scale)" : "bandwidth, cold (GB/s)"));
    return 0;
}

/* ---- 5. time vs n --------------------------------------------------------------- */

static int title_time(chart_job *j)
{
    snprintf(j->title, sizeof j->title, "%s time vs n (log-log)", kind_word(j->g->kind));
    return 1;
}

static int group_has_cub(const render_ctx *ctx, const group *g)
{
    int has_cub = 0;
    for (size_t i = 0; i < g->ns; i++) has_cub |= ctx->r->vars[g->s[i].var].is_cub;
    return has_cub;
}

static void caption_time(chart_job *j)
{
    char folded[256];
    folded_text(j->g->folded, folded, sizeof folded);
    int ideal = group_has_ideal_data(j->ctx, j->g);
    snprintf(j->c->caption, sizeof j->c->caption,
             "Cold median time per variant against n, both axes logarithmic; each point is %s. %s%s" BARS_CAPTION, folded,
             group_has_cub(j->ctx, j->g) ? "The library baseline (CUB) is drawn bold. " : "",
             ideal ? "Dashed: the bytes moved at the theoretical peak. Where a line stops being flat (launch "
                     "latency) and runs parallel to it, bandwidth rules."
                   : "Where a line stops being flat (launch latency) and rises with n, bandwidth rules.");
}

static int data_time(chart_job *j)
{
    const group *g = j->g;
    double tmin = INFINITY, tmax = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t k = 0; k < g->s[i].npts; k++) {
            double t = g->s[i].pts[k].best->t_cold * 1e3;
            if (t < tmin) tmin = t;
            if (t > tmax) tmax = t;
        }
    if (!(tmax > 0)) {
        skip_chart(j->ctx, j->c, "no cold times");
        return -1;
    }
    unsigned long long lo, hi;
    series_extent(g, &lo, &hi);
    char folded[256];
    folded_text(g->folded, folded, sizeof folded);
    snprintf(j->sub, sizeof j->sub, "cold L2; each point: %s; %s%s", folded, BARS_TEXT,
             group_has_cub(j->ctx, g) ? "" : "; no CUB rows in these results");
    p_series(j, 1);
    p_int(&j->p, "hasideal", group_has_ideal_data(j->ctx, g));
    p_n_axis(&j->p, lo, hi);
    double ylo = tmin / 1.6, yhi = tmax * 1.6;
    pbuf yt = {0};
    log_tics(ylo, yhi, &yt);
    p_num(&j->p, "ymin", ylo);
    p_num(&j->p, "ymax", yhi);
    p_str(&j->p, "yt", yt.s ? yt.s : "");
    free(yt.s);
    return 0;
}

/* ---- 6. hot vs cold around the L2 size -------------------------------------------- */

static int title_hotcold(chart_job *j)
{
    snprintf(j->title, sizeof j->title, "%s: hot vs cold L2 around the L2 size", kind_title(j->g->kind));
    return 1;
}

/* "60 MiB", "" when the L2 size is unknown */
static void l2_text(const results_run *ri, char *out, size_t len)
{
    out[0] = '\0';
    if (isfinite(ri->l2_bytes))
        snprintf(out, len, "%.*f MiB", ri->l2_bytes < 10 * 1048576.0 ? 1 : 0, ri->l2_bytes / 1048576.0);
}

static void caption_hotcold(chart_job *j)
{
    char l2txt[64];
    l2_text(&j->ctx->r->run, l2txt, sizeof l2txt);
    snprintf(j->c->caption, sizeof j->c->caption,
             "Bandwidth with a cold L2 (flushed before each launch, solid) and a hot one (the same input reused, "
             "dashed) for footprints (the bytes moved) from 1/16 to 16 times the L2 size (%s); the dashed vertical "
             "line is where the footprint equals the L2. One panel per variant, a common scale. Left of the line a "
             "hot launch finds its data in L2." BARS_CAPTION,
             l2txt[0] ? l2txt : "?");
}

/* The variants with two or more sizes between lo and hi with both times. */
typedef struct hotcold_sel {
    pbuf sel; /* their 1-based series numbers */
    int nsel;
    double ymin, ymax;
    unsigned long long nlo, nhi;
} hotcold_sel;

static int in_window(const row *w, double lo, double hi)
{
    return (double)w->base.cfg.n >= lo && (double)w->base.cfg.n <= hi && isfinite(w->bw_cold) && isfinite(w->bw_hot);
}

static void hotcold_select(const group *g, double lo, double hi, hotcold_sel *s)
{
    for (size_t i = 0; i < g->ns; i++) {
        int k = 0;
        for (size_t j = 0; j < g->s[i].npts; j++) k += in_window(g->s[i].pts[j].best, lo, hi);
        if (k < 2) continue;
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            if (!in_window(w, lo, hi)) continue;
            s->ymax = fmax(s->ymax, fmax(w->bw_cold, w->bw_hot));
            s->ymin = fmin(s->ymin, fmin(w->bw_cold, w->bw_hot));
            if (!s->nlo || w->base.cfg.n < s->nlo) s->nlo = w->base.cfg.n;
            if (w->base.cfg.n > s->nhi) s->nhi = w->base.cfg.n;
        }
        pb_add(&s->sel, "%s%zu", s->nsel ? " " : "", i + 1);
        s->nsel++;
    }
}

/* The footprint per element: the bytes moved over n (input, plus output for
 * scans), else the element size. */
static double footprint_per_element(const group *g)
{
    double per = INFINITY;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            if (w->bytes > 0 && w->bytes / (double)w->base.cfg.n < per) per = w->bytes / (double)w->base.cfg.n;
        }
    return isfinite(per) ? per : (double)g->esize;
}

static void hotcold_params(chart_job *j, const hotcold_sel *s, double l2n)
{
    int cols = s->nsel <= 3 ? s->nsel : s->nsel == 4 ? 2 : s->nsel <= 9 ? 3 : 4;
    int rows = (s->nsel + cols - 1) / cols;
    double xmin, xmax, xstart;
    int xstep;
    n_axis(s->nlo, s->nhi, &xmin, &xmax, &xstep, &xstart);
    xstep = log2d((double)s->nhi / (double)s->nlo) <= 6 ? 2 : 4;
    char folded[256], l2txt[64], l2lab[80];
    folded_text(j->g->folded, folded, sizeof folded);
    snprintf(j->sub, sizeof j->sub, "solid: cold L2; dashed: hot (input reused); each point: %s; %s", folded,
             BARS_TEXT);
    j->w = cols * 340 + 60, j->h = rows * 250 + 120;
    if (j->w < 760) j->w = 760;
    fit_titles(j);
    l2_text(&j->ctx->r->run, l2txt, sizeof l2txt);
    snprintf(l2lab, sizeof l2lab, "L2 %s", l2txt);
    p_series(j, 0);
    p_str(&j->p, "sel", s->sel.s);
    p_int(&j->p, "nsel", s->nsel);
    p_int(&j->p, "rows", rows);
    p_int(&j->p, "cols", cols);
    p_num(&j->p, "xmin", xmin);
    p_num(&j->p, "xmax", xmax);
    p_int(&j->p, "xstep", xstep);
    p_num(&j->p, "xstart", xstart);
    int ylog = s->ymax / s->ymin > LOG_Y_SPAN;
    p_y_axis(&j->p, ylog, ylog ? s->ymin / 1.5 : 0, ylog ? s->ymax * 1.5 : s->ymax * 1.1);
    p_num(&j->p, "l2n", l2n);
    p_str(&j->p, "l2lab", l2lab);
}

static int data_hotcold(chart_job *j)
{
    const results_run *ri = &j->ctx->r->run;
    const char *why = !j->ctx->r->has_hot      ? "results.csv has no time_hot_median_ms column"
                      : !isfinite(ri->l2_bytes) ? "the L2 size is unknown (run.json device.l2_bytes)"
                      : !j->ctx->r->has_bw      ? "results.csv has neither bw_cold_GBps nor bytes_moved"
                                                : NULL;
    if (why) {
        skip_chart(j->ctx, j->c, "%s", why);
        return -1;
    }
    double per = footprint_per_element(j->g);
    hotcold_sel s = {.ymin = INFINITY};
    hotcold_select(j->g, ri->l2_bytes / 16.0 / per, ri->l2_bytes * 16.0 / per, &s);
    if (!s.nsel) {
        free(s.sel.s);
        skip_chart(j->ctx, j->c, "no variant has two or more sizes with hot and cold times between L2/16 and 16 × L2");
        return -1;
    }
    double l2n = ri->l2_bytes / per;
    if ((double)s.nlo > l2n) s.nlo = (unsigned long long)l2n;
    if ((double)s.nhi < l2n) s.nhi = (unsigned long long)l2n;
    hotcold_params(j, &s, l2n);
    free(s.sel.s);
    return 0;
}

/* ---- the chart table, and the one drawing function ---------------------------------- */

static const chart_kind chart_table[] = {
    /* prefix, script, w, h, reduce only, per variant, title, caption, data, done */
    {"bandwidth", "bandwidth.gp", 1280, 720, 0, 0, title_bandwidth, caption_bandwidth, data_bandwidth, NULL, NULL,
     NULL},
    {"ladder", "ladder.gp", 1400, 420, 1, 0, title_ladder, caption_ladder, data_ladder, done_ladder, NULL, NULL},
    {"metrics", "metrics.gp", 1000, 420, 0, 0, title_metrics, caption_metrics, data_metrics, NULL, NULL, NULL},
    {"heatmap", "heatmap.gp", 900, 420, 0, 1, title_heatmap, caption_heatmap, data_heatmap, done_heatmap,
     "Block dim × own axis heatmaps", "no variant has more than one value of its own axis in these results"},
    {"time", "time.gp", 1280, 720, 0, 0, title_time, caption_time, data_time, NULL, NULL, NULL},
    {"hotcold", "hotcold.gp", 760, 370, 0, 0, title_hotcold, caption_hotcold, data_hotcold, NULL, NULL, NULL},
    {"speedup-vs-cub", "vscub.gp", 1280, 720, 0, 0, title_speedup_vs_cub, caption_speedup_vs_cub,
     data_speedup_vs_cub, NULL, NULL, NULL},
    {"pct-copy", "vscub.gp", 1280, 720, 0, 0, title_pct_copy, caption_pct_copy, data_pct_copy, NULL, NULL, NULL},
};

/* Make one chart of kind k for group gi (series si for per-variant kinds):
 * its entry in the chart list, caption, data and drawing. 0 when the kind
 * made none (title() declined). */
static int chart_draw(render_ctx *ctx, const run_scales *sc, int gi, const char *stem, const chart_kind *k, size_t si)
{
    chart_job j = {.scales = sc, .ctx = ctx, .gi = gi, .g = &ctx->r->groups[gi], .stem = stem, .si = si,
                   .w = k->w, .h = k->h};
    snprintf(j.cstem, sizeof j.cstem, "%s-%s", k->prefix, stem);
    int made = k->title(&j);
    if (made) j.c = new_chart(ctx, gi, j.cstem, j.title);
    if (j.c) {
        k->caption(&j);
        if (k->data(&j) == 0) {
            fit_titles(&j);
            pbuf p = {0};
            common_titles(ctx, j.g, &p, j.title, j.sub);
            pb_add(&p, "%s", j.p.s ? j.p.s : "");
            draw(ctx, j.c, k->script, j.w, j.h, p.s ? p.s : "");
            free(p.s);
        }
    }
    free(j.p.s);
    if (k->done) k->done(&j);
    return made;
}

/* Every chart of kind k for group gi. */
static void chart_kind_render(render_ctx *ctx, const run_scales *sc, int gi, const char *stem, const chart_kind *k)
{
    const group *g = &ctx->r->groups[gi];
    if (k->reduce_only && strcmp(g->kind, "reduce") != 0) return;
    if (!k->per_variant) {
        chart_draw(ctx, sc, gi, stem, k, 0);
        return;
    }
    int any = 0;
    for (size_t si = 0; si < g->ns; si++) any |= chart_draw(ctx, sc, gi, stem, k, si);
    if (!any) {
        char cstem[200];
        snprintf(cstem, sizeof cstem, "%s-%s", k->prefix, stem);
        chart *c = new_chart(ctx, gi, cstem, k->none_title);
        if (c) skip_chart(ctx, c, "%s", k->none_note);
    }
}

int charts_render(render_ctx *ctx, char *err, size_t errlen)
{
    const results *r = ctx->r;
    run_scales sc;
    heat_range(ctx, &sc.heat_lo, &sc.heat_hi);
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const group *g = &r->groups[gi];
        char stem[120];
        group_stem(g, stem, sizeof stem);
        if (!g->ns) {
            chart *c = new_chart(ctx, (int)gi, stem, "Charts");
            if (c) skip_chart(ctx, c, "no configuration of %s %s %s ran successfully", g->kind, g->dtype, g->op);
            continue;
        }
        if (write_series(ctx, g, stem, group_has_ideal_data(ctx, g), err, errlen)) return -1;
        for (size_t k = 0; k < sizeof chart_table / sizeof chart_table[0]; k++)
            chart_kind_render(ctx, &sc, (int)gi, stem, &chart_table[k]);
    }
    return 0;
}

