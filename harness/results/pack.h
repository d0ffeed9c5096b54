/* `sweep pack DIR...`: a finished results directory made small for
 * committing. results.csv, and samples.csv and confirm.csv where the run has
 * them, become results.csv.gz, samples.csv.gz and confirm.csv.gz (gzip, zlib
 * level 9); each packed file is
 * read back and must give the plain file's bytes, so the same rows, before
 * the plain file is removed. Every reader of a results directory (compare,
 * merge, confirm, --resume, the renderer) takes either form: results_io's
 * csv_resolve() opens results.csv, else results.csv.gz.
 *
 * The sweep itself writes plain results.csv while it runs (a row appended
 * and flushed at a time, so a killed run loses nothing); --resume on a packed
 * directory unpacks it first (results_unpack_dir), and `sweep pack` packs it
 * again after.
 *
 * `sweep pack --tables [--drop-rows] DIR...`: a run whose rows are too many
 * to commit (the full experiment's) first gets DIR/tables/, its derived
 * tables gzipped and read back (harness/results/tables.h); --drop-rows then
 * removes results.csv and samples.csv, plain or .gz, and keeps the rest.
 *
 * Exit 0 (every directory packed, or already packed), 1 when a file could not
 * be written or did not read back the same (the plain file is kept; with
 * --drop-rows, the rows), 2 on bad input (no directory given, or one that
 * holds neither results.csv nor confirm.csv, plain or .gz: `sweep confirm
 * --out` writes a directory of its own; with --tables, one without
 * results.csv, plain or .gz; --drop-rows without --tables). */
#ifndef HARNESS_PACK_H
#define HARNESS_PACK_H

#include <stddef.h>

int pack_main(int argc, char **argv);

/* DIR's results.csv, samples.csv and confirm.csv into their .gz forms, checked, the plain
 * files removed. 0 (done, or nothing plain there), or -1 with "why" in err. */
int results_pack_dir(const char *dir, int quiet, char *err, size_t errlen);

/* The inverse, for --resume: where DIR holds results.csv.gz (samples.csv.gz,
 * confirm.csv.gz) but no plain file of that name, the plain file is written again and the .gz
 * removed. 0 (done, or nothing packed there), or -1 with "why" in err. */
int results_unpack_dir(const char *dir, char *err, size_t errlen);

#endif
