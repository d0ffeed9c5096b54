/* See confirm_io.h. */
#define _POSIX_C_SOURCE 200809L
#include "results_io/confirm_io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results_io/csv.h"

/* The columns, in file order; the reader finds them by name. */
static const char *const columns[] = {"kind",   "dtype",     "op",        "scan_mode", "n",         "phase",
                                      "variant", "config",   "role",      "rounds",    "median_ms", "speedup_vs_library",
                                      "ci95_lo", "ci95_hi",  "pct_copy",  "verdict"};
#define NCOLS (sizeof columns / sizeof columns[0])

const char *confirm_verdict(double lo, double hi, double margin)
{
    if (lo > 1.0 + margin) return "faster";
    if (hi < 1.0 / (1.0 + margin)) return "slower";
    return "tie";
}

void confirm_write_header(FILE *f)
{
    for (size_t i = 0; i < NCOLS; i++) fprintf(f, "%s%s", i ? "," : "", columns[i]);
    fputc('\n', f);
}

void confirm_write_line(FILE *f, const confirm_line *l)
{
    const char *text[] = {l->kind, l->dtype, l->op, l->scan_mode};
    for (size_t i = 0; i < 4; i++) {
        csv_put_text(f, text[i]);
        fputc(',', f);
    }
    fprintf(f, "%zu,", l->n);
    csv_put_text(f, l->phase);
    fputc(',', f);
    csv_put_text(f, l->variant);
    fputc(',', f);
    csv_put_text(f, l->config);
    fputc(',', f);
    csv_put_text(f, l->role);
    fprintf(f, ",%u,", l->rounds);
    const double num[] = {l->median_ms, l->speedup, l->ci_lo, l->ci_hi, l->pct_copy};
    for (size_t i = 0; i < 5; i++) {
        csv_put_num(f, num[i]);
        fputc(',', f);
    }
    csv_put_text(f, l->verdict);
    fputc('\n', f);
}

static double num_or_nan(const char *s)
{
    if (!*s) return NAN;
    char *end;
    double x = strtod(s, &end);
    return *end ? NAN : x;
}

static void parse_line(char **f, const int *col, confirm_line *l)
{
    memset(l, 0, sizeof *l);
    snprintf(l->kind, sizeof l->kind, "%s", f[col[0]]);
    snprintf(l->dtype, sizeof l->dtype, "%s", f[col[1]]);
    snprintf(l->op, sizeof l->op, "%s", f[col[2]]);
    snprintf(l->scan_mode, sizeof l->scan_mode, "%s", f[col[3]]);
    l->n = (size_t)strtoull(f[col[4]], NULL, 10);
    snprintf(l->phase, sizeof l->phase, "%s", f[col[5]]);
    snprintf(l->variant, sizeof l->variant, "%s", f[col[6]]);
    snprintf(l->config, sizeof l->config, "%s", f[col[7]]);
    snprintf(l->role, sizeof l->role, "%s", f[col[8]]);
    l->rounds = (unsigned)strtoul(f[col[9]], NULL, 10);
    l->median_ms = num_or_nan(f[col[10]]);
    l->speedup = num_or_nan(f[col[11]]);
    l->ci_lo = num_or_nan(f[col[12]]);
    l->ci_hi = num_or_nan(f[col[13]]);
    l->pct_copy = num_or_nan(f[col[14]]);
    snprintf(l->verdict, sizeof l->verdict, "%s", f[col[15]]);
}

int confirm_read_csv(const char *path, confirm_line **lines, size_t *count, char *err, size_t errlen)
{
    *lines = NULL;
    *count = 0;
    if (!csv_exists(path)) return 1; /* neither confirm.csv nor confirm.csv.gz (sweep pack) */
    csv_table t;
    if (csv_read_file(path, &t, err, errlen)) return -1;
    int col[NCOLS];
    for (size_t i = 0; i < NCOLS; i++)
        if ((col[i] = csv_column(&t, columns[i])) < 0) {
            snprintf(err, errlen, "%s: no column '%s'", path, columns[i]);
            csv_free(&t);
            return -1;
        }
    *lines = calloc(t.nrows ? t.nrows : 1, sizeof **lines);
    if (!*lines) {
        snprintf(err, errlen, "%s: out of memory", path);
        csv_free(&t);
        return -1;
    }
    for (size_t r = 0; r < t.nrows; r++) parse_line(t.rows[r], col, &(*lines)[r]);
    *count = t.nrows;
    csv_free(&t);
    return 0;
}

/* A name's place in its list of known values; unknown names after them all. */
static int name_cmp(const char *a, const char *b, const char *const *known, size_t count)
{
    size_t ra = 0, rb = 0;
    while (ra < count && strcmp(a, known[ra])) ra++;
    while (rb < count && strcmp(b, known[rb])) rb++;
    if (ra != rb) return ra < rb ? -1 : 1;
    return ra < count ? 0 : strcmp(a, b);
}

int confirm_table_cmp(const confirm_line *a, const confirm_line *b)
{
    static const char *const kinds[] = {"reduce", "scan"}, *const dtypes[] = {"f32", "f64", "i32"},
                             *const ops[] = {"sum", "max", "min"}, *const modes[] = {"", "inclusive", "exclusive"};
    int c = name_cmp(a->kind, b->kind, kinds, 2);
    if (!c) c = name_cmp(a->dtype, b->dtype, dtypes, 3);
    if (!c) c = name_cmp(a->op, b->op, ops, 3);
    return c ? c : name_cmp(a->scan_mode, b->scan_mode, modes, 3);
}

static int row_cmp(const void *pa, const void *pb)
{
    const confirm_line *a = *(const confirm_line *const *)pa, *b = *(const confirm_line *const *)pb;
    int c = confirm_table_cmp(a, b);
    if (c) return c;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    return a < b ? -1 : a > b; /* file order: qsort is not stable */
}

size_t confirm_table_rows(const confirm_line *l, size_t n, const confirm_line **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i].role, "library") && !strcmp(l[i].phase, "cold")) out[k++] = &l[i];
    if (k > 1) qsort(out, k, sizeof *out, row_cmp);
    return k;
}

void confirm_format_n(size_t n, char *buf, size_t len)
{
    if (n && !(n & (n - 1))) {
        int k = 0;
        while ((size_t)1 << k != n) k++;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%zu", n);
    }
}

int confirm_label_shape(const char *label, unsigned *block, unsigned *axis, int max)
{
    const char *p = strstr(label, "block=");
    if (!p) return -1;
    *block = (unsigned)strtoul(p + strlen("block="), NULL, 10);
    int k = 0;
    for (p += strcspn(p, " "); *p == ' '; p += strcspn(p, " ")) {
        p++;
        const char *eq = strchr(p, '=');
        if (!eq || eq > p + strcspn(p, " ")) break; /* the finish or scan mode */
        if (k < max) axis[k++] = (unsigned)strtoul(eq + 1, NULL, 10);
    }
    return k;
}

int confirm_label_dims(const char *label, const char *times, char *buf, size_t len)
{
    unsigned block = 0, axis[4];
    int k = confirm_label_shape(label, &block, axis, 4);
    if (len) buf[0] = '\0';
    if (k < 0) return -1;
    size_t used = (size_t)snprintf(buf, len, "%u", block);
    for (int i = 0; i < (k ? k : 1) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%u", times, k ? axis[i] : 1u);
    return 0;
}
