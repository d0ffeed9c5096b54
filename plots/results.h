/* The renderer's view of a results directory: results.csv rows with typed
 * fields, run.json's metadata, and the selections the charts and tables draw
 * (groups of kind x dtype x op, the fastest configuration per variant and n). */
#ifndef PLOTS_RESULTS_H
#define PLOTS_RESULTS_H

#include <stddef.h>

#include "results_io/columns.h"
#include "results_io/csv.h"
#include "results_io/row.h"
#include "results_io/run_info.h"

/* The hardware metrics the charts use, matched by the column name's part
 * before '[' ("m:<name>[<unit>]"). */
enum {
    PM_WARP_EFF,      /* smsp__thread_inst_executed_per_inst_executed.ratio, 0..32 threads */
    PM_WARP_EFF_PRED, /* ..._pred_on_per_inst_executed.ratio */
    PM_BANK_LD,       /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
    PM_BANK_ST,       /* ..._op_st.sum */
    PM_DRAM_READ,     /* dram__bytes_read.sum, bytes */
    PM_DRAM_WRITE,    /* dram__bytes_write.sum, bytes */
    PM_DRAM_BYTES,    /* dram__bytes.sum, bytes read + written */
    PM_DRAM_PCT,      /* dram__throughput.avg.pct_of_peak_sustained_elapsed, % */
    PM_OCCUPANCY,     /* sm__warps_active.avg.pct_of_peak_sustained_active, % */
    PM_COUNT
};
extern const char *const pm_names[PM_COUNT];

/* Folded axes (bits): axes over which the charts took the fastest configuration. */
enum { AX_BLOCK = 1, AX_COARSE = 2, AX_FINISH = 4, AX_MODE = 8 };

/* A row as the charts draw it: what results.csv says (the shared row,
 * results_io/row.h: configuration and tagged figures) and the figures the
 * charts read most, taken from it as they are read. */
typedef struct row {
    results_row base;       /* base.cfg.axis[0]: the variant's first own axis (older files' coarse) */
    double bytes;           /* bytes_moved; NaN when absent */
    double t_cold, t_hot;   /* median ms */
    double bw_cold, bw_hot; /* GB/s (from the columns, else bytes / time) */
    double m[PM_COUNT];     /* NaN when absent */
    int var;                /* index into results.vars */
    int ok;                 /* status ok with a finite cold time */
} row;

typedef struct var_info {
    const char *name, *alias, *family, *kind;
    int is_cub;             /* family "cub": the library baseline */
    unsigned color;         /* 0xRRGGBB: the variant's palette slot (palette.h) */
    int point_type;         /* gnuplot point type */
    int dash_type;          /* gnuplot dash type (1: solid) */
} var_info;


typedef struct point {
    unsigned long long n;
    const row *best;        /* lowest cold median among the ok rows at n */
} point;

typedef struct series {
    int var;
    point *pts;             /* increasing n */
    size_t npts;
} series;

typedef struct group {
    const char *kind, *dtype, *op;
    size_t esize;           /* element bytes */
    series *s;              /* variants in order of first appearance */
    size_t ns;
    unsigned folded;        /* AX_* over which points took the fastest configuration */
    size_t nrows, nok;      /* rows of this group, and ok ones */
} group;

typedef struct results {
    csv_table csv;
    row *rows;
    size_t nrows;
    var_info *vars;
    size_t nvars;
    int has_hot;            /* a time_hot_median_ms column */
    int has_bw;             /* bandwidth known (a bw column or bytes_moved) */
    int metric_col[PM_COUNT];
    size_t n_metric_cols;   /* every m: column, known or not */
    group *groups;          /* (kind, dtype, op) in order of first appearance, ok rows only */
    size_t ngroups;
    size_t n_ok, n_invalid, n_error, n_skipped, n_other;
    results_run run;        /* run.json (results_io/run_info.h); peak, copy and L2 NaN unless > 0 */
    char notes[1024];       /* reading notes (a truncated last line, a missing run.json) */
} results;

/* Read dir/results.csv and dir/run.json. A missing run.json is a note, not an
 * error; a CSV lacking a required column is an error naming the column(s). */
int results_load(const char *dir, results *r, char *err, size_t errlen);
void results_free(results *r);

/* The element size of a dtype name (f32, f64, i32; 4 when unknown). */
size_t dtype_bytes(const char *dtype);

/* The measured n nearest to want (in log2 distance, ties to the larger) among
 * the group's points; 0 when the group has none. */
unsigned long long group_nearest_n(const group *g, unsigned long long want);

/* The point of series s at n, or NULL. */
const row *series_at(const series *s, unsigned long long n);

/* The lowest-cold-time ok row of variant var in group g at n whose metric k is
 * present; NULL when none. */
const row *best_with_metric(const results *r, const group *g, int var, unsigned long long n, int k);

/* "2^22" for powers of two, else the decimal number. */
void format_n(unsigned long long n, char *buf, size_t len);

/* "10.6 µs", "1.234 ms", "2.50 s" from milliseconds. */
void format_ms(double ms, char *buf, size_t len);

/* Does the variant's name or one of its comma-separated aliases equal s? */
int var_matches(const var_info *v, const char *s);

#endif
