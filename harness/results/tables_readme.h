/* tables/README.md (harness/results/tables.h): what each derived table is,
 * its row count, and the command that measures the rows again, from the
 * run's run.json (argv, git_sha; a merged run's shards). */
#ifndef HARNESS_RESULTS_TABLES_README_H
#define HARNESS_RESULTS_TABLES_README_H

#include <stddef.h>

#include "harness/results/tables.h"

/* tables/README.md for the run in dir: the tables of list (TABLES_COUNT)
 * with w's counts. 0, or -1 with why in err. */
int tables_readme_write(const char *dir, const char *tables, const tables_table *list, const tables_written *w,
                        size_t metric_count, int rows_dropped, char *err, size_t errlen);

#endif
