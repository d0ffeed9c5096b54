#include "tests/sweep_rows_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/plan.h"

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
