/* The one results.csv reader, and the field writers: a quote-aware CSV
 * reader (RFC 4180: fields with commas, quotes or line breaks are
 * double-quoted, a quote inside is doubled; CRLF or LF line ends; a UTF-8
 * byte-order mark is ignored), and the two field formats the sweep writes.
 * Knows nothing of kernels or the sweep: the sweep (--resume, compare,
 * samples.csv) and the renderer (plots/) both read results files through it. */
#ifndef RESULTS_IO_CSV_H
#define RESULTS_IO_CSV_H

#include <stddef.h>
#include <stdio.h>

typedef struct csv_table {
    char **header;   /* ncols names */
    size_t ncols;
    char ***rows;    /* nrows rows of widths[i] fields ("" when empty); ncols each unless CSV_ANY_WIDTH */
    size_t *widths;  /* fields per row */
    size_t *lines;   /* the line each row starts on (1-based), for messages */
    size_t nrows;
    size_t header_end; /* the byte offset just past the header's line end */
    int truncated_last; /* the last line was cut short (see the flags): dropped */
} csv_table;

enum {
    /* Default (0): a row with a different field count than the header is an
     * error, except a last line cut short without its line end and with too
     * few fields (an interrupted writer): that one is dropped and
     * truncated_last set; an open quote at the end is an error. */
    CSV_TORN_LAST = 1, /* any last line without its line end is dropped (truncated_last), an open quote included */
    CSV_ANY_WIDTH = 2, /* rows may have any number of fields: the caller checks widths[] */
};

/* Parse text (len bytes). Returns 0, or -1 with "LINE: message" in err. */
int csv_parse(const char *text, size_t len, csv_table *t, char *err, size_t errlen);
int csv_parse_flags(const char *text, size_t len, int flags, csv_table *t, char *err, size_t errlen);

/* A results file stored packed: PATH where it exists, else PATH.gz where PATH
 * ends in .csv and PATH.gz exists (`sweep pack`: results.csv.gz, samples.csv.gz).
 * csv_resolve writes the name that exists into out (PATH itself when neither
 * does) and returns 0, or -1 when neither exists; csv_exists says whether one does. */
int csv_resolve(const char *path, char *out, size_t outlen);
int csv_exists(const char *path);

/* The whole file in a malloc'd buffer (NUL-terminated); NULL with "PATH: why".
 * PATH, else PATH.gz (csv_resolve); either plain or gzip-compressed. */
char *csv_slurp(const char *path, size_t *len, char *err, size_t errlen);

/* Read and parse a file; messages start with the path. */
int csv_read_file(const char *path, csv_table *t, char *err, size_t errlen);

/* Column index of name, or -1. */
int csv_column(const csv_table *t, const char *name);

void csv_free(csv_table *t);

/* ---- writing --------------------------------------------------------------------- */

/* A text field, quoted where it must be (a comma, quote, line break, or a
 * leading or trailing space); nothing for NULL. */
void csv_put_text(FILE *f, const char *s);
/* A number as %.10g; nothing when not finite. */
void csv_put_num(FILE *f, double x);

#endif
