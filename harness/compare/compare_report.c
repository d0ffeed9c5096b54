/* compare.h's outputs for people: the Markdown table (stdout and
 * compare.md), the HTML page and the per-variant charts
 * (plots/compare_chart.h). CSV and JSON: compare_export.c. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"
#include "harness/core/files.h"
#include "kernels/variant.h"
#include "plots/render.h"
#include "results_io/run_keys.h"

/* ---- variants: pairs grouped in order of first appearance, slowest first ---------------- */

typedef struct vgroup {
    const char *name;
    size_t *idx;
    size_t n;
} vgroup;

static const compare_pair *sort_pairs; /* qsort has no context argument */

static int by_cold_speedup(const void *p, const void *q)
{
    double a = sort_pairs[*(const size_t *)p].cold.speedup, b = sort_pairs[*(const size_t *)q].cold.speedup;
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return a < b ? -1 : a > b;
}

static vgroup *groups_build(const compare_result *r, size_t *ng)
{
    vgroup *g = calloc(r->npairs ? r->npairs : 1, sizeof *g);
    *ng = 0;
    for (size_t i = 0; g && i < r->npairs; i++) {
        const char *name = r->pairs[i].base->plain.cfg.variant;
        size_t k = 0;
        while (k < *ng && strcmp(g[k].name, name)) k++;
        if (k == *ng) {
            g[k].name = name;
            g[k].idx = calloc(r->npairs, sizeof *g[k].idx);
            if (!g[k].idx) return NULL;
            ++*ng;
        }
        g[k].idx[g[k].n++] = i;
    }
    sort_pairs = r->pairs;
    for (size_t k = 0; g && k < *ng; k++) qsort(g[k].idx, g[k].n, sizeof *g[k].idx, by_cold_speedup);
    return g;
}

static void groups_free(vgroup *g, size_t ng)
{
    for (size_t k = 0; g && k < ng; k++) free(g[k].idx);
    free(g);
}

/* ---- cells, shared by Markdown and HTML --------------------------------------------------- */

#define NCELLS 10
#define CELL 640
typedef char cells[NCELLS][CELL];

static const char *const pair_head[NCELLS] = {
    "configuration", "cold speed-up [95 % CI]", "cold time", "cold", "hot speed-up [95 % CI]", "hot time", "hot",
    "threshold", "method", "metric changes"};

/* As measured; with the empirical null also the figure it judged (relative
 * to the machine) and that figure's interval. */
static void fmt_speedup(char *b, const compare_phase *ph)
{
    if (!isfinite(ph->speedup)) snprintf(b, CELL, "–");
    else if (ph->adj > 0 && isfinite(ph->lo))
        snprintf(b, CELL, "%.3f× (to the machine %.3f× [%.3f, %.3f])", ph->speedup, ph->adj, ph->lo, ph->hi);
    else if (isfinite(ph->lo)) snprintf(b, CELL, "%.3f× [%.3f, %.3f]", ph->speedup, ph->lo, ph->hi);
    else snprintf(b, CELL, "%.3f×", ph->speedup);
}

static void fmt_pct(char *b, double frac)
{
    if (isfinite(frac)) snprintf(b, CELL, "%+.1f %%", frac * 100);
    else snprintf(b, CELL, "–");
}

static void fmt_metrics(char *b, const compare_result *r, const compare_pair *p)
{
    size_t w = 0;
    b[0] = '\0';
    for (size_t i = 0; i < r->nmetrics && w < CELL; i++)
        if (isfinite(p->metric_change[i]))
            w += (size_t)snprintf(b + w, CELL - w, "%s%s %+.1f %%", w ? "; " : "", r->metrics[i].m->name,
                                  p->metric_change[i] * 100);
}

static void pair_cells(const compare_result *r, const compare_pair *p, cells c)
{
    compare_config_text(&p->base->plain.cfg, c[0], CELL);
    fmt_speedup(c[1], &p->cold);
    fmt_pct(c[2], p->cold.change);
    snprintf(c[3], CELL, "%s", compare_verdict_name(p->cold.verdict));
    fmt_speedup(c[4], &p->hot);
    fmt_pct(c[5], p->hot.change);
    snprintf(c[6], CELL, "%s", compare_verdict_name(p->hot.verdict));
    if (p->cold.threshold == p->hot.threshold || !isfinite(p->hot.threshold)) fmt_pct(c[7], p->cold.threshold);
    else snprintf(c[7], CELL, "%.1f / %.1f %%", p->cold.threshold * 100, p->hot.threshold * 100);
    if (c[7][0] == '+') memmove(c[7], c[7] + 1, strlen(c[7]));
    if (p->cold.method == p->hot.method || p->hot.verdict == CV_NA)
        snprintf(c[8], CELL, "%s", compare_method_name(p->cold.method));
    else snprintf(c[8], CELL, "%s / %s", compare_method_name(p->cold.method), compare_method_name(p->hot.method));
    fmt_metrics(c[9], r, p);
}

/* ---- a document: Markdown or HTML from one sequence of calls ------------------------------------ */

typedef struct doc {
    FILE *f;
    int html;
    const char *chart_dir; /* charts shown from here; NULL: none */
} doc;

static void esc(const doc *d, const char *s)
{
    for (; *s; s++) {
        if (d->html && *s == '<') fputs("&lt;", d->f);
        else if (d->html && *s == '>') fputs("&gt;", d->f);
        else if (d->html && *s == '&') fputs("&amp;", d->f);
        else if (!d->html && *s == '|') fputs("\\|", d->f);
        else fputc(*s == '\n' ? ' ' : *s, d->f);
    }
}

static void doc_h(const doc *d, int level, const char *text)
{
    if (d->html) fprintf(d->f, "<h%d>", level);
    else fprintf(d->f, "%.*s ", level, "######");
    esc(d, text);
    fputs(d->html ? "</h" : "\n\n", d->f);
    if (d->html) fprintf(d->f, "%d>\n", level);
}

static void doc_p(const doc *d, const char *text)
{
    fputs(d->html ? "<p>" : "", d->f);
    esc(d, text);
    fputs(d->html ? "</p>\n" : "\n\n", d->f);
}

/* Preformatted lines (the empirical null's table). */
static void doc_pre(const doc *d, const char *text)
{
    fputs(d->html ? "<pre>" : "```\n", d->f);
    for (const char *s = text; *s; s++) {
        if (d->html && (*s == '<' || *s == '>' || *s == '&')) fputs(*s == '<' ? "&lt;" : *s == '>' ? "&gt;" : "&amp;", d->f);
        else fputc(*s, d->f);
    }
    fputs(d->html ? "</pre>\n" : "```\n\n", d->f);
}

static void doc_null(const doc *d, const compare_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return;
    compare_null_describe(m, r, 1);
    fclose(m);
    if (len) {
        doc_h(d, 2, "What two runs of the same code differ by");
        doc_pre(d, text);
    }
    free(text);
}

static void doc_row(const doc *d, char c[][CELL], const char *const *head, size_t n)
{
    fputs(d->html ? "<tr>" : "|", d->f);
    for (size_t i = 0; i < n; i++) {
        fputs(d->html ? (head ? "<th>" : "<td>") : " ", d->f);
        esc(d, head ? head[i] : c[i]);
        fputs(d->html ? (head ? "</th>" : "</td>") : " |", d->f);
    }
    fputs(d->html ? "</tr>\n" : "\n", d->f);
    if (head && !d->html) {
        fputc('|', d->f);
        for (size_t i = 0; i < n; i++) fputs(i ? "---:|" : "---|", d->f);
        fputc('\n', d->f);
    }
}

static void doc_table(const doc *d, const char *const *head, size_t n)
{
    fputs(d->html ? "<table>\n" : "", d->f);
    doc_row(d, NULL, head, n);
}

static void doc_table_end(const doc *d) { fputs(d->html ? "</table>\n" : "\n", d->f); }

static void doc_chart(const doc *d, const char *variant)
{
    if (!d->chart_dir) return;
    char png[SWEEP_PATH_MAX];
    snprintf(png, sizeof png, "%s/compare-%s.png", d->chart_dir, variant);
    if (!path_exists(png)) return;
    if (!d->html) {
        fprintf(d->f, "![%s: speed-up of NEW against n](compare-%s.png) ([SVG](compare-%s.svg))\n\n", variant, variant,
                variant);
        return;
    }
    fprintf(d->f, "<figure><img alt=\"%s: speed-up of NEW against n\" src=\"data:image/png;base64,", variant);
    plots_embed_base64(d->f, png);
    fprintf(d->f, "\"><figcaption><a href=\"compare-%s.svg\">SVG</a></figcaption></figure>\n", variant);
}

/* ---- the document ------------------------------------------------------------------------------ */

static void json_cell(char *b, json_t *v)
{
    if (json_is_string(v)) snprintf(b, CELL, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(b, CELL, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) snprintf(b, CELL, "%.1f", json_real_value(v));
    else snprintf(b, CELL, "–");
}

static void doc_identity(const doc *d, const compare_result *r)
{
    static const char *const head[3] = {"", "BASE", "NEW"};
    static const char *const what[] = {"directory", "experiment", "device", "driver", "git", "date",
                                       "measured copy bandwidth (GB/s)", "samples"};
    const compare_run *side[2] = {&r->base, &r->newer};
    doc_table(d, head, 3);
    for (size_t w = 0; w < sizeof what / sizeof what[0]; w++) {
        cells c;
        snprintf(c[0], CELL, "%s", what[w]);
        for (int s = 0; s < 2; s++) {
            json_t *o = side[s]->run;
            char *b = c[1 + s];
            switch (w) {
            case 0: snprintf(b, CELL, "%.600s", side[s]->dir); break;
            case 1: json_cell(b, json_object_get(o, RK(EXPERIMENT))); break;
            case 2: snprintf(b, CELL, "%s", side[s]->device); break;
            case 3: json_cell(b, json_object_get(o, RK(DRIVER_VERSION))); break;
            case 4: json_cell(b, json_object_get(o, RK(GIT_SHA))); break;
            case 5: json_cell(b, json_object_get(o, RK(DATE))); break;
            case 6: json_cell(b, json_object_get(o, RK(COPY_BANDWIDTH_GBPS))); break;
            default:
                snprintf(b, CELL, side[s]->has_samples ? "samples.csv (%zu series)" : "none: rows' noise",
                         side[s]->samples.n);
            }
        }
        doc_row(d, c, NULL, 3);
    }
    doc_table_end(d);
    for (size_t i = 0; i < r->nwarnings; i++) {
        char line[1100];
        snprintf(line, sizeof line, "Warning: %s.", r->warnings[i]);
        doc_p(d, line);
    }
}

/* The short form's table: one row per variant x dtype (x op). */
static void doc_summary(const doc *d, const compare_result *r)
{
    static const char *const head[7] = {"variant", "configurations", "cold geomean speed-up [95 % CI]",
                                        "hot geomean speed-up [95 % CI]", "variant verdict", "faster / slower / same",
                                        "worst (speed-up n block×own axis phase)"};
    static const char *const head_null[7] = {"variant", "configurations",
                                             "cold geomean speed-up to the machine [95 % CI]",
                                             "hot geomean speed-up to the machine [95 % CI]", "variant verdict",
                                             "faster / slower / same", "worst (speed-up n block×own axis phase)"};
    size_t ng;
    compare_group *g = compare_groups(r, &ng);
    if (!g) return;
    doc_h(d, 2, "Summary");
    doc_table(d, r->null[0].nbands || r->null[1].nbands ? head_null : head, 7);
    for (size_t k = 0; k < ng; k++) {
        cells c;
        snprintf(c[0], CELL, "%s %s%s%s", g[k].name, g[k].dtype, g[k].by_op ? " " : "",
                 g[k].by_op ? g[k].op : "");
        snprintf(c[1], CELL, "%zu", g[k].nconfigs);
        compare_mean_text(&g[k], 0, c[2], CELL);
        compare_mean_text(&g[k], 1, c[3], CELL);
        compare_variant_text(r, &g[k], c[4], CELL);
        snprintf(c[5], CELL, "%zu / %zu / %zu", g[k].faster, g[k].slower, g[k].same);
        compare_worst_text(&g[k], c[6], CELL);
        doc_row(d, c, NULL, 7);
    }
    doc_table_end(d);
    free(g);
    size_t n[2][4] = {{0}}; /* cold, hot: by verdict */
    for (size_t i = 0; i < r->npairs; i++) n[0][r->pairs[i].cold.verdict]++, n[1][r->pairs[i].hot.verdict]++;
    char line[300];
    snprintf(line, sizeof line, "By phase, of %zu configurations: cold %zu faster, %zu slower, %zu same; hot %zu faster, "
             "%zu slower, %zu same.", r->npairs, n[0][CV_FASTER], n[0][CV_SLOWER], n[0][CV_SAME], n[1][CV_FASTER],
             n[1][CV_SLOWER], n[1][CV_SAME]);
    doc_p(d, line);
}

/* A row's configuration with its variant, sizes as 2^k. */
static void row_text(const sweep_row *w, char *b)
{
    size_t n = (size_t)snprintf(b, CELL, "%s ", w->plain.cfg.variant);
    compare_config_text(&w->plain.cfg, b + n, CELL - n);
}

/* A reference row's times on one side, as measured (ms), and normalised. */
static void fmt_ref_side(char *b, const timing_stats *t, double normalised)
{
    if (!t->samples) snprintf(b, CELL, "–");
    else snprintf(b, CELL, "%.4g ms (%.3f)", t->median, normalised);
}

/* --normalize cub: the library's rows as measured, and what NEW's machine
 * did to them (NEW ÷ BASE): the shift normalising takes out. */
static void doc_references(const doc *d, const compare_result *r)
{
    if (!r->nrefs) return;
    static const char *const head[7] = {"configuration", "cold BASE", "cold NEW", "cold NEW ÷ BASE",
                                        "hot BASE", "hot NEW", "hot NEW ÷ BASE"};
    char h[64];
    snprintf(h, sizeof h, "Reference (%zu)", r->nrefs);
    doc_h(d, 2, h);
    doc_p(d, "The library's rows, the reference of --normalize cub: each median as measured, normalised in "
             "brackets (1.000 where it is the fastest of its n), and how NEW's time compares with BASE's. Not judged.");
    doc_table(d, head, 7);
    for (size_t i = 0; i < r->nrefs; i++) {
        const compare_pair *p = &r->refs[i];
        cells c;
        row_text(p->base, c[0]);
        for (int h = 0; h < 2; h++) {
            const compare_phase *ph = h ? &p->hot : &p->cold;
            const timing_stats *b = h ? &p->base->hot : &p->base->cold, *n = h ? &p->newer->hot : &p->newer->cold;
            fmt_ref_side(c[1 + 3 * h], b, ph->base_ms);
            fmt_ref_side(c[2 + 3 * h], n, ph->new_ms);
            double shift = b->samples && n->samples ? n->median / b->median - 1 : NAN;
            fmt_pct(c[3 + 3 * h], shift);
        }
        doc_row(d, c, NULL, 7);
    }
    doc_table_end(d);
}

static void doc_apart(const doc *d, const compare_result *r)
{
    if (!r->napart) return;
    static const char *const head[4] = {"configuration", "BASE", "NEW", "why"};
    char h[64];
    snprintf(h, sizeof h, "Not compared (%zu)", r->napart);
    doc_h(d, 2, h);
    doc_p(d, r->normalize == CN_NONE ? "Configurations on one side only, or whose status is not ok on one side."
                                     : "Configurations on one side only, whose status is not ok on one side, or "
                                       "without a reference to normalise by on one side.");
    doc_table(d, head, 4);
    for (size_t i = 0; i < r->napart; i++) {
        const compare_apart *a = &r->apart[i];
        cells c;
        row_text(a->base ? a->base : a->newer, c[0]);
        snprintf(c[1], CELL, "%s", a->base ? row_status_name(a->base->status) : "absent");
        snprintf(c[2], CELL, "%s", a->newer ? row_status_name(a->newer->status) : "absent");
        snprintf(c[3], CELL, "%s", a->reason);
        doc_row(d, c, NULL, 4);
    }
    doc_table_end(d);
}

static void doc_all(const doc *d, const compare_result *r)
{
    size_t ng;
    vgroup *g = groups_build(r, &ng);
    doc_h(d, 1, "Compare two runs: BASE against NEW");
    char norm[800];
    compare_norm_describe(r, norm, sizeof norm);
    doc_p(d, norm);
    doc_identity(d, r);
    char rule[700];
    if (r->threshold >= 0) snprintf(rule, sizeof rule, "the threshold, %.2f %% (--threshold)", r->threshold * 100);
    else snprintf(rule, sizeof rule, "the threshold, the larger of the two rows' noise figures and %.0f %%", COMPARE_MIN_THRESHOLD * 100);
    char text[2400];
    snprintf(text, sizeof text,
             "Speed-up = BASE median / NEW median%s: over 1, NEW is faster; time = NEW's median time against BASE's. "
             "faster / slower: significant after the Benjamini-Hochberg correction (q = %.2f, over %zu tests: the cold "
             "and hot phases of every configuration judged) and beyond %s; otherwise same. Method: samples (both runs' "
             "samples.csv: Mann-Whitney U and a bootstrap of the ratio), noise (the rows' median standard errors) or "
             "empirical null (the scatter of the two runs themselves, below: each configuration judged relative to "
             "the machine and its variant, each variant relative to the machine against the variants' scatter). "
             "A geometric mean's interval: a percentile bootstrap over its configurations' log speed-ups, with the "
             "variants' scatter where the null was fitted.",
             r->normalize == CN_NONE ? "" : " (normalised)", r->fdr_q, r->ntests, rule);
    doc_p(d, text);
    doc_summary(d, r);
    doc_null(d, r);
    for (size_t k = 0; g && k < ng; k++) {
        doc_h(d, 2, g[k].name);
        doc_chart(d, g[k].name);
        doc_table(d, pair_head, NCELLS);
        for (size_t i = 0; i < g[k].n; i++) {
            cells c;
            pair_cells(r, &r->pairs[g[k].idx[i]], c);
            doc_row(d, c, NULL, NCELLS);
        }
        doc_table_end(d);
    }
    doc_references(d, r);
    doc_apart(d, r);
    groups_free(g, ng);
}

void compare_print_md(FILE *f, const compare_result *r, const char *chart_dir)
{
    doc d = {f, 0, chart_dir};
    doc_all(&d, r);
}

static int render_md(FILE *f, void *ctx)
{
    const void **a = ctx;
    compare_print_md(f, a[0], a[1]);
    return ferror(f) ? -1 : 0;
}

static int render_html(FILE *f, void *ctx)
{
    const void **a = ctx;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>compare</title><style>"
          "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
          "td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%}img{max-width:100%}"
          "</style></head><body>\n",
          f);
    doc d = {f, 1, a[1]};
    doc_all(&d, a[0]);
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}

/* ---- the results directory of the comparison ------------------------------------------------- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

/* One chart per variant; a missing gnuplot is said once and stops the charts. */
static int draw_charts(const char *dir, const compare_result *r, FILE *log, char *err, size_t errlen)
{
    size_t ng;
    vgroup *g = groups_build(r, &ng);
    compare_chart_point *pts = calloc(2 * (r->npairs ? r->npairs : 1), sizeof *pts);
    int rc = g && pts ? 0 : -1;
    for (size_t k = 0; !rc && k < ng; k++) {
        size_t np = 0;
        for (size_t i = 0; i < g[k].n; i++)
            for (int h = 0; h < 2; h++) {
                const compare_phase *ph = h ? &r->pairs[g[k].idx[i]].hot : &r->pairs[g[k].idx[i]].cold;
                if (ph->verdict == CV_NA) continue;
                double s = ph->adj > 0 ? ph->adj : ph->speedup; /* the figure judged, as its interval */
                pts[np++] = (compare_chart_point){(double)r->pairs[g[k].idx[i]].base->cfg.n, s, ph->lo, ph->hi,
                                                  ph->threshold, h,
                                                  ph->verdict == CV_FASTER ? CCP_FASTER : ph->verdict == CV_SLOWER ? CCP_SLOWER : CCP_SAME};
            }
        char stem[300], title[300], sub[SWEEP_PATH_MAX], msg[1024];
        snprintf(stem, sizeof stem, "compare-%s", g[k].name);
        char norm[64] = "";
        if (r->normalize != CN_NONE) snprintf(norm, sizeof norm, ", normalised by %s", compare_norm_name(r->normalize));
        int null = r->null[0].nbands || r->null[1].nbands;
        snprintf(title, sizeof title, "%s: speed-up of NEW over BASE%s%s", g[k].name, norm,
                 null ? ", relative to the machine" : "");
        snprintf(sub, sizeof sub, "BASE %.200s, NEW %.200s; bars: 95 %% intervals; blue faster, vermillion slower, grey same",
                 base_name(r->base.dir), base_name(r->newer.dir));
        int d = compare_chart_draw(dir, stem, title, sub, pts, np, msg, sizeof msg);
        if (d == 0) {
            if (log) fprintf(log, "sweep compare: %s\n", msg);
            break;
        }
        if (d < 0) {
            snprintf(err, errlen, "chart %s: %s", stem, msg);
            rc = -1;
        }
    }
    free(pts);
    groups_free(g, ng);
    return rc;
}

int compare_write_dir(const char *dir, const compare_result *r, FILE *log, char *err, size_t errlen)
{
    char md[SWEEP_PATH_MAX], csv[SWEEP_PATH_MAX], html[SWEEP_PATH_MAX];
    if (path_join(md, sizeof md, dir, "compare.md") || path_join(csv, sizeof csv, dir, "compare.csv") ||
        path_join(html, sizeof html, dir, "compare.html")) {
        snprintf(err, errlen, "--out: path too long");
        return -1;
    }
    const void *ctx[2] = {r, dir};
    if (draw_charts(dir, r, log, err, errlen)) return -1;
    if (write_file_atomic(md, render_md, ctx, err, errlen) || compare_write_csv(csv, r, err, errlen) ||
        write_file_atomic(html, render_html, ctx, err, errlen))
        return -1;
    return 0;
}
