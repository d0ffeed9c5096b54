/* The report's writer: every heading, paragraph and table goes to report.md
 * and index.html side by side from the same call. */
#ifndef PLOTS_DOC_H
#define PLOTS_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "plots/internal.h"

typedef struct doc {
    FILE *md, *html;
    const render_ctx *ctx;
} doc;

void md_esc(FILE *f, const char *s, int in_table);
void html_esc(FILE *f, const char *s);
void doc_h(doc *d, int level, const char *text, const char *id);
/* A paragraph; cls "warn" (bold in markdown) or "note", or NULL. */
void doc_p(doc *d, const char *cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Tables: the header row, then rows; align: 'l' or 'r' per column. */
void doc_table(doc *d, size_t ncols, const char *const *head, const char *align);
void doc_row(doc *d, size_t ncols, const char *const *cells, const char *align);
void doc_table_end(doc *d);
/* A section whose heading is its only visible part in index.html until
 * clicked (<details><summary>), unless open; in report.md a plain heading. */
void doc_fold(doc *d, int level, const char *title, const char *id, int open);
void doc_fold_end(doc *d);
/* One chart: heading (after "prefix: " when given), image (embedded or
 * linked), caption; or why it is missing. */
void doc_chart(doc *d, const chart *c, const char *prefix);

#endif
