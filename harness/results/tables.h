/* `sweep pack --tables DIR` (harness/results/pack.c): a run's rows reduced
 * to the tables that stand for them where the rows are too many to commit
 * (experiments/full.ini: 340,000 rows, ~28 MB gzipped). Written into
 * DIR/tables/, one row per:
 *   winners.csv          input (kind, dtype, op, scan_mode, n) x variant x
 *                        finish: its fastest ok configuration by cold median and
 *                        by hot median, and its rank among the input's
 *                        (variant, finish) pairs by each (1: the input's fastest);
 *   heatmap.csv          input x variant x block dim x own axes: the cell the
 *                        report's block dim x coarse factor heatmap draws, at
 *                        every n (the fastest cold median of its finishes, the
 *                        highest cold GB/s; 4 significant digits);
 *   variant_medians.csv  input x variant x finish: rows ok, invalid, error;
 *                        over the ok rows the median cold and hot time, GB/s
 *                        and each metric column (4 significant digits);
 *   skipped.csv          variant x input without n x skip reason: rows, and
 *                        the smallest and largest n skipped;
 * and README.md: what each is, and the command that measures the rows again
 * (run.json's argv). Plain CSV here; `sweep pack` gzips them as it does the rows. */
#ifndef HARNESS_RESULTS_TABLES_H
#define HARNESS_RESULTS_TABLES_H

#include <stddef.h>

#define TABLES_DIR "tables"
#define TABLES_COUNT 4

/* One table: its file (plain; pack adds .gz), what a row stands for, what it holds. */
typedef struct tables_table {
    const char *file, *per, *what;
} tables_table;
/* winners.csv, heatmap.csv, variant_medians.csv, skipped.csv, in this order. */
extern const tables_table tables_list[TABLES_COUNT];

typedef struct tables_written {
    size_t rows[TABLES_COUNT]; /* the data rows of each table */
    size_t results_rows, ok, skipped, invalid, error;
} tables_written;

/* DIR/tables/ (made when absent): the four tables, plain, and README.md,
 * from DIR's results.csv (or results.csv.gz) and run.json. rows_dropped: the
 * README says the rows were removed (--drop-rows). 0, or -1 with why in err. */
int results_tables_write(const char *dir, int rows_dropped, tables_written *out, char *err, size_t errlen);

#endif
