#define _POSIX_C_SOURCE 200809L
#include "harness/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/axes.h"
#include "harness/cpu_baseline.h"
#include "harness/files.h"
#include "kernels/registry.h"

/* ---- rows ----------------------------------------------------------------------------- */

const char *row_status_name(row_status s)
{
    switch (s) {
    case ROW_OK: return "ok";
    case ROW_INVALID: return "invalid";
    case ROW_ERROR: return "error";
    case ROW_SKIPPED: return "skipped";
    }
    return "?";
}

static int row_status_from_name(const char *s)
{
    for (int i = ROW_OK; i <= ROW_SKIPPED; i++)
        if (!strcmp(s, row_status_name((row_status)i))) return i;
    return -1;
}

static void stats_unset(timing_stats *s)
{
    memset(s, 0, sizeof *s);
    s->median = s->min = s->max = s->mean = s->stdev = s->iqr = s->mad = s->noise = NAN;
}

int row_init(sweep_row *r, const sweep_config *c, size_t metric_count)
{
    memset(r, 0, sizeof *r);
    r->cfg = *c;
    r->cfg.skip_reason = NULL;
    r->status = ROW_OK;
    r->validated = -1;
    r->validation_error_abs = r->validation_tolerance_abs = NAN;
    /* A skipped configuration is outside what the variant accepts: no model for it. */
    r->bytes_moved = c->v && c->v->bytes_moved && !c->skip_reason ? c->v->bytes_moved(&c->a) : NAN;
    stats_unset(&r->cold);
    stats_unset(&r->hot);
    r->bw_cold_GBps = r->bw_hot_GBps = r->bw_cold_pct_peak = r->bw_cold_pct_copy = NAN;
    r->speedup_vs_baseline = r->speedup_vs_cub = NAN;
    if (metric_count) {
        r->metrics = malloc(metric_count * sizeof *r->metrics);
        if (!r->metrics) return -1;
        for (size_t i = 0; i < metric_count; i++) r->metrics[i] = NAN;
    }
    return 0;
}

void row_free(sweep_row *r)
{
    free(r->skip_reason);
    free(r->error);
    free(r->metrics);
    r->skip_reason = r->error = NULL;
    r->metrics = NULL;
}

void row_set_error(sweep_row *r, const char *msg)
{
    free(r->error);
    r->error = msg ? strdup(msg) : NULL;
}

void row_set_skip(sweep_row *r, const char *reason)
{
    free(r->skip_reason);
    r->skip_reason = reason ? strdup(reason) : NULL;
    r->status = ROW_SKIPPED;
}

void row_derive_bandwidth(sweep_row *r, double peak_GBps, double copy_GBps)
{
    r->bw_cold_GBps = r->bw_hot_GBps = r->bw_cold_pct_peak = r->bw_cold_pct_copy = NAN;
    if (r->status != ROW_OK || !(r->bytes_moved > 0)) return;
    if (r->cold.samples && r->cold.median > 0) r->bw_cold_GBps = r->bytes_moved / (r->cold.median * 1e-3) / 1e9;
    if (r->hot.samples && r->hot.median > 0) r->bw_hot_GBps = r->bytes_moved / (r->hot.median * 1e-3) / 1e9;
    if (peak_GBps > 0) r->bw_cold_pct_peak = r->bw_cold_GBps / peak_GBps * 100.0;
    if (copy_GBps > 0) r->bw_cold_pct_copy = r->bw_cold_GBps / copy_GBps * 100.0;
}

typedef struct best_key {
    kind_t kind;
    dtype_t dtype;
    op_t op;
    scan_mode_t mode;
    size_t n;
    double base, cub; /* fastest cold medians, NAN if none */
} best_key;

static int same_key(const best_key *k, const sweep_row *r)
{
    const kernel_args *a = &r->cfg.a;
    return k->kind == r->cfg.v->kind && k->dtype == a->dtype && k->op == a->op && k->n == a->n &&
           (k->kind == KIND_REDUCE || k->mode == a->scan_mode);
}

static int timed_ok(const sweep_row *r) { return r->status == ROW_OK && r->cold.samples && r->cold.median > 0; }

void rows_derive_speedups(sweep_row *rows, size_t n)
{
    best_key *keys = NULL;
    size_t nk = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        sweep_row *r = &rows[i];
        r->speedup_vs_baseline = r->speedup_vs_cub = NAN;
        if (!r->cfg.v || !timed_ok(r)) continue;
        const char *name = r->cfg.v->name;
        int kind_scan = r->cfg.v->kind == KIND_SCAN;
        int is_base = !strcmp(name, kind_scan ? SWEEP_BASELINE_SCAN : SWEEP_BASELINE_REDUCE);
        int is_cub = !strcmp(name, kind_scan ? SWEEP_CUB_SCAN : SWEEP_CUB_REDUCE);
        if (!is_base && !is_cub) continue;
        best_key *k = NULL;
        for (size_t j = 0; j < nk && !k; j++)
            if (same_key(&keys[j], r)) k = &keys[j];
        if (!k) {
            if (nk == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                best_key *bigger = realloc(keys, ncap * sizeof *bigger);
                if (!bigger) {
                    free(keys);
                    return;
                }
                keys = bigger;
                cap = ncap;
            }
            k = &keys[nk++];
            *k = (best_key){r->cfg.v->kind, r->cfg.a.dtype, r->cfg.a.op, r->cfg.a.scan_mode, r->cfg.a.n, NAN, NAN};
        }
        double t = r->cold.median;
        if (is_base && !(k->base <= t)) k->base = t;
        if (is_cub && !(k->cub <= t)) k->cub = t;
    }
    for (size_t i = 0; i < n; i++) {
        sweep_row *r = &rows[i];
        if (!r->cfg.v || !timed_ok(r)) continue;
        for (size_t j = 0; j < nk; j++)
            if (same_key(&keys[j], r)) {
                if (keys[j].base > 0) r->speedup_vs_baseline = keys[j].base / r->cold.median;
                if (keys[j].cub > 0) r->speedup_vs_cub = keys[j].cub / r->cold.median;
                break;
            }
    }
    free(keys);
}

/* ---- CSV ----------------------------------------------------------------------------------- */

enum {
    C_VARIANT, C_ALIAS, C_FAMILY, C_KIND, C_DTYPE, C_OP, C_N, C_BLOCK_DIM, C_COARSE, C_FINISH, C_SCAN_MODE,
    C_STATUS, C_SKIP_REASON, C_ERROR, C_VAL_ERR, C_VAL_TOL, C_BYTES,
    C_COLD_MEDIAN, C_COLD_MIN, C_COLD_MEAN, C_COLD_STDEV, C_COLD_IQR, C_COLD_SAMPLES,
    C_HOT_MEDIAN, C_HOT_MIN, C_HOT_MEAN, C_HOT_STDEV, C_HOT_IQR, C_HOT_SAMPLES,
    C_BW_COLD, C_BW_HOT, C_PCT_PEAK, C_PCT_COPY, C_SPEEDUP_BASE, C_SPEEDUP_CUB,
    C_NOISE_COLD, C_NOISE_HOT, C_STOP_COLD, C_STOP_HOT, C_COLD_BATCH, C_HOT_BATCH, C_VALIDATED,
    C_FIXED_COUNT
};

static const char *const column_names[C_FIXED_COUNT] = {
    "variant", "alias", "family", "kind", "dtype", "op", "n", "block_dim", "coarse", "finish", "scan_mode",
    "status", "skip_reason", "error", "validation_error_abs", "validation_tolerance_abs", "bytes_moved",
    "time_cold_median_ms", "time_cold_min_ms", "time_cold_mean_ms", "time_cold_stdev_ms", "time_cold_iqr_ms",
    "samples_cold",
    "time_hot_median_ms", "time_hot_min_ms", "time_hot_mean_ms", "time_hot_stdev_ms", "time_hot_iqr_ms",
    "samples_hot",
    "bw_cold_GBps", "bw_hot_GBps", "bw_cold_pct_peak", "bw_cold_pct_copy", "speedup_vs_baseline",
    "speedup_vs_cub",
    "noise_cold_pct", "noise_hot_pct", "stop_cold", "stop_hot", "cold_batch", "hot_batch", "validated",
};

static void csv_text(FILE *f, const char *s)
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

static void csv_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.10g", x);
}

static void metric_header(char *buf, size_t len, const sweep_metric *m)
{
    snprintf(buf, len, "m:%s[%s]", m->name, m->unit);
}

void csv_write_header(FILE *f, metric_columns mc)
{
    for (int i = 0; i < C_FIXED_COUNT; i++) fprintf(f, "%s%s", i ? "," : "", column_names[i]);
    for (size_t i = 0; i < mc.count; i++) {
        char h[SWEEP_METRIC_NAME_LEN + SWEEP_METRIC_UNIT_LEN + 8];
        metric_header(h, sizeof h, &mc.m[i]);
        fputc(',', f);
        csv_text(f, h);
    }
    fputc('\n', f);
}

void csv_write_row(FILE *f, const sweep_row *r, metric_columns mc)
{
    const variant *v = r->cfg.v;
    const kernel_args *a = &r->cfg.a;
    int scan = v->kind == KIND_SCAN;
    csv_text(f, v->name);
    fputc(',', f);
    csv_text(f, v->alias);
    fputc(',', f);
    csv_text(f, v->family);
    fprintf(f, ",%s,%s,%s,%zu,%u,%u,", kind_name(v->kind), dtype_name(a->dtype), op_name(a->op), a->n, a->block_dim,
            a->coarse);
    if (!scan) fputs(finish_name(a->finish), f);
    fputc(',', f);
    if (scan) fputs(scan_mode_name(a->scan_mode), f);
    fprintf(f, ",%s,", row_status_name(r->status));
    csv_text(f, r->skip_reason);
    fputc(',', f);
    csv_text(f, r->error);
    const double nums[] = {r->validation_error_abs, r->validation_tolerance_abs, r->bytes_moved};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        fputc(',', f);
        csv_num(f, nums[i]);
    }
    const timing_stats *ts[2] = {&r->cold, &r->hot};
    for (int k = 0; k < 2; k++) {
        const timing_stats *s = ts[k];
        const double t[] = {s->median, s->min, s->mean, s->stdev, s->iqr};
        for (int i = 0; i < 5; i++) {
            fputc(',', f);
            if (s->samples) csv_num(f, t[i]);
        }
        fputc(',', f);
        if (s->samples) fprintf(f, "%zu", s->samples);
    }
    const double derived[] = {r->bw_cold_GBps,     r->bw_hot_GBps,         r->bw_cold_pct_peak,
                              r->bw_cold_pct_copy, r->speedup_vs_baseline, r->speedup_vs_cub};
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++) {
        fputc(',', f);
        csv_num(f, derived[i]);
    }
    fputc(',', f);
    if (r->cold.samples) csv_num(f, r->cold.noise * 100.0);
    fputc(',', f);
    if (r->hot.samples) csv_num(f, r->hot.noise * 100.0);
    fprintf(f, ",%s,%s,", r->cold.samples ? timing_stop_name(r->cold.stop) : "",
            r->hot.samples ? timing_stop_name(r->hot.stop) : "");
    if (r->cold.samples && r->cold_batch) fprintf(f, "%u", r->cold_batch);
    fputc(',', f);
    if (r->hot.samples && r->hot_batch) fprintf(f, "%u", r->hot_batch);
    fprintf(f, ",%s", r->validated == 1 ? "yes" : r->validated == 0 ? "no" : "");
    for (size_t i = 0; i < mc.count; i++) {
        fputc(',', f);
        if (r->metrics) csv_num(f, r->metrics[i]);
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

/* ---- reading CSV back --------------------------------------------------------------------- */

typedef struct csv_record {
    char **fields;
    size_t count, cap;
} csv_record;

static void record_clear(csv_record *r)
{
    for (size_t i = 0; i < r->count; i++) free(r->fields[i]);
    r->count = 0;
}

static int record_push(csv_record *r, const char *s, size_t len)
{
    if (r->count == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 64;
        char **bigger = realloc(r->fields, ncap * sizeof *bigger);
        if (!bigger) return -1;
        r->fields = bigger;
        r->cap = ncap;
    }
    char *c = malloc(len + 1);
    if (!c) return -1;
    memcpy(c, s, len);
    c[len] = '\0';
    r->fields[r->count++] = c;
    return 0;
}

/* Parse one record starting at *pos. Returns 1 with a record, 0 at the end or
 * on a torn record (no terminating newline), -1 on memory failure. */
static int next_record(const char *buf, size_t len, size_t *pos, csv_record *rec)
{
    record_clear(rec);
    size_t p = *pos;
    if (p >= len) return 0;
    char *field = malloc(len - p + 1);
    if (!field) return -1;
    for (;;) {
        size_t fl = 0;
        if (p < len && buf[p] == '"') {
            p++;
            for (;;) {
                if (p >= len) {
                    free(field);
                    return 0; /* torn inside quotes */
                }
                if (buf[p] == '"') {
                    if (p + 1 < len && buf[p + 1] == '"') {
                        field[fl++] = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                field[fl++] = buf[p++];
            }
        }
        while (p < len && buf[p] != ',' && buf[p] != '\n') {
            if (buf[p] != '\r') field[fl++] = buf[p];
            p++;
        }
        if (record_push(rec, field, fl)) {
            free(field);
            return -1;
        }
        if (p >= len) {
            free(field);
            return 0; /* no newline: torn */
        }
        if (buf[p] == '\n') {
            p++;
            break;
        }
        p++; /* comma */
    }
    free(field);
    *pos = p;
    return 1;
}

static double parse_num(const char *s, int *bad)
{
    if (!*s) return NAN;
    char *end;
    double x = strtod(s, &end);
    if (*end) *bad = 1;
    return x;
}

#define PARSE_UNKNOWN_VARIANT 1 /* parse_row: a well-formed row of a variant this build lacks */

/* Remember a row of a variant this build does not know (compare lists them apart). */
static void note_unknown(results_file *skip, const char *name)
{
    char *list = skip->unknown_variants;
    size_t n = strlen(name), used = strlen(list);
    skip->unknown_rows++;
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 2 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || !p[n])) return;
    snprintf(list + used, sizeof skip->unknown_variants - used, "%s%s", used ? ", " : "", name);
}

static int parse_row(csv_record *rec, metric_columns mc, sweep_row *r, char *err, size_t errlen)
{
    char **f = rec->fields;
    const variant *v = !strcmp(f[C_VARIANT], cpu_serial_variant.name) ? &cpu_serial_variant : registry_find(f[C_VARIANT]);
    if (!v || strcmp(v->name, f[C_VARIANT])) {
        snprintf(err, errlen, "unknown variant '%s' (not in this build)", f[C_VARIANT]);
        return PARSE_UNKNOWN_VARIANT;
    }
    sweep_config c;
    memset(&c, 0, sizeof c);
    c.v = v;
    int d = dtype_from_name(f[C_DTYPE]), o = op_from_name(f[C_OP]);
    int st = row_status_from_name(f[C_STATUS]);
    if (d < 0 || o < 0 || st < 0) {
        snprintf(err, errlen, "bad dtype, op or status ('%s', '%s', '%s')", f[C_DTYPE], f[C_OP], f[C_STATUS]);
        return -1;
    }
    c.a.dtype = (dtype_t)d;
    c.a.op = (op_t)o;
    char *end;
    c.a.n = strtoull(f[C_N], &end, 10);
    unsigned long bd = strtoul(f[C_BLOCK_DIM], &end, 10), cf = strtoul(f[C_COARSE], &end, 10);
    c.a.block_dim = (unsigned)bd;
    c.a.coarse = (unsigned)cf;
    if (v->kind == KIND_SCAN) {
        int m = scan_mode_from_name(f[C_SCAN_MODE]);
        if (m < 0) {
            snprintf(err, errlen, "bad scan_mode '%s'", f[C_SCAN_MODE]);
            return -1;
        }
        c.a.scan_mode = (scan_mode_t)m;
        c.a.finish = FINISH_NONE;
    } else {
        int fi = finish_from_name(f[C_FINISH]);
        if (fi < 0) {
            snprintf(err, errlen, "bad finish '%s'", f[C_FINISH]);
            return -1;
        }
        c.a.finish = (finish_t)fi;
        c.a.scan_mode = SCAN_INCLUSIVE;
    }
    if (row_init(r, &c, mc.count)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->status = (row_status)st;
    if (f[C_SKIP_REASON][0]) r->skip_reason = strdup(f[C_SKIP_REASON]);
    if (f[C_ERROR][0]) r->error = strdup(f[C_ERROR]);
    int bad = 0;
    r->validation_error_abs = parse_num(f[C_VAL_ERR], &bad);
    r->validation_tolerance_abs = parse_num(f[C_VAL_TOL], &bad);
    r->bytes_moved = parse_num(f[C_BYTES], &bad);
    timing_stats *ts[2] = {&r->cold, &r->hot};
    int base[2] = {C_COLD_MEDIAN, C_HOT_MEDIAN};
    int noise[2] = {C_NOISE_COLD, C_NOISE_HOT};
    int stop[2] = {C_STOP_COLD, C_STOP_HOT};
    for (int k = 0; k < 2; k++) {
        timing_stats *s = ts[k];
        s->median = parse_num(f[base[k]], &bad);
        s->min = parse_num(f[base[k] + 1], &bad);
        s->mean = parse_num(f[base[k] + 2], &bad);
        s->stdev = parse_num(f[base[k] + 3], &bad);
        s->iqr = parse_num(f[base[k] + 4], &bad);
        double samples = parse_num(f[base[k] + 5], &bad);
        s->samples = isfinite(samples) && samples > 0 ? (size_t)samples : 0;
        s->noise = parse_num(f[noise[k]], &bad) / 100.0;
        s->stop = STOP_NONE;
        for (int t = STOP_NOISE; t <= STOP_ERROR; t++)
            if (!strcmp(f[stop[k]], timing_stop_name((timing_stop)t))) s->stop = (timing_stop)t;
    }
    r->validated = !strcmp(f[C_VALIDATED], "yes") ? 1 : !strcmp(f[C_VALIDATED], "no") ? 0 : -1;
    double cb = parse_num(f[C_COLD_BATCH], &bad);
    r->cold_batch = isfinite(cb) ? (unsigned)cb : 0;
    double hb = parse_num(f[C_HOT_BATCH], &bad);
    r->hot_batch = isfinite(hb) ? (unsigned)hb : 0;
    r->bw_cold_GBps = parse_num(f[C_BW_COLD], &bad);
    r->bw_hot_GBps = parse_num(f[C_BW_HOT], &bad);
    r->bw_cold_pct_peak = parse_num(f[C_PCT_PEAK], &bad);
    r->bw_cold_pct_copy = parse_num(f[C_PCT_COPY], &bad);
    r->speedup_vs_baseline = parse_num(f[C_SPEEDUP_BASE], &bad);
    r->speedup_vs_cub = parse_num(f[C_SPEEDUP_CUB], &bad);
    for (size_t i = 0; i < mc.count; i++) r->metrics[i] = parse_num(f[C_FIXED_COUNT + i], &bad);
    if (bad) {
        row_free(r);
        snprintf(err, errlen, "a number does not parse");
        return -1;
    }
    return 0;
}

/* The whole file in a malloc'd buffer; NULL with a message. */
static char *slurp(const char *path, size_t *len_out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) snprintf(err, errlen, "%s: out of memory", path);
    *len_out = len;
    return buf;
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

/* The metric columns of a header whose fixed columns are this build's: each
 * further field must be m:<name>[<unit>]. Returns the header's length, or 0
 * with a message. */
static size_t header_metrics(const char *path, const char *buf, size_t len, sweep_metric **out, size_t *count,
                             char *err, size_t errlen)
{
    *out = NULL;
    *count = 0;
    metric_columns none = {NULL, 0};
    char *fixed = NULL;
    size_t fixed_len = 0;
    FILE *m = open_memstream(&fixed, &fixed_len);
    if (m) {
        csv_write_header(m, none);
        fclose(m);
    }
    /* the fixed part without its newline, then ',' or the end of the line */
    size_t fl = fixed ? fixed_len - 1 : 0;
    int ok = fixed && len > fl && !memcmp(buf, fixed, fl) && (buf[fl] == ',' || buf[fl] == '\n');
    free(fixed);
    if (!ok) {
        header_mismatch(path, buf, len, err, errlen);
        return 0;
    }
    csv_record rec = {0};
    size_t pos = 0;
    if (next_record(buf, len, &pos, &rec) != 1) {
        snprintf(err, errlen, "%s: the header line is cut off", path);
        goto fail;
    }
    size_t nm = rec.count - C_FIXED_COUNT;
    *out = calloc(nm ? nm : 1, sizeof **out);
    if (!*out) goto fail;
    for (size_t i = 0; i < nm; i++) {
        const char *h = rec.fields[C_FIXED_COUNT + i];
        const char *lb = strrchr(h, '['), *end = h + strlen(h);
        if (strncmp(h, "m:", 2) || !lb || lb == h + 2 || end[-1] != ']' ||
            (size_t)(lb - h - 2) >= SWEEP_METRIC_NAME_LEN || (size_t)(end - lb - 2) >= SWEEP_METRIC_UNIT_LEN) {
            snprintf(err, errlen, "%s: column %zu '%.100s' is not a metric column m:<name>[<unit>]", path,
                     C_FIXED_COUNT + i + 1, h);
            free(*out);
            *out = NULL;
            goto fail;
        }
        memcpy((*out)[i].name, h + 2, (size_t)(lb - h - 2));
        memcpy((*out)[i].unit, lb + 1, (size_t)(end - lb - 2));
    }
    *count = nm;
    record_clear(&rec);
    free(rec.fields);
    return pos;
fail:
    if (!err[0]) snprintf(err, errlen, "%s: out of memory", path);
    record_clear(&rec);
    free(rec.fields);
    return 0;
}

/* Rows from buf[pos..len) with mc's metric columns. A torn last line is
 * dropped and counted in *torn. */
static int parse_rows(const char *path, const char *buf, size_t len, size_t pos, metric_columns mc,
                      sweep_row **rows_out, size_t *count_out, int *torn, results_file *skip, char *err,
                      size_t errlen)
{
    csv_record rec = {0};
    size_t line = 2, rcap = 0, nrows = 0;
    sweep_row *rows = NULL;
    int r;
    size_t want = C_FIXED_COUNT + mc.count;
    while ((r = next_record(buf, len, &pos, &rec)) == 1) {
        if (rec.count == 1 && rec.fields[0][0] == '\0') {
            line++;
            continue; /* blank line */
        }
        if (rec.count != want) {
            snprintf(err, errlen, "%s: row %zu has %zu fields, expected %zu", path, line, rec.count, want);
            goto fail_rows;
        }
        if (nrows == rcap) {
            size_t ncap = rcap ? rcap * 2 : 256;
            sweep_row *bigger = realloc(rows, ncap * sizeof *bigger);
            if (!bigger) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail_rows;
            }
            rows = bigger;
            rcap = ncap;
        }
        char msg[256];
        int bad = parse_row(&rec, mc, &rows[nrows], msg, sizeof msg);
        if (bad == PARSE_UNKNOWN_VARIANT && skip) {
            note_unknown(skip, rec.fields[C_VARIANT]);
            line++;
            continue;
        }
        if (bad) {
            snprintf(err, errlen, "%s: row %zu: %s", path, line, msg);
            goto fail_rows;
        }
        nrows++;
        line++;
    }
    if (r < 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail_rows;
    }
    *torn = pos < len; /* next_record stopped short of the end: a line without its newline */
    record_clear(&rec);
    free(rec.fields);
    *rows_out = rows;
    *count_out = nrows;
    return 0;
fail_rows:
    for (size_t i = 0; i < nrows; i++) row_free(&rows[i]);
    free(rows);
    record_clear(&rec);
    free(rec.fields);
    return -1;
}

int results_read_csv(const char *path, metric_columns mc, sweep_row **rows_out, size_t *count_out, char *err,
                     size_t errlen)
{
    *rows_out = NULL;
    *count_out = 0;
    size_t len;
    char *buf = slurp(path, &len, err, errlen);
    if (!buf) return -1;
    /* The header this build writes, to compare with. */
    char *expect = NULL;
    size_t expect_len = 0;
    FILE *m = open_memstream(&expect, &expect_len);
    if (m) {
        csv_write_header(m, mc);
        fclose(m);
    }
    int rc = -1, torn = 0;
    if (!expect || len < expect_len || memcmp(buf, expect, expect_len) != 0) header_mismatch(path, buf, len, err, errlen);
    else rc = parse_rows(path, buf, len, expect_len, mc, rows_out, count_out, &torn, NULL, err, errlen);
    free(expect);
    free(buf);
    return rc;
}

int results_read_csv_any(const char *path, results_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    size_t len;
    char *buf = slurp(path, &len, err, errlen);
    if (!buf) return -1;
    size_t pos = header_metrics(path, buf, len, &out->metrics, &out->metric_count, err, errlen);
    int rc = -1;
    if (pos) {
        metric_columns mc = {out->metrics, out->metric_count};
        rc = parse_rows(path, buf, len, pos, mc, &out->rows, &out->count, &out->torn, out, err, errlen);
    }
    free(buf);
    if (rc) results_file_free(out);
    return rc;
}

void results_file_free(results_file *f)
{
    for (size_t i = 0; i < f->count; i++) row_free(&f->rows[i]);
    free(f->rows);
    free(f->metrics);
    memset(f, 0, sizeof *f);
}

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
    sample_series *s = f->n ? &f->s[f->n - 1] : NULL;
    if (idx == 0) s = series_push(f, fld[2], hot, (unsigned)batch);
    else if (!s || strcmp(s->label, fld[2]) || s->hot != hot || s->n != idx) {
        snprintf(msg, len, "sample %lu of '%.200s' does not follow sample %lu of it", idx, fld[2], idx - 1);
        return -1;
    }
    if (!s || series_add(s, ms)) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    return 0;
}

int samples_read_csv(const char *path, samples_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len, hl = strlen(samples_header);
    char *buf = slurp(path, &len, err, errlen);
    if (!buf) return -1;
    int rc = -1;
    if (len < hl || memcmp(buf, samples_header, hl)) {
        snprintf(err, errlen, "%s: %s", path, len ? "its header is not samples.csv's (variant,n,config,phase,batch,sample,time_ms)" : "empty file (no header)");
        goto out;
    }
    csv_record rec = {0};
    size_t pos = hl, line = 2;
    int r;
    while ((r = next_record(buf, len, &pos, &rec)) == 1) {
        char msg[400];
        if (rec.count == 1 && !rec.fields[0][0]) {
            line++;
            continue;
        }
        if (rec.count != 7) snprintf(msg, sizeof msg, "%zu fields, expected 7", rec.count);
        if (rec.count != 7 || samples_line(out, rec.fields, msg, sizeof msg)) {
            snprintf(err, errlen, "%s: line %zu: %s", path, line, msg);
            break;
        }
        line++;
    }
    if (r == 0 && pos < len) snprintf(err, errlen, "%s: line %zu is cut off (no newline): truncated", path, line);
    else if (r == 0) rc = 0;
    else if (r < 0) snprintf(err, errlen, "%s: out of memory", path);
    record_clear(&rec);
    free(rec.fields);
out:
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

/* ---- run.json ---------------------------------------------------------------------------------- */

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *run_json(const run_info *ri)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema_version", json_integer(SWEEP_SCHEMA_VERSION));
    json_t *argv = json_array();
    for (int i = 0; i < ri->argc; i++) json_array_append_new(argv, json_string(ri->argv[i]));
    json_object_set_new(o, "argv", argv);
    json_object_set_new(o, "git_sha", json_string(ri->git_sha[0] ? ri->git_sha : "unknown"));
    json_object_set_new(o, "git_dirty", ri->git_dirty < 0 ? json_null() : json_boolean(ri->git_dirty));
    json_object_set_new(o, "date", json_string(ri->date));
    json_object_set_new(o, "host", json_string(ri->host));
    json_object_set_new(o, "experiment", json_string(ri->experiment));
    json_object_set_new(o, "experiment_source", json_string(ri->experiment_source));
    if (ri->have_device) {
        const device_info *d = &ri->device;
        json_t *dev = json_object();
        char sm[16];
        snprintf(sm, sizeof sm, "%d.%d", d->sm_major, d->sm_minor);
        json_object_set_new(dev, "name", json_string(d->name));
        json_object_set_new(dev, "sm", json_string(sm));
        json_object_set_new(dev, "sm_count", json_integer(d->sm_count));
        json_object_set_new(dev, "l2_bytes", json_integer((json_int_t)d->l2_bytes));
        json_object_set_new(dev, "global_mem_bytes", json_integer((json_int_t)d->global_mem_bytes));
        json_object_set_new(dev, "sm_clock_khz", json_integer(d->sm_clock_khz));
        json_object_set_new(dev, "mem_clock_khz", json_integer(d->mem_clock_khz));
        json_object_set_new(dev, "mem_bus_bits", json_integer(d->mem_bus_bits));
        json_object_set_new(dev, "ordinal", json_integer(d->ordinal));
        json_object_set_new(o, "device", dev);
        json_object_set_new(o, "driver_version", json_integer(d->driver_version));
        json_object_set_new(o, "runtime_version", json_integer(d->runtime_version));
    } else {
        json_object_set_new(o, "device", json_null());
        json_object_set_new(o, "driver_version", json_null());
        json_object_set_new(o, "runtime_version", json_null());
    }
    json_object_set_new(o, "fake_device", json_boolean(ri->fake_device));
    json_object_set_new(o, "peak_bandwidth_GBps", num_or_null(ri->peak_bandwidth_GBps));
    json_object_set_new(o, "copy_bandwidth_GBps", num_or_null(ri->copy_bandwidth_GBps));
    json_t *metrics = json_array(), *units = json_array();
    for (size_t i = 0; i < ri->metrics.count; i++) {
        json_array_append_new(metrics, json_string(ri->metrics.m[i].name));
        json_array_append_new(units, json_string(ri->metrics.m[i].unit));
    }
    json_object_set_new(o, "metrics", metrics);
    json_object_set_new(o, "metric_units", units);
    json_object_set_new(o, "profiler_passes", json_integer(ri->profiler_passes));
    json_object_set_new(o, "profiler_status", json_string(ri->profiler_status));
    if (ri->exp) {
        const experiment *e = ri->exp;
        json_t *t = json_object();
        json_object_set_new(t, "min_samples", json_integer(e->timing.min_samples));
        json_object_set_new(t, "max_samples", json_integer(e->timing.max_samples));
        json_object_set_new(t, "max_noise_pct", json_real(e->timing.max_noise * 100));
        json_object_set_new(t, "timeout_s", json_real(e->timing.timeout_s));
        json_object_set_new(t, "noise",
                            json_string("relative standard error of the median: 1.2533 * 1.4826 * MAD / "
                                        "(median * sqrt(samples))"));
        json_object_set_new(t, "cold", json_string("before each sample, 2x L2 bytes of clean scratch read (the L2 "
                                                   "flush, outside the events); then cold_batch launches, each on its "
                                                   "own copy of the input (copies reused only after 2x L2 bytes of "
                                                   "other inputs were read)"));
        json_object_set_new(t, "hot", json_string("untimed launches for WARM_TARGET_MS first; then hot_batch "
                                                  "back-to-back launches per sample, same buffers"));
        json_object_set_new(t, "batches", json_string("every timed batch queued behind a spinning kernel and released "
                                                      "once queued: the events time the GPU, not the launch rate"));
        char spread[200];
        snprintf(spread, sizeof spread,
                 "a measurement whose stdev/median exceeds %.1f %% is taken again with twice the batch, up to %d "
                 "times; the row has the last",
                 SAMPLE_MAX_SPREAD * 100, SAMPLE_SPREAD_RETRIES);
        json_object_set_new(t, "spread", json_string(spread));
        json_object_set_new(t, "warm_ms", json_real(WARM_TARGET_MS));
        json_object_set_new(t, "sample_target_ms", json_real(SAMPLE_TARGET_MS));
        json_object_set_new(o, "timing", t);
        json_object_set_new(o, "seed", json_integer((json_int_t)e->seed));
    }
    json_t *plan = json_object();
    json_object_set_new(plan, "configurations", json_integer((json_int_t)ri->plan_configs));
    json_object_set_new(plan, "skipped", json_integer((json_int_t)ri->plan_skipped));
    json_object_set_new(o, "plan", plan);
    json_object_set_new(o, "interrupted", json_boolean(ri->interrupted));
    json_object_set_new(o, "complete", json_boolean(ri->complete));
    json_object_set_new(o, "stop_reason", ri->stop_reason[0] ? json_string(ri->stop_reason) : json_null());
    json_object_set_new(o, "rows", json_integer((json_int_t)ri->rows));
    json_object_set_new(o, "failures", json_integer((json_int_t)ri->failures));
    json_object_set_new(o, "skipped", json_integer((json_int_t)ri->skipped));
    json_object_set_new(o, "wall_time_s", json_real(ri->wall_time_s));
    return o;
}

static int render_json(FILE *f, void *ctx)
{
    json_t *o = ctx;
    if (json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) return -1;
    fputc('\n', f);
    return 0;
}

int run_json_write(const char *path, const run_info *ri, char *err, size_t errlen)
{
    json_t *o = run_json(ri);
    if (!o) {
        snprintf(err, errlen, "out of memory building run.json");
        return -1;
    }
    int r = write_file_atomic(path, render_json, o, err, errlen);
    json_decref(o);
    return r;
}

int run_json_read_identity(const char *path, char *experiment, size_t len, int *schema_version, char *err,
                           size_t errlen)
{
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) {
        snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    json_t *v = json_object_get(o, "schema_version");
    json_t *e = json_object_get(o, "experiment");
    if (!json_is_integer(v) || !json_is_string(e)) {
        snprintf(err, errlen, "%s: no schema_version or experiment", path);
        json_decref(o);
        return -1;
    }
    *schema_version = (int)json_integer_value(v);
    snprintf(experiment, len, "%s", json_string_value(e));
    json_decref(o);
    return 0;
}

/* ---- summary ------------------------------------------------------------------------------------ */

static void md_text(FILE *f, const char *s)
{
    for (const char *c = s ? s : ""; *c; c++) {
        if (*c == '|') fputs("\\|", f);
        else if (*c == '\n' || *c == '\r') fputc(' ', f);
        else fputc(*c, f);
    }
}

static void md_ratio(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, " %.2fx |", x);
    else fputs(" |", f);
}

static int same_group(const sweep_row *a, const sweep_row *b)
{
    const variant *va = a->cfg.v, *vb = b->cfg.v;
    if (va->kind != vb->kind || a->cfg.a.dtype != b->cfg.a.dtype || a->cfg.a.op != b->cfg.a.op) return 0;
    return va->kind == KIND_REDUCE || a->cfg.a.scan_mode == b->cfg.a.scan_mode;
}

void summary_print(FILE *f, const sweep_row *rows, size_t n, const run_info *ri)
{
    size_t ok = 0, invalid = 0, error = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        switch (rows[i].status) {
        case ROW_OK: ok++; break;
        case ROW_INVALID: invalid++; break;
        case ROW_ERROR: error++; break;
        case ROW_SKIPPED: skipped++; break;
        }
    }
    fprintf(f, "# Sweep %s%s\n\n", ri ? ri->experiment : "", ri && ri->interrupted ? " (interrupted)" : "");
    if (ri && ri->have_device) {
        fprintf(f, "%s, peak %.0f GB/s", ri->device.name, ri->peak_bandwidth_GBps);
        if (isfinite(ri->copy_bandwidth_GBps)) fprintf(f, ", measured copy %.0f GB/s", ri->copy_bandwidth_GBps);
        fprintf(f, ".\n\n");
    }
    fprintf(f, "## Best configuration per n (cold median)\n");
    /* Groups in order of first appearance; sizes ascending within each. */
    unsigned char *done = calloc(n ? n : 1, 1);
    for (size_t g = 0; g < n && done; g++) {
        if (done[g] || !timed_ok(&rows[g])) continue;
        const sweep_row *lead = &rows[g];
        const variant *lv = lead->cfg.v;
        fprintf(f, "\n### %s %s %s%s%s\n\n", kind_name(lv->kind), dtype_name(lead->cfg.a.dtype),
                op_name(lead->cfg.a.op), lv->kind == KIND_SCAN ? " " : "",
                lv->kind == KIND_SCAN ? scan_mode_name(lead->cfg.a.scan_mode) : "");
        fprintf(f, "| n | best variant | block | coarse | %s | cold median (ms) | GB/s | %% peak | vs baseline | vs "
                   "CUB |\n",
                lv->kind == KIND_SCAN ? "mode" : "finish");
        fprintf(f, "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
        for (;;) {
            /* The smallest n not printed yet in this group. */
            size_t nmin = (size_t)-1;
            for (size_t i = g; i < n; i++)
                if (!done[i] && timed_ok(&rows[i]) && same_group(&rows[i], lead) && rows[i].cfg.a.n < nmin)
                    nmin = rows[i].cfg.a.n;
            if (nmin == (size_t)-1) break;
            const sweep_row *best = NULL;
            for (size_t i = g; i < n; i++) {
                if (done[i] || !timed_ok(&rows[i]) || !same_group(&rows[i], lead) || rows[i].cfg.a.n != nmin)
                    continue;
                done[i] = 1;
                if (!best || rows[i].cold.median < best->cold.median) best = &rows[i];
            }
            char ns[32];
            format_size(best->cfg.a.n, ns, sizeof ns);
            const kernel_args *a = &best->cfg.a;
            fprintf(f, "| %s | %s | %u | %u | %s | %.4g | %.1f | %.1f |", ns, best->cfg.v->name, a->block_dim,
                    a->coarse, best->cfg.v->kind == KIND_SCAN ? scan_mode_name(a->scan_mode) : finish_name(a->finish),
                    best->cold.median, best->bw_cold_GBps, best->bw_cold_pct_peak);
            md_ratio(f, best->speedup_vs_baseline);
            md_ratio(f, best->speedup_vs_cub);
            fputc('\n', f);
        }
    }
    free(done);
    if (!ok) fprintf(f, "\nNo configuration was timed.\n");
    if (invalid + error) {
        fprintf(f, "\n## Failures (%zu)\n\n| configuration | status | error |\n|---|---|---|\n", invalid + error);
        for (size_t i = 0; i < n; i++) {
            if (rows[i].status != ROW_INVALID && rows[i].status != ROW_ERROR) continue;
            char label[256];
            config_label(&rows[i].cfg, label, sizeof label);
            fprintf(f, "| %s | %s | ", label, row_status_name(rows[i].status));
            md_text(f, rows[i].error);
            fprintf(f, " |\n");
        }
    }
    fprintf(f, "\n%zu rows: %zu ok, %zu invalid, %zu error, %zu skipped.\n", n, ok, invalid, error, skipped);
}

typedef struct summary_job {
    const sweep_row *rows;
    size_t n;
    const run_info *ri;
} summary_job;

static int render_summary(FILE *f, void *ctx)
{
    summary_job *j = ctx;
    summary_print(f, j->rows, j->n, j->ri);
    return ferror(f) ? -1 : 0;
}

int summary_write(const char *path, const sweep_row *rows, size_t n, const run_info *ri, char *err, size_t errlen)
{
    summary_job j = {rows, n, ri};
    return write_file_atomic(path, render_summary, &j, err, errlen);
}
