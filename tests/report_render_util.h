/* A committed run's report.md, rendered without charts from copies of its
 * files in a fresh temporary directory, so the committed run stays as it is
 * (report_test, answer_counters_test). */
#ifndef TESTS_REPORT_RENDER_UTIL_H
#define TESTS_REPORT_RENDER_UTIL_H

#include <stddef.h>

/* run: the run's folder in the repository ("experiments/results/h200/vs-cub");
 * with_confirm: its confirm.csv too. Fails the test on any error; the text
 * (free it), and in out_dir (out_len bytes) the report's folder. */
char *tu_render_report(const char *run, int with_confirm, char *out_dir, size_t out_len);

#endif
