/* The bar charts at one n (charts.c's table): the reduction ladder (chart 2;
 * ladder_build also makes the report's tables) and the hardware metrics per
 * variant (chart 3). Bars take the variant's palette colour (palette.h) and
 * its marker at the bar's end. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/charts_util.h"

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
    /* the fastest of all rungs, the library's included: the bar the chart
     * labels "fastest" is the one with the lowest time */
    for (size_t i = 0; i < l->nrows; i++) {
        ladder_row *x = &l->rows[i];
        x->cum = tb / x->w->t_cold;
        if (!best || x->w->t_cold < best->w->t_cold) best = x;
        if (x->is_cub) continue;
        if (prev) x->step = prev->w->t_cold / x->w->t_cold;
        prev = x;
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

int title_ladder(chart_job *j)
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

void caption_ladder(chart_job *j)
{
    const ladder *l = j->state;
    unsigned long long want = j->ctx->opt.n;
    char ns[32], folded[256];
    format_n(l->n ? l->n : want, ns, sizeof ns);
    folded_text(j->g->folded, folded, sizeof folded);
    textf(j->c->caption, sizeof j->c->caption,
          "Each reduction at n = %s in the order of the results (the seeds' tables), the library baseline set apart "
          "at the bottom: cold median time (left) and speedup (right): cumulative against %s, and step over the "
          "rung above. Each bar is %s; \"fastest\" marks the lowest time.%s%s%s%s" BARS_CAPTION,
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
    double lo, hi;
    median_interval(x->w->t_cold, x->w->base.values[RC_NOISE_COLD_PCT], &lo, &hi);
    fprintf(f, " %d %.6g %.6g\n", v->point_type, lo * 1e3, hi * 1e3);
}

static void ladder_rows(FILE *f, chart_job *j, void *arg)
{
    const ladder *l = j->state;
    ladder_extent *e = arg;
    *e = (ladder_extent){INFINITY, 0, 1, 1, 0};
    double y = 0;
    int prev_cub = 0;
    fprintf(f, "# y name time_us cumulative step colour time_label speedup_label marker time_lo_us time_hi_us "
               "(the median's 95 %% interval)\n");
    for (size_t i = 0; i < l->nrows; i++) {
        const ladder_row *x = &l->rows[i];
        if (i && x->is_cub && !prev_cub) y += 0.6;
        prev_cub = x->is_cub;
        ladder_line(f, j->ctx, x, y);
        double t = x->w->t_cold * 1e3, lo, hi;
        median_interval(t, x->w->base.values[RC_NOISE_COLD_PCT], &lo, &hi);
        if (lo < e->tmin) e->tmin = lo;
        if (hi > e->tmax) e->tmax = hi;
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
    /* about 10 and 20 pixels right of the interval on the ~500-pixel time panel */
    p_num(p, "mkf", pow(txmax / txmin, 0.02));
    p_num(p, "lbf", pow(txmax / txmin, 0.04));
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

int data_ladder(chart_job *j)
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
    snprintf(j->sub, sizeof j->sub, "cold L2; each bar: %s; error bars: the median's 95 %% interval%s", folded,
             l->n != j->ctx->opt.n ? "; the requested n was not measured, this is the nearest" : "");
    ladder_params(j, dat, &e);
    return 0;
}

void done_ladder(chart_job *j)
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

int title_metrics(chart_job *j)
{
    char ns[32];
    metrics_n(j, ns, sizeof ns);
    snprintf(j->title, sizeof j->title, "%s: hardware metrics at n = %s", kind_title(j->g->kind), ns);
    return 1;
}

void caption_metrics(chart_job *j)
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
    fprintf(f, " %u %d", v->color, v->point_type);
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
    fprintf(f, "# y name warp_eff_pct warp_eff_pred_pct bank_ld bank_st dram_pct occupancy_pct colour marker "
               "bank_ld_label bank_st_label na_warp na_bank na_dram na_occupancy\n");
    for (size_t i = 0; i < j->g->ns && n; i++)
        if (series_at(&j->g->s[i], n)) metrics_line(f, j->ctx, j->g, j->g->s[i].var, n, s);
    if (s->yt.s) pb_add(&s->yt, ")");
}

int data_metrics(chart_job *j)
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

