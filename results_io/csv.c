#include "results_io/csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

typedef struct strbuf {
    char *s;
    size_t len, cap;
} strbuf;

static int sb_put(strbuf *b, char c)
{
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        char *s = realloc(b->s, cap);
        if (!s) return -1;
        b->s = s;
        b->cap = cap;
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
    return 0;
}

static char *sb_take(strbuf *b)
{
    char *s = b->s ? b->s : calloc(1, 1);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

typedef struct fieldlist {
    char **f;
    size_t n, cap;
} fieldlist;

static int fl_push(fieldlist *l, char *s)
{
    if (!s) return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **f = realloc(l->f, cap * sizeof *f);
        if (!f) {
            free(s);
            return -1;
        }
        l->f = f;
        l->cap = cap;
    }
    l->f[l->n++] = s;
    return 0;
}

static void fl_free(fieldlist *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->f[i]);
    free(l->f);
    l->f = NULL;
    l->n = l->cap = 0;
}

/* Read one record starting at *pos. Returns 1 when a record was read, 0 at end
 * of input, -1 on error. *ended tells whether it ended with a line end. */
static int read_record(const char *text, size_t len, size_t *pos, size_t *line, fieldlist *out, int *ended,
                       int flags, char *err, size_t errlen)
{
    size_t p = *pos;
    if (p >= len) return 0;
    strbuf cur = {0};
    int quoted = 0, in_quotes = 0, after_quote = 0;
    size_t start_line = *line;
    *ended = 0;
    for (;;) {
        if (p >= len) {
            if (in_quotes && (flags & CSV_TORN_LAST)) {
                if (fl_push(out, sb_take(&cur))) goto oom;
                break; /* torn inside quotes: no line end, dropped by the caller */
            }
            if (in_quotes) {
                snprintf(err, errlen, "%zu: a quoted field is not closed", start_line);
                free(cur.s);
                fl_free(out);
                return -1;
            }
            if (fl_push(out, sb_take(&cur))) goto oom;
            break;
        }
        char c = text[p++];
        if (in_quotes) {
            if (c == '"') {
                if (p < len && text[p] == '"') {
                    if (sb_put(&cur, '"')) goto oom;
                    p++;
                } else {
                    in_quotes = 0;
                    after_quote = 1;
                }
            } else {
                if (c == '\n') (*line)++;
                if (sb_put(&cur, c)) goto oom;
            }
            continue;
        }
        if (c == ',') {
            if (fl_push(out, sb_take(&cur))) goto oom;
            quoted = after_quote = 0;
            continue;
        }
        if (c == '\r' && p < len && text[p] == '\n') continue;
        if (c == '\n' || c == '\r') {
            (*line)++;
            if (fl_push(out, sb_take(&cur))) goto oom;
            *ended = 1;
            break;
        }
        if (c == '"' && cur.len == 0 && !quoted) {
            quoted = in_quotes = 1;
            continue;
        }
        if (after_quote) {
            snprintf(err, errlen, "%zu: text after the closing quote of a field", *line);
            free(cur.s);
            fl_free(out);
            return -1;
        }
        if (sb_put(&cur, c)) goto oom;
    }
    *pos = p;
    return 1;
oom:
    free(cur.s);
    fl_free(out);
    snprintf(err, errlen, "%zu: out of memory", start_line);
    return -1;
}

static int blank_record(const fieldlist *l)
{
    return l->n == 1 && l->f[0][0] == '\0';
}

/* Append rec as the next row of t. */
static int push_row(csv_table *t, fieldlist *rec, size_t start, size_t *cap, char *err, size_t errlen)
{
    if (t->nrows == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        char ***rows = realloc(t->rows, *cap * sizeof *rows);
        size_t *lines = realloc(t->lines, *cap * sizeof *lines);
        size_t *widths = realloc(t->widths, *cap * sizeof *widths);
        if (rows) t->rows = rows;
        if (lines) t->lines = lines;
        if (widths) t->widths = widths;
        if (!rows || !lines || !widths) {
            fl_free(rec);
            snprintf(err, errlen, "%zu: out of memory", start);
            return -1;
        }
    }
    t->rows[t->nrows] = rec->f;
    t->widths[t->nrows] = rec->n;
    t->lines[t->nrows] = start;
    t->nrows++;
    *rec = (fieldlist){0};
    return 0;
}

/* The header: the first non-blank record. */
static int read_header(const char *text, size_t len, size_t *pos, size_t *line, int flags, csv_table *t, char *err,
                       size_t errlen)
{
    fieldlist rec = {0};
    int ended;
    for (;;) {
        int r = read_record(text, len, pos, line, &rec, &ended, flags & ~CSV_TORN_LAST, err, errlen);
        if (r < 0) return -1;
        if (r == 0) {
            snprintf(err, errlen, "1: empty file (no header row)");
            return -1;
        }
        if (!blank_record(&rec)) break;
        fl_free(&rec);
    }
    t->header = rec.f;
    t->ncols = rec.n;
    t->header_end = *pos;
    return 0;
}

int csv_parse_flags(const char *text, size_t len, int flags, csv_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t pos = 0, line = 1;
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        pos = 3;
    if (read_header(text, len, &pos, &line, flags, t, err, errlen)) return -1;
    fieldlist rec = {0};
    int ended, r;
    size_t cap = 0;
    for (;;) {
        size_t start = line;
        r = read_record(text, len, &pos, &line, &rec, &ended, flags, err, errlen);
        if (r < 0) goto fail;
        if (r == 0) break;
        if (blank_record(&rec)) {
            fl_free(&rec);
            continue;
        }
        if (!ended && pos >= len && ((flags & CSV_TORN_LAST) || rec.n < t->ncols)) {
            t->truncated_last = 1;
            fl_free(&rec);
            break;
        }
        if (rec.n != t->ncols && !(flags & CSV_ANY_WIDTH)) {
            snprintf(err, errlen, "%zu: %zu fields, the header has %zu", start, rec.n, t->ncols);
            fl_free(&rec);
            goto fail;
        }
        if (push_row(t, &rec, start, &cap, err, errlen)) goto fail;
    }
    return 0;
fail:
    csv_free(t);
    return -1;
}

int csv_parse(const char *text, size_t len, csv_table *t, char *err, size_t errlen)
{
    return csv_parse_flags(text, len, 0, t, err, errlen);
}

int csv_resolve(const char *path, char *out, size_t outlen)
{
    struct stat st;
    if (snprintf(out, outlen, "%s", path) >= (int)outlen) return -1;
    if (stat(path, &st) == 0) return 0;
    size_t len = strlen(path);
    if (len < 4 || strcmp(path + len - 4, ".csv")) return -1;
    if (snprintf(out, outlen, "%s.gz", path) >= (int)outlen || stat(out, &st) != 0) {
        snprintf(out, outlen, "%s", path);
        return -1;
    }
    return 0;
}

int csv_exists(const char *path)
{
    char p[4096];
    return csv_resolve(path, p, sizeof p) == 0;
}

char *csv_slurp(const char *path, size_t *len_out, char *err, size_t errlen)
{
    *len_out = 0;
    char name[4096];
    if (csv_resolve(path, name, sizeof name)) {
        snprintf(err, errlen, "%s: %s", path, strerror(ENOENT));
        return NULL;
    }
    /* gzread reads a plain file as it stands, and a .gz file inflated */
    errno = 0;
    gzFile f = gzopen(name, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", name, errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    gzbuffer(f, 1 << 17);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    int rerr = 0;
    for (;;) {
        if (!buf) break;
        size_t want = cap - len > (1u << 30) ? (1u << 30) : cap - len;
        int got = gzread(f, buf + len, (unsigned)want);
        if (got < 0) {
            rerr = 1;
            break;
        }
        len += (size_t)got;
        if ((size_t)got < want) break;
        if (len < cap) continue;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
    }
    int zerr = 0;
    const char *zmsg = rerr ? gzerror(f, &zerr) : NULL;
    char why[200];
    snprintf(why, sizeof why, "%s", zmsg && *zmsg ? zmsg : "read error");
    gzclose(f);
    if (!buf || rerr) {
        free(buf);
        snprintf(err, errlen, "%s: %s", name, rerr ? why : "out of memory");
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

int csv_read_file(const char *path, csv_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t len;
    char *buf = csv_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    char e[512];
    int r = csv_parse(buf, len, t, e, sizeof e);
    free(buf);
    if (r) snprintf(err, errlen, "%s:%s", path, e);
    return r;
}

int csv_column(const csv_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0) return (int)i;
    return -1;
}

void csv_free(csv_table *t)
{
    if (t->header) {
        for (size_t i = 0; i < t->ncols; i++) free(t->header[i]);
        free(t->header);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t i = 0; i < t->widths[r]; i++) free(t->rows[r][i]);
        free(t->rows[r]);
    }
    free(t->rows);
    free(t->lines);
    free(t->widths);
    memset(t, 0, sizeof *t);
}

/* ---- writing ------------------------------------------------------------------ */

void csv_put_text(FILE *f, const char *s)
{
    if (!s) return;
    int quote = s[0] == ' ' || (s[0] && s[strlen(s) - 1] == ' ');
    for (const char *c = s; *c && !quote; c++)
        if (*c == ',' || *c == '"' || *c == '\n' || *c == '\r') quote = 1;
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

void csv_put_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.10g", x);
}
