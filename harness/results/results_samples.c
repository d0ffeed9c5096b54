/* samples.csv (--samples): every timed sample, read back for compare. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "harness/results/results.h"
#include "results_io/axis_names.h"
#include "results_io/csv.h"

/* ---- samples.csv (--samples) ---------------------------------------------------------------- */

static const char samples_header[] = "variant,n,config,phase,batch,sample,time_ms\n";

const char *samples_csv_header(void) { return samples_header; }

static sample_series *series_push(samples_file *f, const char *label, int hot, unsigned batch)
{
    if (f->n == f->cap) {
        size_t ncap = f->cap ? f->cap * 2 : 256;
        sample_series *bigger = realloc(f->s, ncap * sizeof *bigger);
        if (!bigger) return NULL;
        f->s = bigger;
        f->cap = ncap;
    }
    sample_series *s = &f->s[f->n];
    memset(s, 0, sizeof *s);
    s->label = strdup(label);
    if (!s->label) return NULL;
    s->hot = hot;
    s->batch = batch;
    s->order = f->n++;
    return s;
}

static int series_add(sample_series *s, double ms)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 32;
        double *bigger = realloc(s->ms, ncap * sizeof *bigger);
        if (!bigger) return -1;
        s->ms = bigger;
        s->cap = ncap;
    }
    s->ms[s->n++] = ms;
    return 0;
}

static int series_cmp(const void *a, const void *b)
{
    const sample_series *x = a, *y = b;
    int c = strcmp(x->label, y->label);
    if (c) return c;
    if (x->hot != y->hot) return x->hot - y->hot;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorted by configuration and phase; of several series of one (a measurement
 * taken again with twice the batch), the last taken, which is the row's. */
static void series_index(samples_file *f)
{
    qsort(f->s, f->n, sizeof *f->s, series_cmp);
    size_t w = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (i + 1 < f->n && !strcmp(f->s[i].label, f->s[i + 1].label) && f->s[i].hot == f->s[i + 1].hot) {
            free(f->s[i].label);
            free(f->s[i].ms);
            continue;
        }
        f->s[w++] = f->s[i];
    }
    f->n = w;
}

/* One samples.csv line into f: a sample 0 starts a series, later ones
 * continue the last series of the same configuration and phase. */
static int samples_line(samples_file *f, char **fld, char *msg, size_t len)
{
    int hot = !strcmp(fld[3], "hot");
    char *e1, *e2, *e3;
    unsigned long batch = strtoul(fld[4], &e1, 10), idx = strtoul(fld[5], &e2, 10);
    double ms = strtod(fld[6], &e3);
    if ((!hot && strcmp(fld[3], "cold")) || *e1 || *e2 || *e3 || !fld[4][0] || !fld[5][0] || !fld[6][0] ||
        !(ms >= 0)) {
        snprintf(msg, len, "bad phase, batch, sample or time_ms ('%.20s', '%.20s', '%.20s', '%.30s')", fld[3],
                 fld[4], fld[5], fld[6]);
        return -1;
    }
    /* Older runs' labels say coarse=: keyed as today's, they pair with their rows. */
    char label[256];
    results_label_migrate(fld[2], label, sizeof label);
    sample_series *s = f->n ? &f->s[f->n - 1] : NULL;
    if (idx == 0) s = series_push(f, label, hot, (unsigned)batch);
    else if (!s || strcmp(s->label, label) || s->hot != hot || s->n != idx) {
        snprintf(msg, len, "sample %lu of '%.200s' does not follow sample %lu of it", idx, fld[2], idx - 1);
        return -1;
    }
    if (!s || series_add(s, ms)) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    return 0;
}

/* The line a torn last line of buf starts on. */
static size_t last_line(const char *buf, size_t len)
{
    size_t line = 1;
    for (size_t i = 0; i < len; i++) line += buf[i] == '\n';
    return line;
}

/* The rows of t into out; -1 with a message. */
static int samples_rows(const char *path, const csv_table *t, samples_file *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < t->nrows; i++) {
        char msg[400];
        if (t->widths[i] != 7) snprintf(msg, sizeof msg, "%zu fields, expected 7", t->widths[i]);
        if (t->widths[i] != 7 || samples_line(out, t->rows[i], msg, sizeof msg)) {
            snprintf(err, errlen, "%s: line %zu: %s", path, t->lines[i], msg);
            return -1;
        }
    }
    return 0;
}

int samples_read_csv(const char *path, samples_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len, hl = strlen(samples_header);
    char *buf = csv_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    int rc = -1;
    csv_table t;
    char e[400];
    if (len < hl || memcmp(buf, samples_header, hl))
        snprintf(err, errlen, "%s: %s", path,
                 len ? "its header is not samples.csv's (variant,n,config,phase,batch,sample,time_ms)"
                     : "empty file (no header)");
    else if (csv_parse_flags(buf, len, CSV_TORN_LAST | CSV_ANY_WIDTH, &t, e, sizeof e))
        snprintf(err, errlen, "%s:%s", path, e);
    else {
        rc = samples_rows(path, &t, out, err, errlen);
        if (!rc && t.truncated_last) {
            snprintf(err, errlen, "%s: line %zu is cut off (no newline): truncated", path, last_line(buf, len));
            rc = -1;
        }
        csv_free(&t);
    }
    free(buf);
    if (rc) samples_file_free(out);
    else series_index(out);
    return rc;
}

const sample_series *samples_find(const samples_file *f, const char *label, int hot)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->s[mid].label, label);
        if (!c) c = f->s[mid].hot - hot;
        if (!c) return &f->s[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void samples_file_free(samples_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->s[i].label);
        free(f->s[i].ms);
    }
    free(f->s);
    memset(f, 0, sizeof *f);
}

