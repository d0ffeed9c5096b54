/* The derived tables of a run (tables.h): winners, heatmap cells, per-variant
 * medians and the skipped rows counted, from the rows tables_rows.c reads. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/core/files.h"
#include "harness/results/tables_readme.h"
#include "harness/results/tables_rows.h"
#include "results_io/csv.h"

/* README.md's table of them says the same (tables_readme.c). */
const tables_table tables_list[TABLES_COUNT] = {
    {"winners.csv", "input × variant × finish",
     "the fastest ok configuration by cold median (`cold_block_dim`, `cold_axes`, `time_cold_median_ms`, "
     "its noise, stop, GB/s, % of copy, speed-up over CUB) and by hot median (`hot_*`); `rank_cold`, "
     "`rank_hot`: its place among the input's variants and finishes by that time (1: the input's fastest; "
     "equal times share a rank)"},
    {"heatmap.csv", "input × variant × block dim × own axes",
     "each heatmap cell of the report (block dim × coarse factor) at every n: the cell's fastest cold "
     "median and its highest cold GB/s over its finishes, as the report's heatmaps fold them, to 4 "
     "significant digits; ok rows only"},
    {"variant_medians.csv", "input × variant × finish",
     "rows ok, invalid and error; over the ok rows, the median cold and hot median times, GB/s and each "
     "metric column `m:<name>[<unit>]` (the median of the ok rows that have a value; of an even count, the "
     "mean of the middle two), to 4 significant digits"},
    {"skipped.csv", "variant × input without n × skip reason",
     "the skipped rows counted, with the smallest and largest n skipped"},
};
enum { T_WINNERS, T_HEATMAP, T_MEDIANS, T_SKIPPED };

/* The rows of one input, variant and finish: recs[a, b) once sorted by unit. */
typedef struct unit {
    size_t a, b;
    long best[2];      /* the fastest ok record by cold [0] and hot [1] median; -1 none */
    unsigned rank[2];  /* 1 + the input's units strictly faster; 0 none */
} unit;

typedef struct job {
    tables_rows tr;
    unit *units;
    size_t nunits;
    double *scratch; /* one unit's values, for a median */
    tables_written *out;
} job;

/* ---- order ------------------------------------------------------------------------------------ */

static int cmp_size(size_t x, size_t y) { return x < y ? -1 : x > y; }
static int cmp_long(long x, long y) { return x < y ? -1 : x > y; }

static const tables_group *sort_groups; /* qsort has no context argument */

static int by_input_then_n(const void *a, const void *b)
{
    const tables_group *x = &sort_groups[*(const uint32_t *)a], *y = &sort_groups[*(const uint32_t *)b];
    if (x->input != y->input) return x->input < y->input ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* Groups renumbered in output order, each input's n ascending, the inputs
 * in order of first sight (the plan's), so that sorting records by group
 * id sorts them by it. */
static int renumber_groups(tables_rows *tr)
{
    size_t n = tr->group_keys.n;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order), *new_id = malloc((n ? n : 1) * sizeof *new_id);
    tables_group *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!order || !new_id || !sorted) {
        free(order), free(new_id), free(sorted);
        return -1;
    }
    for (uint32_t g = 0; g < n; g++) order[g] = g;
    sort_groups = tr->groups;
    qsort(order, n, sizeof *order, by_input_then_n);
    for (uint32_t k = 0; k < n; k++) new_id[order[k]] = k, sorted[k] = tr->groups[order[k]];
    for (size_t i = 0; i < tr->nrecs; i++) tr->recs[i].group = new_id[tr->recs[i].group];
    free(tr->groups);
    tr->groups = sorted;
    free(order), free(new_id);
    return 0;
}

/* By unit (group, variant, finish), then file order: a unit's first of equals wins. */
static int by_unit(const void *a, const void *b)
{
    const tables_rec *x = a, *y = b;
    int c = cmp_size(x->group, y->group);
    if (!c) c = cmp_size(x->variant, y->variant);
    if (!c) c = cmp_size(x->finish, y->finish);
    return c ? c : cmp_size(x->ordinal, y->ordinal);
}

/* By heatmap cell (group, variant, block dim, own axes), then file order. */
static int by_cell(const void *a, const void *b)
{
    const tables_rec *x = a, *y = b;
    int c = cmp_size(x->group, y->group);
    if (!c) c = cmp_size(x->variant, y->variant);
    if (!c) c = cmp_long(x->block_dim, y->block_dim);
    for (size_t k = 0; !c && k < RESULTS_ROW_AXES; k++) c = cmp_long(x->axis[k], y->axis[k]);
    if (!c) c = cmp_size(x->axes, y->axes);
    return c ? c : cmp_size(x->ordinal, y->ordinal);
}

static int same_unit(const tables_rec *x, const tables_rec *y)
{
    return x->group == y->group && x->variant == y->variant && x->finish == y->finish;
}

static int same_cell(const tables_rec *x, const tables_rec *y)
{
    return x->group == y->group && x->variant == y->variant && x->block_dim == y->block_dim &&
           x->axes == y->axes && !memcmp(x->axis, y->axis, sizeof x->axis);
}

/* ---- units: winners and ranks ---------------------------------------------------------------- */

/* recs[a, b)'s fastest ok record by v[tv] (finite), the first of equals; -1 none. */
static long fastest(const tables_rows *tr, size_t a, size_t b, int tv)
{
    long best = -1;
    for (size_t i = a; i < b; i++) {
        const tables_rec *r = &tr->recs[i];
        if (r->status == TS_OK && isfinite(r->v[tv]) && (best < 0 || r->v[tv] < tr->recs[best].v[tv]))
            best = (long)i;
    }
    return best;
}

/* Each unit's rank among its input's units by the winner's time (phase 0 cold, 1 hot). */
static void rank_units(job *j, int phase)
{
    const tables_rows *tr = &j->tr;
    int tv = phase ? TV_HOT : TV_COLD;
    for (size_t g0 = 0, g1; g0 < j->nunits; g0 = g1) {
        uint32_t group = tr->recs[j->units[g0].a].group;
        for (g1 = g0; g1 < j->nunits && tr->recs[j->units[g1].a].group == group; g1++) continue;
        for (size_t u = g0; u < g1; u++) {
            if (j->units[u].best[phase] < 0) continue;
            double t = tr->recs[j->units[u].best[phase]].v[tv];
            unsigned rank = 1;
            for (size_t o = g0; o < g1; o++)
                if (j->units[o].best[phase] >= 0 && tr->recs[j->units[o].best[phase]].v[tv] < t) rank++;
            j->units[u].rank[phase] = rank;
        }
    }
}

/* The records sorted by unit, cut into units, each with its winners and ranks. */
static int make_units(job *j)
{
    tables_rows *tr = &j->tr;
    qsort(tr->recs, tr->nrecs, sizeof *tr->recs, by_unit);
    j->units = malloc((tr->nrecs ? tr->nrecs : 1) * sizeof *j->units);
    j->scratch = malloc((tr->nrecs ? tr->nrecs : 1) * sizeof *j->scratch);
    if (!j->units || !j->scratch) return -1;
    for (size_t a = 0, b; a < tr->nrecs; a = b) {
        for (b = a + 1; b < tr->nrecs && same_unit(&tr->recs[a], &tr->recs[b]); b++) continue;
        j->units[j->nunits++] = (unit){a, b, {fastest(tr, a, b, TV_COLD), fastest(tr, a, b, TV_HOT)}, {0, 0}};
    }
    rank_units(j, 0);
    rank_units(j, 1);
    return 0;
}

/* ---- writing ---------------------------------------------------------------------------------- */

/* A text cell, or nothing for "" (the empty cell results.csv writes too). */
static void put_text(FILE *f, const char *s)
{
    fputc(',', f);
    csv_put_text(f, s);
}

/* A figure as results.csv writes it (%.10g: a winner's time is its row's to the digit). */
static void put_num(FILE *f, double x)
{
    fputc(',', f);
    csv_put_num(f, x);
}

/* Heatmap cells and medians, to TABLES_DIGITS significant digits (empty when not finite):
 * finer than the heatmap's labels and the 0.5 % noise rule, and the full run's
 * 118,000 cells take about half the bytes gzipped that results.csv's ten digits do. */
#define TABLES_DIGITS 4
static void put_short(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, ",%.*g", TABLES_DIGITS, x);
    else fputc(',', f);
}

static void put_count(FILE *f, size_t x) { fprintf(f, ",%zu", x); }

/* A block dim, empty where the row had none (-1). */
static void put_block(FILE *f, long block_dim)
{
    if (block_dim >= 0) fprintf(f, ",%ld", block_dim);
    else fputc(',', f);
}

/* The input's columns (kind, dtype, op, scan_mode, n) that lead every row but skipped's. */
static void put_input(FILE *f, const tables_rows *tr, uint32_t group)
{
    const tables_group *g = &tr->groups[group];
    csv_put_text(f, tables_name(tr, g->kind));
    put_text(f, tables_name(tr, g->dtype));
    put_text(f, tables_name(tr, g->op));
    put_text(f, tables_name(tr, g->scan_mode));
    fprintf(f, ",%llu", g->n);
}

static const char input_header[] = "kind,dtype,op,scan_mode,n";

/* winners.csv's columns after the unit's, one phase's: what each is, from the record. */
typedef enum { WC_BLOCK, WC_AXES, WC_VALUE, WC_STOP, WC_RANK } wc_what;
typedef struct win_col {
    const char *name; /* NULL: the source column's own name (results_io/columns.def) */
    int phase;        /* 0 cold winner, 1 hot winner */
    wc_what what;
    results_col src;  /* the results.csv column it copies (a file without it: the column left out) */
    int tv;           /* WC_VALUE: the record's figure */
} win_col;

static const win_col win_cols[] = {
    {"cold_block_dim", 0, WC_BLOCK, RC_BLOCK_DIM, 0},
    {"cold_axes", 0, WC_AXES, RC_COUNT, 0},
    {NULL, 0, WC_VALUE, RC_TIME_COLD_MEDIAN_MS, TV_COLD},
    {NULL, 0, WC_VALUE, RC_NOISE_COLD_PCT, TV_NOISE_COLD},
    {NULL, 0, WC_STOP, RC_STOP_COLD, 0},
    {NULL, 0, WC_VALUE, RC_BW_COLD_GBPS, TV_BW_COLD},
    {NULL, 0, WC_VALUE, RC_BW_COLD_PCT_COPY, TV_PCT_COPY},
    {NULL, 0, WC_VALUE, RC_SPEEDUP_VS_CUB, TV_SPEEDUP_CUB},
    {"rank_cold", 0, WC_RANK, RC_COUNT, 0},
    {"hot_block_dim", 1, WC_BLOCK, RC_BLOCK_DIM, 0},
    {"hot_axes", 1, WC_AXES, RC_COUNT, 0},
    {NULL, 1, WC_VALUE, RC_TIME_HOT_MEDIAN_MS, TV_HOT},
    {NULL, 1, WC_VALUE, RC_NOISE_HOT_PCT, TV_NOISE_HOT},
    {NULL, 1, WC_STOP, RC_STOP_HOT, 0},
    {NULL, 1, WC_VALUE, RC_BW_HOT_GBPS, TV_BW_HOT},
    {"rank_hot", 1, WC_RANK, RC_COUNT, 0},
};
#define N_WIN_COLS (sizeof win_cols / sizeof win_cols[0])

/* Is the column written: those that copy a results.csv column only where the file has it. */
static int win_col_on(const tables_rows *tr, const win_col *c)
{
    return c->src == RC_COUNT || c->what == WC_BLOCK || tr->have[c->src];
}

static void put_win_cell(FILE *f, const job *j, const unit *u, const win_col *c)
{
    const tables_rows *tr = &j->tr;
    const tables_rec *r = u->best[c->phase] >= 0 ? &tr->recs[u->best[c->phase]] : NULL;
    if (!r) fputc(',', f);
    else if (c->what == WC_BLOCK) put_block(f, r->block_dim);
    else if (c->what == WC_AXES) put_text(f, tables_name(tr, r->axes));
    else if (c->what == WC_STOP) put_text(f, tables_name(tr, c->phase ? r->stop_hot : r->stop_cold));
    else if (c->what == WC_RANK) put_count(f, u->rank[c->phase]);
    else put_num(f, r->v[c->tv]);
}

/* The unit's leading columns: input, variant, finish. */
static void put_unit(FILE *f, const tables_rows *tr, const unit *u)
{
    const tables_rec *r = &tr->recs[u->a];
    put_input(f, tr, r->group);
    put_text(f, tables_name(tr, r->variant));
    put_text(f, tables_name(tr, r->finish));
}

static size_t count_status(const tables_rows *tr, const unit *u, int status)
{
    size_t n = 0;
    for (size_t i = u->a; i < u->b; i++) n += tr->recs[i].status == status;
    return n;
}

static int render_winners(FILE *f, void *ctx)
{
    job *j = ctx;
    fprintf(f, "%s,variant,finish,rows_ok", input_header);
    for (size_t c = 0; c < N_WIN_COLS; c++)
        if (win_col_on(&j->tr, &win_cols[c]))
            fprintf(f, ",%s", win_cols[c].name ? win_cols[c].name : results_cols[win_cols[c].src].name);
    fputc('\n', f);
    for (size_t k = 0; k < j->nunits; k++) {
        const unit *u = &j->units[k];
        if (u->best[0] < 0 && u->best[1] < 0) continue; /* nothing ok and timed: variant_medians counts it */
        put_unit(f, &j->tr, u);
        put_count(f, count_status(&j->tr, u, TS_OK));
        for (size_t c = 0; c < N_WIN_COLS; c++)
            if (win_col_on(&j->tr, &win_cols[c])) put_win_cell(f, j, u, &win_cols[c]);
        fputc('\n', f);
        j->out->rows[T_WINNERS]++;
    }
    return ferror(f) ? -1 : 0;
}

/* ---- medians ---------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of the finite values among x[0, n) (sorted in place): the middle
 * one, or the mean of the two middle ones; NaN when there are none. */
static double median_of(double *x, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) x[m++] = x[i];
    if (!m) return NAN;
    qsort(x, m, sizeof *x, cmp_double);
    return m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2;
}

/* Over the unit's ok rows: the median of figure tv, or (tv < 0) of metric column mk. */
static double unit_median(job *j, const unit *u, int tv, size_t mk)
{
    const tables_rows *tr = &j->tr;
    size_t n = 0;
    for (size_t i = u->a; i < u->b; i++) {
        const tables_rec *r = &tr->recs[i];
        if (r->status == TS_OK) j->scratch[n++] = tv >= 0 ? r->v[tv] : tr->metrics[r->metric + (long)mk];
    }
    return median_of(j->scratch, n);
}

/* The figures whose medians variant_medians.csv gives, where the file has their column. */
static const int median_tvs[] = {TV_COLD, TV_HOT, TV_BW_COLD, TV_BW_HOT};
#define N_MEDIAN_TVS (sizeof median_tvs / sizeof median_tvs[0])

static int render_medians(FILE *f, void *ctx)
{
    job *j = ctx;
    const tables_rows *tr = &j->tr;
    fprintf(f, "%s,variant,finish,rows_ok,rows_invalid,rows_error", input_header);
    for (size_t k = 0; k < N_MEDIAN_TVS; k++) {
        results_col c = tables_value_col[median_tvs[k]];
        if (tr->have[c]) fprintf(f, ",%s", results_cols[c].name);
    }
    for (size_t m = 0; m < tr->metric_count; m++) put_text(f, tr->metric_names[m]);
    fputc('\n', f);
    for (size_t k = 0; k < j->nunits; k++) {
        const unit *u = &j->units[k];
        put_unit(f, tr, u);
        put_count(f, count_status(tr, u, TS_OK));
        put_count(f, count_status(tr, u, TS_INVALID));
        put_count(f, count_status(tr, u, TS_ERROR));
        for (size_t t = 0; t < N_MEDIAN_TVS; t++)
            if (tr->have[tables_value_col[median_tvs[t]]]) put_short(f, unit_median(j, u, median_tvs[t], 0));
        for (size_t m = 0; m < tr->metric_count; m++) put_short(f, unit_median(j, u, -1, m));
        fputc('\n', f);
        j->out->rows[T_MEDIANS]++;
    }
    return ferror(f) ? -1 : 0;
}

/* ---- heatmap cells and skipped rows ------------------------------------------------------------ */

/* recs[a, b), one cell: its fastest cold median and highest cold GB/s over the ok rows
 * (the renderer's cell is the highest GB/s of its finishes: plots/charts_heatmap.c). */
static void put_cell(FILE *f, const tables_rows *tr, size_t a, size_t b)
{
    double t = NAN, bw = NAN;
    for (size_t i = a; i < b; i++) {
        const tables_rec *r = &tr->recs[i];
        if (r->status != TS_OK) continue;
        if (isfinite(r->v[TV_COLD]) && !(r->v[TV_COLD] >= t)) t = r->v[TV_COLD];
        if (isfinite(r->v[TV_BW_COLD]) && !(r->v[TV_BW_COLD] <= bw)) bw = r->v[TV_BW_COLD];
    }
    const tables_rec *r = &tr->recs[a];
    put_input(f, tr, r->group);
    put_text(f, tables_name(tr, r->variant));
    put_block(f, r->block_dim);
    put_text(f, tables_name(tr, r->axes));
    put_short(f, t);
    put_short(f, bw);
    fputc('\n', f);
}

static int render_heatmap(FILE *f, void *ctx)
{
    job *j = ctx;
    tables_rows *tr = &j->tr;
    fprintf(f, "%s,variant,block_dim,axes,%s,%s\n", input_header, results_cols[RC_TIME_COLD_MEDIAN_MS].name,
            results_cols[RC_BW_COLD_GBPS].name);
    for (size_t a = 0, b; a < tr->nrecs; a = b) {
        int ok = 0;
        for (b = a; b < tr->nrecs && same_cell(&tr->recs[a], &tr->recs[b]); b++)
            ok |= tr->recs[b].status == TS_OK && isfinite(tr->recs[b].v[TV_COLD]);
        if (!ok) continue; /* a cell without a measurement: the heatmap hatches it */
        put_cell(f, tr, a, b);
        j->out->rows[T_HEATMAP]++;
    }
    return ferror(f) ? -1 : 0;
}

static int render_skipped(FILE *f, void *ctx)
{
    job *j = ctx;
    const tables_rows *tr = &j->tr;
    fputs("variant,kind,dtype,op,scan_mode,skip_reason,rows,n_min,n_max\n", f);
    for (size_t s = 0; s < tr->skip_keys.n; s++) {
        const tables_skip *k = &tr->skips[s];
        csv_put_text(f, tables_name(tr, k->variant));
        const uint32_t texts[] = {k->kind, k->dtype, k->op, k->scan_mode, k->reason};
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) put_text(f, tables_name(tr, texts[t]));
        fprintf(f, ",%zu,%llu,%llu\n", k->count, k->n_min, k->n_max);
        j->out->rows[T_SKIPPED]++;
    }
    return ferror(f) ? -1 : 0;
}

/* ---- the directory ----------------------------------------------------------------------------- */

static int write_table(const char *tables, int which, render_fn render, job *j, char *err, size_t errlen)
{
    char path[SWEEP_PATH_MAX];
    if (path_join(path, sizeof path, tables, tables_list[which].file)) {
        snprintf(err, errlen, "%.200s...: path too long", tables);
        return -1;
    }
    j->out->rows[which] = 0;
    return write_file_atomic(path, render, j, err, errlen);
}

/* The four tables into tables/ (the records sorted by unit, then by cell). */
static int write_tables(job *j, const char *tables, char *err, size_t errlen)
{
    if (renumber_groups(&j->tr) || make_units(j)) {
        snprintf(err, errlen, "%s: out of memory", tables);
        return -1;
    }
    if (write_table(tables, T_WINNERS, render_winners, j, err, errlen) ||
        write_table(tables, T_MEDIANS, render_medians, j, err, errlen) ||
        write_table(tables, T_SKIPPED, render_skipped, j, err, errlen))
        return -1;
    qsort(j->tr.recs, j->tr.nrecs, sizeof *j->tr.recs, by_cell); /* the units' ranges are spent */
    return write_table(tables, T_HEATMAP, render_heatmap, j, err, errlen);
}

int results_tables_write(const char *dir, int rows_dropped, tables_written *out, char *err, size_t errlen)
{
    char csv[SWEEP_PATH_MAX], tables[SWEEP_PATH_MAX];
    memset(out, 0, sizeof *out);
    if (path_join(csv, sizeof csv, dir, "results.csv") || path_join(tables, sizeof tables, dir, TABLES_DIR)) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        return -1;
    }
    job j = {.out = out};
    if (tables_rows_read(csv, &j.tr, err, errlen)) return -1;
    *out = (tables_written){.results_rows = j.tr.rows, .ok = j.tr.ok, .skipped = j.tr.skipped,
                            .invalid = j.tr.invalid, .error = j.tr.error};
    int rc = make_dirs(tables, err, errlen) || write_tables(&j, tables, err, errlen) ||
                     tables_readme_write(dir, tables, tables_list, out, j.tr.metric_count, rows_dropped, err, errlen)
                 ? -1
                 : 0;
    tables_rows_free(&j.tr);
    free(j.units), free(j.scratch);
    return rc;
}
