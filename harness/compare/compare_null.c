/* compare_null.h: fitting the empirical null and judging configurations and
 * variants against it. Runs inside compare_build, after every pair was
 * judged on its own noise (compare_stats.c) and before the correction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"

#define SQRT2 1.4142135623730951
#define Z95 1.959963984540054
#define MAD_TO_SD 1.4826

/* ---- small robust statistics -------------------------------------------------------------- */

static double robust_scale(const double *x, size_t n)
{
    if (n < 2) return NAN;
    double m = cs_median(x, n), *d = malloc(n * sizeof *d);
    if (!d) return NAN;
    for (size_t i = 0; i < n; i++) d[i] = fabs(x[i] - m);
    double s = MAD_TO_SD * cs_median(d, n);
    free(d);
    return s;
}

static int kind_index(const compare_pair *p) { return !strcmp(p->base->plain.cfg.kind, "scan"); }

static double log_ratio(const compare_phase *ph) { return ph->verdict == CV_NA || !(ph->speedup > 0) ? NAN : -log(ph->speedup); }

/* The rows' own relative noise of one phase, the two sides in quadrature (0 unknown). */
static double rows_noise(const compare_pair *p, int hot)
{
    double a = row_phase_noise(hot ? &p->base->hot : &p->base->cold);
    double b = row_phase_noise(hot ? &p->newer->hot : &p->newer->cold);
    return hypot(isfinite(a) ? a : 0, isfinite(b) ? b : 0);
}

static compare_phase *phase_of(compare_pair *p, int hot) { return hot ? &p->hot : &p->cold; }

/* ---- bands and groups ------------------------------------------------------------------------- */

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Sizes in order, neighbours merged until each band holds COMPARE_NULL_MIN_BAND
 * configurations (a short last band joins the one before). 0 bands: too few. */
static size_t make_bands(const compare_result *r, compare_band *bands)
{
    size_t *n = malloc((r->npairs + 1) * sizeof *n), nb = 0;
    if (!n) return 0;
    for (size_t i = 0; i < r->npairs; i++) n[i] = (size_t)r->pairs[i].base->plain.cfg.n;
    qsort(n, r->npairs, sizeof *n, by_size);
    for (size_t i = 0; i < r->npairs;) {
        size_t j = i;
        while (j < r->npairs && (j - i < COMPARE_NULL_MIN_BAND || n[j] == n[j - 1])) j++;
        if (r->npairs - j < COMPARE_NULL_MIN_BAND) j = r->npairs;
        if (j - i >= COMPARE_NULL_MIN_BAND) bands[nb++] = (compare_band){.n_lo = n[i], .n_hi = n[j - 1], .launch_bound = -1};
        i = j;
    }
    free(n);
    return nb;
}

static size_t band_of(const compare_null_phase *np, size_t n)
{
    for (size_t b = 0; b < np->nbands; b++)
        if (n >= np->bands[b].n_lo && n <= np->bands[b].n_hi) return b;
    return (size_t)-1;
}

static int same_group(const compare_vgroup *g, const results_row_config *c)
{
    return !strcmp(g->name, c->variant) && !strcmp(g->dtype, c->dtype) && !strcmp(g->op, c->op);
}

static int make_groups(compare_result *r)
{
    r->vgroups = calloc(r->npairs + 1, sizeof *r->vgroups);
    r->pair_group = malloc((r->npairs + 1) * sizeof *r->pair_group);
    if (!r->vgroups || !r->pair_group) return -1;
    for (size_t i = 0; i < r->npairs; i++) {
        const results_row_config *c = &r->pairs[i].base->plain.cfg;
        size_t g = 0;
        while (g < r->nvgroups && !same_group(&r->vgroups[g], c)) g++;
        if (g == r->nvgroups) r->vgroups[r->nvgroups++] = (compare_vgroup){c->variant, c->dtype, c->op, {{0}}};
        r->pair_group[i] = g;
    }
    return 0;
}

/* ---- one phase: centres, variant shifts, residuals ------------------------------------------ */

typedef struct fit_work {
    double *x, *y;    /* scratch, npairs each */
    double *shift;    /* [group * nbands + band]: the variant's shift (NaN none) */
} fit_work;

static double band_centre(compare_result *r, const compare_null_phase *np, size_t b, int kind, int hot, fit_work *w)
{
    size_t k = 0, all = 0;
    for (size_t i = 0; i < r->npairs; i++) {
        double lr = log_ratio(phase_of(&r->pairs[i], hot));
        if (isnan(lr) || band_of(np, (size_t)r->pairs[i].base->plain.cfg.n) != b) continue;
        w->y[all++] = lr;
        if (kind_index(&r->pairs[i]) == kind) w->x[k++] = lr;
    }
    /* a kind with too few configurations in the band takes the band's centre */
    return k >= COMPARE_NULL_MIN_BAND / 3 ? cs_median(w->x, k) : all ? cs_median(w->y, all) : NAN;
}

/* Variant shifts of band b (w->shift) and the variant-level scale. */
static void band_shifts(compare_result *r, compare_null_phase *np, size_t b, int hot, fit_work *w)
{
    compare_band *band = &np->bands[b];
    size_t nv = 0;
    for (size_t g = 0; g < r->nvgroups; g++) {
        size_t k = 0;
        for (size_t i = 0; i < r->npairs; i++) {
            double lr = log_ratio(phase_of(&r->pairs[i], hot));
            if (r->pair_group[i] != g || isnan(lr) || band_of(np, (size_t)r->pairs[i].base->plain.cfg.n) != b) continue;
            w->x[k++] = lr - band->centre[kind_index(&r->pairs[i])];
        }
        w->shift[g * np->nbands + b] = k ? cs_median(w->x, k) : NAN;
        if (k) w->y[nv++] = w->shift[g * np->nbands + b];
    }
    band->variants = nv;
    band->variant_scatter = nv >= COMPARE_NULL_MIN_VARIANTS ? robust_scale(w->y, nv) : NAN;
}

static double residual(const compare_result *r, const compare_null_phase *np, const fit_work *w, size_t i, int hot,
                       size_t *band)
{
    compare_pair *p = &r->pairs[i];
    *band = band_of(np, (size_t)p->base->plain.cfg.n);
    double lr = log_ratio(phase_of(p, hot));
    if (isnan(lr) || *band == (size_t)-1) return NAN;
    return lr - np->bands[*band].centre[kind_index(p)] - w->shift[r->pair_group[i] * np->nbands + *band];
}

/* The configuration-level scale of residuals: group g's own in band b when it
 * has enough, else the band's (g == -1). The rows' median noise taken out. */
static double residual_scale(const compare_result *r, const compare_null_phase *np, const fit_work *w, size_t g,
                             size_t b, int hot)
{
    size_t k = 0;
    for (size_t i = 0; i < r->npairs; i++) {
        size_t band;
        double e = residual(r, np, w, i, hot, &band);
        if (isnan(e) || band != b || (g != (size_t)-1 && r->pair_group[i] != g)) continue;
        w->x[k] = e;
        w->y[k++] = rows_noise(&r->pairs[i], hot) * rows_noise(&r->pairs[i], hot);
    }
    if (g != (size_t)-1 && k < COMPARE_NULL_MIN_CELL) return NAN;
    double s = robust_scale(w->x, k), own = cs_median(w->y, k);
    return sqrt(fmax(0, s * s - (isfinite(own) ? own : 0)));
}

/* Each configuration's p and relative speed-up against its null. */
static void judge_configs(compare_result *r, compare_null_phase *np, fit_work *w, int hot)
{
    double *cell = malloc((r->nvgroups * np->nbands + 1) * sizeof *cell);
    if (!cell) return;
    for (size_t b = 0; b < np->nbands; b++) {
        np->bands[b].scatter = residual_scale(r, np, w, (size_t)-1, b, hot);
        for (size_t g = 0; g < r->nvgroups; g++) cell[g * np->nbands + b] = residual_scale(r, np, w, g, b, hot);
    }
    for (size_t i = 0; i < r->npairs; i++) {
        size_t b;
        double e = residual(r, np, w, i, hot, &b);
        if (isnan(e)) continue;
        double tau = cell[r->pair_group[i] * np->nbands + b];
        if (isnan(tau)) tau = np->bands[b].scatter;
        double s = hypot(isfinite(tau) ? tau : 0, rows_noise(&r->pairs[i], hot));
        compare_phase *ph = phase_of(&r->pairs[i], hot);
        ph->null_scale = s;
        ph->adj = exp(-e);
        ph->p = s > 0 ? erfc(fabs(e) / s / SQRT2) : (e == 0 ? 1.0 : 0.0);
        ph->lo = exp(-e - Z95 * s);
        ph->hi = exp(-e + Z95 * s);
        ph->method = CM_NULL;
        np->bands[b].configs++;
    }
    free(cell);
}

/* ---- variants ----------------------------------------------------------------------------------- */

/* The geometric mean speed-up of group g's configurations in bands [lo, hi]
 * relative to the machine (the centre taken out), its bootstrap interval
 * widened by the variant-level null `scale` (log): the interval of a
 * variant's change between two machines holds their scatter too. */
static void range_mean(const compare_result *r, const compare_null_phase *np, fit_work *w, size_t g, size_t lo,
                       size_t hi, int hot, double scale, double *gm, double *glo, double *ghi)
{
    size_t k = 0;
    for (size_t i = 0; i < r->npairs; i++) {
        compare_pair *p = &r->pairs[i];
        size_t b = band_of(np, (size_t)p->base->plain.cfg.n);
        double lr = log_ratio(phase_of(p, hot));
        if (r->pair_group[i] != g || isnan(lr) || b == (size_t)-1 || b < lo || b > hi) continue;
        w->x[k++] = -(lr - np->bands[b].centre[kind_index(p)]);
    }
    double m, l, h;
    cs_geomean_interval(w->x, k, COMPARE_BOOTSTRAP_ROUNDS, COMPARE_BOOTSTRAP_SEED, COMPARE_CI_LEVEL, &m, &l, &h);
    double half = hypot((log(h) - log(l)) / 2, Z95 * (isfinite(scale) ? scale : 0));
    *gm = m;
    *glo = isfinite(half) ? exp(log(m) - half) : NAN;
    *ghi = isfinite(half) ? exp(log(m) + half) : NAN;
}

/* The range of bands where group g moved most consistently (the step that
 * fits its shifts best: every size, from a size up, or up to a size), and
 * that range's test against the variant-level null. */
static void judge_variant(compare_result *r, const compare_null_phase *np, fit_work *w, size_t g, int hot)
{
    compare_variant_phase *v = &r->vgroups[g].ph[hot];
    size_t *idx = malloc((np->nbands + 1) * sizeof *idx), m = 0;
    if (!idx) return;
    for (size_t b = 0; b < np->nbands; b++)
        if (isfinite(w->shift[g * np->nbands + b]) && isfinite(np->bands[b].variant_scatter)) idx[m++] = b;
    memset(v, 0, sizeof *v);
    v->verdict = CV_NA;
    if (!m) {
        free(idx);
        return;
    }
    size_t best_i = 0, best_j = m - 1, ranges = 0;
    double best = -1;
    for (size_t i = 0; i < m; i++)
        for (size_t j = i; j < m; j++) {
            if (i != 0 && j != m - 1) continue; /* every size, from a size, up to a size */
            double sw = 0, swd = 0;
            for (size_t k = i; k <= j; k++) {
                double s = fmax(np->bands[idx[k]].variant_scatter, 1e-4), wt = 1 / (s * s);
                sw += wt;
                swd += wt * w->shift[g * np->nbands + idx[k]];
            }
            ranges++;
            if (swd * swd / sw > best) {
                best = swd * swd / sw;
                best_i = i;
                best_j = j;
            }
        }
    double s2 = 0;
    for (size_t k = best_i; k <= best_j; k++) {
        w->y[k - best_i] = w->shift[g * np->nbands + idx[k]];
        s2 += np->bands[idx[k]].variant_scatter * np->bands[idx[k]].variant_scatter;
    }
    size_t len = best_j - best_i + 1;
    v->judged = 1;
    v->band_lo = idx[best_i];
    v->band_hi = idx[best_j];
    v->band_first = idx[0];
    v->band_last = idx[m - 1];
    v->shift = cs_median(w->y, len); /* one size's hiccup does not make a variant's change */
    v->scale = sqrt(s2 / (double)len);
    double z = v->scale > 0 ? fabs(v->shift) / v->scale : (v->shift == 0 ? 0 : INFINITY);
    v->p = fmin(1, erfc(z / SQRT2) * (double)ranges);
    range_mean(r, np, w, g, v->band_lo, v->band_hi, hot, v->scale, &v->gm, &v->lo, &v->hi);
    double all = 0;
    for (size_t k = 0; k < m; k++) all += np->bands[idx[k]].variant_scatter * np->bands[idx[k]].variant_scatter;
    range_mean(r, np, w, g, idx[0], idx[m - 1], hot, sqrt(all / (double)m), &v->all_gm, &v->all_lo, &v->all_hi);
    v->verdict = CV_SAME;
    free(idx);
}

/* Benjamini-Hochberg over every variant phase judged; changed: rejected and
 * beyond the threshold. A changed variant's configurations in its range are
 * then judged on their whole move, the variant's shift included. */
static int decide_variants(compare_result *r, compare_null_phase np[2], fit_work w[2])
{
    size_t n = 2 * r->nvgroups;
    double *p = malloc((n + 1) * sizeof *p);
    int *rej = malloc((n + 1) * sizeof *rej);
    if (!p || !rej) {
        free(p);
        free(rej);
        return -1;
    }
    for (size_t k = 0; k < n; k++) p[k] = r->vgroups[k / 2].ph[k % 2].judged ? r->vgroups[k / 2].ph[k % 2].p : NAN;
    r->nvrejected = cs_bh_reject(p, n, COMPARE_FDR_Q, rej, &r->nvtests);
    double t = r->threshold >= 0 ? r->threshold : COMPARE_MIN_THRESHOLD;
    for (size_t k = 0; k < n; k++) {
        compare_variant_phase *v = &r->vgroups[k / 2].ph[k % 2];
        if (!v->judged) continue;
        double ratio = exp(v->shift); /* NEW / BASE time */
        int large = ratio > 1 + t || ratio < 1 / (1 + t);
        v->verdict = rej[k] && large ? (ratio > 1 ? CV_SLOWER : CV_FASTER) : CV_SAME;
        if (v->verdict == CV_SAME) continue;
        int hot = (int)(k % 2);
        for (size_t i = 0; i < r->npairs; i++) {
            size_t b;
            double e = residual(r, &np[hot], &w[hot], i, hot, &b);
            if (r->pair_group[i] != k / 2 || isnan(e) || b < v->band_lo || b > v->band_hi) continue;
            compare_phase *ph = phase_of(&r->pairs[i], hot);
            e += w[hot].shift[(k / 2) * np[hot].nbands + b];
            double s = hypot(ph->null_scale, v->scale);
            ph->adj = exp(-e);
            ph->p = s > 0 ? erfc(fabs(e) / s / SQRT2) : 0;
            ph->lo = exp(-e - Z95 * s);
            ph->hi = exp(-e + Z95 * s);
        }
    }
    free(p);
    free(rej);
    return 0;
}

/* ---- the fit ------------------------------------------------------------------------------------- */

static void machine_bounds(const compare_result *r, compare_null_phase *np)
{
    double launch_ms = compare_machine_launch_ms(&r->base, NULL), bw = compare_machine_copy_GBps(&r->base);
    if (!(launch_ms > 0) || !(bw > 0)) return;
    double *bytes = malloc((r->npairs + 1) * sizeof *bytes);
    for (size_t b = 0; bytes && b < np->nbands; b++) {
        size_t k = 0;
        for (size_t i = 0; i < r->npairs; i++) {
            size_t n = (size_t)r->pairs[i].base->plain.cfg.n;
            double by = r->pairs[i].base->plain.values[RC_BYTES_MOVED];
            if (n >= np->bands[b].n_lo && n <= np->bands[b].n_hi && by > 0) bytes[k++] = by;
        }
        if (k) np->bands[b].launch_bound = launch_ms > cs_median(bytes, k) / (bw * 1e6);
    }
    free(bytes);
}

static int fit_phase(compare_result *r, compare_null_phase *np, fit_work *w, int hot)
{
    size_t judged = 0;
    for (size_t i = 0; i < r->npairs; i++) judged += !isnan(log_ratio(phase_of(&r->pairs[i], hot)));
    np->bands = calloc(r->npairs + 1, sizeof *np->bands);
    if (!np->bands) return -1;
    np->nbands = judged >= COMPARE_NULL_MIN_BAND ? make_bands(r, np->bands) : 0;
    if (!np->nbands) {
        snprintf(np->refused, sizeof np->refused,
                 "%zu configurations with a %s median, at least %d needed to fit the machine's scatter: judged "
                 "against their own noise only",
                 judged, hot ? "hot" : "cold", COMPARE_NULL_MIN_BAND);
        return 0;
    }
    w->shift = malloc((r->nvgroups * np->nbands + 1) * sizeof *w->shift);
    if (!w->shift) return -1;
    for (size_t b = 0; b < np->nbands; b++) {
        np->bands[b].centre[0] = band_centre(r, np, b, 0, hot, w);
        np->bands[b].centre[1] = band_centre(r, np, b, 1, hot, w);
        band_shifts(r, np, b, hot, w);
    }
    judge_configs(r, np, w, hot);
    for (size_t g = 0; g < r->nvgroups; g++) judge_variant(r, np, w, g, hot);
    machine_bounds(r, np);
    return 0;
}

int compare_null_fit(compare_result *r)
{
    fit_work w[2] = {{0}};
    int rc = make_groups(r);
    for (int hot = 0; hot < 2 && !rc; hot++) {
        w[hot].x = malloc((r->npairs + 1) * sizeof (double));
        w[hot].y = malloc((r->npairs + 1) * sizeof (double));
        rc = !w[hot].x || !w[hot].y || fit_phase(r, &r->null[hot], &w[hot], hot);
    }
    if (!rc && (r->null[0].nbands || r->null[1].nbands)) rc = decide_variants(r, r->null, w);
    for (int hot = 0; hot < 2; hot++) {
        free(w[hot].x);
        free(w[hot].y);
        free(w[hot].shift);
    }
    return rc ? -1 : 0;
}

void compare_null_free(compare_result *r)
{
    for (int h = 0; h < 2; h++) free(r->null[h].bands);
    free(r->vgroups);
    free(r->pair_group);
}

/* ---- what was fitted, for people ------------------------------------------------------------- */

static void pct_cell(char *buf, size_t len, double log_value)
{
    if (isfinite(log_value)) snprintf(buf, len, "%+.2f %%", (exp(log_value) - 1) * 100);
    else snprintf(buf, len, "–");
}

static void band_line(FILE *f, const compare_result *r, size_t b)
{
    char size[80], a[32], z[32], cells[2][3][24];
    const compare_band *bd = b < r->null[0].nbands ? &r->null[0].bands[b] : &r->null[1].bands[b];
    compare_size_text(bd->n_lo, a, sizeof a);
    compare_size_text(bd->n_hi, z, sizeof z);
    if (bd->n_lo == bd->n_hi) snprintf(size, sizeof size, "%s", a);
    else snprintf(size, sizeof size, "%s–%s", a, z);
    for (int h = 0; h < 2; h++) {
        const compare_band *x = b < r->null[h].nbands ? &r->null[h].bands[b] : NULL;
        double c = x ? (isfinite(x->centre[0]) ? x->centre[0] : x->centre[1]) : NAN;
        double c1 = x ? x->centre[1] : NAN;
        pct_cell(cells[h][0], sizeof cells[h][0], c);
        if (x && isfinite(c1) && c1 != c)
            snprintf(cells[h][0] + strlen(cells[h][0]), sizeof cells[h][0] - strlen(cells[h][0]), "/%+.2f",
                     (exp(c1) - 1) * 100);
        snprintf(cells[h][1], sizeof cells[h][1], x && isfinite(x->scatter) ? "%.2f %%" : "–", x ? x->scatter * 100 : 0);
        snprintf(cells[h][2], sizeof cells[h][2], x && isfinite(x->variant_scatter) ? "%.2f %%" : "–",
                 x ? x->variant_scatter * 100 : 0);
    }
    fprintf(f, "  %-11s %7zu %8zu   %-16s %-9s %-9s  %-16s %-9s %-9s %s\n", size, bd->configs, bd->variants,
            cells[0][0], cells[0][1], cells[0][2], cells[1][0], cells[1][1], cells[1][2],
            bd->launch_bound < 0 ? "–" : bd->launch_bound ? "launch" : "bandwidth");
}

/* The smallest change the null resolves: COMPARE_NULL_RESOLVE_Z of its
 * median scale, at least the threshold. */
static double resolvable(const compare_result *r, int variant)
{
    double *x = malloc((2 * (r->null[0].nbands + r->null[1].nbands) + 1) * sizeof *x), v;
    size_t k = 0;
    for (int h = 0; x && h < 2; h++)
        for (size_t b = 0; b < r->null[h].nbands; b++) {
            v = variant ? r->null[h].bands[b].variant_scatter : r->null[h].bands[b].scatter;
            if (isfinite(v)) x[k++] = v;
        }
    double t = r->threshold >= 0 ? r->threshold : COMPARE_MIN_THRESHOLD;
    double s = k ? cs_median(x, k) : NAN;
    free(x);
    return isfinite(s) ? fmax(t, exp(COMPARE_NULL_RESOLVE_Z * s) - 1) : NAN;
}

/* One line for the short form: the bands' ranges of centre and scatter. */
static void null_summary(FILE *f, const compare_result *r, size_t nb)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    size_t configs = 0, launch_to = 0, any_launch = 0;
    for (int h = 0; h < 2; h++)
        for (size_t b = 0; b < r->null[h].nbands; b++) {
            const compare_band *x = &r->null[h].bands[b];
            double v[3] = {fabs(x->centre[0]) > fabs(x->centre[1]) || isnan(x->centre[1]) ? x->centre[0] : x->centre[1],
                           x->scatter, x->variant_scatter};
            for (int k = 0; k < 3; k++)
                if (isfinite(v[k])) lo[k] = fmin(lo[k], v[k]), hi[k] = fmax(hi[k], v[k]);
            if (!h) configs += x->configs;
            if (!h && x->launch_bound == 1) any_launch = 1, launch_to = b;
        }
    char first[32], last[32], cut[32];
    const compare_null_phase *np = r->null[0].nbands ? &r->null[0] : &r->null[1];
    compare_size_text(np->bands[0].n_lo, first, sizeof first);
    compare_size_text(np->bands[nb - 1].n_hi, last, sizeof last);
    compare_size_text(np->bands[launch_to].n_hi, cut, sizeof cut);
    fprintf(f, "empirical null: %zu size bands %s–%s, %zu configurations, %zu variants; the machine's shift (centre) "
               "%+.2f to %+.2f %%, a configuration's scatter %.2f–%.2f %%, the variants' %.2f–%.2f %%%s%s (per band: "
               "--detail)\n",
            nb, first, last, configs, r->nvgroups, (exp(lo[0]) - 1) * 100, (exp(hi[0]) - 1) * 100, lo[1] * 100,
            hi[1] * 100, lo[2] * 100, hi[2] * 100, any_launch ? "; launch-bound to " : "", any_launch ? cut : "");
}

static void band_table(FILE *f, const compare_result *r, size_t nb);
static void resolution(FILE *f, const compare_result *r);

void compare_null_describe(FILE *f, const compare_result *r, int detail)
{
    for (int h = 0; h < 2; h++)
        if (r->null[h].refused[0]) fprintf(f, "empirical null refused (%s): %s\n", h ? "hot" : "cold", r->null[h].refused);
    size_t nb = r->null[0].nbands > r->null[1].nbands ? r->null[0].nbands : r->null[1].nbands;
    if (!nb) return;
    if (!detail) null_summary(f, r, nb);
    else band_table(f, r, nb);
    resolution(f, r);
}

/* Per band, for the detail: what each fit rests on. */
static void band_table(FILE *f, const compare_result *r, size_t nb)
{
    fprintf(f, "empirical null, fitted from these two runs (NEW / BASE time; centre: the machine's shift, reductions/"
               "scans where they differ; scatter: a configuration's, the rows' noise taken out; variants: the "
               "spread of the variants' shifts):\n");
    fprintf(f, "  %-11s %7s %8s   %-16s %-9s %-9s  %-16s %-9s %-9s %s\n", "size", "configs", "variants",
            "cold centre", "scatter", "variants", "hot centre", "scatter", "variants", "machine model");
    for (size_t b = 0; b < nb; b++) band_line(f, r, b);
}

/* The machine model, what the null resolves, and the variants' verdicts. */
static void resolution(FILE *f, const compare_result *r)
{
    const char *src = NULL;
    double l = compare_machine_launch_ms(&r->base, &src), bw = compare_machine_copy_GBps(&r->base);
    if (l > 0 && bw > 0)
        fprintf(f, "machine model (BASE): %.2f us a launch (%s) + bytes / %.0f GB/s; launch-bound where the launch "
                   "is longer than a row's bytes at that bandwidth (below about %.0f KB)\n",
                l * 1e3, src, bw, l * bw * 1e6 / 1e3);
    fprintf(f, "resolvable between these runs: a configuration's change beyond %.1f %%, a whole variant's beyond "
               "%.1f %% (%.0f x the median scatter, at least the threshold); smaller ones cannot be told from the "
               "machine\n",
            resolvable(r, 0) * 100, resolvable(r, 1) * 100, COMPARE_NULL_RESOLVE_Z);
    fprintf(f, "variants: %zu variant phases judged against the variants' scatter over every size, from a size up or "
               "up to a size (Bonferroni over the ranges), Benjamini-Hochberg q = %.2f: %zu changed\n",
            r->nvtests, COMPARE_FDR_Q, compare_variant_changes(r));
}
