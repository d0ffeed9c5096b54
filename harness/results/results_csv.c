/* results.csv: the writer and the reader, both iterating the columns table
 * (results_columns.c); the text is parsed by the one CSV reader
 * (results_io/csv.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/core/files.h"
#include "harness/results/results.h"
#include "harness/results/results_columns.h"
#include "results_io/columns.h"
#include "results_io/csv.h"

/* ---- schemas ------------------------------------------------------------------------------ */

/* A column is in the files of the schema that added it (results_io/columns.def
 * tags each) and later, up to the one that dropped it: files of another
 * schema lack it (and are read and written back without it). */
int results_column_in_schema(size_t i, int schema)
{
    return schema >= results_cols[i].schema && (!results_cols[i].dropped || schema < results_cols[i].dropped);
}

/* How many fixed columns schema's files have. */
static size_t columns_in_schema(int schema)
{
    size_t n = 0;
    for (size_t i = 0; i < results_column_count; i++) n += (size_t)results_column_in_schema(i, schema);
    return n;
}

void rows_fill_device(sweep_row *rows, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!rows[i].device[0]) snprintf(rows[i].device, sizeof rows[i].device, "%s", id);
}

/* ---- writing ---------------------------------------------------------------------------- */

void csv_write_header(FILE *f, metric_columns mc) { csv_write_header_schema(f, mc, SWEEP_SCHEMA_VERSION); }

void csv_write_row(FILE *f, const sweep_row *r, metric_columns mc)
{
    csv_write_row_schema(f, r, mc, SWEEP_SCHEMA_VERSION);
}

void csv_write_header_schema(FILE *f, metric_columns mc, int schema)
{
    int first = 1;
    for (size_t i = 0; i < results_column_count; i++)
        if (results_column_in_schema(i, schema)) {
            fprintf(f, "%s%s", first ? "" : ",", results_columns[i].name);
            first = 0;
        }
    for (size_t i = 0; i < mc.count; i++) {
        char h[SWEEP_METRIC_NAME_LEN + SWEEP_METRIC_UNIT_LEN + 8];
        results_metric_header(h, sizeof h, &mc.m[i]);
        fputc(',', f);
        csv_put_text(f, h);
    }
    fputc('\n', f);
}

void csv_write_row_schema(FILE *f, const sweep_row *r, metric_columns mc, int schema)
{
    int first = 1;
    for (size_t i = 0; i < results_column_count; i++) {
        if (!results_column_in_schema(i, schema)) continue;
        if (!first) fputc(',', f);
        results_columns[i].write(f, r, &results_columns[i]);
        first = 0;
    }
    for (size_t i = 0; i < mc.count; i++) {
        fputc(',', f);
        if (r->plain.metrics) csv_put_num(f, r->plain.metrics[i]);
    }
    fputc('\n', f);
}

typedef struct csv_job {
    const sweep_row *rows;
    size_t n;
    metric_columns mc;
} csv_job;

static int render_csv(FILE *f, void *ctx)
{
    csv_job *j = ctx;
    csv_write_header(f, j->mc);
    for (size_t i = 0; i < j->n; i++) csv_write_row(f, &j->rows[i], j->mc);
    return ferror(f) ? -1 : 0;
}

int results_write_csv(const char *path, const sweep_row *rows, size_t n, metric_columns mc, char *err, size_t errlen)
{
    csv_job j = {rows, n, mc};
    return write_file_atomic(path, render_csv, &j, err, errlen);
}

/* ---- reading ------------------------------------------------------------------------------ */

/* One row from its fields: the configuration's columns first (row_init needs
 * them), then the rest, then the metric columns. With any_variant, a variant
 * this build lacks is described by the row's own columns. */
static int parse_row(char **f, metric_columns mc, int schema, int any_variant, sweep_row *r, char *err,
                     size_t errlen)
{
    sweep_row cfg;
    memset(&cfg, 0, sizeof cfg);
    for (size_t k = 0; k < VARIANT_AXES_MAX; k++) cfg.cfg.axis[k] = 1; /* the file has axis 0 only */
    char msg[256] = "";
    char *fields[RC_COUNT]; /* by column: the file's field, or NULL where the schema has none */
    size_t k = 0;
    for (size_t i = 0; i < RC_COUNT; i++) fields[i] = results_column_in_schema(i, schema) ? f[k++] : NULL;
    if (any_variant && !(cfg.cfg.v = results_variant_read(fields[RC_VARIANT], fields[RC_ALIAS], fields[RC_FAMILY],
                                                          fields[RC_KIND], err, errlen)))
        return -1;
    for (size_t i = 0; i < RC_COUNT; i++) {
        const results_column *c = &results_columns[i];
        if (any_variant && i == RC_VARIANT) continue;
        if (c->config && c->read && fields[i] && c->read(&cfg, fields[i], c, msg, sizeof msg)) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
    }
    if (row_init(r, &cfg.cfg, mc.count)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < RC_COUNT && !msg[0]; i++) {
        const results_column *c = &results_columns[i];
        if (!c->config && c->read && fields[i]) c->read(r, fields[i], c, msg, sizeof msg);
    }
    for (size_t i = 0; i < mc.count && !msg[0]; i++) {
        char *end;
        const char *s = f[k + i];
        r->plain.metrics[i] = *s ? strtod(s, &end) : NAN;
        if (*s && *end) snprintf(msg, sizeof msg, "bad %s '%s'", "metric", s);
    }
    if (msg[0]) {
        row_free(r);
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    return 0;
}

static void header_mismatch(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
    size_t eol = 0;
    while (eol < len && buf[eol] != '\n') eol++;
    if (!len) snprintf(err, errlen, "%s: empty file (no header)", path);
    else
        snprintf(err, errlen,
                 "%s: its header differs from what this build writes (schema version %d, or another metric set): "
                 "'%.*s'",
                 path, SWEEP_SCHEMA_VERSION, (int)(eol > 200 ? 200 : eol), buf);
}

/* The header csv_write_header writes for mc, without its newline (malloc'd). */
static char *expected_header(metric_columns mc, int schema, size_t *len)
{
    char *s = NULL;
    *len = 0;
    FILE *m = open_memstream(&s, len);
    if (!m) return NULL;
    csv_write_header_schema(m, mc, schema);
    fclose(m);
    if (s && *len) s[--*len] = '\0';
    return s;
}

/* Do buf's first line's fixed columns equal those of a schema this build
 * reads (all of the line when exact)? That schema, or 0. The newest first:
 * an older header is a prefix of a newer one only where columns were added
 * at the end, and then the exact match decides. */
static int header_matches(const char *buf, size_t len, metric_columns mc, int exact)
{
    for (int schema = SWEEP_SCHEMA_VERSION; schema >= SWEEP_SCHEMA_OLDEST; schema--) {
        size_t hl;
        char *h = expected_header(mc, schema, &hl);
        int ok = h && len > hl && !memcmp(buf, h, hl) && (buf[hl] == '\n' || (!exact && buf[hl] == ','));
        free(h);
        if (ok) return schema;
    }
    return 0;
}

/* The metric columns of t's header after the fixed ones; -1 with a message. */
static int header_metrics(const char *path, const csv_table *t, int schema, sweep_metric **out, size_t *count,
                          char *err, size_t errlen)
{
    size_t fixed = columns_in_schema(schema), nm = t->ncols - fixed;
    *out = calloc(nm ? nm : 1, sizeof **out);
    if (!*out) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < nm; i++) {
        const char *h = t->header[fixed + i];
        if (results_metric_parse(h, &(*out)[i])) {
            snprintf(err, errlen, "%s: column %zu '%.100s' is not a metric column m:<name>[<unit>]", path,
                     fixed + i + 1, h);
            free(*out);
            *out = NULL;
            return -1;
        }
    }
    *count = nm;
    return 0;
}

/* Remember a row of a variant this build does not know (read from its own columns). */
static void note_unknown(results_file *skip, const char *name)
{
    char *list = skip->unknown_variants;
    size_t n = strlen(name), used = strlen(list);
    skip->unknown_rows++;
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 2 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || !p[n])) return;
    snprintf(list + used, sizeof skip->unknown_variants - used, "%s%s", used ? ", " : "", name);
}

/* Rows of t with mc's metric columns. With skip, rows of variants this build
 * lacks are read (their variant described by the row) and counted and named
 * there, instead of being an error. */
static int parse_rows(const char *path, const csv_table *t, metric_columns mc, int schema, sweep_row **rows_out,
                      size_t *count_out, results_file *skip, char *err, size_t errlen)
{
    size_t want = columns_in_schema(schema) + mc.count, nrows = 0;
    sweep_row *rows = calloc(t->nrows ? t->nrows : 1, sizeof *rows);
    if (!rows) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < t->nrows; i++) {
        char msg[256];
        if (t->widths[i] != want) {
            snprintf(err, errlen, "%s: row %zu has %zu fields, expected %zu", path, t->lines[i], t->widths[i], want);
            goto fail;
        }
        if (skip && !results_variant_named(t->rows[i][RC_VARIANT])) note_unknown(skip, t->rows[i][RC_VARIANT]);
        if (parse_row(t->rows[i], mc, schema, skip != NULL, &rows[nrows], msg, sizeof msg)) {
            snprintf(err, errlen, "%s: row %zu: %s", path, t->lines[i], msg);
            goto fail;
        }
        nrows++;
    }
    *rows_out = rows;
    *count_out = nrows;
    return 0;
fail:
    for (size_t i = 0; i < nrows; i++) row_free(&rows[i]);
    free(rows);
    return -1;
}

/* Read path: its first line checked against this build's header (exact:
 * with mc's metric columns), then parsed; a torn last line is dropped. */
static int read_table(const char *path, metric_columns mc, int exact, csv_table *t, int *schema, char *err,
                      size_t errlen)
{
    size_t len;
    char *buf = csv_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    int rc = -1;
    if (!(*schema = header_matches(buf, len, mc, exact))) header_mismatch(path, buf, len, err, errlen);
    else {
        char e[400];
        rc = csv_parse_flags(buf, len, CSV_TORN_LAST | CSV_ANY_WIDTH, t, e, sizeof e);
        if (rc) snprintf(err, errlen, "%s:%s", path, e);
    }
    free(buf);
    return rc;
}

/* f's rows again as plain data (results_io/row.h), through the one column
 * table: what compare, merge and the renderer share. */
static int read_plain(const char *path, results_file *f, char *err, size_t errlen)
{
    results_row_columns c;
    results_row_columns_find(&f->table, &c);
    f->plain = calloc(f->count ? f->count : 1, sizeof *f->plain);
    if (!f->plain) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    size_t first = columns_in_schema(f->schema);
    for (size_t i = 0; i < f->count; i++) {
        if (results_row_read(&f->table, &c, i, NULL, &f->plain[i], path, err, errlen)) return -1;
        if (results_row_read_metrics(&f->table, i, first, f->metric_count, &f->plain[i])) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
    }
    return 0;
}

int results_read_csv(const char *path, metric_columns mc, sweep_row **rows_out, size_t *count_out, char *err,
                     size_t errlen)
{
    int schema;
    return results_read_csv_schema(path, mc, rows_out, count_out, &schema, err, errlen);
}

int results_read_csv_schema(const char *path, metric_columns mc, sweep_row **rows_out, size_t *count_out,
                            int *schema, char *err, size_t errlen)
{
    *rows_out = NULL;
    *count_out = 0;
    csv_table t;
    if (read_table(path, mc, 1, &t, schema, err, errlen)) return -1;
    int rc = parse_rows(path, &t, mc, *schema, rows_out, count_out, NULL, err, errlen);
    csv_free(&t);
    return rc;
}

int results_read_csv_any(const char *path, results_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    metric_columns none = {NULL, 0};
    csv_table t;
    if (read_table(path, none, 0, &t, &out->schema, err, errlen)) return -1;
    int rc = header_metrics(path, &t, out->schema, &out->metrics, &out->metric_count, err, errlen);
    if (!rc) {
        metric_columns mc = {out->metrics, out->metric_count};
        rc = parse_rows(path, &t, mc, out->schema, &out->rows, &out->count, out, err, errlen);
        out->torn = t.truncated_last;
    }
    out->table = t;
    if (!rc) rc = read_plain(path, out, err, errlen);
    if (rc) results_file_free(out);
    return rc;
}

void results_file_free(results_file *f)
{
    for (size_t i = 0; f->plain && i < f->count; i++) results_row_free(&f->plain[i]);
    free(f->plain);
    csv_free(&f->table);
    for (size_t i = 0; i < f->count; i++) row_free(&f->rows[i]);
    free(f->rows);
    free(f->metrics);
    memset(f, 0, sizeof *f);
}
