/* One row of results.csv as plain data, the type the sweep's rows and the
 * renderer's rows share: the configuration (who the row is) and the measured
 * figures as tagged values, by the column constants of results_io/columns.h.
 * No pointer to a compiled variant: a row of a variant this build lacks reads
 * the same. The strings point into storage the reader owns (a csv_table's
 * cells, or the sweep's static names); the row owns only its metrics. */
#ifndef RESULTS_IO_ROW_H
#define RESULTS_IO_ROW_H

#include <stddef.h>

#include "results_io/columns.h"
#include "results_io/csv.h"

/* The own axes a row names (kernels/variant.h VARIANT_AXES_MAX). */
#define RESULTS_ROW_AXES 2
#define RESULTS_AXIS_NAME_LEN 32

/* Who a row is: the variant and the values of its axes. */
typedef struct results_row_config {
    const char *variant, *alias, *family, *kind;
    const char *dtype, *op, *finish, *scan_mode; /* "" where the axis does not apply */
    unsigned long long n;
    long block_dim; /* -1 when empty */
    /* The variant's own axes, in its order: a name ("" none, or unknown in an
     * older file's coarse column) and a value (1 where the variant has none;
     * -1 when the cell is empty). */
    char axis_name[RESULTS_ROW_AXES][RESULTS_AXIS_NAME_LEN];
    long axis[RESULTS_ROW_AXES];
} results_row_config;

/* A row: its configuration, what became of it, and every measured figure
 * that is a number, by RC_<ID> (the tag table, results_io/measures.def). */
typedef struct results_row {
    results_row_config cfg;
    const char *status; /* ok | invalid | error | skipped, as written */
    const char *skip_reason, *error, *device, *clock_events; /* "" when empty */
    const char *stop_cold, *stop_hot; /* why each phase's timing stopped ("screen": the screen's samples) */
    double values[RC_COUNT]; /* NaN: absent, empty or not a number; configuration entries unused */
    double *metrics;         /* the m:<name>[<unit>] columns' values, in file order (NaN: none); malloc'd */
    size_t metric_count;
    size_t line;             /* the line of results.csv it was read from; 0 when not read */
} results_row;

/* A phase's relative noise as an interval or a comparison reads it: the
 * row's own, widened where the row kept the screen's few samples (stop =
 * screen: the spread of three samples is itself uncertain, so it counts at
 * least the full rule's default max_noise, RESULTS_SCREEN_NOISE_FLOOR, times
 * Student's t for their 2 degrees of freedom over the normal's,
 * RESULTS_SCREEN_NOISE_T). A fraction; NaN unknown. */
#define RESULTS_SCREEN_NOISE_FLOOR 0.005
#define RESULTS_SCREEN_NOISE_T (4.303 / 1.960)
double results_noise_as_read(double noise, int screen);
/* The same of a read row's phase, in per cent as noise_*_pct is. */
double results_row_noise_pct(const results_row *w, int hot);

/* Where each column of results_cols[] is in a table, by RC_<ID> (-1 absent). */
typedef struct results_row_columns {
    int at[RC_COUNT];
} results_row_columns;

void results_row_columns_find(const csv_table *t, results_row_columns *c);

/* Row i of t into *w through the column table: strings point into t. A
 * number column that is neither empty nor a number is an error only where
 * strict[RC_<ID>] is set (NULL: none); n must be a positive integer, block
 * dim and the own axes integers. 0, or -1 with "path:line: ..." in err. */
int results_row_read(const csv_table *t, const results_row_columns *c, size_t i, const unsigned char *strict,
                     results_row *w, const char *path, char *err, size_t errlen);

/* The count metric columns from column first of row i into w->metrics
 * (a cell that is no number, "n/a", is NaN). 0, or -1 out of memory. */
int results_row_read_metrics(const csv_table *t, size_t i, size_t first, size_t count, results_row *w);
void results_row_free(results_row *w);

/* The value of the own axis named name, or of the first when name is NULL;
 * -1 when the row has none of that name. */
long results_row_axis(const results_row_config *c, const char *name);

/* The own axes as "name=value" joined by sep ("items_per_thread=4",
 * "a=2;b=4"), up to the first unnamed one; "" where there is none. The
 * format of results.csv's axes column and summary.md. Returns the length
 * the whole text needs (as snprintf). */
size_t results_row_axes_text(const results_row_config *c, const char *sep, char *buf, size_t len);

/* "reduce_one_launch f32 sum n=1048576 block=256 vectors_in_flight=4 none":
 * the configuration's name, as the sweep labels it (config_label), from the
 * plain configuration; compare and merge match rows by it. */
void results_row_label(const results_row_config *c, char *buf, size_t len);

#endif
