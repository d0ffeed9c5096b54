/* The columns table of results.csv (results_columns.h): one entry a column,
 * built from the shared list of columns (results_io/columns.def). */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/results_columns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/axes.h"
#include "harness/backend/cpu_baseline.h"
#include "kernels/registry.h"
#include "results_io/columns.h"
#include "results_io/csv.h"

#define FIELD(r, c, type) ((type *)((char *)(r) + (c)->off))
#define CFIELD(r, c, type) ((const type *)((const char *)(r) + (c)->off))
#define STATS(r, c) ((const timing_stats *)((const char *)(r) + (c)->soff))

static int is_scan(const sweep_row *r) { return r->cfg.v->kind == KIND_SCAN; }

/* ---- writers ------------------------------------------------------------------------ */

static void w_variant(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    csv_put_text(f, r->plain.cfg.variant);
}

static void w_alias(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    csv_put_text(f, r->plain.cfg.alias);
}

static void w_family(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    csv_put_text(f, r->plain.cfg.family);
}

static void w_kind(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->plain.cfg.kind, f);
}

static void w_dtype(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->plain.cfg.dtype, f);
}

static void w_op(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->plain.cfg.op, f);
}

static void w_n(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fprintf(f, "%llu", r->plain.cfg.n);
}

/* The configuration's numbers from the plain row (their readers fill cfg,
 * which row_init copies into the plain row). */
static void w_block(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fprintf(f, "%ld", r->plain.cfg.block_dim);
}

static void w_coarse(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fprintf(f, "%ld", r->plain.cfg.axis[0]);
}

/* "items_per_thread=4" ("a=2;b=4"): the variant's own axes; "" where none. */
static void w_axes(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    char buf[128];
    results_row_axes_text(&r->plain.cfg, ";", buf, sizeof buf);
    fputs(buf, f);
}

static void w_finish(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->plain.cfg.finish, f);
}

static void w_mode(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->plain.cfg.scan_mode, f);
}

static void w_status(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->plain.status, f);
}

static void w_text(FILE *f, const sweep_row *r, const results_column *c) { csv_put_text(f, *CFIELD(r, c, char *const)); }

/* A figure stored VALUE: off is its RC_<ID>. */
static void w_value(FILE *f, const sweep_row *r, const results_column *c) { csv_put_num(f, r->plain.values[c->off]); }

/* A figure of a timing measurement: empty when it has no samples. */
static void w_stat(FILE *f, const sweep_row *r, const results_column *c)
{
    if (STATS(r, c)->samples) csv_put_num(f, *CFIELD(r, c, double) * c->scale);
}

static void w_samples(FILE *f, const sweep_row *r, const results_column *c)
{
    if (STATS(r, c)->samples) fprintf(f, "%zu", STATS(r, c)->samples);
}

static void w_stop(FILE *f, const sweep_row *r, const results_column *c)
{
    if (STATS(r, c)->samples) fputs(timing_stop_name(STATS(r, c)->stop), f);
}

static void w_batch(FILE *f, const sweep_row *r, const results_column *c)
{
    if (STATS(r, c)->samples && *CFIELD(r, c, unsigned)) fprintf(f, "%u", *CFIELD(r, c, unsigned));
}

/* A count of a timing measurement (throttled samples): empty when it has no samples. */
static void w_stat_count(FILE *f, const sweep_row *r, const results_column *c)
{
    if (STATS(r, c)->samples) fprintf(f, "%u", *CFIELD(r, c, unsigned));
}

/* A text held in the row itself (char[]): "" is empty. */
static void w_chars(FILE *f, const sweep_row *r, const results_column *c) { csv_put_text(f, CFIELD(r, c, char)); }

static void w_validated(FILE *f, const sweep_row *r, const results_column *c)
{
    (void)c;
    fputs(r->validated == 1 ? "yes" : r->validated == 0 ? "no" : "", f);
}

/* ---- readers ------------------------------------------------------------------------ */

/* NaN for an empty field; -1 when s is not all a number. */
static int parse_num(const char *s, double *x)
{
    *x = NAN;
    if (!*s) return 0;
    char *end;
    *x = strtod(s, &end);
    return *end ? -1 : 0;
}

static int bad_value(char *msg, size_t len, const results_column *c, const char *s)
{
    snprintf(msg, len, "bad %s '%s'", c->name, s);
    return -1;
}

const variant *results_variant_named(const char *s)
{
    const variant *v = !strcmp(s, cpu_serial_variant.name) ? &cpu_serial_variant : registry_find(s);
    return v && !strcmp(v->name, s) ? v : NULL;
}

/* The descriptors of variants this build lacks, made from their rows
 * (results_variant_read): interned by name so that rows of one variant share
 * one, and kept for the process's life as the rows that point at them. */
typedef struct file_variant {
    variant v;
    struct file_variant *next;
} file_variant;
static file_variant *file_variants;

static const variant *file_variant_named(const char *name, const char *alias, const char *family, kind_t kind)
{
    for (file_variant *f = file_variants; f; f = f->next)
        if (!strcmp(f->v.name, name)) return &f->v;
    file_variant *f = calloc(1, sizeof *f);
    char *n = strdup(name), *a = strdup(alias), *fam = strdup(family);
    if (!f || !n || !a || !fam) {
        free(f), free(n), free(a), free(fam);
        return NULL;
    }
    f->v.name = n, f->v.alias = a, f->v.family = fam, f->v.kind = kind;
    f->v.description = "read from a results file: not in this build";
    f->next = file_variants;
    file_variants = f;
    return &f->v;
}

const variant *results_variant_read(const char *name, const char *alias, const char *family, const char *kind,
                                    char *msg, size_t len)
{
    const variant *v = results_variant_named(name);
    if (v) return v;
    kind_t k = !strcmp(kind, "reduce") ? KIND_REDUCE : !strcmp(kind, "scan") ? KIND_SCAN : (kind_t)-1;
    if (k == (kind_t)-1) {
        snprintf(msg, len, "bad kind '%s' of variant '%s'", kind, name);
        return NULL;
    }
    v = file_variant_named(name, alias, family, k);
    if (!v) snprintf(msg, len, "out of memory");
    return v;
}

static int r_variant(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)c;
    const variant *v = results_variant_named(s);
    if (!v) {
        snprintf(msg, len, "unknown variant '%s' (not in this build)", s);
        return -1;
    }
    r->cfg.v = v;
    return 0;
}

static int r_dtype(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    int d = dtype_from_name(s);
    if (d < 0) return bad_value(msg, len, c, s);
    r->cfg.dtype = (dtype_t)d;
    return 0;
}

static int r_op(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    int o = op_from_name(s);
    if (o < 0) return bad_value(msg, len, c, s);
    r->cfg.op = (op_t)o;
    return 0;
}

static int r_n(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)c, (void)msg, (void)len;
    r->cfg.n = strtoull(s, NULL, 10);
    return 0;
}

static int r_uint(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)msg, (void)len;
    *FIELD(r, c, unsigned) = (unsigned)strtoul(s, NULL, 10);
    return 0;
}

/* The own axes back by name: each must be one the row's variant declares. */
static int r_axes(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    for (const char *p = s; *p;) {
        const char *eq = strchr(p, '='), *end = strchr(p, ';');
        if (!end) end = p + strlen(p);
        char name[64];
        if (!eq || eq > end || (size_t)(eq - p) >= sizeof name) return bad_value(msg, len, c, s);
        snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
        int k = variant_axis_index(r->cfg.v, name);
        if (k < 0) {
            snprintf(msg, len, "axes: '%s': %s has no axis of that name", name, r->cfg.v->name);
            return -1;
        }
        r->cfg.axis[k] = (unsigned)strtoul(eq + 1, NULL, 10);
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int r_finish(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    int fi = is_scan(r) ? FINISH_NONE : finish_from_name(s);
    if (fi < 0) return bad_value(msg, len, c, s);
    r->cfg.finish = (finish_t)fi;
    return 0;
}

static int r_mode(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    int m = is_scan(r) ? scan_mode_from_name(s) : SCAN_INCLUSIVE;
    if (m < 0) return bad_value(msg, len, c, s);
    r->cfg.scan_mode = (scan_mode_t)m;
    return 0;
}

static int r_status(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    for (int i = ROW_OK; i <= ROW_SKIPPED; i++)
        if (!strcmp(s, row_status_name((row_status)i))) {
            row_set_status(r, (row_status)i);
            return 0;
        }
    return bad_value(msg, len, c, s);
}

static int r_text(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    char **dst = FIELD(r, c, char *);
    if (!*s) return 0;
    *dst = strdup(s);
    if (*dst) return 0;
    snprintf(msg, len, "out of memory");
    return -1;
}

static int r_num(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    double x;
    if (parse_num(s, &x)) return bad_value(msg, len, c, s);
    *FIELD(r, c, double) = x / c->scale;
    return 0;
}

static int r_value(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    if (parse_num(s, &r->plain.values[c->off])) return bad_value(msg, len, c, s);
    return 0;
}

static int r_samples(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    double x;
    if (parse_num(s, &x)) return bad_value(msg, len, c, s);
    *FIELD(r, c, size_t) = isfinite(x) && x > 0 ? (size_t)x : 0;
    return 0;
}

static int r_stop(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)msg, (void)len;
    timing_stop *stop = FIELD(r, c, timing_stop);
    *stop = STOP_NONE;
    for (int t = STOP_NOISE; t <= STOP_SCREEN; t++)
        if (!strcmp(s, timing_stop_name((timing_stop)t))) *stop = (timing_stop)t;
    return 0;
}

static int r_batch(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    double x;
    if (parse_num(s, &x)) return bad_value(msg, len, c, s);
    *FIELD(r, c, unsigned) = isfinite(x) ? (unsigned)x : 0;
    return 0;
}

static int r_chars(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)c, (void)msg, (void)len;
    snprintf(FIELD(r, c, char), sizeof r->device, "%s", s);
    return 0;
}

static int r_events(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)c, (void)msg, (void)len;
    snprintf(r->clock_events, sizeof r->clock_events, "%s", s);
    return 0;
}

static int r_validated(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len)
{
    (void)c, (void)msg, (void)len;
    r->validated = !strcmp(s, "yes") ? 1 : !strcmp(s, "no") ? 0 : -1;
    return 0;
}

/* ---- summary cells ---------------------------------------------------------------------- */

static void md_n(char *buf, size_t len, const sweep_row *r) { format_size((size_t)r->plain.cfg.n, buf, len); }
static void md_variant(char *buf, size_t len, const sweep_row *r) { snprintf(buf, len, "%s", r->plain.cfg.variant); }
static void md_block(char *buf, size_t len, const sweep_row *r) { snprintf(buf, len, "%ld", r->plain.cfg.block_dim); }
static void md_axes(char *buf, size_t len, const sweep_row *r)
{
    results_row_axes_text(&r->plain.cfg, "; ", buf, len);
}

static void md_finish(char *buf, size_t len, const sweep_row *r)
{
    snprintf(buf, len, "%s", *r->plain.cfg.scan_mode ? r->plain.cfg.scan_mode : r->plain.cfg.finish);
}

static void md_time(char *buf, size_t len, const sweep_row *r) { snprintf(buf, len, "%.4g", r->cold.median); }
static void md_bw(char *buf, size_t len, const sweep_row *r) { snprintf(buf, len, "%.1f", r->plain.values[RC_BW_COLD_GBPS]); }
static void md_peak(char *buf, size_t len, const sweep_row *r) { snprintf(buf, len, "%.1f", r->plain.values[RC_BW_COLD_PCT_PEAK]); }

static void md_ratio(char *buf, size_t len, double x)
{
    if (isfinite(x)) snprintf(buf, len, "%.2fx", x);
    else buf[0] = '\0';
}

static void md_vs_base(char *buf, size_t len, const sweep_row *r) { md_ratio(buf, len, r->plain.values[RC_SPEEDUP_VS_BASELINE]); }
static void md_vs_cub(char *buf, size_t len, const sweep_row *r) { md_ratio(buf, len, r->plain.values[RC_SPEEDUP_VS_CUB]); }

/* ---- the table ---------------------------------------------------------------------------- */

/* One COLUMN_<ID> per line of results_io/columns.def: what follows the name
 * and unit in the column's entry (write, read, config, offset, timing stats,
 * scale, then the summary's position, headings, alignment and cell). */
#define OFF(field) offsetof(sweep_row, field)
/* part of the configuration / a plain field; write, read, offset */
#define CONFIG(w, r, off) w, r, 1, off, 0, 1, 0, NULL, NULL, NULL, NULL
#define PLAIN(w, r, off) w, r, 0, off, 0, 1, 0, NULL, NULL, NULL, NULL
/* a figure of the cold or hot measurement */
#define STAT(st, field, w, r, scale) w, r, 0, OFF(st.field), OFF(st), scale, 0, NULL, NULL, NULL, NULL
/* shown in the summary: position, heading (in scan tables), alignment, cell */
#define MD(pos, head, head_scan, align, cell) pos, head, head_scan, align, cell

#define COLUMN_VARIANT w_variant, r_variant, 1, 0, 0, 1, MD(2, "best variant", NULL, "---", md_variant)
#define COLUMN_ALIAS CONFIG(w_alias, NULL, 0)
#define COLUMN_FAMILY CONFIG(w_family, NULL, 0)
#define COLUMN_KIND CONFIG(w_kind, NULL, 0)
#define COLUMN_DTYPE CONFIG(w_dtype, r_dtype, 0)
#define COLUMN_OP CONFIG(w_op, r_op, 0)
#define COLUMN_N w_n, r_n, 1, 0, 0, 1, MD(1, "n", NULL, "---:", md_n)
#define COLUMN_BLOCK_DIM w_block, r_uint, 1, OFF(cfg.block_dim), 0, 1, MD(3, "block", NULL, "---:", md_block)
#define COLUMN_COARSE CONFIG(w_coarse, r_uint, OFF(cfg.axis[0])) /* schemas 2-4 */
#define COLUMN_AXES w_axes, r_axes, 1, 0, 0, 1, MD(4, "axes", NULL, "---", md_axes)
#define COLUMN_FINISH w_finish, r_finish, 1, 0, 0, 1, MD(5, "finish", "mode", "---", md_finish)
#define COLUMN_SCAN_MODE CONFIG(w_mode, r_mode, 0)
#define COLUMN_STATUS PLAIN(w_status, r_status, 0)
#define COLUMN_SKIP_REASON PLAIN(w_text, r_text, OFF(skip_reason))
#define COLUMN_ERROR PLAIN(w_text, r_text, OFF(error))
#define COLUMN_TIME_COLD_MEDIAN_MS                                                                      \
    w_stat, r_num, 0, OFF(cold.median), OFF(cold), 1, MD(6, "cold median (ms)", NULL, "---:", md_time)
#define COLUMN_SAMPLES_COLD STAT(cold, samples, w_samples, r_samples, 1)
#define COLUMN_SAMPLES_HOT STAT(hot, samples, w_samples, r_samples, 1)
#define COLUMN_BW_COLD_GBPS w_value, r_value, 0, RC_BW_COLD_GBPS, 0, 1, MD(7, "GB/s", NULL, "---:", md_bw)
#define COLUMN_BW_COLD_PCT_PEAK w_value, r_value, 0, RC_BW_COLD_PCT_PEAK, 0, 1, MD(8, "% peak", NULL, "---:", md_peak)
#define COLUMN_SPEEDUP_VS_BASELINE                                                                     \
    w_value, r_value, 0, RC_SPEEDUP_VS_BASELINE, 0, 1, MD(9, "vs baseline", NULL, "---:", md_vs_base)
#define COLUMN_SPEEDUP_VS_CUB w_value, r_value, 0, RC_SPEEDUP_VS_CUB, 0, 1, MD(10, "vs CUB", NULL, "---:", md_vs_cub)
#define COLUMN_NOISE_COLD_PCT STAT(cold, noise, w_stat, r_num, 100.0)
#define COLUMN_NOISE_HOT_PCT STAT(hot, noise, w_stat, r_num, 100.0)
#define COLUMN_STOP_COLD STAT(cold, stop, w_stop, r_stop, 1)
#define COLUMN_STOP_HOT STAT(hot, stop, w_stop, r_stop, 1)
#define COLUMN_COLD_BATCH w_batch, r_batch, 0, OFF(cold_batch), OFF(cold), 1, 0, NULL, NULL, NULL, NULL
#define COLUMN_HOT_BATCH w_batch, r_batch, 0, OFF(hot_batch), OFF(hot), 1, 0, NULL, NULL, NULL, NULL
#define COLUMN_VALIDATED PLAIN(w_validated, r_validated, 0)
#define COLUMN_DEVICE PLAIN(w_chars, r_chars, OFF(device)) /* schema 3 */
/* schema 4 */
#define COLUMN_THROTTLED_COLD STAT(cold, throttled, w_stat_count, r_uint, 1)
#define COLUMN_THROTTLED_HOT STAT(hot, throttled, w_stat_count, r_uint, 1)
#define COLUMN_CLOCK_EVENTS PLAIN(w_chars, r_events, OFF(clock_events))

/* A measured figure's entry by its store (results_io/measures.def): CUSTOM,
 * its COLUMN_<ID> above; VALUE, the number sweep_row.plain.values[RC_<ID>]; COLD
 * and HOT, a field of the row's cold or hot timing_stats. The last three
 * need nothing of their own here. */
#define STORE_CUSTOM(id, field) COLUMN_##id
#define STORE_VALUE(id, field) w_value, r_value, 0, RC_##id, 0, 1, 0, NULL, NULL, NULL, NULL
#define STORE_COLD(id, field) STAT(cold, field, w_stat, r_num, 1)
#define STORE_HOT(id, field) STAT(hot, field, w_stat, r_num, 1)

/* The table: the list's columns in its order, each its name and unit and
 * its COLUMN_<ID> (a list line without one does not compile), or for a
 * figure stored VALUE the generic entry. */
const results_column results_columns[] = {
#define RESULTS_COLUMN(id, name, unit) {name, unit, COLUMN_##id},
#define RESULTS_COLUMN_SCHEMAS(id, name, unit, added, dropped) {name, unit, COLUMN_##id},
#define RESULTS_MEASURE(id, name, unit, schema, store, field, description) {name, unit, STORE_##store(id, field)},
#include "results_io/columns.def"
#undef RESULTS_MEASURE
#undef RESULTS_COLUMN_SCHEMAS
#undef RESULTS_COLUMN
};
_Static_assert(sizeof results_columns / sizeof results_columns[0] == RC_COUNT, "one entry per results_io/columns.def line");

const size_t results_column_count = sizeof results_columns / sizeof results_columns[0];

/* ---- metric columns -------------------------------------------------------------------------- */

void results_metric_header(char *buf, size_t len, const sweep_metric *m)
{
    snprintf(buf, len, "m:%s[%s]", m->name, m->unit);
}

int results_metric_parse(const char *h, sweep_metric *m)
{
    const char *lb = strrchr(h, '['), *end = h + strlen(h);
    if (strncmp(h, "m:", 2) || !lb || lb == h + 2 || end[-1] != ']' ||
        (size_t)(lb - h - 2) >= SWEEP_METRIC_NAME_LEN || (size_t)(end - lb - 2) >= SWEEP_METRIC_UNIT_LEN)
        return -1;
    memset(m, 0, sizeof *m);
    memcpy(m->name, h + 2, (size_t)(lb - h - 2));
    memcpy(m->unit, lb + 1, (size_t)(end - lb - 2));
    return 0;
}
