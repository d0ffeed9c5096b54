/* The columns of results.csv by name: one constant each, RC_<ID>, from the
 * one list results_io/columns.def (the configuration's columns, then the
 * measured figures' tags, results_io/measures.def), and their header names,
 * units, descriptions and the schema that added each. Kernel-free: the
 * sweep's columns table (harness/results/results_columns.c) takes its names, units
 * and order from here, and the renderer (plots/) finds the columns it reads
 * by these constants. */
#ifndef RESULTS_IO_COLUMNS_H
#define RESULTS_IO_COLUMNS_H

#include "results_io/csv.h"

/* The oldest results.csv schema still read (without the device column). */
#define RESULTS_SCHEMA_OLDEST 2

typedef enum results_col {
#define RESULTS_COLUMN(id, name, unit) RC_##id,
#include "results_io/columns.def"
#undef RESULTS_COLUMN
    RC_COUNT
} results_col;

/* The newest schema: the largest that any column names (a union of one
 * char[schema] per column is that many bytes), so that a column tagged
 * with the next schema raises it with nothing else to change. */
union results_schema_newest {
#define RESULTS_COLUMN(id, name, unit) char s_##id[RESULTS_SCHEMA_OLDEST];
#define RESULTS_COLUMN_SCHEMAS(id, name, unit, added, dropped) char s_##id[added > dropped ? added : dropped];
#define RESULTS_MEASURE(id, name, unit, schema, store, field, description) char s_##id[schema];
#include "results_io/columns.def"
#undef RESULTS_MEASURE
#undef RESULTS_COLUMN_SCHEMAS
#undef RESULTS_COLUMN
};
#define RESULTS_SCHEMA_NEWEST ((int)sizeof(union results_schema_newest))

typedef struct results_col_info {
    const char *name;        /* the header */
    const char *unit;        /* "" for none */
    const char *description; /* one short line; "" for the configuration's columns */
    int schema;              /* the results.csv schema that added it */
    int dropped;             /* the first schema without it; 0: still written */
    int measure;             /* 1: a measured figure (measures.def); 0: configuration */
    int value;               /* 1: kept in the row's values[RC_<ID>] (store VALUE) */
} results_col_info;

/* Indexed by results_col, in file order. */
extern const results_col_info results_cols[RC_COUNT];

/* The column's index in a table read by csv_parse, or -1 when absent. */
int csv_column_of(const csv_table *t, results_col c);
/* The column of that header name (results_cols[].name), or -1. */
int results_col_named(const char *name);

#endif
