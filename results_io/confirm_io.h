/* confirm.csv: what the confirmation phase found. For each kind, dtype, op,
 * scan mode and n that has a library row, the candidates (the best
 * configuration of each variant within a few percent of the fastest) and
 * the library row were measured again in interleaved rounds (A B C L, then
 * L C B A, ...); each line is one entrant and phase: its median over the
 * rounds, and the library's time over its own per round as a speed-up with
 * a bootstrap 95 % interval. The verdict comes from the interval alone:
 * faster (it lies above 1 + the margin), slower (below 1 / (1 + margin)),
 * else tie (confirm_verdict). Written by
 * the sweep (harness/run/confirm.c), read by the summary and the report. Knows
 * nothing of kernels. */
#ifndef RESULTS_IO_CONFIRM_IO_H
#define RESULTS_IO_CONFIRM_IO_H

#include <stddef.h>
#include <stdio.h>

typedef struct confirm_line {
    char kind[8], dtype[8], op[8], scan_mode[16]; /* scan_mode "" for reductions */
    size_t n;
    char phase[8];    /* cold | hot */
    char variant[64];
    char config[256]; /* the configuration's label (variant, axes) */
    char role[12];    /* candidate | library */
    unsigned rounds;
    double median_ms;     /* the median of the per-round medians */
    double speedup;       /* library / this, the geometric mean of the per-round ratios (1 for the library) */
    double ci_lo, ci_hi;  /* its bootstrap 95 % interval */
    double pct_copy;      /* bytes moved over median_ms, as % of the run's copy bandwidth (NaN: unknown) */
    char verdict[12];     /* faster | slower | tie | reference */
} confirm_line;

/* "faster" when the whole interval lies above 1 + margin, "slower" when it
 * lies below 1 / (1 + margin), else "tie": a difference the interval cannot
 * tell from none, or one smaller than the margin (margin 0: the interval alone). */
const char *confirm_verdict(double lo, double hi, double margin);

/* The header line (with its newline) and one line. */
void confirm_write_header(FILE *f);
void confirm_write_line(FILE *f, const confirm_line *l);

/* Read confirm.csv: 0 and a malloc'd array, 1 when the file does not exist
 * (a run without a confirmation phase), -1 with a message naming the file. */
int confirm_read_csv(const char *path, confirm_line **lines, size_t *count, char *err, size_t errlen);

/* The block size and own-axis values out of a configuration label, today's
 * form ("... block=256 vectors_in_flight=4 none", "... block=256 none") or
 * that of results schema 4 and before ("... block=256 coarse=4 none"): the
 * name=value words after block=. Returns how many axis values went to axis
 * (at most max); -1 where the label has no block=. */
int confirm_label_shape(const char *label, unsigned *block, unsigned *axis, int max);

/* "256x4" ("256x2x4" for two own axes) with `times` between; "256x1" where
 * the label names no own axis, as older labels said coarse=1. -1 and ""
 * where the label has no block=. */
int confirm_label_dims(const char *label, const char *times, char *buf, size_t len);

/* The order of tables a one-device run prints (its plan's): kind, dtype, op,
 * scan mode, each in the sweep's order of its values (reduce scan; f32 f64
 * i32; sum max min; inclusive exclusive), a name it does not know after
 * those, alphabetically. <0, 0 (the same table) or >0. tests/summary_test
 * checks the lists against the sweep's names. */
int confirm_table_cmp(const confirm_line *a, const confirm_line *b);

/* The library's cold lines of l, one per table and n, in that table order
 * and by ascending n within a table: how confirm.csv's tables are printed,
 * whatever order --devices' workers gave the lines in. Their addresses into
 * out (room for n); returns how many. */
size_t confirm_table_rows(const confirm_line *l, size_t n, const confirm_line **out);

/* "2^20" for powers of two, else the number. */
void confirm_format_n(size_t n, char *buf, size_t len);

#endif
