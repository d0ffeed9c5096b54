/* Helpers for tests that read a sweep's rows back (harness/results/results.h). */
#ifndef TESTS_SWEEP_ROWS_UTIL_H
#define TESTS_SWEEP_ROWS_UTIL_H

#include <stddef.h>

#include "harness/results/results.h"

/* DIR/results.csv's rows, with metric columns mc (fails the test when it does not read). */
sweep_row *tu_load_rows(const char *dir, metric_columns mc, size_t *n);
void tu_free_rows(sweep_row *rows, size_t n);

/* What a run covered: one line per row, "label | status | skip reason",
 * sorted, so two runs' coverage compares as one string. malloc'd. */
char *tu_coverage_text(const sweep_row *rows, size_t n);

#endif
