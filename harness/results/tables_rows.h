/* The rows of one results.csv (plain or .gz) reduced to what `sweep pack
 * --tables` derives from them (harness/results/tables.h): each row that ran
 * (ok, invalid, error) as a small record naming its texts by id, the ok rows'
 * metric values, and the skipped rows counted by variant, input and reason.
 * The file is parsed a chunk of rows at a time through results_io's reader
 * (csv_slurp, csv_parse_flags, results_row_read), so a full run's 340,000
 * rows never stand as one csv_table (a malloc'd string per field: gigabytes). */
#ifndef HARNESS_RESULTS_TABLES_ROWS_H
#define HARNESS_RESULTS_TABLES_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "results_io/columns.h"
#include "results_io/row.h"

/* Texts by id: each distinct text once, ids in order of first sight. */
typedef struct tables_strtab {
    char **s;
    size_t n, cap;
    uint32_t *slot; /* open addressing: id + 1, 0 empty */
    size_t nslot;
} tables_strtab;

/* The figures a record keeps, from these columns (tables_value_col). */
enum { TV_COLD, TV_HOT, TV_NOISE_COLD, TV_NOISE_HOT, TV_BW_COLD, TV_BW_HOT, TV_PCT_COPY, TV_SPEEDUP_CUB, TV_COUNT };
extern const results_col tables_value_col[TV_COUNT];

enum { TS_OK, TS_INVALID, TS_ERROR };

/* One row that ran. Texts are ids into tables_rows.names. */
typedef struct tables_rec {
    uint32_t group, variant, finish, axes, stop_cold, stop_hot;
    int status; /* TS_* */
    long block_dim, axis[RESULTS_ROW_AXES];
    size_t ordinal; /* its place among the file's rows: the first of equals wins */
    double v[TV_COUNT]; /* NaN: empty */
    long metric;        /* ok rows: the first of its metric_count values in tables_rows.metrics (NaN: none); else -1 */
} tables_rec;

/* An input group: one kind, dtype, op, scan mode and n (the plan's input,
 * config_same_input). input: the same without n, for ordering. */
typedef struct tables_group {
    uint32_t kind, dtype, op, scan_mode, input;
    unsigned long long n;
} tables_group;

/* The skipped rows of one variant, input (no n) and reason. */
typedef struct tables_skip {
    uint32_t variant, kind, dtype, op, scan_mode, reason;
    size_t count;
    unsigned long long n_min, n_max;
} tables_skip;

typedef struct tables_rows {
    tables_strtab names;                             /* the texts records name */
    tables_strtab group_keys, input_keys, skip_keys; /* composite keys, ids index the arrays below */
    tables_group *groups;
    tables_skip *skips;
    tables_rec *recs;
    size_t nrecs, rec_cap;
    double *metrics; /* the ok rows' metric values, metric_count a row */
    size_t nmetrics, metrics_cap;
    char **metric_names; /* the m:<name>[<unit>] headers, in file order */
    size_t metric_count;
    unsigned char have[RC_COUNT]; /* the column is in the file */
    size_t rows, ok, skipped, invalid, error;
} tables_rows;

/* path (results.csv, else results.csv.gz) into *tr. 0, or -1 with "path...: why". */
int tables_rows_read(const char *path, tables_rows *tr, char *err, size_t errlen);
void tables_rows_free(tables_rows *tr);
/* The text of a name id. */
const char *tables_name(const tables_rows *tr, uint32_t id);

#endif
