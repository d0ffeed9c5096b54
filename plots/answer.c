/* "What this run found" and the lead chart's choice (plots/answer.h). */
#define _POSIX_C_SOURCE 200809L
#include "plots/answer.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots/chart_families.h"
#include "plots/render.h"
#include "results_io/confirm_io.h"
#include "results_io/run_keys.h"

/* The margin a verdict must clear, as the confirmation's default (1 %). */
#define ROWS_MARGIN 0.01

/* ---- the lead chart and the question ------------------------------------------------------ */

static const char *info_text(const render_ctx *ctx, const char *key)
{
    json_t *info = ctx->r->run.json ? json_object_get(ctx->r->run.json, RK(EXPERIMENT_INFO)) : NULL;
    const char *s = json_string_value(json_object_get(info, key));
    return s && *s ? s : NULL;
}

static int alias_is(const var_info *v, const char *token)
{
    var_info only_alias = *v;
    only_alias.name = "";
    return var_matches(&only_alias, token);
}

int group_has_ladder(const render_ctx *ctx, const group *g)
{
    const char *base = ctx->opt.baseline;
    for (size_t i = 0; i < g->ns; i++) {
        const var_info *v = &ctx->r->vars[g->s[i].var];
        if (base && *base ? var_matches(v, base) : alias_is(v, "reduce0") || alias_is(v, "naive")) return 1;
    }
    return 0;
}

static int group_has_cub(const render_ctx *ctx, const group *g)
{
    for (size_t i = 0; i < g->ns; i++)
        if (ctx->r->vars[g->s[i].var].is_cub) return 1;
    return 0;
}

const char *lead_family(const render_ctx *ctx, int *from_run)
{
    const char *named = info_text(ctx, RK(LEAD_CHART));
    *from_run = named && plots_chart_family_known(named);
    if (*from_run) return named;
    const results *r = ctx->r;
    /* a run of reduction ladders only (not one that also holds scans) */
    int ladders = r->ngroups > 0;
    for (size_t gi = 0; gi < r->ngroups; gi++)
        ladders &= !strcmp(r->groups[gi].kind, "reduce") && group_has_ladder(ctx, &r->groups[gi]);
    if (ladders) return "ladder";
    for (size_t gi = 0; gi < r->ngroups; gi++)
        if (group_has_cub(ctx, &r->groups[gi])) return "speedup-vs-cub";
    /* one variant throughout: its configurations are the question */
    for (size_t gi = 0; gi < r->ngroups; gi++)
        if (r->groups[gi].ns > 1) return "bandwidth";
    return "heatmap";
}

int chart_is_family(const chart *c, const char *fam)
{
    const char *f = chart_family(c);
    return f && !strcmp(f, fam);
}

const char *chart_family(const chart *c)
{
    const char *best = NULL;
    for (size_t i = 0; plots_chart_families[i]; i++) {
        size_t l = strlen(plots_chart_families[i]);
        if (!strncmp(c->stem, plots_chart_families[i], l) && c->stem[l] == '-' && (!best || l > strlen(best)))
            best = plots_chart_families[i];
    }
    return best;
}

static int group_has_family(const render_ctx *ctx, int gi, const char *fam)
{
    for (size_t k = 0; k < ctx->ncharts; k++)
        if (ctx->charts[k].group == gi && chart_is_family(&ctx->charts[k], fam)) return 1;
    return 0;
}

const char *group_lead_family(const render_ctx *ctx, int gi, const char *lead)
{
    if (group_has_family(ctx, gi, lead)) return lead;
    if (group_has_family(ctx, gi, "speedup-vs-cub")) return "speedup-vs-cub";
    return "bandwidth";
}

void run_question(const render_ctx *ctx, const char *lead, char *buf, size_t len, int *from_run)
{
    const char *q = info_text(ctx, RK(QUESTION)), *desc = info_text(ctx, RK(DESCRIPTION));
    *from_run = q != NULL;
    const char *standing = !strcmp(lead, "speedup-vs-cub") ? "Where does one of ours beat the library, and by how much?"
                           : !strcmp(lead, "ladder")
                               ? "How much does each rung of the ladder gain, and how close does the top come to the "
                                 "library and the copy bandwidth?"
                               : "Which variant and configuration is fastest at each size, and how close to the copy "
                                 "bandwidth?";
    if (q) snprintf(buf, len, "%s", q);
    else if (desc) textf(buf, len, "%s (the experiment names none; it runs %s)", standing, desc);
    else snprintf(buf, len, "%s (run.json names none: the default question)", standing);
}

/* ---- the answer's points --------------------------------------------------------------- */

typedef struct ans_pt {
    unsigned long long n;
    char variant[64], config[48], verdict[12]; /* verdict "" when there is no reference at n */
    double s, lo, hi;                          /* reference time / ours, 95 % interval (NaN: none) */
    double pct;                                /* % of the measured copy bandwidth */
} ans_pt;

typedef struct ans_set {
    char label[64]; /* "reduce f32 sum", "scan f32 sum inclusive" */
    ans_pt *p;
    size_t n;
    int confirmed;  /* from confirm.csv */
    int vs_library; /* the reference is the library (else the baseline rung) */
} ans_set;

static void config_of(long block, long coarse, char *buf, size_t len)
{
    if (block <= 0) snprintf(buf, len, "–");
    else snprintf(buf, len, "%ld×%ld", block, coarse > 0 ? coarse : 1);
}

static void confirm_config(const char *label, char *buf, size_t len)
{
    if (confirm_label_dims(label, "×", buf, len)) config_of(-1, 1, buf, len);
}

static int pt_cmp(const void *a, const void *b)
{
    const ans_pt *x = a, *y = b;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* The points of one key from confirm.csv: per library cold line, the
 * candidate with the highest speed-up. */
static size_t confirm_points(const confirm_line *l, size_t nl, const confirm_line *key, ans_pt *out)
{
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        const confirm_line *lib = &l[i];
        if (strcmp(lib->role, "library") || strcmp(lib->phase, "cold") || strcmp(lib->kind, key->kind) ||
            strcmp(lib->dtype, key->dtype) || strcmp(lib->op, key->op) || strcmp(lib->scan_mode, key->scan_mode))
            continue;
        const confirm_line *best = NULL;
        for (size_t j = 0; j < nl; j++)
            if (!strcmp(l[j].role, "candidate") && !strcmp(l[j].phase, "cold") && l[j].n == lib->n &&
                !strcmp(l[j].kind, lib->kind) && !strcmp(l[j].dtype, lib->dtype) && !strcmp(l[j].op, lib->op) &&
                !strcmp(l[j].scan_mode, lib->scan_mode) && (!best || l[j].speedup > best->speedup))
                best = &l[j];
        if (!best) continue;
        ans_pt *p = &out[k++];
        memset(p, 0, sizeof *p);
        p->n = best->n;
        snprintf(p->variant, sizeof p->variant, "%s", best->variant);
        confirm_config(best->config, p->config, sizeof p->config);
        snprintf(p->verdict, sizeof p->verdict, "%s", best->verdict);
        p->s = best->speedup, p->lo = best->ci_lo, p->hi = best->ci_hi, p->pct = best->pct_copy;
    }
    qsort(out, k, sizeof *out, pt_cmp);
    return k;
}

/* A row's noise (relative standard error of the median, as a fraction); NaN when absent. */
static double row_noise(const results *r, const row *w)
{
    int col = csv_column(&r->csv, "noise_cold_pct");
    if (col < 0) return NAN;
    const char *f = r->csv.rows[w - r->rows][col];
    char *end;
    double x = strtod(f, &end);
    return end != f && isfinite(x) ? x / 100 : NAN;
}

/* The reference of a group without a library row: the baseline rung. */
static int base_series(const render_ctx *ctx, const group *g)
{
    const char *base = ctx->opt.baseline;
    for (size_t i = 0; i < g->ns; i++) {
        const var_info *v = &ctx->r->vars[g->s[i].var];
        if (base && *base ? var_matches(v, base) : alias_is(v, "reduce0") || alias_is(v, "naive")) return (int)i;
    }
    return 0;
}

/* One point from the rows at n: the fastest of ours against reference ref (may be NULL). */
static int rows_point(const render_ctx *ctx, const group *g, unsigned long long n, const row *ref, ans_pt *p)
{
    const results *r = ctx->r;
    const row *best = NULL;
    for (size_t i = 0; i < g->ns; i++) {
        if (r->vars[g->s[i].var].is_cub) continue;
        const row *w = series_at(&g->s[i], n);
        if (w && (!best || w->t_cold < best->t_cold)) best = w;
    }
    if (!best) return 0;
    memset(p, 0, sizeof *p);
    p->n = n;
    snprintf(p->variant, sizeof p->variant, "%s", best->base.cfg.variant);
    config_of(best->base.cfg.block_dim, best->base.cfg.axis[0], p->config, sizeof p->config);
    p->s = p->lo = p->hi = NAN;
    p->pct = isfinite(r->run.copy_GBps) && r->run.copy_GBps > 0 ? 100 * best->bw_cold / r->run.copy_GBps : NAN;
    if (ref == best) {
        snprintf(p->verdict, sizeof p->verdict, "baseline");
    } else if (ref) {
        p->s = ref->t_cold / best->t_cold;
        double a = row_noise(r, ref), b = row_noise(r, best);
        if (isfinite(a) && isfinite(b)) {
            double half = 1.96 * sqrt(a * a + b * b);
            p->lo = p->s * (1 - half), p->hi = p->s * (1 + half);
        }
        snprintf(p->verdict, sizeof p->verdict, "%s",
                 confirm_verdict(isfinite(p->lo) ? p->lo : p->s, isfinite(p->hi) ? p->hi : p->s, ROWS_MARGIN));
    }
    return 1;
}

/* The points of group g from its rows: every measured n, in order. */
static size_t group_points(const render_ctx *ctx, const group *g, ans_set *set)
{
    const results *r = ctx->r;
    int lib = -1;
    for (size_t i = 0; i < g->ns && lib < 0; i++)
        if (r->vars[g->s[i].var].is_cub) lib = (int)i;
    set->vs_library = lib >= 0;
    const series *ref = g->ns ? &g->s[lib >= 0 ? lib : base_series(ctx, g)] : NULL;
    /* every n any series measured, ascending */
    size_t cap = 0, k = 0;
    for (size_t i = 0; i < g->ns; i++) cap += g->s[i].npts;
    unsigned long long *ns = malloc((cap ? cap : 1) * sizeof *ns);
    set->p = calloc(cap ? cap : 1, sizeof *set->p);
    if (!ns || !set->p) {
        free(ns);
        return 0;
    }
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            size_t m = 0;
            while (m < k && ns[m] != g->s[i].pts[j].n) m++;
            if (m == k) ns[k++] = g->s[i].pts[j].n;
        }
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && ns[b - 1] > ns[b]; b--) {
            unsigned long long t = ns[b];
            ns[b] = ns[b - 1], ns[b - 1] = t;
        }
    size_t ours = 0;
    for (size_t i = 0; i < g->ns; i++) ours += !r->vars[g->s[i].var].is_cub;
    for (size_t m = 0; m < k; m++)
        if (rows_point(ctx, g, ns[m], ref ? series_at(ref, ns[m]) : NULL, &set->p[set->n])) {
            if (lib < 0 && ours == 1) snprintf(set->p[set->n].verdict, sizeof set->p->verdict, "one");
            set->n++;
        }
    free(ns);
    return set->n;
}

/* ---- printing ------------------------------------------------------------------------- */

static void speed_text(double s, double lo, double hi, char *buf, size_t len)
{
    int prec = fabs(s - 1) < 0.05 ? 3 : 2;
    if (!isfinite(s)) snprintf(buf, len, "–");
    else if (isfinite(lo) && isfinite(hi)) snprintf(buf, len, "%.*f× [%.*f, %.*f]", prec, s, prec, lo, prec, hi);
    else snprintf(buf, len, "%.*f×", prec, s);
}

static void pct_text(double x, char *buf, size_t len)
{
    snprintf(buf, len, "%.*f", x >= 10 ? 0 : x >= 1 ? 1 : 2, x);
}

/* One line: points a..b (same variant, same verdict). */
static void answer_line(doc *d, const ans_set *set, size_t a, size_t b, int first)
{
    const ans_pt *p = set->p;
    char nrange[80], n1[32], n2[32], cfg[112], speed[160], pct[160];
    format_n(p[a].n, n1, sizeof n1);
    format_n(p[b].n, n2, sizeof n2);
    if (a == b) snprintf(nrange, sizeof nrange, "%s", n1);
    else snprintf(nrange, sizeof nrange, "%s–%s", n1, n2);
    if (!strcmp(p[a].config, p[b].config)) snprintf(cfg, sizeof cfg, "%s", p[a].config);
    else snprintf(cfg, sizeof cfg, "%s … %s", p[a].config, p[b].config);
    size_t lo = a, hi = a;
    double pmin = INFINITY, pmax = -INFINITY;
    for (size_t i = a; i <= b; i++) {
        if (p[i].s < p[lo].s || !isfinite(p[lo].s)) lo = i;
        if (p[i].s > p[hi].s || !isfinite(p[hi].s)) hi = i;
        if (isfinite(p[i].pct)) pmin = fmin(pmin, p[i].pct), pmax = fmax(pmax, p[i].pct);
    }
    char s1[64], s2[64];
    speed_text(p[lo].s, p[lo].lo, p[lo].hi, s1, sizeof s1);
    speed_text(p[hi].s, p[hi].lo, p[hi].hi, s2, sizeof s2);
    if (!strcmp(p[a].verdict, "one")) snprintf(speed, sizeof speed, "– (one variant: nothing to compare)");
    else if (!strcmp(p[a].verdict, "baseline")) snprintf(speed, sizeof speed, "the baseline itself");
    else if (!p[a].verdict[0]) snprintf(speed, sizeof speed, "– (no reference at this n)");
    else if (lo == hi || !strcmp(s1, s2)) snprintf(speed, sizeof speed, "%s %s", p[a].verdict, s1);
    else snprintf(speed, sizeof speed, "%s %s … %s", p[a].verdict, s1, s2);
    if (!isfinite(pmin)) {
        snprintf(pct, sizeof pct, "–");
    } else {
        pct_text(pmin, s1, sizeof s1);
        pct_text(pmax, s2, sizeof s2);
        if (!strcmp(s1, s2)) snprintf(pct, sizeof pct, "%s %%", s1);
        else snprintf(pct, sizeof pct, "%s–%s %%", s1, s2);
    }
    const char *cells[] = {first ? set->label : "", nrange, p[a].variant, cfg, speed, pct};
    doc_row(d, 6, cells, "lllllr");
}

static void answer_table(doc *d, const ans_set *sets, size_t nsets, const char *vs)
{
    char head5[64];
    snprintf(head5, sizeof head5, "Speed-up over the %s, cold (95 %% interval)", vs);
    const char *head[] = {"Kind", "n", "Fastest of ours", "Block×own axis", head5, "% of copy"};
    doc_table(d, 6, head, "lllllr");
    for (size_t s = 0; s < nsets; s++) {
        const ans_set *set = &sets[s];
        for (size_t a = 0, b; a < set->n; a = b + 1) {
            b = a;
            while (b + 1 < set->n && !strcmp(set->p[b + 1].variant, set->p[a].variant) &&
                   !strcmp(set->p[b + 1].verdict, set->p[a].verdict))
                b++;
            answer_line(d, set, a, b, a == 0);
        }
    }
    doc_table_end(d);
}

/* How the numbers were made: one sentence per source that was used. */
static void answer_method(doc *d, const ans_set *sets, size_t nsets, unsigned rounds)
{
    int confirmed = 0, rows_lib = 0, rows_base = 0;
    char bases[256] = "";
    for (size_t s = 0; s < nsets; s++) {
        if (sets[s].n && !strcmp(sets[s].p[0].verdict, "one")) continue; /* no speed-up given */
        if (sets[s].confirmed) confirmed = 1;
        else if (sets[s].vs_library) rows_lib = 1;
        else rows_base = 1;
    }
    const results *r = d->ctx->r;
    for (size_t gi = 0; gi < r->ngroups && rows_base; gi++) {
        const group *g = &r->groups[gi];
        if (g->ns < 2 || group_has_cub(d->ctx, g)) continue;
        const char *name = r->vars[g->s[base_series(d->ctx, g)].var].name;
        if (strstr(bases, name)) continue;
        size_t l = strlen(bases);
        snprintf(bases + l, sizeof bases - l, "%s%s", l ? ", " : "", name);
    }
    char copy[160];
    if (isfinite(r->run.copy_GBps))
        snprintf(copy, sizeof copy, "%% of copy: bytes moved / cold median over the copy bandwidth measured in this "
                                    "run (%.0f GB/s, read + write).", r->run.copy_GBps);
    else snprintf(copy, sizeof copy, "%% of copy: unknown (run.json has no copy_bandwidth_GBps).");
    if (confirmed)
        doc_p(d, NULL, "Confirmed (confirm.csv): each size's fastest configurations and the library measured again in "
                       "%u interleaved rounds; library time / ours, geometric mean, bootstrap 95 %% interval; faster "
                       "or slower only where the whole interval clears the margin, else a tie.%s%s",
              rounds, rows_lib || rows_base ? "" : " ", rows_lib || rows_base ? "" : copy);
    const char *ref = rows_lib && rows_base ? "the library's (or the baseline's)" : rows_lib ? "the library's"
                                                                                         : "the baseline's";
    if (rows_lib || rows_base)
        doc_p(d, NULL, "From the rows (no confirmation): %s cold median / the fastest configuration's; the interval "
                       "is ±1.96 × the two rows' noise (relative standard error of the median) combined, a tie where "
                       "it does not clear 1 by %.0f %%: one run's noise, run-to-run variation is wider.%s%s%s %s",
              ref, ROWS_MARGIN * 100, rows_base ? " Baseline: " : "", rows_base ? bases : "", rows_base ? "." : "",
              copy);
    if (!confirmed && !rows_lib && !rows_base) doc_p(d, NULL, "%s", copy);
}

/* The sets: from confirm.csv per key where the run confirmed, else from the rows per group. */
static size_t answer_sets(const render_ctx *ctx, const confirm_line *l, size_t nl, ans_set *sets, size_t cap)
{
    const results *r = ctx->r;
    size_t ns = 0;
    for (size_t gi = 0; gi < r->ngroups && ns < cap; gi++) {
        const group *g = &r->groups[gi];
        int any = 0;
        for (size_t i = 0; i < nl && ns < cap; i++) {
            if (strcmp(l[i].kind, g->kind) || strcmp(l[i].dtype, g->dtype) || strcmp(l[i].op, g->op)) continue;
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !strcmp(l[j].kind, l[i].kind) && !strcmp(l[j].dtype, l[i].dtype) &&
                       !strcmp(l[j].op, l[i].op) && !strcmp(l[j].scan_mode, l[i].scan_mode);
            if (seen) continue;
            ans_set *s = &sets[ns];
            memset(s, 0, sizeof *s);
            s->p = calloc(nl, sizeof *s->p);
            if (!s->p) continue;
            s->n = confirm_points(l, nl, &l[i], s->p);
            s->confirmed = s->vs_library = 1;
            snprintf(s->label, sizeof s->label, "%s %s %s%s%s", g->kind, g->dtype, g->op, l[i].scan_mode[0] ? " " : "",
                     l[i].scan_mode);
            if (s->n) ns++, any = 1;
            else free(s->p);
        }
        if (any || ns >= cap) continue;
        ans_set *s = &sets[ns];
        memset(s, 0, sizeof *s);
        snprintf(s->label, sizeof s->label, "%s %s %s", g->kind, g->dtype, g->op);
        if (group_points(ctx, g, s)) ns++;
        else free(s->p);
    }
    return ns;
}

void answer_write(doc *d)
{
    const render_ctx *ctx = d->ctx;
    int lead_from_run, q_from_run;
    const char *lead = lead_family(ctx, &lead_from_run);
    char q[1024];
    run_question(ctx, lead, q, sizeof q, &q_from_run);
    doc_h(d, 2, "What this run found", "found");
    doc_p(d, NULL, "Question: %s", q);

    char path[PATH_LEN], err[512];
    confirm_line *l = NULL;
    size_t nl = 0;
    join_path(path, sizeof path, ctx->dir, "confirm.csv");
    int rc = confirm_read_csv(path, &l, &nl, err, sizeof err);
    if (rc < 0) doc_p(d, "warn", "%s", err);
    if (rc) nl = 0;
    size_t cap = ctx->r->ngroups * 4 + 1;
    ans_set *sets = calloc(cap, sizeof *sets);
    size_t ns = sets ? answer_sets(ctx, l, nl, sets, cap) : 0;
    int all_lib = 1, any_lib = 0;
    for (size_t s = 0; s < ns; s++) all_lib &= sets[s].vs_library, any_lib |= sets[s].vs_library;
    if (!ns) doc_p(d, "warn", "Nothing ran successfully: there is no answer to give.");
    else {
        answer_table(d, sets, ns, all_lib ? "library" : any_lib ? "library or baseline" : "baseline");
        answer_method(d, sets, ns, nl ? l[0].rounds : 0);
        answer_counters(d);
    }
    for (size_t s = 0; s < ns; s++) free(sets[s].p);
    free(sets);
    free(l);
}
