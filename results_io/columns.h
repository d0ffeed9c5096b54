/* The fixed columns of results.csv by name: one constant each, RC_<ID>, from
 * the one list results_io/columns.def, and their header names and units.
 * Kernel-free: the sweep's columns table (harness/results_columns.c) takes
 * its names, units and order from here, and the renderer (plots/) finds the
 * columns it reads by these constants. */
#ifndef RESULTS_IO_COLUMNS_H
#define RESULTS_IO_COLUMNS_H

#include "results_io/csv.h"

typedef enum results_col {
#define RESULTS_COLUMN(id, name, unit) RC_##id,
#include "results_io/columns.def"
#undef RESULTS_COLUMN
    RC_COUNT
} results_col;

typedef struct results_col_info {
    const char *name; /* the header */
    const char *unit; /* "" for none */
} results_col_info;

/* Indexed by results_col, in file order. */
extern const results_col_info results_cols[RC_COUNT];

/* The column's index in a table read by csv_parse, or -1 when absent. */
int csv_column_of(const csv_table *t, results_col c);

#endif
