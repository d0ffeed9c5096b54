/* A quote-aware CSV reader (RFC 4180: fields with commas, quotes or line
 * breaks are double-quoted, a quote inside is doubled; CRLF or LF line ends;
 * a UTF-8 byte-order mark is ignored). */
#ifndef PLOTS_CSV_H
#define PLOTS_CSV_H

#include <stddef.h>

typedef struct csv_table {
    char **header;   /* ncols names */
    size_t ncols;
    char ***rows;    /* nrows x ncols fields ("" when empty) */
    size_t *lines;   /* the line each row starts on (1-based), for messages */
    size_t nrows;
    int truncated_last; /* the last line had no line end and too few fields: dropped */
} csv_table;

/* Parse text (len bytes). Returns 0, or -1 with "LINE: message" in err. A row
 * with a different field count than the header is an error, except a last line
 * cut short without its line end (an interrupted writer): that one is dropped
 * and truncated_last set. */
int csv_parse(const char *text, size_t len, csv_table *t, char *err, size_t errlen);

/* Read and parse a file; messages start with the path. */
int csv_read_file(const char *path, csv_table *t, char *err, size_t errlen);

/* Column index of name, or -1. */
int csv_column(const csv_table *t, const char *name);

void csv_free(csv_table *t);

#endif
