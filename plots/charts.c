/* The charts: for each group (kind x dtype x op) and each row of the chart
 * table below (file prefix, script, size, title, caption and data
 * functions), write the data gnuplot reads into plots-data/, then draw the
 * chart with chart_draw (one function for all): plots/<script> run twice (PNG
 * and SVG) with the parameters on the command line (-e). The helpers are in
 * charts_util.c, the charts against CUB in charts_cub.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/charts_util.h"

void fit_titles(chart_job *j)
{
    int t = titles_px(j->ctx, j->g, j->title, j->sub);
    if (j->w < t) j->w = t;
}

int chart_data_file(chart_job *j, char *dat, size_t len, void (*write)(FILE *f, chart_job *j, void *arg), void *arg)
{
    char err[512];
    snprintf(dat, len, "%s.dat", j->cstem);
    FILE *f = open_data(j->ctx, dat, err, sizeof err);
    if (!f) {
        skip_chart(j->ctx, j->c, "%s", err);
        return -1;
    }
    write(f, j, arg);
    if (close_data(f, j->ctx, dat, err, sizeof err)) {
        skip_chart(j->ctx, j->c, "%s", err);
        return -1;
    }
    return 0;
}

void p_n_axis(pbuf *p, unsigned long long lo, unsigned long long hi)
{
    double xmin, xmax, xstart;
    int xstep;
    n_axis(lo, hi, &xmin, &xmax, &xstep, &xstart);
    p_num(p, "xmin", xmin);
    p_num(p, "xmax", xmax);
    p_int(p, "xstep", xstep);
    p_num(p, "xstart", xstart);
}

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
             "Dashed: the device's theoretical peak; dotted: the copy bandwidth measured in this run.",
             is_scan(j->g) ? ", counting read + write," : "", folded);
}

static int data_bandwidth(chart_job *j)
{
    const group *g = j->g;
    if (!j->ctx->r->has_bw) {
        skip_chart(j->ctx, j->c, "results.csv has neither bw_cold_GBps nor bytes_moved");
        return -1;
    }
    double maxbw = 0;
    size_t npts = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t k = 0; k < g->s[i].npts; k++) {
            double b = g->s[i].pts[k].best->bw_cold;
            if (isfinite(b)) {
                npts++;
                if (b > maxbw) maxbw = b;
            }
        }
    if (!npts) {
        skip_chart(j->ctx, j->c, "no cold bandwidth in any ok row");
        return -1;
    }
    const run_info *ri = &j->ctx->r->run;
    if (isfinite(ri->peak_GBps) && ri->peak_GBps > maxbw) maxbw = ri->peak_GBps;
    if (isfinite(ri->copy_GBps) && ri->copy_GBps > maxbw) maxbw = ri->copy_GBps;
    unsigned long long lo, hi;
    series_extent(g, &lo, &hi);
    char folded[256];
    folded_text(g->folded, folded, sizeof folded);
    snprintf(j->sub, sizeof j->sub, "cold L2 (flushed before each launch); each point: %s", folded);
    p_series(j, 1);
    p_num(&j->p, "peak", ri->peak_GBps);
    p_num(&j->p, "copy", ri->copy_GBps);
    p_n_axis(&j->p, lo, hi);
    p_num(&j->p, "ymax", maxbw * 1.08);
    p_str(&j->p, "ylab", is_scan(g) ? "bandwidth, cold (GB/s, read + write)" : "bandwidth, cold (GB/s)");
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
             "Cold median time per variant against n, both axes logarithmic; each point is %s. %s%s", folded,
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
    snprintf(j->sub, sizeof j->sub, "cold L2; each point: %s%s", folded,
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
static void l2_text(const run_info *ri, char *out, size_t len)
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
             "hot launch finds its data in L2.",
             l2txt[0] ? l2txt : "?");
}

/* The variants with two or more sizes between lo and hi with both times. */
typedef struct hotcold_sel {
    pbuf sel; /* their 1-based series numbers */
    int nsel;
    double ymax;
    unsigned long long nlo, nhi;
} hotcold_sel;

static int in_window(const row *w, double lo, double hi)
{
    return (double)w->n >= lo && (double)w->n <= hi && isfinite(w->bw_cold) && isfinite(w->bw_hot);
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
            if (w->bw_cold > s->ymax) s->ymax = w->bw_cold;
            if (w->bw_hot > s->ymax) s->ymax = w->bw_hot;
            if (!s->nlo || w->n < s->nlo) s->nlo = w->n;
            if (w->n > s->nhi) s->nhi = w->n;
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
            if (w->bytes > 0 && w->bytes / (double)w->n < per) per = w->bytes / (double)w->n;
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
    snprintf(j->sub, sizeof j->sub, "solid: cold L2; dashed: hot (input reused); each point: %s", folded);
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
    p_num(&j->p, "ymax", s->ymax * 1.1);
    p_num(&j->p, "l2n", l2n);
    p_str(&j->p, "l2lab", l2lab);
}

static int data_hotcold(chart_job *j)
{
    const run_info *ri = &j->ctx->r->run;
    const char *why = !j->ctx->r->has_hot      ? "results.csv has no time_hot_median_ms column"
                      : !isfinite(ri->l2_bytes) ? "the L2 size is unknown (run.json device.l2_bytes)"
                      : !j->ctx->r->has_bw      ? "results.csv has neither bw_cold_GBps nor bytes_moved"
                                                : NULL;
    if (why) {
        skip_chart(j->ctx, j->c, "%s", why);
        return -1;
    }
    double per = footprint_per_element(j->g);
    hotcold_sel s = {0};
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

/* ---- the ladder (chart 2 and the report tables) ---------------------------------------- */

static int has_alias(const var_info *v, const char *token)
{
    var_info only_alias = *v;
    only_alias.name = "";
    return var_matches(&only_alias, token);
}

void ladder_build(const results *r, const group *g, unsigned long long want, const char *baseline, ladder *l)
{
    memset(l, 0, sizeof *l);
    l->base_var = -1;
    l->n = group_nearest_n(g, want);
    if (!l->n) return;
    l->rows = calloc(g->ns ? g->ns : 1, sizeof *l->rows);
    if (!l->rows) return;
    /* the ladder in order, the library baseline after it */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < g->ns; i++) {
            const var_info *v = &r->vars[g->s[i].var];
            if (v->is_cub != pass) continue;
            const row *w = series_at(&g->s[i], l->n);
            if (!w) {
                size_t len = strlen(l->missing);
                snprintf(l->missing + len, sizeof l->missing - len, "%s%s", len ? ", " : "", v->name);
                continue;
            }
            l->rows[l->nrows++] = (ladder_row){.var = g->s[i].var, .w = w, .step = NAN, .cum = NAN, .is_cub = v->is_cub};
        }
    if (!l->nrows) return;
    int base = -1;
    if (baseline && *baseline) {
        for (size_t i = 0; i < l->nrows; i++)
            if (var_matches(&r->vars[l->rows[i].var], baseline)) base = (int)i;
        if (base < 0)
            snprintf(l->note, sizeof l->note, "The baseline %s is not among these results; the first rung stands in.",
                     baseline);
    } else {
        for (size_t i = 0; i < l->nrows && base < 0; i++)
            if (has_alias(&r->vars[l->rows[i].var], "reduce0")) base = (int)i;
    }
    if (base < 0)
        for (size_t i = 0; i < l->nrows && base < 0; i++)
            if (!l->rows[i].is_cub) base = (int)i;
    if (base < 0) base = 0;
    l->rows[base].is_base = 1;
    l->base_var = l->rows[base].var;
    double tb = l->rows[base].w->t_cold;
    const ladder_row *prev = NULL;
    ladder_row *best = NULL;
    for (size_t i = 0; i < l->nrows; i++) {
        ladder_row *x = &l->rows[i];
        x->cum = tb / x->w->t_cold;
        if (x->is_cub) continue;
        if (prev) x->step = prev->w->t_cold / x->w->t_cold;
        prev = x;
        if (!best || x->w->t_cold < best->w->t_cold) best = x;
    }
    if (best) best->is_best = 1;
}

static void speed_text(double s, char *buf, size_t len)
{
    if (!isfinite(s)) snprintf(buf, len, "–");
    else if (s >= 100) snprintf(buf, len, "×%.0f", s);
    else if (s >= 10) snprintf(buf, len, "×%.1f", s);
    else if (s >= 0.01) snprintf(buf, len, "×%.2f", s);
    else snprintf(buf, len, "×%.2g", s);
}

/* ---- 2. the ladder --------------------------------------------------------------------- */

static int title_ladder(chart_job *j)
{
    ladder *l = calloc(1, sizeof *l);
    if (!l) return 0;
    j->state = l;
    unsigned long long want = j->ctx->opt.n;
    ladder_build(j->ctx->r, j->g, want, j->ctx->opt.baseline, l);
    char ns[32];
    format_n(l->n ? l->n : want, ns, sizeof ns);
    snprintf(j->title, sizeof j->title, "Reduction ladder at n = %s", ns);
    return 1;
}

static void caption_ladder(chart_job *j)
{
    const ladder *l = j->state;
    unsigned long long want = j->ctx->opt.n;
    char ns[32], folded[256];
    format_n(l->n ? l->n : want, ns, sizeof ns);
    folded_text(j->g->folded, folded, sizeof folded);
    textf(j->c->caption, sizeof j->c->caption,
          "Each reduction at n = %s in the order of the results (the seeds' tables), the library baseline set apart "
          "at the bottom: cold median time (left) and speedup (right): cumulative against %s, and step over the "
          "rung above. Each bar is %s.%s%s%s%s",
          ns, l->base_var >= 0 ? j->ctx->r->vars[l->base_var].name : "the first rung", folded,
          l->n && l->n != want ? " The requested n was not measured: this is the nearest." : "",
          l->missing[0] ? " Not measured at this n: " : "", l->missing, l->missing[0] ? "." : "");
}

/* The extent of the ladder's bars: times (µs), cumulative speedups, last y. */
typedef struct ladder_extent {
    double tmin, tmax, smin, smax, ylast;
} ladder_extent;

static void ladder_line(FILE *f, const render_ctx *ctx, const ladder_row *x, double y)
{
    const var_info *v = &ctx->r->vars[x->var];
    char tl[64], cum[32], step[32], sl[128];
    format_ms(x->w->t_cold, tl, sizeof tl);
    if (x->is_best) strncat(tl, "  fastest", sizeof tl - strlen(tl) - 1);
    speed_text(x->cum, cum, sizeof cum);
    speed_text(x->step, step, sizeof step);
    if (x->is_base) snprintf(sl, sizeof sl, "%s  baseline", cum);
    else if (x->is_cub) snprintf(sl, sizeof sl, "%s  (library)", cum);
    else if (isfinite(x->step)) snprintf(sl, sizeof sl, "%s  (step %s)", cum, step);
    else snprintf(sl, sizeof sl, "%s", cum);
    fprintf(f, "%.2f", y);
    dat_str(f, v->name);
    fprintf(f, " %.6g %.6g", x->w->t_cold * 1e3, x->cum);
    dat_num(f, x->step);
    fprintf(f, " %u", v->color);
    dat_str(f, tl);
    dat_str(f, sl);
    fputc('\n', f);
}

static void ladder_rows(FILE *f, chart_job *j, void *arg)
{
    const ladder *l = j->state;
    ladder_extent *e = arg;
    *e = (ladder_extent){INFINITY, 0, 1, 1, 0};
    double y = 0;
    int prev_cub = 0;
    fprintf(f, "# y name time_us cumulative step colour time_label speedup_label\n");
    for (size_t i = 0; i < l->nrows; i++) {
        const ladder_row *x = &l->rows[i];
        if (i && x->is_cub && !prev_cub) y += 0.6;
        prev_cub = x->is_cub;
        ladder_line(f, j->ctx, x, y);
        double t = x->w->t_cold * 1e3;
        if (t < e->tmin) e->tmin = t;
        if (t > e->tmax) e->tmax = t;
        if (x->cum < e->smin) e->smin = x->cum;
        if (x->cum > e->smax) e->smax = x->cum;
        e->ylast = y;
        y += 1;
    }
}

static void ladder_params(chart_job *j, const char *dat, const ladder_extent *e)
{
    const ladder *l = j->state;
    pbuf *p = &j->p;
    p_str(p, "data", dat);
    p_num(p, "ymax", e->ylast);
    double txmin = pow(10, floor(log10(e->tmin / 1.2))), txmax = e->tmax * pow(e->tmax / txmin, 0.28) * 1.5;
    double sxmin = e->smin / 1.6, sxmax = e->smax * pow(e->smax / sxmin, 0.45) * 2.5;
    pbuf tt = {0}, st = {0};
    log_tics(txmin, txmax, &tt);
    log_tics(sxmin, sxmax, &st);
    p_num(p, "txmin", txmin);
    p_num(p, "txmax", txmax);
    p_str(p, "tt", tt.s ? tt.s : "");
    p_num(p, "sxmin", sxmin);
    p_num(p, "sxmax", sxmax);
    p_str(p, "st", st.s ? st.s : "");
    free(tt.s);
    free(st.s);
    p_str(p, "base", l->base_var >= 0 ? j->ctx->r->vars[l->base_var].name : "first rung");
    j->h = 170 + (int)(e->ylast + 1) * 30;
    if (j->h < 420) j->h = 420;
    double left = (double)names_px(j->ctx, j->g) / j->w;
    p_num(p, "left", left);
    p_num(p, "split", left + (0.985 - left) * 0.45);
}

static int data_ladder(chart_job *j)
{
    const ladder *l = j->state;
    if (l->nrows < 1) {
        skip_chart(j->ctx, j->c, "no reduction measured");
        return -1;
    }
    char dat[340];
    ladder_extent e;
    if (chart_data_file(j, dat, sizeof dat, ladder_rows, &e)) return -1;
    char folded[256];
    folded_text(j->g->folded, folded, sizeof folded);
    snprintf(j->sub, sizeof j->sub, "cold L2; each bar: %s%s", folded,
             l->n != j->ctx->opt.n ? "; the requested n was not measured, this is the nearest" : "");
    ladder_params(j, dat, &e);
    return 0;
}

static void done_ladder(chart_job *j)
{
    ladder *l = j->state;
    if (l) free(l->rows);
    free(l);
}

/* "0", "812", "83.4k", "3.82M" */
static void count_text(double v, char *buf, size_t len)
{
    if (!isfinite(v)) snprintf(buf, len, "?");
    else if (v < 1e3) snprintf(buf, len, "%.0f", v);
    else if (v < 1e6) snprintf(buf, len, "%.3gk", v / 1e3);
    else if (v < 1e9) snprintf(buf, len, "%.3gM", v / 1e6);
    else snprintf(buf, len, "%.3gG", v / 1e9);
}

/* ---- 3. metrics per variant ---------------------------------------------------------- */

/* The n the metrics are shown at: the measured one nearest the one asked for. */
static unsigned long long metrics_n(const chart_job *j, char *ns, size_t len)
{
    unsigned long long want = j->ctx->opt.n, n = group_nearest_n(j->g, want);
    format_n(n ? n : want, ns, len);
    return n;
}

static int title_metrics(chart_job *j)
{
    char ns[32];
    metrics_n(j, ns, sizeof ns);
    snprintf(j->title, sizeof j->title, "%s: hardware metrics at n = %s", kind_title(j->g->kind), ns);
    return 1;
}

static void caption_metrics(chart_job *j)
{
    char ns[32];
    unsigned long long n = metrics_n(j, ns, sizeof ns);
    int dram_from_pct = j->ctx->r->metric_col[PM_DRAM_PCT] >= 0;
    snprintf(j->c->caption, sizeof j->c->caption,
             "Per variant at n = %s, from the fastest configuration that has the metric: warp efficiency "
             "(active threads per executed warp instruction as a share of 32; all threads and predicated-on "
             "threads, the one that shows divergence), shared-memory bank conflicts (loads and stores, log scale), "
             "%s, achieved occupancy. Panels without data are left out.%s",
             ns, dram_from_pct ? "DRAM throughput as a share of the peak" : "DRAM bytes ÷ cold time as a share of the peak",
             n && n != j->ctx->opt.n ? " The requested n was not measured: this is the nearest." : "");
}

/* What the metrics data file holds: panels with data, rows, the tic list. */
typedef struct metrics_sum {
    int has_warp, has_pred, has_bank, has_dram, has_occ, y;
    double bank_max;
    pbuf yt; /* the names as a gnuplot tic list */
} metrics_sum;

/* DRAM as % of the peak: the throughput metric, else DRAM bytes (read +
 * write where both exist, else the total) over the cold time. */
static double metrics_dram(const results *r, double *val, const row **src)
{
    if (r->metric_col[PM_DRAM_PCT] >= 0 || !isfinite(r->run.peak_GBps)) return val[PM_DRAM_PCT];
    int k = r->metric_col[PM_DRAM_READ] >= 0 ? PM_DRAM_READ : PM_DRAM_BYTES;
    if (!src[k]) return val[PM_DRAM_PCT];
    double bytes = val[k];
    if (k == PM_DRAM_READ && isfinite(src[k]->m[PM_DRAM_WRITE])) bytes += src[k]->m[PM_DRAM_WRITE];
    return bytes / (src[k]->t_cold * 1e6) / r->run.peak_GBps * 100.0;
}

/* One variant's line of the data file. */
static void metrics_line(FILE *f, const render_ctx *ctx, const group *g, int var, unsigned long long n,
                         metrics_sum *s)
{
    const results *r = ctx->r;
    const var_info *v = &r->vars[var];
    double val[PM_COUNT];
    const row *src[PM_COUNT];
    for (int k = 0; k < PM_COUNT; k++) {
        src[k] = best_with_metric(r, g, var, n, k);
        val[k] = src[k] ? src[k]->m[k] : NAN;
    }
    double we = val[PM_WARP_EFF] / 32.0 * 100.0, wep = val[PM_WARP_EFF_PRED] / 32.0 * 100.0;
    double dram = metrics_dram(r, val, src), occ = val[PM_OCCUPANCY];
    s->has_warp |= isfinite(we) || isfinite(wep);
    s->has_pred |= isfinite(wep);
    s->has_bank |= isfinite(val[PM_BANK_LD]) || isfinite(val[PM_BANK_ST]);
    s->has_dram |= isfinite(dram);
    s->has_occ |= isfinite(occ);
    if (isfinite(val[PM_BANK_LD]) && val[PM_BANK_LD] > s->bank_max) s->bank_max = val[PM_BANK_LD];
    if (isfinite(val[PM_BANK_ST]) && val[PM_BANK_ST] > s->bank_max) s->bank_max = val[PM_BANK_ST];
    pb_add(&s->yt, "%s'%s' %d", s->y ? ", " : "(", v->name, s->y);
    fprintf(f, "%d", s->y++);
    dat_str(f, v->name);
    const double nums[] = {we, wep, val[PM_BANK_LD], val[PM_BANK_ST], dram, occ};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) dat_num(f, nums[k]);
    fprintf(f, " %u", v->color);
    char lab[32];
    count_text(val[PM_BANK_LD], lab, sizeof lab);
    dat_str(f, lab);
    count_text(val[PM_BANK_ST], lab, sizeof lab);
    dat_str(f, lab);
    /* "n/a" where a panel has nothing for this variant */
    dat_str(f, isfinite(we) || isfinite(wep) ? " " : "n/a");
    dat_str(f, isfinite(val[PM_BANK_LD]) || isfinite(val[PM_BANK_ST]) ? " " : "n/a");
    dat_str(f, isfinite(dram) ? " " : "n/a");
    dat_str(f, isfinite(occ) ? " " : "n/a");
    fputc('\n', f);
}

/* Skipped when results.csv has none of the metrics the chart shows. */
static int metrics_columns_missing(chart_job *j)
{
    const results *r = j->ctx->r;
    for (int k = 0; k < PM_COUNT; k++)
        if (r->metric_col[k] >= 0) return 0;
    if (r->n_metric_cols)
        skip_chart(j->ctx, j->c,
                   "results.csv has %zu metric column%s, but none for warp efficiency, shared bank conflicts, "
                   "DRAM throughput or bytes, or occupancy (the names are in plots/README.md)",
                   r->n_metric_cols, r->n_metric_cols > 1 ? "s" : "");
    else
        skip_chart(j->ctx, j->c, "results.csv has no metric columns (the run was not profiled)");
    return 1;
}

static void metrics_params(chart_job *j, const char *dat, const metrics_sum *s)
{
    pbuf *p = &j->p;
    int dram_from_pct = j->ctx->r->metric_col[PM_DRAM_PCT] >= 0;
    p_str(p, "data", dat);
    p_str(p, "yt", s->yt.s ? s->yt.s : "()");
    p_int(p, "ymax", s->y - 1);
    p_int(p, "has_warp", s->has_warp);
    p_int(p, "has_pred", s->has_pred);
    p_int(p, "has_bank", s->has_bank);
    p_int(p, "has_dram", s->has_dram);
    p_int(p, "has_occ", s->has_occ);
    double bmax = pow(10, ceil(log10(s->bank_max))) * 30;
    p_num(p, "bank_max", bmax);
    p_int(p, "bank_step", log10(bmax / 0.5) > 6 ? 100 : 10);
    p_str(p, "dram_lab", dram_from_pct ? "DRAM throughput\n(% of peak)" : "DRAM bytes ÷ cold time\n(% of peak)");
    int np = s->has_warp + s->has_bank + s->has_dram + s->has_occ;
    int npx = names_px(j->ctx, j->g);
    j->w = npx + np * 330 + 30, j->h = 190 + s->y * 34;
    if (j->w < 1000) j->w = 1000;
    fit_titles(j);
    if (j->h < 420) j->h = 420;
    p_num(p, "left", (double)npx / j->w);
}

static void metrics_write(FILE *f, chart_job *j, void *arg)
{
    metrics_sum *s = arg;
    char ns[32];
    unsigned long long n = metrics_n(j, ns, sizeof ns);
    fprintf(f, "# y name warp_eff_pct warp_eff_pred_pct bank_ld bank_st dram_pct occupancy_pct colour bank_ld_label "
               "bank_st_label na_warp na_bank na_dram na_occupancy\n");
    for (size_t i = 0; i < j->g->ns && n; i++)
        if (series_at(&j->g->s[i], n)) metrics_line(f, j->ctx, j->g, j->g->s[i].var, n, s);
    if (s->yt.s) pb_add(&s->yt, ")");
}

static int data_metrics(chart_job *j)
{
    if (metrics_columns_missing(j)) return -1;
    char ns[32], dat[340];
    unsigned long long n = metrics_n(j, ns, sizeof ns);
    metrics_sum s = {.bank_max = 1};
    int rc = -1;
    if (chart_data_file(j, dat, sizeof dat, metrics_write, &s)) {
        /* skipped */
    } else if (!(s.has_warp || s.has_bank || s.has_dram || s.has_occ)) {
        skip_chart(j->ctx, j->c, "the metric columns are empty at n = %s", ns);
    } else {
        snprintf(j->sub, sizeof j->sub, "each variant: the fastest configuration with the metric, at n = %s%s", ns,
                 n != j->ctx->opt.n ? " (nearest measured)" : "");
        metrics_params(j, dat, &s);
        rc = 0;
    }
    free(s.yt.s);
    return rc;
}

/* ---- 4. block dim x coarse factor heatmaps ------------------------------------------- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static size_t add_unique(long *arr, size_t n, long v)
{
    for (size_t i = 0; i < n; i++)
        if (arr[i] == v) return n;
    arr[n] = v;
    return n + 1;
}

static size_t index_of(const long *arr, size_t n, long v)
{
    for (size_t i = 0; i < n; i++)
        if (arr[i] == v) return i;
    return 0;
}

/* Did variant var of group g run two or more block dim x coarse factor
 * configurations at n? */
static int several_cells(const results *r, const group *g, int var, unsigned long long n)
{
    const row *first = NULL;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (w->var != var || w->n != n || !w->ok || strcmp(w->kind, g->kind) || strcmp(w->dtype, g->dtype) ||
            strcmp(w->op, g->op))
            continue;
        if (!first) first = w;
        else if (w->block_dim != first->block_dim || w->coarse != first->coarse) return 1;
    }
    return 0;
}

/* Is row w of variant var in group g (at n, when n is not 0)? */
static int of_variant(const row *w, const group *g, int var, unsigned long long n)
{
    return w->var == var && (!n || w->n == n) && !strcmp(w->kind, g->kind) && !strcmp(w->dtype, g->dtype) &&
           !strcmp(w->op, g->op);
}

/* Did variant var of group g run more than one coarse factor (any n)? */
static int several_coarse(const results *r, const group *g, int var)
{
    long coarse1 = -2;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!w->ok || !of_variant(w, g, var, 0)) continue;
        if (coarse1 == -2) coarse1 = w->coarse;
        else if (w->coarse != coarse1) return 1;
    }
    return 0;
}

/* One heatmap's cells: bw[b * nc + c] for blocks[b] x coarses[c]. */
typedef struct heat {
    unsigned long long want, n;
    char ns[32];
    long blocks[64], coarses[64];
    size_t nb, nc;
    double *bw;
    const char **why; /* the status of a cell without a bandwidth */
    const row **first;
    unsigned folded;  /* AX_FINISH, AX_MODE: a cell is the fastest of several */
    double lo, hi;
    size_t ncells, best;
    int hasmissing, oom;
} heat;

/* The n nearest to the one asked for among those where the variant ran more
 * than one block dim x coarse factor configuration. */
static unsigned long long heat_n(const results *r, const group *g, size_t si, unsigned long long want)
{
    unsigned long long n = 0;
    double bd = INFINITY;
    for (size_t j = 0; j < g->s[si].npts; j++) {
        unsigned long long m = g->s[si].pts[j].n;
        if (!several_cells(r, g, g->s[si].var, m)) continue;
        double d = fabs(log2d((double)m) - log2d((double)want));
        if (d < bd - 1e-12 || (fabs(d - bd) <= 1e-12 && m > n)) bd = d, n = m;
    }
    return n ? n : g->s[si].pts[0].n; /* then the chart is skipped */
}

static void heat_axes(const results *r, const group *g, int var, heat *h)
{
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!of_variant(w, g, var, h->n) || w->block_dim < 0 || w->coarse < 0) continue;
        if (h->nb < 64) h->nb = add_unique(h->blocks, h->nb, w->block_dim);
        if (h->nc < 64) h->nc = add_unique(h->coarses, h->nc, w->coarse);
    }
    qsort(h->blocks, h->nb, sizeof *h->blocks, cmp_long);
    qsort(h->coarses, h->nc, sizeof *h->coarses, cmp_long);
}

static void heat_cells(const results *r, const group *g, int var, heat *h)
{
    heat_axes(r, g, var, h);
    size_t cells = h->nb * h->nc > 0 ? h->nb * h->nc : 1;
    h->bw = malloc(cells * sizeof *h->bw);
    h->why = calloc(cells, sizeof *h->why);
    h->first = calloc(cells, sizeof *h->first);
    if (!h->bw || !h->why || !h->first) {
        h->oom = 1;
        return;
    }
    for (size_t k = 0; k < h->nb * h->nc; k++) h->bw[k] = NAN;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!of_variant(w, g, var, h->n) || w->block_dim < 0 || w->coarse < 0) continue;
        size_t k = index_of(h->blocks, h->nb, w->block_dim) * h->nc + index_of(h->coarses, h->nc, w->coarse);
        if (w->ok && isfinite(w->bw_cold)) {
            if (h->first[k] && strcmp(h->first[k]->finish, w->finish)) h->folded |= AX_FINISH;
            if (h->first[k] && strcmp(h->first[k]->scan_mode, w->scan_mode)) h->folded |= AX_MODE;
            if (!h->first[k]) h->first[k] = w;
            if (!isfinite(h->bw[k]) || w->bw_cold > h->bw[k]) h->bw[k] = w->bw_cold;
        } else if (!h->why[k]) {
            h->why[k] = w->status;
        }
    }
    h->lo = INFINITY;
    for (size_t k = 0; k < h->nb * h->nc; k++)
        if (isfinite(h->bw[k])) {
            h->ncells++;
            if (h->bw[k] < h->lo) h->lo = h->bw[k];
            if (h->bw[k] > h->hi) h->hi = h->bw[k], h->best = k;
        }
}

/* A heatmap for series si when its variant ran more than one coarse factor. */
static int title_heatmap(chart_job *j)
{
    const results *r = j->ctx->r;
    const group *g = j->g;
    int var = g->s[j->si].var;
    if (!several_coarse(r, g, var)) return 0;
    heat *h = calloc(1, sizeof *h);
    if (!h) return 0;
    j->state = h;
    h->want = j->ctx->opt.n;
    h->n = heat_n(r, g, j->si, h->want);
    char vname[128];
    safe_name(vname, sizeof vname, r->vars[var].name);
    snprintf(j->cstem, sizeof j->cstem, "heatmap-%s-%s-%s", vname, g->dtype, g->op);
    format_n(h->n, h->ns, sizeof h->ns);
    snprintf(j->title, sizeof j->title, "%s: block dim × coarse factor at n = %s", r->vars[var].name, h->ns);
    heat_cells(r, g, var, h);
    return 1;
}

static void caption_heatmap(chart_job *j)
{
    const heat *h = j->state;
    snprintf(j->c->caption, sizeof j->c->caption,
             "Cold bandwidth of %s at n = %s for each block dim and coarse factor measured%s; the outlined cell "
             "is the fastest; hatched cells were not measured (skipped, failed or not in the sweep).%s",
             j->ctx->r->vars[j->g->s[j->si].var].name, h->ns,
             h->folded & (AX_FINISH | AX_MODE) ? " (each cell the fastest of its finishes or scan modes)" : "",
             h->n != h->want ? " The requested n has no block dim × coarse factor sweep for this variant: this is the "
                               "nearest n that has one."
                             : "");
}

static void heat_write(FILE *f, chart_job *j, void *arg)
{
    (void)arg;
    heat *h = j->state;
    fprintf(f, "# x y bw_cold_GBps label label_colour (x: coarse index, y: block dim index)\n");
    for (size_t b = 0; b < h->nb; b++)
        for (size_t cc = 0; cc < h->nc; cc++) {
            double x = h->bw[b * h->nc + cc];
            if (!isfinite(x)) continue;
            char lab[32];
            snprintf(lab, sizeof lab, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
            double t = h->hi > h->lo ? (x - h->lo) / (h->hi - h->lo) : 1.0;
            fprintf(f, "%zu %zu %.6g", cc, b, x);
            dat_str(f, lab);
            fprintf(f, " %u\n", t < 0.62 ? 0xffffffu : 0x111111u);
        }
    fputs("\n\n# x y label: cells without a measurement\n", f);
    for (size_t b = 0; b < h->nb; b++)
        for (size_t cc = 0; cc < h->nc; cc++) {
            size_t k = b * h->nc + cc;
            if (isfinite(h->bw[k])) continue;
            fprintf(f, "%zu %zu", cc, b);
            dat_str(f, h->why[k] ? h->why[k] : "–");
            fputc('\n', f);
            h->hasmissing = 1;
        }
    /* an empty block would not count as an index: keep index 2 where the script looks */
    if (!h->hasmissing) fputs("-100 -100 \"\"\n", f);
    fprintf(f, "\n\n# the fastest cell\n%zu %zu\n", h->best % h->nc, h->best / h->nc);
}

static void heat_params(chart_job *j, const char *dat)
{
    const heat *h = j->state;
    pbuf xt = {0}, yt = {0};
    pb_add(&xt, "(");
    for (size_t cc = 0; cc < h->nc; cc++) pb_add(&xt, "%s'%ld' %zu", cc ? ", " : "", h->coarses[cc], cc);
    pb_add(&xt, ")");
    pb_add(&yt, "(");
    for (size_t b = 0; b < h->nb; b++) pb_add(&yt, "%s'%ld' %zu", b ? ", " : "", h->blocks[b], b);
    pb_add(&yt, ")");
    snprintf(j->sub, sizeof j->sub, "cold L2; GB/s per cell, colours from the lowest to the highest%s%s",
             h->folded & (AX_FINISH | AX_MODE) ? "; each cell: the fastest of its finishes / scan modes" : "",
             h->n != h->want ? "; the nearest n with a block dim × coarse sweep" : "");
    p_str(&j->p, "data", dat);
    p_int(&j->p, "nx", (long long)h->nc);
    p_int(&j->p, "ny", (long long)h->nb);
    p_str(&j->p, "xt", xt.s);
    p_str(&j->p, "yt", yt.s);
    p_num(&j->p, "cbmin", h->hi > h->lo ? h->lo : h->lo * 0.9);
    p_num(&j->p, "cbmax", h->hi > h->lo ? h->hi : h->hi * 1.1 + 1e-9);
    p_int(&j->p, "hasmissing", h->hasmissing);
    j->w = 330 + (int)h->nc * 92, j->h = 230 + (int)h->nb * 56;
    if (j->w < 900) j->w = 900;
    fit_titles(j);
    if (j->h < 420) j->h = 420;
    free(xt.s);
    free(yt.s);
}

static int data_heatmap(chart_job *j)
{
    heat *h = j->state;
    if (h->oom || h->ncells < 2) {
        if (h->oom) skip_chart(j->ctx, j->c, "out of memory");
        else skip_chart(j->ctx, j->c, "fewer than two measured cells at n = %s", h->ns);
        return -1;
    }
    char dat[340];
    if (chart_data_file(j, dat, sizeof dat, heat_write, NULL)) return -1;
    heat_params(j, dat);
    return 0;
}

static void done_heatmap(chart_job *j)
{
    heat *h = j->state;
    if (!h) return;
    free(h->bw), free(h->why), free(h->first);
    free(h);
}

/* ---- the chart table, and the one drawing function ---------------------------------- */

static const chart_kind chart_table[] = {
    /* prefix, script, w, h, reduce only, per variant, title, caption, data, done */
    {"bandwidth", "bandwidth.gp", 1280, 720, 0, 0, title_bandwidth, caption_bandwidth, data_bandwidth, NULL, NULL,
     NULL},
    {"ladder", "ladder.gp", 1400, 420, 1, 0, title_ladder, caption_ladder, data_ladder, done_ladder, NULL, NULL},
    {"metrics", "metrics.gp", 1000, 420, 0, 0, title_metrics, caption_metrics, data_metrics, NULL, NULL, NULL},
    {"heatmap", "heatmap.gp", 900, 420, 0, 1, title_heatmap, caption_heatmap, data_heatmap, done_heatmap,
     "Block dim × coarse factor heatmaps", "no variant has more than one coarse factor in these results"},
    {"time", "time.gp", 1280, 720, 0, 0, title_time, caption_time, data_time, NULL, NULL, NULL},
    {"hotcold", "hotcold.gp", 760, 370, 0, 0, title_hotcold, caption_hotcold, data_hotcold, NULL, NULL, NULL},
    {"speedup-vs-cub", "vscub.gp", 1280, 720, 0, 0, title_speedup_vs_cub, caption_speedup_vs_cub,
     data_speedup_vs_cub, NULL, NULL, NULL},
    {"pct-copy", "vscub.gp", 1280, 720, 0, 0, title_pct_copy, caption_pct_copy, data_pct_copy, NULL, NULL, NULL},
};

/* Make one chart of kind k for group gi (series si for per-variant kinds):
 * its entry in the chart list, caption, data and drawing. 0 when the kind
 * made none (title() declined). */
static int chart_draw(render_ctx *ctx, int gi, const char *stem, const chart_kind *k, size_t si)
{
    chart_job j = {.ctx = ctx, .gi = gi, .g = &ctx->r->groups[gi], .stem = stem, .si = si, .w = k->w, .h = k->h};
    snprintf(j.cstem, sizeof j.cstem, "%s-%s", k->prefix, stem);
    int made = k->title(&j);
    if (made) j.c = new_chart(ctx, gi, j.cstem, j.title);
    if (j.c) {
        k->caption(&j);
        if (k->data(&j) == 0) {
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
static void chart_kind_render(render_ctx *ctx, int gi, const char *stem, const chart_kind *k)
{
    const group *g = &ctx->r->groups[gi];
    if (k->reduce_only && strcmp(g->kind, "reduce") != 0) return;
    if (!k->per_variant) {
        chart_draw(ctx, gi, stem, k, 0);
        return;
    }
    int any = 0;
    for (size_t si = 0; si < g->ns; si++) any |= chart_draw(ctx, gi, stem, k, si);
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
            chart_kind_render(ctx, (int)gi, stem, &chart_table[k]);
    }
    return 0;
}
