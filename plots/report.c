/* report.md and index.html, written side by side from the same calls. The
 * HTML is self-contained: styles inline, PNGs embedded in base64 (or, with
 * link_charts, referred to in charts/). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plots/answer.h"
#include "plots/doc.h"
#include "plots/internal.h"
#include "plots/render.h"
#include "results_io/confirm_io.h"
#include "results_io/csv.h"
#include "results_io/run_keys.h"

/* ---- metadata ---------------------------------------------------------------- */

static void json_text(json_t *v, char *buf, size_t len)
{
    if (!v || json_is_null(v)) snprintf(buf, len, "–");
    else if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) snprintf(buf, len, "%.6g", json_real_value(v));
    else if (json_is_true(v)) snprintf(buf, len, "yes");
    else if (json_is_false(v)) snprintf(buf, len, "no");
    else if (json_is_array(v)) {
        buf[0] = '\0';
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            char one[512];
            json_text(e, one, sizeof one);
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%s%s", i ? " " : "", one);
        }
        if (!buf[0]) snprintf(buf, len, "(none)");
    } else {
        char *s = json_dumps(v, JSON_COMPACT);
        snprintf(buf, len, "%s", s ? s : "?");
        free(s);
    }
}

/* CUDA's integer versions (13000 -> 13.0, 12080 -> 12.8); strings as they are */
static void version_text(json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v) && json_integer_value(v) >= 1000) {
        long long x = json_integer_value(v);
        snprintf(buf, len, "%lld.%lld", x / 1000, x % 1000 / 10);
    } else {
        json_text(v, buf, len);
    }
}

static void kv(doc *d, const char *key, const char *value)
{
    const char *cells[2] = {key, value};
    doc_row(d, 2, cells, "ll");
}

/* A run of several devices: each one's measured copy bandwidth and share of
 * the rows, so that a slow GPU shows. */
static void device_rows(doc *d, json_t *devices)
{
    size_t i;
    json_t *dev;
    json_array_foreach(devices, i, dev)
    {
        char key[32], name[256], bus[64], buf[512];
        json_text(json_object_get(dev, RK(NAME)), name, sizeof name);
        json_text(json_object_get(dev, RK(PCI_BUS_ID)), bus, sizeof bus);
        double copy = json_number_value(json_object_get(dev, RK(COPY_BANDWIDTH_GBPS)));
        json_t *fault = json_object_get(dev, RK(FAULT));
        snprintf(key, sizeof key, "device %zu", i);
        snprintf(buf, sizeof buf, "%s (%s): measured copy %.0f GB/s, %lld configurations%s%s", name, bus, copy,
                 (long long)json_integer_value(json_object_get(dev, RK(CONFIGURATIONS))),
                 json_is_string(fault) ? "; lost: " : "", json_is_string(fault) ? json_string_value(fault) : "");
        kv(d, key, buf);
    }
}

static void write_metadata(doc *d)
{
    const results *r = d->ctx->r;
    json_t *root = r->run.json;
    static const char *const head[2] = {"What", "Value"};
    doc_fold(d, 2, "Run", "run", 0);
    if (root) {
        json_t *interrupted = json_object_get(root, RK(INTERRUPTED));
        if (json_is_true(interrupted)) doc_p(d, "warn", "This run was interrupted: the results are incomplete.");
    }
    doc_table(d, 2, head, "ll");
    char buf[2048], a[512], b[512];
    if (root) {
        json_t *dev = json_object_get(root, RK(DEVICE));
        json_text(json_object_get(root, RK(EXPERIMENT)), buf, sizeof buf);
        kv(d, "experiment", buf);
        json_text(json_object_get(root, RK(DATE)), buf, sizeof buf);
        kv(d, "date", buf);
        json_text(json_object_get(root, RK(HOST)), buf, sizeof buf);
        kv(d, "host", buf);
        if (json_is_object(dev)) {
            char sm[64], cnt[64];
            json_t *smv = json_object_get(dev, RK(SM));
            json_text(smv, sm, sizeof sm);
            json_text(json_object_get(dev, RK(SM_COUNT)), cnt, sizeof cnt);
            /* 90 -> sm_90; "9.0" -> compute capability 9.0; "sm_90" as it is */
            const char *pre = json_is_integer(smv) ? "sm_" : isdigit((unsigned char)sm[0]) ? "compute capability " : "";
            snprintf(buf, sizeof buf, "%s (%s%s, %s SMs)", r->run.device[0] ? r->run.device : "?", pre, sm, cnt);
            kv(d, "device", buf);
            double l2 = json_number_value(json_object_get(dev, RK(L2_BYTES)));
            double mem = json_number_value(json_object_get(dev, RK(GLOBAL_MEM_BYTES)));
            snprintf(buf, sizeof buf, "L2 %.0f MiB, %.1f GiB device memory", l2 / 1048576.0, mem / 1073741824.0);
            kv(d, "memory", buf);
            double smc = json_number_value(json_object_get(dev, RK(SM_CLOCK_KHZ)));
            double memc = json_number_value(json_object_get(dev, RK(MEM_CLOCK_KHZ)));
            double bus = json_number_value(json_object_get(dev, RK(MEM_BUS_BITS)));
            snprintf(buf, sizeof buf, "SM %.0f MHz, memory %.0f MHz, %.0f-bit bus", smc / 1e3, memc / 1e3, bus);
            kv(d, "clocks", buf);
        }
        version_text(json_object_get(root, RK(DRIVER_VERSION)), a, sizeof a);
        version_text(json_object_get(root, RK(RUNTIME_VERSION)), b, sizeof b);
        snprintf(buf, sizeof buf, "driver %s, runtime %s", a, b);
        kv(d, "software", buf);
        snprintf(buf, sizeof buf, "theoretical peak %.0f GB/s, measured copy %.0f GB/s (read + write)",
                 r->run.peak_GBps, r->run.copy_GBps);
        kv(d, "bandwidth", buf);
        if (r->run.n_devices > 1) device_rows(d, json_object_get(root, RK(DEVICES)));
        json_text(json_object_get(root, RK(GIT_SHA)), a, sizeof a);
        json_t *dirty = json_object_get(root, RK(GIT_DIRTY));
        snprintf(buf, sizeof buf, "%s%s", a, json_is_true(dirty) ? " (with uncommitted changes)" : "");
        kv(d, "source", buf);
        json_text(json_object_get(root, RK(ARGV)), buf, sizeof buf);
        kv(d, "command", buf);
        json_text(json_object_get(root, RK(METRICS)), buf, sizeof buf);
        kv(d, "metrics", buf);
        json_text(json_object_get(root, RK(PROFILER_STATUS)), a, sizeof a);
        json_text(json_object_get(root, RK(PROFILER_PASSES)), b, sizeof b);
        snprintf(buf, sizeof buf, "%s, %s pass%s", a, b, strcmp(b, "1") ? "es" : "");
        kv(d, "profiler", buf);
        double wall = json_number_value(json_object_get(root, RK(WALL_TIME_S)));
        if (wall >= 120) snprintf(buf, sizeof buf, "%.0f min %.0f s", floor(wall / 60), fmod(wall, 60));
        else snprintf(buf, sizeof buf, "%.*f s", wall < 10 ? 1 : 0, wall);
        kv(d, "wall time", buf);
    }
    snprintf(buf, sizeof buf, "%zu: %zu ok, %zu invalid, %zu error, %zu skipped%s", r->nrows, r->n_ok, r->n_invalid,
             r->n_error, r->n_skipped, r->n_other ? ", others with an unknown status" : "");
    kv(d, "configurations", buf);
    doc_table_end(d);
    if (r->notes[0]) doc_p(d, "note", "%s", r->notes);
    doc_fold_end(d);
}

/* ---- the seed-style table ----------------------------------------------------------- */

static void speed_cell(double s, char *buf, size_t len)
{
    if (!isfinite(s)) snprintf(buf, len, "–");
    else snprintf(buf, len, "%.*fx", s >= 100 ? 0 : 2, s);
}

static void config_text(const row *w, char *buf, size_t len)
{
    int n = snprintf(buf, len, "block %ld", w->base.cfg.block_dim);
    for (int k = 0; k < 2; k++) /* the variant's own axes by name, as results.csv's axes column */
        if (w->base.cfg.axis_name[k][0] && n > 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, ", %s %ld", w->base.cfg.axis_name[k], w->base.cfg.axis[k]);
    if (w->base.cfg.finish[0] && strcmp(w->base.cfg.finish, "none") && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", %s", w->base.cfg.finish);
    if (w->base.cfg.scan_mode[0] && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", %s", w->base.cfg.scan_mode);
}

static void write_table(doc *d, const group *g)
{
    const render_ctx *ctx = d->ctx;
    const results *r = ctx->r;
    ladder l;
    ladder_build(r, g, ctx->opt.n, ctx->opt.baseline, &l);
    char ns[32], want[32], th[96];
    format_n(l.n, ns, sizeof ns);
    format_n(ctx->opt.n, want, sizeof want);
    if (!l.nrows) {
        doc_p(d, "note", "Nothing of %s %s %s ran successfully.", g->kind, g->dtype, g->op);
        free(l.rows);
        return;
    }
    snprintf(th, sizeof th, "Time(%s %s)", ns, g->dtype);
    const char *head[] = {"Kernel", th, "Bandwidth(GB/s)", "% of peak", "Step", "Speedup", "Configuration"};
    const char *align = "lrrrrrl";
    doc_p(d, NULL,
          "At n = %s%s, cold L2. Each row is the fastest configuration of its variant (lowest cold median); Step is "
          "the speedup over the row above, Speedup the cumulative speedup against %s.%s%s%s",
          ns, l.n != ctx->opt.n ? " (the nearest measured n)" : "", r->vars[l.base_var].name,
          l.missing[0] ? " Not measured at this n: " : "", l.missing, l.missing[0] ? "." : "");
    if (l.note[0]) doc_p(d, "note", "%s", l.note);
    doc_table(d, 7, head, align);
    for (size_t i = 0; i < l.nrows; i++) {
        const ladder_row *x = &l.rows[i];
        char name[160], t[48], bw[48], pct[48], step[32], cum[32], cfg[128];
        snprintf(name, sizeof name, "%s%s", r->vars[x->var].name, x->is_cub ? " (library)" : "");
        format_ms(x->w->t_cold, t, sizeof t);
        if (isfinite(x->w->bw_cold)) snprintf(bw, sizeof bw, "%.1f", x->w->bw_cold);
        else snprintf(bw, sizeof bw, "–");
        if (isfinite(x->w->bw_cold) && isfinite(r->run.peak_GBps))
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * x->w->bw_cold / r->run.peak_GBps);
        else snprintf(pct, sizeof pct, "–");
        speed_cell(x->step, step, sizeof step);
        speed_cell(x->cum, cum, sizeof cum);
        config_text(x->w, cfg, sizeof cfg);
        const char *cells[] = {name, t, bw, pct, step, cum, cfg};
        doc_row(d, 7, cells, align);
    }
    doc_table_end(d);
    free(l.rows);
}

/* ---- the confirmed speed-ups (confirm.csv), the run's answer -------------------------------- */

static const confirm_line *best_line(const confirm_line *l, size_t n, const confirm_line *at, const char *phase)
{
    const confirm_line *best = NULL;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(l[k].role, "candidate") && !strcmp(l[k].phase, phase) && l[k].n == at->n &&
            !confirm_table_cmp(&l[k], at) && (!best || l[k].speedup > best->speedup))
            best = &l[k];
    return best;
}

static void confirm_cells(const confirm_line *x, char *who, size_t who_len, char *what, size_t what_len)
{
    if (!x) {
        snprintf(who, who_len, "–");
        snprintf(what, what_len, "–");
        return;
    }
    char dims[64];
    if (!confirm_label_dims(x->config, "x", dims, sizeof dims)) snprintf(who, who_len, "%s %s", x->variant, dims);
    else snprintf(who, who_len, "%s", x->variant);
    snprintf(what, what_len, "%s %.3fx [%.3f, %.3f]", x->verdict, x->speedup, x->ci_lo, x->ci_hi);
}

/* One row per kind and size; x its library cold line. */
static void confirmed_row(doc *d, const confirm_line *l, size_t n, const confirm_line *x)
{
    char kind[64], size[32], w1[160], v1[96], w2[160], v2[96];
    snprintf(kind, sizeof kind, "%s %s %s%s%s", x->kind, x->dtype, x->op, x->scan_mode[0] ? " " : "", x->scan_mode);
    confirm_format_n(x->n, size, sizeof size);
    confirm_cells(best_line(l, n, x, "cold"), w1, sizeof w1, v1, sizeof v1);
    confirm_cells(best_line(l, n, x, "hot"), w2, sizeof w2, v2, sizeof v2);
    const char *cells[] = {kind, size, w1, v1, w2, v2};
    doc_row(d, 6, cells, "lrllll");
}

static void write_confirmed(doc *d)
{
    char path[PATH_LEN], err[512];
    confirm_line *l = NULL;
    size_t n = 0;
    join_path(path, sizeof path, d->ctx->dir, "confirm.csv");
    int rc = confirm_read_csv(path, &l, &n, err, sizeof err);
    if (rc) {
        if (rc < 0) doc_p(d, "warn", "%s", err);
        free(l);
        return;
    }
    doc_fold(d, 2, "Confirmed against the library: every size", "confirmed", 0);
    doc_p(d, NULL, "Each size's best configurations and the library measured again in %u interleaved rounds (%s): "
                   "library time / ours, geometric mean, bootstrap 95 %% interval. Faster or slower only where the "
                   "whole interval clears the margin; otherwise a tie.",
          n ? l[0].rounds : 0, "confirm.csv");
    const char *head[] = {"Kind", "n", "Cold: ours", "Cold vs library", "Hot: ours", "Hot vs library"};
    doc_table(d, 6, head, "lrllll");
    /* kinds and sizes in a one-device run's order, whatever order --devices' workers wrote the lines in */
    const confirm_line **rows = malloc((n ? n : 1) * sizeof *rows);
    size_t k = rows ? confirm_table_rows(l, n, rows) : 0;
    for (size_t i = 0; i < k; i++) confirmed_row(d, l, n, rows[i]);
    doc_table_end(d);
    doc_fold_end(d);
    free(rows);
    free(l);
}

/* ---- failures and skips ---------------------------------------------------------------- */

static void write_failures(doc *d)
{
    const results *r = d->ctx->r;
    size_t nfail = r->n_invalid + r->n_error + r->n_other;
    doc_fold(d, 2, "Failures and skips", "failures", nfail > 0);
    if (!nfail) {
        doc_p(d, NULL, "No configuration failed.");
    } else {
        doc_p(d, "warn", "%zu configuration%s failed (invalid: the result did not match the CPU reference; error: "
                         "the launch or the run failed).",
              nfail, nfail > 1 ? "s" : "");
        const char *head[] = {"Variant", "dtype", "op", "n", "Configuration", "Status", "What"};
        const char *align = "lllrlll";
        doc_table(d, 7, head, align);
        size_t shown = 0;
        for (size_t i = 0; i < r->nrows; i++) {
            const row *w = &r->rows[i];
            if (!strcmp(w->base.status, "ok") || !strcmp(w->base.status, "skipped")) continue;
            if (shown++ >= 200) continue;
            char n[32], cfg[128], what[600];
            format_n(w->base.cfg.n, n, sizeof n);
            config_text(w, cfg, sizeof cfg);
            if (w->base.error[0])
                snprintf(what, sizeof what, "%s", w->base.error);
            else if (isfinite(w->base.values[RC_VALIDATION_ERROR_ABS]))
                snprintf(what, sizeof what, "error %.3g > tolerance %.3g", w->base.values[RC_VALIDATION_ERROR_ABS],
                         w->base.values[RC_VALIDATION_TOLERANCE_ABS]);
            else snprintf(what, sizeof what, "–");
            const char *cells[] = {
                w->base.cfg.variant, w->base.cfg.dtype, w->base.cfg.op, n, cfg, w->base.status, what};
            doc_row(d, 7, cells, align);
        }
        doc_table_end(d);
        if (shown > 200) doc_p(d, "note", "… and %zu more (results.csv has them all).", shown - 200);
    }
    if (!r->n_skipped) {
        doc_p(d, NULL, "No configuration was skipped.");
        doc_fold_end(d);
        return;
    }
    doc_p(d, NULL, "%zu configuration%s skipped, by variant and reason:", r->n_skipped, r->n_skipped > 1 ? "s were" : " was");
    const char *head[] = {"Variant", "Reason", "Configurations"};
    doc_table(d, 3, head, "llr");
    /* distinct (variant, reason) pairs in order of first appearance */
    size_t *first = malloc(r->nrows * sizeof *first), nfirst = 0;
    size_t *count = calloc(r->nrows, sizeof *count);
    if (first && count) {
        for (size_t i = 0; i < r->nrows; i++) {
            const row *w = &r->rows[i];
            if (strcmp(w->base.status, "skipped")) continue;
            size_t k = 0;
            while (k < nfirst && !(r->rows[first[k]].var == w->var &&
                                   !strcmp(r->rows[first[k]].base.skip_reason, w->base.skip_reason)))
                k++;
            if (k == nfirst) first[nfirst++] = i;
            count[k]++;
        }
        for (size_t k = 0; k < nfirst && k < 300; k++) {
            char cnt[32];
            snprintf(cnt, sizeof cnt, "%zu", count[k]);
            const row *w = &r->rows[first[k]];
            const char *cells[] = {w->base.cfg.variant, w->base.skip_reason[0] ? w->base.skip_reason : "–", cnt};
            doc_row(d, 3, cells, "llr");
        }
    }
    doc_table_end(d);
    doc_fold_end(d);
    free(first);
    free(count);
}

/* ---- the whole report ------------------------------------------------------------------ */

static const char *const css =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:1440px;margin:2em auto;padding:0 1em;"
    "color:#222;line-height:1.4}"
    "table{border-collapse:collapse;margin:0.6em 0 1.2em}th,td{padding:0.25em 0.7em;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}th{background:#f3f3f3}td.r,th.r{text-align:right;"
    "font-variant-numeric:tabular-nums}"
    "figure{margin:1em 0 2.2em}figure img{max-width:100%;height:auto;border:1px solid #eee}"
    "figcaption{color:#555;font-size:0.92em;max-width:1100px}p.note{color:#666}p.warn{color:#a00;font-weight:bold}"
    "nav a{margin-right:1em}h2{border-bottom:2px solid #ccc;padding-bottom:0.2em;margin-top:1.8em}"
    "summary{cursor:pointer}summary>h2,summary>h3{display:inline-block}";

/* Where a chart of group gi goes: the appendix (heatmaps, the per-variant
 * hot/cold panels, a ladder chart where there is no ladder), or its group. */
static int in_appendix(const render_ctx *ctx, const chart *c, const char *lead)
{
    if (chart_is_family(c, group_lead_family(ctx, c->group, lead))) return 0; /* shown first */
    if (chart_is_family(c, "heatmap") || chart_is_family(c, "hotcold")) return 1;
    return chart_is_family(c, "ladder") && !group_has_ladder(ctx, &ctx->r->groups[c->group]);
}

static void group_title(const group *g, char *buf, size_t len)
{
    snprintf(buf, len, "%s, %s %s", kind_title(g->kind), g->dtype, g->op);
}

/* The lead chart of every group, right after the answer. */
static void write_lead(doc *d, const char *lead)
{
    const render_ctx *ctx = d->ctx;
    doc_h(d, 2, "The lead chart", "lead");
    for (size_t gi = 0; gi < ctx->r->ngroups; gi++) {
        const char *fam = group_lead_family(ctx, (int)gi, lead);
        char h[128];
        group_title(&ctx->r->groups[gi], h, sizeof h);
        for (size_t k = 0; k < ctx->ncharts; k++)
            if (ctx->charts[k].group == (int)gi && chart_is_family(&ctx->charts[k], fam))
                doc_chart(d, &ctx->charts[k], h);
    }
}

/* Per kind x dtype: the ladder's table where there is a ladder, and the
 * charts neither led with nor in the appendix. */
static void write_groups(doc *d, const char *lead)
{
    const render_ctx *ctx = d->ctx;
    const results *r = ctx->r;
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const group *g = &r->groups[gi];
        const char *fam = group_lead_family(ctx, (int)gi, lead);
        char h[128], id[32];
        group_title(g, h, sizeof h);
        snprintf(id, sizeof id, "g%zu", gi);
        doc_fold(d, 2, h, id, 0);
        if (group_has_ladder(ctx, g)) write_table(d, g);
        for (size_t k = 0; k < ctx->ncharts; k++) {
            const chart *c = &ctx->charts[k];
            if (c->group == (int)gi && !chart_is_family(c, fam) && !in_appendix(ctx, c, lead)) doc_chart(d, c, NULL);
        }
        doc_fold_end(d);
    }
    if (!r->ngroups) doc_p(d, "warn", "results.csv has no rows.");
}

static void write_appendix(doc *d, const char *lead)
{
    const render_ctx *ctx = d->ctx;
    size_t n = 0;
    for (size_t k = 0; k < ctx->ncharts; k++) n += in_appendix(ctx, &ctx->charts[k], lead);
    if (!n) return;
    doc_fold(d, 2, "Appendix: heatmaps and per-variant charts", "appendix", 0);
    for (size_t k = 0; k < ctx->ncharts; k++) {
        const chart *c = &ctx->charts[k];
        char h[128];
        group_title(&ctx->r->groups[c->group], h, sizeof h);
        if (in_appendix(ctx, c, lead)) doc_chart(d, c, h);
    }
    doc_fold_end(d);
}

static void write_nav(doc *d, int confirmed)
{
    const results *r = d->ctx->r;
    fputs("<nav><a href=\"#found\">Found</a><a href=\"#lead\">Lead chart</a>", d->html);
    if (confirmed) fputs("<a href=\"#confirmed\">Confirmed</a>", d->html);
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        char h[128];
        group_title(&r->groups[gi], h, sizeof h);
        fprintf(d->html, "<a href=\"#g%zu\">", gi);
        html_esc(d->html, h);
        fputs("</a>", d->html);
    }
    fputs("<a href=\"#run\">Run</a><a href=\"#failures\">Failures and skips</a>"
          "<a href=\"#appendix\">Appendix</a></nav>\n",
          d->html);
}

static void write_chart_warning(doc *d)
{
    const render_ctx *ctx = d->ctx;
    if (ctx->why_not_drawn) {
        char redo[PATH_LEN];
        render_command(ctx, redo, sizeof redo);
        doc_p(d, "warn", "Charts were not drawn: %s. Draw them later with `%s`.", ctx->why_not_drawn, redo);
    } else if (ctx->failed) {
        doc_p(d, "warn", "%zu chart%s could not be drawn: see plots-data/gnuplot.log.", ctx->failed,
              ctx->failed > 1 ? "s" : "");
    }
}

static void write_head(doc *d)
{
    const results *r = d->ctx->r;
    char title[512], exp[256] = "";
    if (r->run.json) json_text(json_object_get(r->run.json, RK(EXPERIMENT)), exp, sizeof exp);
    int named = exp[0] && strcmp(exp, "–");
    snprintf(title, sizeof title, "Reduction and scan results%s%s%s%s", named ? ": " : "", named ? exp : "",
             r->run.device[0] ? " on " : "", r->run.device);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", d->html);
    html_esc(d->html, title);
    fprintf(d->html, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
    doc_h(d, 1, title, NULL);
}

/* The order: the answer and the lead chart (the first screen), then the
 * long tables and the groups, each a click away in index.html. */
int report_write(render_ctx *ctx, char *err, size_t errlen)
{
    char md_path[PATH_LEN], html_path[PATH_LEN], confirm_path[PATH_LEN];
    join_path(md_path, sizeof md_path, ctx->out, "report.md");
    join_path(html_path, sizeof html_path, ctx->out, "index.html");
    join_path(confirm_path, sizeof confirm_path, ctx->dir, "confirm.csv");
    doc d = {.ctx = ctx};
    d.md = fopen(md_path, "w");
    d.html = fopen(html_path, "w");
    if (!d.md || !d.html) {
        snprintf(err, errlen, "%s: %s", d.md ? html_path : md_path, strerror(errno));
        if (d.md) fclose(d.md);
        if (d.html) fclose(d.html);
        return -1;
    }
    write_head(&d);
    write_nav(&d, csv_exists(confirm_path)); /* confirm.csv, or confirm.csv.gz (sweep pack) */
    answer_write(&d);
    write_chart_warning(&d);
    int from_run;
    const char *lead = lead_family(ctx, &from_run);
    write_lead(&d, lead);
    write_confirmed(&d);
    write_groups(&d, lead);
    write_metadata(&d);
    write_failures(&d);
    write_appendix(&d, lead);
    fputs("</body>\n</html>\n", d.html);
    int bad = ferror(d.md) || ferror(d.html);
    bad |= fclose(d.md) != 0;
    bad |= fclose(d.html) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: write error", ctx->out);
        return -1;
    }
    return 0;
}
