/* Block dim x coarse factor heatmaps (chart 4 of charts.c's table), one per
 * variant that ran more than one coarse factor, all of a run on one colour
 * scale (heat_range) so that two heatmaps side by side compare. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/charts_util.h"
#include "results_io/axis_names.h"

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
        if (w->var != var || w->base.cfg.n != n || !w->ok || strcmp(w->base.cfg.kind, g->kind) ||
            strcmp(w->base.cfg.dtype, g->dtype) || strcmp(w->base.cfg.op, g->op))
            continue;
        if (!first) first = w;
        else if (w->base.cfg.block_dim != first->base.cfg.block_dim || w->base.cfg.axis[0] != first->base.cfg.axis[0])
            return 1;
    }
    return 0;
}

/* Is row w of variant var in group g (at n, when n is not 0)? */
static int of_variant(const row *w, const group *g, int var, unsigned long long n)
{
    return w->var == var && (!n || w->base.cfg.n == n) && !strcmp(w->base.cfg.kind, g->kind) &&
           !strcmp(w->base.cfg.dtype, g->dtype) && !strcmp(w->base.cfg.op, g->op);
}

/* Did variant var of group g run more than one coarse factor (any n)? */
static int several_coarse(const results *r, const group *g, int var)
{
    long coarse1 = -2;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!w->ok || !of_variant(w, g, var, 0)) continue;
        if (coarse1 == -2)
            coarse1 = w->base.cfg.axis[0];
        else if (w->base.cfg.axis[0] != coarse1)
            return 1;
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
        if (!of_variant(w, g, var, h->n) || w->base.cfg.block_dim < 0 || w->base.cfg.axis[0] < 0) continue;
        if (h->nb < 64) h->nb = add_unique(h->blocks, h->nb, w->base.cfg.block_dim);
        if (h->nc < 64) h->nc = add_unique(h->coarses, h->nc, w->base.cfg.axis[0]);
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
        if (!of_variant(w, g, var, h->n) || w->base.cfg.block_dim < 0 || w->base.cfg.axis[0] < 0) continue;
        size_t k = index_of(h->blocks, h->nb, w->base.cfg.block_dim) * h->nc +
                   index_of(h->coarses, h->nc, w->base.cfg.axis[0]);
        if (w->ok && isfinite(w->bw_cold)) {
            if (h->first[k] && strcmp(h->first[k]->base.cfg.finish, w->base.cfg.finish)) h->folded |= AX_FINISH;
            if (h->first[k] && strcmp(h->first[k]->base.cfg.scan_mode, w->base.cfg.scan_mode)) h->folded |= AX_MODE;
            if (!h->first[k]) h->first[k] = w;
            if (!isfinite(h->bw[k]) || w->bw_cold > h->bw[k]) h->bw[k] = w->bw_cold;
        } else if (!h->why[k]) {
            h->why[k] = w->base.status;
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

/* The cells of series si's heatmap at the n nearest to want that has a sweep. */
static void heat_build(const results *r, const group *g, size_t si, unsigned long long want, heat *h)
{
    h->want = want;
    h->n = heat_n(r, g, si, want);
    format_n(h->n, h->ns, sizeof h->ns);
    heat_cells(r, g, g->s[si].var, h);
}

static void heat_free(heat *h)
{
    free(h->bw), free(h->why), free(h->first);
}

void heat_range(const render_ctx *ctx, double *lo, double *hi)
{
    const results *r = ctx->r;
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const group *g = &r->groups[gi];
        for (size_t si = 0; si < g->ns; si++) {
            if (!several_coarse(r, g, g->s[si].var)) continue;
            heat h = {0};
            heat_build(r, g, si, ctx->opt.n, &h);
            if (!h.oom && h.ncells >= 2) { /* the heatmaps drawn (data_heatmap) */
                if (h.lo < *lo) *lo = h.lo;
                if (h.hi > *hi) *hi = h.hi;
            }
            heat_free(&h);
        }
    }
}

/* The x axis: the variant's own axis by name and unit ("items_per_thread
 * (elements per thread)"); "coarse factor" for a variant the table lacks. */
static void own_axis_label(const char *variant, char *name, size_t nlen, char *label, size_t llen)
{
    const results_axis_name *a = results_axis_of_variant(variant);
    snprintf(name, nlen, "%s", a ? a->axis : "coarse factor");
    snprintf(label, llen, "%s (%s)", a ? a->axis : "coarse factor", a ? a->unit : "elements per thread");
}

/* A heatmap for series si when its variant ran more than one coarse factor. */
int title_heatmap(chart_job *j)
{
    const results *r = j->ctx->r;
    const group *g = j->g;
    int var = g->s[j->si].var;
    if (!several_coarse(r, g, var)) return 0;
    heat *h = calloc(1, sizeof *h);
    if (!h) return 0;
    j->state = h;
    heat_build(r, g, j->si, j->ctx->opt.n, h);
    char vname[128];
    safe_name(vname, sizeof vname, r->vars[var].name);
    snprintf(j->cstem, sizeof j->cstem, "heatmap-%s-%s-%s", vname, g->dtype, g->op);
    char axis[64], label[128];
    own_axis_label(r->vars[var].name, axis, sizeof axis, label, sizeof label);
    snprintf(j->title, sizeof j->title, "%s: block dim × %s at n = %s", r->vars[var].name, axis, h->ns);
    return 1;
}

void caption_heatmap(chart_job *j)
{
    const heat *h = j->state;
    const char *variant = j->ctx->r->vars[j->g->s[j->si].var].name;
    char axis[64], label[128];
    own_axis_label(variant, axis, sizeof axis, label, sizeof label);
    snprintf(j->c->caption, sizeof j->c->caption,
             "Cold bandwidth of %s at n = %s for each block dim and %s measured%s; the outlined cell "
             "is the fastest; hatched cells were not measured (skipped, failed or not in the sweep).%s",
             variant, h->ns, label,
             h->folded & (AX_FINISH | AX_MODE) ? " (each cell the fastest of its finishes or scan modes)" : "",
             h->n != h->want ? " The requested n has no block dim × coarse factor sweep for this variant: this is the "
                               "nearest n that has one."
                             : "");
}

/* The colour scale: the run's (every heatmap's cells), else this one's. */
static void heat_scale(const chart_job *j, double *lo, double *hi)
{
    const heat *h = j->state;
    *lo = h->lo, *hi = h->hi;
    if (j->scales && j->scales->heat_hi > j->scales->heat_lo) *lo = j->scales->heat_lo, *hi = j->scales->heat_hi;
    if (!(*hi > *lo)) *lo = *lo * 0.9, *hi = *hi * 1.1 + 1e-9;
}

static void heat_write(FILE *f, chart_job *j, void *arg)
{
    (void)arg;
    heat *h = j->state;
    double lo, hi;
    heat_scale(j, &lo, &hi);
    fprintf(f, "# x y bw_cold_GBps label label_colour (x: coarse index, y: block dim index)\n");
    for (size_t b = 0; b < h->nb; b++)
        for (size_t cc = 0; cc < h->nc; cc++) {
            double x = h->bw[b * h->nc + cc];
            if (!isfinite(x)) continue;
            char lab[32];
            snprintf(lab, sizeof lab, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
            double t = (x - lo) / (hi - lo); /* on the run's scale: dark cells get white labels */
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
    double lo, hi;
    heat_scale(j, &lo, &hi);
    snprintf(j->sub, sizeof j->sub, "cold L2; GB/s per cell, one colour scale for every heatmap of the run "
             "(%.0f to %.0f GB/s)%s%s", lo, hi,
             h->folded & (AX_FINISH | AX_MODE) ? "; each cell: the fastest of its finishes / scan modes" : "",
             h->n != h->want ? "; the nearest n with a block dim × coarse sweep" : "");
    p_str(&j->p, "data", dat);
    p_int(&j->p, "nx", (long long)h->nc);
    p_int(&j->p, "ny", (long long)h->nb);
    p_str(&j->p, "xt", xt.s);
    char axis[64], label[128];
    own_axis_label(j->ctx->r->vars[j->g->s[j->si].var].name, axis, sizeof axis, label, sizeof label);
    p_text(&j->p, "xl", label);
    p_str(&j->p, "yt", yt.s);
    p_num(&j->p, "cbmin", lo);
    p_num(&j->p, "cbmax", hi);
    p_int(&j->p, "hasmissing", h->hasmissing);
    j->w = 330 + (int)h->nc * 92, j->h = 230 + (int)h->nb * 56;
    if (j->w < 900) j->w = 900;
    fit_titles(j);
    if (j->h < 420) j->h = 420;
    free(xt.s);
    free(yt.s);
}

int data_heatmap(chart_job *j)
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

void done_heatmap(chart_job *j)
{
    heat *h = j->state;
    if (!h) return;
    heat_free(h);
    free(h);
}

