/* results.csv's rows reduced to what the tables need (tables_rows.h). */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/tables_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_io/csv.h"

const results_col tables_value_col[TV_COUNT] = {
    [TV_COLD] = RC_TIME_COLD_MEDIAN_MS, [TV_HOT] = RC_TIME_HOT_MEDIAN_MS,
    [TV_NOISE_COLD] = RC_NOISE_COLD_PCT, [TV_NOISE_HOT] = RC_NOISE_HOT_PCT,
    [TV_BW_COLD] = RC_BW_COLD_GBPS,      [TV_BW_HOT] = RC_BW_HOT_GBPS,
    [TV_PCT_COPY] = RC_BW_COLD_PCT_COPY, [TV_SPEEDUP_CUB] = RC_SPEEDUP_VS_CUB,
};

/* Rows parsed at a time: csv_parse keeps a malloc'd string per field, so a
 * chunk of 4096 rows of ~70 fields is a few megabytes however long the file. */
#define TABLES_CHUNK_ROWS 4096

/* Without these a file is no results.csv the tables can be made from. */
static const results_col required[] = {RC_VARIANT, RC_KIND,   RC_DTYPE,  RC_OP,
                                       RC_N,       RC_STATUS, RC_BLOCK_DIM, RC_TIME_COLD_MEDIAN_MS};

/* ---- texts by id --------------------------------------------------------------------------- */

static size_t hash_text(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Twice the slots, the texts placed again (the table stays at most half full). */
static int st_grow(tables_strtab *t)
{
    size_t nslot = t->nslot ? t->nslot * 2 : 256;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = hash_text(t->s[i]) & (nslot - 1);
        while (slot[h]) h = (h + 1) & (nslot - 1);
        slot[h] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot, t->nslot = nslot;
    return 0;
}

/* s's id, added when new (*added 1 then, when added is not NULL); -1 out of memory. */
static long st_intern(tables_strtab *t, const char *s, int *added)
{
    if ((t->n + 1) * 2 > t->nslot && st_grow(t)) return -1;
    size_t h = hash_text(s) & (t->nslot - 1);
    for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
        if (!strcmp(t->s[t->slot[h] - 1], s)) {
            if (added) *added = 0;
            return (long)t->slot[h] - 1;
        }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **bigger = realloc(t->s, cap * sizeof *bigger);
        if (!bigger) return -1;
        t->s = bigger, t->cap = cap;
    }
    if (!(t->s[t->n] = strdup(s))) return -1;
    t->slot[h] = (uint32_t)t->n + 1;
    if (added) *added = 1;
    return (long)t->n++;
}

static void st_free(tables_strtab *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->s[i]);
    free(t->s);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

const char *tables_name(const tables_rows *tr, uint32_t id) { return id < tr->names.n ? tr->names.s[id] : ""; }

/* ---- one row ------------------------------------------------------------------------------- */

typedef struct reader {
    tables_rows *tr;
    const char *path;
    results_row_columns c;
    size_t first_metric; /* the column of the first m: header */
    int oom;
} reader;

/* s's name id; out of memory sets rd->oom (checked once a row). */
static uint32_t nid(reader *rd, const char *s)
{
    long id = st_intern(&rd->tr->names, s ? s : "", NULL);
    if (id < 0) rd->oom = 1;
    return id < 0 ? 0 : (uint32_t)id;
}

/* parts joined by a unit separator into buf: -1 when they do not fit (no key is cut short). */
static int join_key(char *buf, size_t len, const char *const *parts, size_t n)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? "\x1f" : "", parts[i]);
        if (w < 0 || (size_t)w >= len - at) return -1;
        at += (size_t)w;
    }
    return 0;
}

/* Space for id in an array kept beside a key table (same ids): 0, -1 out of memory. */
static int fit(void **arr, size_t id, size_t size)
{
    void *bigger = realloc(*arr, (id + 1) * size);
    if (!bigger) return -1;
    *arr = bigger;
    return 0;
}

/* The input group of c (kind, dtype, op, scan mode, n): its id, -1 out of memory. */
static long group_of(reader *rd, const results_row_config *c)
{
    tables_rows *tr = rd->tr;
    char n[32], key[1024];
    snprintf(n, sizeof n, "%llu", c->n);
    const char *parts[] = {c->kind, c->dtype, c->op, c->scan_mode, n};
    int added = 0;
    if (join_key(key, sizeof key, parts, 4)) return -1;
    long input = st_intern(&tr->input_keys, key, NULL);
    if (join_key(key, sizeof key, parts, 5)) return -1;
    long g = st_intern(&tr->group_keys, key, &added);
    if (input < 0 || g < 0) return -1;
    if (added) {
        if (fit((void **)&tr->groups, (size_t)g, sizeof *tr->groups)) return -1;
        tr->groups[g] = (tables_group){nid(rd, c->kind), nid(rd, c->dtype), nid(rd, c->op), nid(rd, c->scan_mode),
                                       (uint32_t)input, c->n};
    }
    return g;
}

/* A skipped row: counted by variant, input and reason, with the range of n. */
static int add_skip(reader *rd, const results_row *w)
{
    tables_rows *tr = rd->tr;
    const results_row_config *c = &w->cfg;
    const char *parts[] = {c->variant, c->kind, c->dtype, c->op, c->scan_mode, w->skip_reason};
    char key[2048];
    int added = 0;
    long s = join_key(key, sizeof key, parts, 6) ? -1 : st_intern(&tr->skip_keys, key, &added);
    if (s < 0 || (added && fit((void **)&tr->skips, (size_t)s, sizeof *tr->skips))) return -1;
    tables_skip *k = &tr->skips[s];
    if (added)
        *k = (tables_skip){nid(rd, c->variant), nid(rd, c->kind), nid(rd, c->dtype), nid(rd, c->op),
                           nid(rd, c->scan_mode), nid(rd, w->skip_reason), 0, c->n, c->n};
    k->count++;
    if (c->n < k->n_min) k->n_min = c->n;
    if (c->n > k->n_max) k->n_max = c->n;
    tr->skipped++;
    return rd->oom ? -1 : 0;
}

/* An ok row's metric values, appended to tr->metrics: their offset, -1 out of memory. */
static long add_metrics(reader *rd, const csv_table *t, size_t i, results_row *w)
{
    tables_rows *tr = rd->tr;
    size_t m = tr->metric_count;
    if (!m) return (long)tr->nmetrics;
    if (tr->nmetrics + m > tr->metrics_cap) {
        size_t cap = tr->metrics_cap ? tr->metrics_cap * 2 : 4096 * m;
        double *bigger = realloc(tr->metrics, cap * sizeof *bigger);
        if (!bigger) return -1;
        tr->metrics = bigger, tr->metrics_cap = cap;
    }
    if (results_row_read_metrics(t, i, rd->first_metric, m, w)) return -1;
    memcpy(tr->metrics + tr->nmetrics, w->metrics, m * sizeof *w->metrics);
    results_row_free(w);
    tr->nmetrics += m;
    return (long)(tr->nmetrics - m);
}

/* A row that ran: its record. */
static int add_rec(reader *rd, const csv_table *t, size_t i, results_row *w)
{
    tables_rows *tr = rd->tr;
    if (tr->nrecs == tr->rec_cap) {
        size_t cap = tr->rec_cap ? tr->rec_cap * 2 : 1024;
        tables_rec *bigger = realloc(tr->recs, cap * sizeof *bigger);
        if (!bigger) return -1;
        tr->recs = bigger, tr->rec_cap = cap;
    }
    tables_rec *r = &tr->recs[tr->nrecs];
    char axes[256];
    results_row_axes_text(&w->cfg, ";", axes, sizeof axes); /* results.csv's axes cell, from either schema */
    long g = group_of(rd, &w->cfg);
    *r = (tables_rec){.group = g < 0 ? 0 : (uint32_t)g, .variant = nid(rd, w->cfg.variant),
                      .finish = nid(rd, w->cfg.finish), .axes = nid(rd, axes), .stop_cold = nid(rd, w->stop_cold),
                      .stop_hot = nid(rd, w->stop_hot), .block_dim = w->cfg.block_dim,
                      .ordinal = tr->rows - 1, .metric = -1};
    r->status = !strcmp(w->status, "ok") ? TS_OK : !strcmp(w->status, "invalid") ? TS_INVALID : TS_ERROR;
    for (size_t k = 0; k < RESULTS_ROW_AXES; k++) r->axis[k] = w->cfg.axis[k];
    for (int k = 0; k < TV_COUNT; k++) r->v[k] = w->values[tables_value_col[k]];
    if (r->status == TS_OK && (r->metric = add_metrics(rd, t, i, w)) < 0) return -1;
    if (g < 0 || rd->oom) return -1;
    *(r->status == TS_OK ? &tr->ok : r->status == TS_INVALID ? &tr->invalid : &tr->error) += 1;
    tr->nrecs++;
    return 0;
}

static int add_row(reader *rd, const csv_table *t, size_t i, char *err, size_t errlen)
{
    if (t->widths[i] != t->ncols) {
        snprintf(err, errlen, "%s:%zu: %zu fields, the header has %zu", rd->path, t->lines[i], t->widths[i],
                 t->ncols);
        return -1;
    }
    results_row w;
    if (results_row_read(t, &rd->c, i, NULL, &w, rd->path, err, errlen)) return -1;
    rd->tr->rows++;
    int rc = !strcmp(w.status, "skipped") ? add_skip(rd, &w) : add_rec(rd, t, i, &w);
    results_row_free(&w);
    if (rc && !*err) snprintf(err, errlen, "%s:%zu: out of memory (or a key too long)", rd->path, t->lines[i]);
    return rc;
}

/* ---- the file, a chunk of rows at a time ------------------------------------------------------ */

/* Just past the line end of the record starting at p, quotes respected
 * (a doubled quote toggles twice); *lines counts every line end crossed. */
static size_t record_end(const char *s, size_t len, size_t p, size_t *lines)
{
    int quoted = 0;
    for (; p < len; p++) {
        if (s[p] == '"') quoted = !quoted;
        else if (s[p] == '\n') {
            (*lines)++;
            if (!quoted) return p + 1;
        }
    }
    return len;
}

/* The header: the column table, the m: columns (last, as the writer puts them). */
static int read_header(reader *rd, const char *text, size_t head, char *err, size_t errlen)
{
    csv_table t;
    char e[400];
    if (csv_parse_flags(text, head, CSV_ANY_WIDTH, &t, e, sizeof e)) {
        snprintf(err, errlen, "%s:%s", rd->path, e);
        return -1;
    }
    results_row_columns_find(&t, &rd->c);
    int rc = 0;
    for (size_t k = 0; k < RC_COUNT; k++) rd->tr->have[k] = rd->c.at[k] >= 0;
    for (size_t k = 0; !rc && k < sizeof required / sizeof required[0]; k++)
        if (rd->c.at[required[k]] < 0)
            snprintf(err, errlen, "%s: not a results.csv: no column %s", rd->path, results_cols[required[k]].name),
                rc = -1;
    rd->first_metric = t.ncols;
    for (size_t k = 0; k < t.ncols; k++)
        if (!strncmp(t.header[k], "m:", 2) && rd->first_metric == t.ncols) rd->first_metric = k;
    rd->tr->metric_names = calloc(t.ncols - rd->first_metric + 1, sizeof *rd->tr->metric_names);
    for (size_t k = rd->first_metric; !rc && k < t.ncols; k++) {
        if (strncmp(t.header[k], "m:", 2))
            snprintf(err, errlen, "%s: column %s after the metric columns", rd->path, t.header[k]), rc = -1;
        else if (!rd->tr->metric_names || !(rd->tr->metric_names[rd->tr->metric_count++] = strdup(t.header[k])))
            snprintf(err, errlen, "%s: out of memory", rd->path), rc = -1;
    }
    csv_free(&t);
    return rc;
}

/* Rows [at, end) of text, which start on line first_line, parsed under the header (text[0, head)). */
static int read_chunk(reader *rd, const char *text, size_t head, size_t at, size_t end, size_t first_line,
                      char *err, size_t errlen)
{
    char *buf = malloc(head + (end - at) + 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", rd->path);
        return -1;
    }
    memcpy(buf, text, head);
    memcpy(buf + head, text + at, end - at);
    csv_table t;
    char e[400];
    if (csv_parse_flags(buf, head + (end - at), CSV_TORN_LAST | CSV_ANY_WIDTH, &t, e, sizeof e)) {
        snprintf(err, errlen, "%s: the rows from line %zu: %s", rd->path, first_line, e);
        free(buf);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < t.nrows; i++) {
        t.lines[i] += first_line - 2; /* the chunk's line 2 is the file's first_line */
        rc = add_row(rd, &t, i, err, errlen);
    }
    csv_free(&t);
    free(buf);
    return rc;
}

static int read_text(reader *rd, const char *text, size_t len, char *err, size_t errlen)
{
    size_t lines = 0, head = record_end(text, len, 0, &lines);
    if (!head || read_header(rd, text, head, err, errlen)) {
        if (!head) snprintf(err, errlen, "%s: empty: no header", rd->path);
        return -1;
    }
    for (size_t at = head; at < len;) {
        size_t first_line = lines + 1, end = at;
        for (size_t k = 0; k < TABLES_CHUNK_ROWS && end < len; k++) end = record_end(text, len, end, &lines);
        if (read_chunk(rd, text, head, at, end, first_line, err, errlen)) return -1;
        at = end;
    }
    return 0;
}

int tables_rows_read(const char *path, tables_rows *tr, char *err, size_t errlen)
{
    memset(tr, 0, sizeof *tr);
    err[0] = '\0';
    size_t len = 0;
    char *text = csv_slurp(path, &len, err, errlen);
    if (!text) return -1;
    reader rd = {.tr = tr, .path = path};
    int rc = read_text(&rd, text, len, err, errlen);
    free(text);
    if (rc) tables_rows_free(tr);
    return rc;
}

void tables_rows_free(tables_rows *tr)
{
    st_free(&tr->names), st_free(&tr->group_keys), st_free(&tr->input_keys), st_free(&tr->skip_keys);
    for (size_t k = 0; tr->metric_names && k < tr->metric_count; k++) free(tr->metric_names[k]);
    free(tr->metric_names);
    free(tr->groups), free(tr->skips), free(tr->recs), free(tr->metrics);
    memset(tr, 0, sizeof *tr);
}
