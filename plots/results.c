#define _POSIX_C_SOURCE 200809L
#include "plots/results.h"
#include "plots/palette.h"

#include "results_io/columns.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const pm_names[PM_COUNT] = {
    [PM_WARP_EFF] = "smsp__thread_inst_executed_per_inst_executed.ratio",
    [PM_WARP_EFF_PRED] = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
    [PM_BANK_LD] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    [PM_BANK_ST] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    [PM_DRAM_READ] = "dram__bytes_read.sum",
    [PM_DRAM_WRITE] = "dram__bytes_write.sum",
    [PM_DRAM_BYTES] = "dram__bytes.sum",
    [PM_DRAM_PCT] = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    [PM_OCCUPANCY] = "sm__warps_active.avg.pct_of_peak_sustained_active",
};

/* The same metrics under the study keys the sweep's default metric set writes
 * (cupti/metrics.c): `m:warp_active_threads[threads]` holds the values of
 * smsp__thread_inst_executed_per_inst_executed.ratio, and so on. */
static const char *const pm_keys[PM_COUNT] = {
    [PM_WARP_EFF] = "warp_active_threads",
    [PM_WARP_EFF_PRED] = "warp_pred_on_threads",
    [PM_BANK_LD] = "shared_ld_bank_conflicts",
    [PM_BANK_ST] = "shared_st_bank_conflicts",
    [PM_DRAM_READ] = "dram_read_bytes",
    [PM_DRAM_WRITE] = "dram_write_bytes",
    [PM_DRAM_BYTES] = "dram_bytes",
    [PM_DRAM_PCT] = "dram_utilization",
    [PM_OCCUPANCY] = "achieved_occupancy",
};

static int name_is(const char *want, const char *name, size_t len)
{
    return want && strlen(want) == len && strncmp(want, name, len) == 0;
}

/* Columns without which nothing can be drawn. The rest are optional: a chart
 * that needs an absent one is skipped with a note. */
static const results_col required[] = {RC_VARIANT, RC_KIND,      RC_DTYPE,  RC_OP,
                                       RC_N,       RC_BLOCK_DIM, RC_STATUS, RC_TIME_COLD_MEDIAN_MS};

size_t dtype_bytes(const char *dtype)
{
    if (strcmp(dtype, "f64") == 0) return 8;
    return 4;
}

void format_n(unsigned long long n, char *buf, size_t len)
{
    if (n && (n & (n - 1)) == 0) {
        int k = 0;
        while ((1ull << k) != n) k++;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%llu", n);
    }
}

void format_ms(double ms, char *buf, size_t len)
{
    if (!isfinite(ms)) snprintf(buf, len, "–");
    else if (ms < 1.0) snprintf(buf, len, "%.*f µs", ms < 0.01 ? 2 : ms < 0.1 ? 1 : 0, ms * 1000.0);
    else if (ms < 1000.0) snprintf(buf, len, "%.3f ms", ms);
    else snprintf(buf, len, "%.2f s", ms / 1000.0);
}

static int alias_token_eq(const char *tok, size_t len, const char *s)
{
    while (len && (*tok == ' ' || *tok == '\t')) tok++, len--;
    while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t')) len--;
    if (strlen(s) == len && strncmp(tok, s, len) == 0) return 1;
    /* "reduce_gpu (seed 002)": its first word counts too */
    size_t w = 0;
    while (w < len && tok[w] != ' ') w++;
    return w < len && strlen(s) == w && strncmp(tok, s, w) == 0;
}

int var_matches(const var_info *v, const char *s)
{
    if (!s || !*s) return 0;
    if (strcmp(v->name, s) == 0) return 1;
    const char *a = v->alias;
    while (a && *a) {
        const char *c = strchr(a, ',');
        size_t len = c ? (size_t)(c - a) : strlen(a);
        if (alias_token_eq(a, len, s)) return 1;
        a = c ? c + 1 : NULL;
    }
    return 0;
}

/* ---- numbers ------------------------------------------------------------ */

static int parse_double(const char *s, double *out)
{
    if (!s || !*s) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    if (end == s || *end) return -1;
    *out = v;
    return 0;
}

/* ---- groups and the fastest configuration per variant and n ---------------- */

static const results *sort_ctx;

static int group_key_cmp(const row *a, const row *b)
{
    int c = strcmp(a->base.cfg.kind, b->base.cfg.kind);
    if (!c) c = strcmp(a->base.cfg.dtype, b->base.cfg.dtype);
    if (!c) c = strcmp(a->base.cfg.op, b->base.cfg.op);
    return c;
}

static int row_order(const void *pa, const void *pb)
{
    const row *a = &sort_ctx->rows[*(const size_t *)pa], *b = &sort_ctx->rows[*(const size_t *)pb];
    int c = group_key_cmp(a, b);
    if (c) return c;
    if (a->var != b->var) return a->var < b->var ? -1 : 1;
    if (a->base.cfg.n != b->base.cfg.n) return a->base.cfg.n < b->base.cfg.n ? -1 : 1;
    if (a->t_cold != b->t_cold) return a->t_cold < b->t_cold ? -1 : 1;
    return a->base.line < b->base.line ? -1 : a->base.line > b->base.line;
}

static int build_groups(results *r)
{
    size_t nok = 0;
    for (size_t i = 0; i < r->nrows; i++) nok += r->rows[i].ok;
    size_t *idx = malloc((nok ? nok : 1) * sizeof *idx);
    if (!idx) return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].ok) idx[k++] = i;
    sort_ctx = r;
    qsort(idx, nok, sizeof *idx, row_order);

    /* Groups in order of first appearance in the CSV. */
    r->groups = calloc(r->nrows ? r->nrows : 1, sizeof *r->groups);
    if (!r->groups) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        size_t g = 0;
        while (g < r->ngroups &&
               !(strcmp(r->groups[g].kind, w->base.cfg.kind) == 0 &&
                 strcmp(r->groups[g].dtype, w->base.cfg.dtype) == 0 && strcmp(r->groups[g].op, w->base.cfg.op) == 0))
            g++;
        if (g == r->ngroups) {
            r->groups[g] = (group){.kind = w->base.cfg.kind,
                                   .dtype = w->base.cfg.dtype,
                                   .op = w->base.cfg.op,
                                   .esize = dtype_bytes(w->base.cfg.dtype)};
            r->ngroups++;
        }
        r->groups[g].nrows++;
        r->groups[g].nok += w->ok;
    }

    for (size_t a = 0; a < nok;) {
        const row *first = &r->rows[idx[a]];
        group *g = NULL;
        for (size_t j = 0; j < r->ngroups; j++)
            if (strcmp(r->groups[j].kind, first->base.cfg.kind) == 0 &&
                strcmp(r->groups[j].dtype, first->base.cfg.dtype) == 0 &&
                strcmp(r->groups[j].op, first->base.cfg.op) == 0)
                g = &r->groups[j];
        /* one variant of this group: rows a..b */
        size_t b = a;
        while (b < nok && group_key_cmp(&r->rows[idx[b]], first) == 0 && r->rows[idx[b]].var == first->var) b++;
        series *s = realloc(g->s, (g->ns + 1) * sizeof *s);
        if (!s) {
            free(idx);
            return -1;
        }
        g->s = s;
        series *cur = &g->s[g->ns++];
        *cur = (series){.var = first->var};
        cur->pts = calloc(b - a, sizeof *cur->pts);
        if (!cur->pts) {
            free(idx);
            return -1;
        }
        for (size_t i = a; i < b;) {
            const row *best = &r->rows[idx[i]];
            size_t j = i;
            while (j < b && r->rows[idx[j]].base.cfg.n == best->base.cfg.n) {
                const row *o = &r->rows[idx[j]];
                if (o->base.cfg.block_dim != best->base.cfg.block_dim) g->folded |= AX_BLOCK;
                if (memcmp(o->base.cfg.axis, best->base.cfg.axis, sizeof o->base.cfg.axis)) g->folded |= AX_COARSE;
                if (strcmp(o->base.cfg.finish, best->base.cfg.finish) != 0) g->folded |= AX_FINISH;
                if (strcmp(o->base.cfg.scan_mode, best->base.cfg.scan_mode) != 0) g->folded |= AX_MODE;
                j++;
            }
            cur->pts[cur->npts++] = (point){.n = best->base.cfg.n, .best = best};
            i = j;
        }
        a = b;
    }
    free(idx);
    /* series in variant order (the sort already did that within a group) */
    return 0;
}

unsigned long long group_nearest_n(const group *g, unsigned long long want)
{
    unsigned long long best = 0;
    double bd = INFINITY;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            unsigned long long n = g->s[i].pts[j].n;
            double d = fabs(log2((double)n) - log2((double)want));
            if (d < bd - 1e-12 || (fabs(d - bd) <= 1e-12 && n > best)) {
                bd = d;
                best = n;
            }
        }
    return best;
}

const row *series_at(const series *s, unsigned long long n)
{
    for (size_t j = 0; j < s->npts; j++)
        if (s->pts[j].n == n) return s->pts[j].best;
    return NULL;
}

const row *best_with_metric(const results *r, const group *g, int var, unsigned long long n, int k)
{
    const row *best = NULL;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (!w->ok || w->var != var || w->base.cfg.n != n || !isfinite(w->m[k])) continue;
        if (strcmp(w->base.cfg.kind, g->kind) || strcmp(w->base.cfg.dtype, g->dtype) || strcmp(w->base.cfg.op, g->op))
            continue;
        if (!best || w->t_cold < best->t_cold) best = w;
    }
    return best;
}

/* ---- run.json ------------------------------------------------------------- */

static void load_run(const char *dir, results *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", dir);
    results_run *ri = &r->run;
    results_run_load(path, ri);
    /* a zero or negative figure is a run that did not measure it */
    if (!(ri->peak_GBps > 0)) ri->peak_GBps = NAN;
    if (!(ri->copy_GBps > 0)) ri->copy_GBps = NAN;
    if (!(ri->l2_bytes > 0)) ri->l2_bytes = NAN;
}

/* ---- results.csv ------------------------------------------------------------ */

static void note(results *r, const char *text)
{
    size_t len = strlen(r->notes);
    snprintf(r->notes + len, sizeof r->notes - len, "%s%s", len ? " " : "", text);
}

/* Every required column is there; else -1 naming the missing ones. */
static int check_required(const char *path, const csv_table *t, char *err, size_t errlen)
{
    char missing[512] = "";
    size_t nmissing = 0;
    if (csv_column_of(t, RC_AXES) < 0 && csv_column_of(t, RC_COARSE) < 0) {
        snprintf(missing, sizeof missing, "axes (or coarse)");
        nmissing++;
    }
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (csv_column_of(t, required[i]) < 0) {
            size_t len = strlen(missing);
            snprintf(missing + len, sizeof missing - len, "%s%s", nmissing ? ", " : "",
                     results_cols[required[i]].name);
            nmissing++;
        }
    if (!nmissing) return 0;
    snprintf(err, errlen, "%s: missing required column%s: %s", path, nmissing > 1 ? "s" : "", missing);
    return -1;
}

/* The m: columns, and which of them hold the metrics the charts use. */
static void find_metric_cols(results *r)
{
    const csv_table *t = &r->csv;
    for (int k = 0; k < PM_COUNT; k++) r->metric_col[k] = -1;
    for (size_t c = 0; c < t->ncols; c++) {
        const char *h = t->header[c];
        if (strncmp(h, "m:", 2) != 0) continue;
        r->n_metric_cols++;
        const char *name = h + 2, *br = strchr(name, '[');
        size_t len = br ? (size_t)(br - name) : strlen(name);
        for (int k = 0; k < PM_COUNT; k++)
            if ((name_is(pm_names[k], name, len) || name_is(pm_keys[k], name, len)) && r->metric_col[k] < 0)
                r->metric_col[k] = (int)c;
    }
}

/* The figures the charts read without a check that it is a number: these
 * make the row an error when they hold anything else. */
static const results_col strict_numbers[] = {
    RC_BYTES_MOVED,      RC_TIME_COLD_MEDIAN_MS,  RC_TIME_HOT_MEDIAN_MS,      RC_TIME_COLD_MIN_MS,
    RC_TIME_COLD_IQR_MS, RC_NOISE_COLD_PCT,       RC_NOISE_HOT_PCT,           RC_BW_COLD_GBPS,
    RC_BW_HOT_GBPS,      RC_VALIDATION_ERROR_ABS, RC_VALIDATION_TOLERANCE_ABS};

/* The chart's figures of w, from its tagged values. */
static void chart_figures(row *w)
{
    const double *v = w->base.values;
    w->bytes = v[RC_BYTES_MOVED];
    w->t_cold = v[RC_TIME_COLD_MEDIAN_MS];
    w->t_hot = v[RC_TIME_HOT_MEDIAN_MS];
    w->bw_cold = v[RC_BW_COLD_GBPS];
    w->bw_hot = v[RC_BW_HOT_GBPS];
    /* bandwidth from bytes and time where the column is empty */
    if (!isfinite(w->bw_cold) && w->bytes > 0 && w->t_cold > 0) w->bw_cold = w->bytes / (w->t_cold * 1e6);
    if (!isfinite(w->bw_hot) && w->bytes > 0 && w->t_hot > 0) w->bw_hot = w->bytes / (w->t_hot * 1e6);
}

/* Count w's status and give it its variant's index. */
static void classify(results *r, row *w)
{
    const results_row_config *c = &w->base.cfg;
    const char *status = w->base.status;
    if (strcmp(status, "ok") == 0)
        r->n_ok++;
    else if (strcmp(status, "invalid") == 0)
        r->n_invalid++;
    else if (strcmp(status, "error") == 0)
        r->n_error++;
    else if (strcmp(status, "skipped") == 0)
        r->n_skipped++;
    else r->n_other++;
    w->ok = strcmp(status, "ok") == 0 && isfinite(w->t_cold) && w->t_cold > 0 && c->n > 0;
    size_t v = 0;
    while (v < r->nvars && strcmp(r->vars[v].name, c->variant) != 0) v++;
    if (v == r->nvars) {
        r->vars[v] = (var_info){.name = c->variant, .alias = c->alias, .family = c->family, .kind = c->kind};
        r->vars[v].is_cub = strcasecmp(c->family, "cub") == 0;
        r->nvars++;
    }
    w->var = (int)v;
}

/* Row i of the CSV into r->rows[r->nrows]; -1 with a message. */
static int load_row(results *r, const results_row_columns *c, size_t i, const char *path, char *err, size_t errlen)
{
    unsigned char strict[RC_COUNT] = {0};
    for (size_t k = 0; k < sizeof strict_numbers / sizeof strict_numbers[0]; k++) strict[strict_numbers[k]] = 1;
    row *w = &r->rows[r->nrows];
    if (results_row_read(&r->csv, c, i, strict, &w->base, path, err, errlen)) return -1;
    chart_figures(w);
    char **f = r->csv.rows[i];
    for (int k = 0; k < PM_COUNT; k++) {
        w->m[k] = NAN;
        if (r->metric_col[k] >= 0 && parse_double(f[r->metric_col[k]], &w->m[k])) w->m[k] = NAN; /* "n/a" */
    }
    classify(r, w);
    r->nrows++;
    return 0;
}

int results_load(const char *dir, results *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char path[4096];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (csv_read_file(path, &r->csv, err, errlen)) return -1;
    const csv_table *t = &r->csv;
    if (check_required(path, t, err, errlen)) goto fail;
    find_metric_cols(r);
    results_row_columns c;
    results_row_columns_find(t, &c);
    r->has_hot = c.at[RC_TIME_HOT_MEDIAN_MS] >= 0;
    r->has_bw = c.at[RC_BW_COLD_GBPS] >= 0 || c.at[RC_BYTES_MOVED] >= 0;
    r->rows = calloc(t->nrows ? t->nrows : 1, sizeof *r->rows);
    r->vars = calloc(t->nrows ? t->nrows : 1, sizeof *r->vars);
    if (!r->rows || !r->vars) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    for (size_t i = 0; i < t->nrows; i++)
        if (load_row(r, &c, i, path, err, errlen)) goto fail;
    if (t->truncated_last) note(r, "The last line of results.csv was cut short (an interrupted run) and is left out.");
    palette_assign(r->vars, r->nvars);
    if (build_groups(r)) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    load_run(dir, r);
    if (!r->run.present) {
        char m[400];
        snprintf(m, sizeof m, "No run metadata (%s): charts lack the device, the peak and copy lines and the L2 size.",
                 r->run.error);
        note(r, m);
    }
    return 0;
fail:
    results_free(r);
    return -1;
}

void results_free(results *r)
{
    for (size_t g = 0; g < r->ngroups; g++) {
        for (size_t s = 0; s < r->groups[g].ns; s++) free(r->groups[g].s[s].pts);
        free(r->groups[g].s);
    }
    free(r->groups);
    free(r->rows);
    free(r->vars);
    results_run_free(&r->run);
    csv_free(&r->csv);
    memset(r, 0, sizeof *r);
}
