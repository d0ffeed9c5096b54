/* compare.h's short form: one line per variant x dtype (x op where the
 * comparison has several), the geometric mean of its speed-ups with an
 * interval, how many of its configurations got faster / slower / stayed,
 * and its worst one; then the lines that say how it was judged. Sizes as
 * 2^k throughout the outputs for people (compare_size_text). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"
#include "kernels/variant.h"
#include "results_io/run_keys.h"

void compare_config_text(const results_row_config *c, char *buf, size_t len)
{
    char n[32], axes[128];
    compare_size_text((size_t)c->n, n, sizeof n);
    results_row_axes_text(c, " ", axes, sizeof axes);
    snprintf(buf, len, "%s %s n=%s block=%ld%s%s %s", c->dtype, c->op, n, c->block_dim, axes[0] ? " " : "", axes,
             *c->scan_mode ? c->scan_mode : c->finish);
}

/* ---- the groups ----------------------------------------------------------------------------- */

static int several_ops(const compare_result *r)
{
    for (size_t i = 1; i < r->npairs; i++)
        if (strcmp(r->pairs[i].base->plain.cfg.op, r->pairs[0].base->plain.cfg.op)) return 1;
    return 0;
}

static int in_group(const compare_group *g, const compare_pair *p)
{
    const results_row_config *c = &p->base->plain.cfg;
    return !strcmp(g->name, c->variant) && !strcmp(g->dtype, c->dtype) && (!g->by_op || !strcmp(g->op, c->op));
}

/* A configuration: slower when a phase is; faster when a phase is and none is slower. */
static void count_pair(compare_group *g, const compare_pair *p)
{
    int slower = p->cold.verdict == CV_SLOWER || p->hot.verdict == CV_SLOWER;
    int faster = !slower && (p->cold.verdict == CV_FASTER || p->hot.verdict == CV_FASTER);
    g->slower += slower;
    g->faster += faster;
    g->same += !slower && !faster;
    g->nconfigs++;
    for (int h = 0; h < 2; h++) {
        const compare_phase *ph = h ? &p->hot : &p->cold;
        if (ph->verdict == CV_NA || !(ph->speedup > 0)) continue;
        if (!g->worst || ph->speedup < (g->worst_hot ? g->worst->hot.speedup : g->worst->cold.speedup)) {
            g->worst = p;
            g->worst_hot = h;
        }
    }
}

/* With the empirical null: the variant's speed-up relative to the machine. */
static int null_means(compare_group *g, const compare_result *r)
{
    for (size_t k = 0; k < r->nvgroups; k++) {
        const compare_vgroup *v = &r->vgroups[k];
        if (strcmp(v->name, g->name) || strcmp(v->dtype, g->dtype) || (g->by_op && strcmp(v->op, g->op))) continue;
        g->vg = v;
        for (int h = 0; h < 2; h++) {
            if (!v->ph[h].judged) continue;
            g->gm[h] = v->ph[h].all_gm;
            g->lo[h] = v->ph[h].all_lo;
            g->hi[h] = v->ph[h].all_hi;
        }
        return v->ph[0].judged || v->ph[1].judged;
    }
    return 0;
}

/* Geometric means of the group's judged phases, with their intervals. */
static void group_means(compare_group *g, const compare_result *r, double *logs)
{
    if (null_means(g, r)) return;
    for (int h = 0; h < 2; h++) {
        size_t n = 0;
        for (size_t i = 0; i < r->npairs; i++) {
            const compare_phase *ph = h ? &r->pairs[i].hot : &r->pairs[i].cold;
            if (in_group(g, &r->pairs[i]) && ph->verdict != CV_NA && ph->speedup > 0) logs[n++] = log(ph->speedup);
        }
        cs_geomean_interval(logs, n, COMPARE_BOOTSTRAP_ROUNDS, COMPARE_BOOTSTRAP_SEED, COMPARE_CI_LEVEL, &g->gm[h],
                            &g->lo[h], &g->hi[h]);
    }
}

compare_group *compare_groups(const compare_result *r, size_t *ng)
{
    compare_group *g = calloc(r->npairs ? r->npairs : 1, sizeof *g);
    double *logs = malloc((r->npairs ? r->npairs : 1) * sizeof *logs);
    int by_op = several_ops(r);
    *ng = 0;
    for (size_t i = 0; g && logs && i < r->npairs; i++) {
        const compare_pair *p = &r->pairs[i];
        size_t k = 0;
        while (k < *ng && !in_group(&g[k], p)) k++;
        if (k == *ng) {
            const results_row_config *c = &p->base->plain.cfg;
            g[k] = (compare_group){.name = c->variant, .dtype = c->dtype, .op = c->op, .by_op = by_op};
            ++*ng;
        }
        const results_row_config *c = &p->base->plain.cfg;
        const char *mode = *c->scan_mode ? c->scan_mode : c->finish;
        if (g[k].mode && strcmp(g[k].mode, mode)) g[k].several_modes = 1;
        g[k].mode = mode;
        count_pair(&g[k], p);
    }
    for (size_t k = 0; g && logs && k < *ng; k++) group_means(&g[k], r, logs);
    if (!logs) {
        free(g);
        g = NULL;
    }
    free(logs);
    return g;
}

void compare_worst_text(const compare_group *g, char *buf, size_t len)
{
    if (!g->worst) {
        snprintf(buf, len, "–");
        return;
    }
    const compare_phase *ph = g->worst_hot ? &g->worst->hot : &g->worst->cold;
    const results_row_config *c = &g->worst->base->plain.cfg;
    char n[32], mode[64] = "";
    compare_size_text((size_t)c->n, n, sizeof n);
    if (g->several_modes) snprintf(mode, sizeof mode, " %s", *c->scan_mode ? c->scan_mode : c->finish);
    snprintf(buf, len, "%.3f %s %ld×%ld%s %s%s", ph->speedup, n, c->block_dim, c->axis[0], mode,
             g->worst_hot ? "hot" : "cold", ph->verdict == CV_SLOWER ? " (slower)" : "");
}

/* "2^24 up", "up to 2^16", "every size" */
static void range_text(const compare_result *r, const compare_variant_phase *v, int hot, char *buf, size_t len)
{
    const compare_null_phase *np = &r->null[hot];
    char a[32], b[32];
    compare_size_text(np->bands[v->band_lo].n_lo, a, sizeof a);
    compare_size_text(np->bands[v->band_hi].n_hi, b, sizeof b);
    if (v->band_lo == v->band_first && v->band_hi == v->band_last) snprintf(buf, len, "every size");
    else if (v->band_hi == v->band_last) snprintf(buf, len, "from %s up", a);
    else snprintf(buf, len, "up to %s", b);
}

void compare_variant_text(const compare_result *r, const compare_group *g, char *buf, size_t len)
{
    const compare_variant_phase *v = NULL;
    int hot = 0;
    for (int h = 0; g->vg && h < 2; h++) {
        const compare_variant_phase *c = &g->vg->ph[h];
        if (c->judged && c->verdict != CV_SAME && (!v || c->p < v->p)) {
            v = c;
            hot = h;
        }
    }
    if (!g->vg || !(g->vg->ph[0].judged || g->vg->ph[1].judged)) {
        snprintf(buf, len, "–");
        return;
    }
    if (!v) {
        snprintf(buf, len, "same");
        return;
    }
    char where[64];
    range_text(r, v, hot, where, sizeof where);
    snprintf(buf, len, "%s %s: %.3f [%.3f, %.3f] %s", compare_verdict_name(v->verdict), where, v->gm, v->lo, v->hi,
             hot ? "hot" : "cold");
}

void compare_mean_text(const compare_group *g, int hot, char *buf, size_t len)
{
    if (!isfinite(g->gm[hot])) snprintf(buf, len, "–");
    else snprintf(buf, len, "%.3f [%.3f, %.3f]", g->gm[hot], g->lo[hot], g->hi[hot]);
}

/* ---- the text on stdout ----------------------------------------------------------------------- */

static void side_line(FILE *f, const char *what, const compare_run *s)
{
    const char *date = json_string_value(json_object_get(s->run, RK(DATE)));
    const char *sha = json_string_value(json_object_get(s->run, RK(GIT_SHA)));
    fprintf(f, "%-4s %s (%s, %s, git %.7s)\n", what, s->shown ? s->shown : s->dir, s->device, date ? date : "no date", sha ? sha : "?");
}

void compare_print_short(FILE *f, const compare_result *r)
{
    size_t ng, w = strlen("variant");
    compare_group *g = compare_groups(r, &ng);
    if (!g) return;
    char name[160], cold[96], hot[96], worst[160], verdict[160];
    for (size_t k = 0; k < ng; k++) {
        int n = snprintf(name, sizeof name, "%s %s%s%s", g[k].name, g[k].dtype, g[k].by_op ? " " : "",
                         g[k].by_op ? g[k].op : "");
        if ((size_t)n > w) w = (size_t)n;
    }
    side_line(f, "BASE", &r->base);
    side_line(f, "NEW", &r->newer);
    int null = r->nvgroups && (r->null[0].nbands || r->null[1].nbands);
    fprintf(f, "\nspeed-up of NEW = BASE median / NEW median%s (over 1: NEW is faster); geometric mean over the "
               "configurations [95 %% interval]%s\n",
            r->normalize == CN_NONE ? "" : ", normalised",
            null ? ", relative to the machine (each band's centre taken out; the interval holds the variants' "
                   "scatter)" : "");
    fprintf(f, "%-*s %7s  %-22s %-22s %-44s %6s %6s %5s  %s\n", (int)w, "variant", "configs", "cold", "hot",
            "variant verdict", "faster", "slower", "same", "worst: speed-up n block×axis phase");
    for (size_t k = 0; k < ng; k++) {
        snprintf(name, sizeof name, "%s %s%s%s", g[k].name, g[k].dtype, g[k].by_op ? " " : "",
                 g[k].by_op ? g[k].op : "");
        compare_mean_text(&g[k], 0, cold, sizeof cold);
        compare_mean_text(&g[k], 1, hot, sizeof hot);
        compare_worst_text(&g[k], worst, sizeof worst);
        compare_variant_text(r, &g[k], verdict, sizeof verdict);
        fprintf(f, "%-*s %7zu  %-22s %-22s %-44s %6zu %6zu %5zu  %s\n", (int)w, name, g[k].nconfigs, cold, hot,
                verdict, g[k].faster, g[k].slower, g[k].same, worst);
    }
    fputc('\n', f);
    free(g);
}

/* Tests by the method behind their p. */
static void methods(const compare_result *r, size_t *samples, size_t *noise, size_t *null)
{
    *samples = *noise = *null = 0;
    for (size_t i = 0; i < 2 * r->npairs; i++) {
        const compare_phase *ph = i % 2 ? &r->pairs[i / 2].hot : &r->pairs[i / 2].cold;
        if (ph->verdict == CV_NA || !isfinite(ph->p)) continue;
        *samples += ph->method == CM_SAMPLES;
        *noise += ph->method == CM_NOISE;
        *null += ph->method == CM_NULL;
    }
}

void compare_print_footer(FILE *f, const compare_result *r, int detail)
{
    size_t slower = compare_regressions(r), faster = 0, by_samples, by_noise, by_null;
    for (size_t i = 0; i < r->npairs; i++) {
        const compare_pair *p = &r->pairs[i];
        int s = p->cold.verdict == CV_SLOWER || p->hot.verdict == CV_SLOWER;
        faster += !s && (p->cold.verdict == CV_FASTER || p->hot.verdict == CV_FASTER);
    }
    char norm[64] = "not normalised";
    if (r->normalize != CN_NONE) snprintf(norm, sizeof norm, "normalised by %s", compare_norm_name(r->normalize));
    fprintf(f, "%zu configurations judged, %s: %zu slower, %zu faster, %zu same (slower: in a phase); %zu reference "
               "rows and %zu not compared listed apart%s\n",
            r->npairs, norm, slower, faster, r->npairs - slower - faster, r->nrefs, r->napart,
            detail ? "" : " (--detail)");
    methods(r, &by_samples, &by_noise, &by_null);
    char rule[160];
    if (r->threshold >= 0) snprintf(rule, sizeof rule, "%.2f %% (--threshold)", r->threshold * 100);
    else snprintf(rule, sizeof rule, "the larger of the two rows' noise figures, at least %.0f %%",
                  COMPARE_MIN_THRESHOLD * 100);
    fprintf(f, "correction: Benjamini-Hochberg, q = %.2f, over %zu tests (cold and hot of each configuration; p of "
               "%zu against the empirical null, of %zu from samples.csv by Mann-Whitney U, of %zu from the rows' "
               "noise); faster / slower: rejected and beyond the threshold, %s\n",
            r->fdr_q, r->ntests, by_null, by_samples, by_noise, rule);
    if (!detail) compare_null_describe(f, r, 0); /* with --detail the document holds it */
    if (!detail)
        fprintf(f, "interval of a geometric mean: percentile bootstrap of its configurations' log speed-ups (%d "
                   "resamples, fixed seed)\n",
                COMPARE_BOOTSTRAP_ROUNDS);
    char norm_text[800];
    compare_norm_describe(r, norm_text, sizeof norm_text);
    if (r->normalize == CN_NONE) fputs("not normalised: absolute times (--normalize cub|copy|machine: each run against its "
                                       "own machine)\n", f);
    else fprintf(f, "%s\n", norm_text);
    if (!detail) fputs("per configuration: --detail; compare.md, compare.csv, compare.html and charts: --out DIR\n", f);
}
