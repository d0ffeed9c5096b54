#include "tests/sweep_rows_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/plan.h"
#include "tests/sweep_test_util.h"

sweep_row *tu_load_rows(const char *dir, metric_columns mc, size_t *n)
{
    sweep_row *rows;
    char msg[1024];
    char *p = tu_path(dir, "results.csv");
    if (results_read_csv(p, mc, &rows, n, msg, sizeof msg)) fail_msg("%s", msg);
    free(p);
    return rows;
}

void tu_free_rows(sweep_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) row_free(&rows[i]);
    free(rows);
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char *tu_coverage_text(const sweep_row *rows, size_t n)
{
    char **lines = calloc(n ? n : 1, sizeof *lines);
    size_t total = 1;
    for (size_t i = 0; i < n; i++) {
        char label[256];
        config_label(&rows[i].cfg, label, sizeof label);
        lines[i] = malloc(600);
        snprintf(lines[i], 600, "%s | %s | %s\n", label, row_status_name(rows[i].status),
                 rows[i].skip_reason ? rows[i].skip_reason : "");
        total += strlen(lines[i]);
    }
    qsort(lines, n, sizeof *lines, by_text);
    char *text = calloc(1, total);
    for (size_t i = 0; i < n; i++) {
        strcat(text, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return text;
}
