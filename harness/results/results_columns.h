/* The columns of results.csv: one entry per fixed column, in file order. An
 * entry says the header name, the unit, how to write the row's value, how to
 * read it back into a sweep_row, and whether and how the markdown summary
 * shows it. The CSV writer, the CSV reader (--resume, compare, merge) and
 * the summary iterate this table. Its names, units and order are the shared
 * list results_io/columns.def (the configuration's columns, then the
 * measured figures' tags, results_io/measures.def): the table is built from
 * that list in results_columns.c, a configuration column or a CUSTOM figure
 * by its COLUMN_<ID>, a figure stored VALUE, COLD or HOT by the generic
 * entry. Adding a measured figure is one line in measures.def (the schema
 * version follows it). The metric columns, m:<name>[<unit>], follow the
 * fixed ones and are dynamic (metric_columns). */
#ifndef HARNESS_RESULTS_COLUMNS_H
#define HARNESS_RESULTS_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

#include "harness/results/results.h"

typedef struct results_column results_column;
struct results_column {
    const char *name; /* the header: results_io/columns.def's */
    const char *unit; /* "" for none */
    /* Write the row's field (without the comma); nothing for an empty one. */
    void (*write)(FILE *f, const sweep_row *r, const results_column *c);
    /* Read field s back into r; 0, or -1 with a message in msg. NULL: the
     * value follows from another column (alias, family, kind: the variant). */
    int (*read)(sweep_row *r, const char *s, const results_column *c, char *msg, size_t len);
    int config;  /* part of the configuration: read before row_init (into r->cfg) */
    size_t off;  /* the field's offset in sweep_row (the generic accessors) */
    size_t soff; /* timing_stats of a timing column: written only when it has samples */
    double scale; /* written as value * scale (noise: a fraction written as %) */
    /* The summary table: its position there (1-based, 0: not shown), heading
     * (md_head_scan in scan tables, when set), alignment row and cell. */
    int md_pos;
    const char *md_head, *md_head_scan, *md_align;
    void (*md_cell)(char *buf, size_t len, const sweep_row *r);
};

extern const results_column results_columns[];
/* The variant a results.csv row names by its exact name (cpu_serial or a
 * registered kernel), or NULL when this build has none of that name. */
const variant *results_variant_named(const char *name);
extern const size_t results_column_count;
/* The variant of a row read from a results file: this build's of that name,
 * else a descriptor made from the row's name, alias, family and kind (no
 * kernel: it can be read, merged, compared and written, not run), one per
 * name. NULL with a message for a bad kind. */
const variant *results_variant_read(const char *name, const char *alias, const char *family, const char *kind,
                                    char *msg, size_t len);

/* "m:<name>[<unit>]" */
void results_metric_header(char *buf, size_t len, const sweep_metric *m);
/* The name and unit of a metric column's header; -1 when h is not one. */
int results_metric_parse(const char *h, sweep_metric *m);

#endif
