/* `sweep pack DIR...` (pack.h): results.csv and samples.csv into their
 * gzip forms, read back before the plain files go; and the inverse for --resume.
 * With --tables, the derived tables first (tables.c), and with --drop-rows the rows go. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/pack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "harness/core/exit_codes.h"
#include "harness/core/files.h"
#include "harness/results/tables.h"
#include "results_io/csv.h"

static const char pack_usage_text[] =
    "usage: sweep pack DIR... [--quiet]\n"
    "       sweep pack --tables [--drop-rows] DIR... [--quiet]\n"
    "\n"
    "Packs finished results directories for committing: results.csv, and\n"
    "samples.csv and confirm.csv where the run has them, become results.csv.gz,\n"
    "samples.csv.gz and confirm.csv.gz (gzip). Each packed file is read back and must give the plain file's bytes\n"
    "before the plain file is removed. Every reader (sweep compare, merge,\n"
    "confirm, --resume, the renderer) takes either form; --resume unpacks first.\n"
    "A directory already packed is left as it is.\n"
    "\n"
    "  --tables     first derive DIR/tables/ from the rows (results.csv or .gz),\n"
    "               for a run whose rows are too many to commit: winners.csv.gz\n"
    "               (each input x variant x finish: its fastest configuration, cold\n"
    "               and hot), heatmap.csv.gz (every heatmap cell at every n),\n"
    "               variant_medians.csv.gz (per variant: ok rows, median times and\n"
    "               metrics), skipped.csv.gz (skipped rows by variant and reason)\n"
    "               and README.md (what each is; the command that measures the\n"
    "               rows again, from run.json's argv)\n"
    "  --drop-rows  with --tables: once the tables are written and read back,\n"
    "               remove results.csv(.gz) and samples.csv(.gz); run.json,\n"
    "               summary.md, confirm.csv.gz, the report and charts stay\n"
    "  --quiet      no line per file packed\n"
    "\n"
    "Exit status: 0 packed; 1 a file could not be written or did not read back\n"
    "the same (its plain file kept; with --drop-rows, the rows kept); 2 bad input\n"
    "(no DIR, a DIR without results.csv or confirm.csv, plain or .gz, or with\n"
    "--tables one without results.csv, plain or .gz).\n";

/* The files a run's directory packs, in this order; --drop-rows removes the first two. */
static const char *const packed_names[] = {"results.csv", "samples.csv", "confirm.csv"};
#define N_PACKED (sizeof packed_names / sizeof packed_names[0])
#define N_ROW_FILES 2

/* `path`, now copied into its other form (name + suffix beside it), removed. */
static int remove_source(const char *path, const char *how, const char *name, const char *suffix, char *err,
                         size_t errlen)
{
    if (!remove(path)) return 0;
    snprintf(err, errlen, "%s: %s %s%s, but cannot remove it: %s", path, how, name, suffix, strerror(errno));
    return -1;
}

/* bytes (len) into path as gzip, level 9: 0, or -1 with err. */
static int write_gz(const char *path, const char *bytes, size_t len, char *err, size_t errlen)
{
    errno = 0;
    gzFile f = gzopen(path, "wb9");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "out of memory");
        return -1;
    }
    size_t at = 0;
    while (at < len) {
        unsigned chunk = len - at > (1u << 30) ? (1u << 30) : (unsigned)(len - at);
        if (gzwrite(f, bytes + at, chunk) != (int)chunk) {
            int zerr = 0;
            snprintf(err, errlen, "%s: %s", path, gzerror(f, &zerr));
            gzclose(f);
            return -1;
        }
        at += chunk;
    }
    if (gzclose(f) != Z_OK) {
        snprintf(err, errlen, "%s: write error", path);
        return -1;
    }
    return 0;
}

/* dir/name's two forms, plain and packed, and the temporary file beside the one written. */
typedef struct pack_paths {
    char plain[SWEEP_PATH_MAX], gz[SWEEP_PATH_MAX + 8], tmp[SWEEP_PATH_MAX + 16];
} pack_paths;

static int paths_of(const char *dir, const char *name, const char *tmp_suffix, pack_paths *p, char *err,
                    size_t errlen)
{
    if (path_join(p->plain, sizeof p->plain, dir, name)) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        return -1;
    }
    snprintf(p->gz, sizeof p->gz, "%s.gz", p->plain);
    snprintf(p->tmp, sizeof p->tmp, "%s%s", p->plain, tmp_suffix);
    return 0;
}

/* dir/name (plain) into dir/name.gz; *done 1 when packed, 0 when there was no plain file. */
static int pack_file(const char *dir, const char *name, int *done, char *err, size_t errlen)
{
    pack_paths pp;
    *done = 0;
    if (paths_of(dir, name, ".gz.tmp", &pp, err, errlen)) return -1;
    const char *plain = pp.plain, *gz = pp.gz, *tmp = pp.tmp;
    if (!path_exists(plain)) return 0;
    size_t len = 0, back_len = 0;
    char *bytes = csv_slurp(plain, &len, err, errlen);
    if (!bytes) return -1;
    int rc = write_gz(tmp, bytes, len, err, errlen);
    char *back = rc ? NULL : csv_slurp(tmp, &back_len, err, errlen);
    if (!rc && !back) rc = -1;
    if (!rc && (back_len != len || memcmp(back, bytes, len))) {
        snprintf(err, errlen, "%s: read back %zu bytes that differ from %s's %zu: kept the plain file", tmp, back_len,
                 name, len);
        rc = -1;
    }
    /* the same rows: the packed file parses as the plain one does */
    if (!rc) {
        csv_table a, b;
        char e[512];
        int ra = csv_parse_flags(bytes, len, CSV_TORN_LAST | CSV_ANY_WIDTH, &a, e, sizeof e);
        int rb = csv_parse_flags(back, back_len, CSV_TORN_LAST | CSV_ANY_WIDTH, &b, e, sizeof e);
        if (ra || rb || a.nrows != b.nrows || a.ncols != b.ncols) {
            snprintf(err, errlen, "%s: does not read back as %s's rows: kept the plain file", gz, name);
            rc = -1;
        }
        if (!ra) csv_free(&a);
        if (!rb) csv_free(&b);
    }
    free(back);
    free(bytes);
    if (!rc && rename(tmp, gz)) {
        snprintf(err, errlen, "%s: %s", gz, strerror(errno));
        rc = -1;
    }
    if (rc) {
        remove(tmp);
        return -1;
    }
    if (remove_source(plain, "packed into", name, ".gz", err, errlen)) return -1;
    *done = 1;
    return 0;
}

/* dir's files of names[0, n) that are plain, packed. */
static int pack_names(const char *dir, const char *const *names, size_t n, int quiet, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        int done = 0;
        if (pack_file(dir, names[i], &done, err, errlen)) return -1;
        if (done && !quiet) fprintf(stderr, "sweep pack: %s/%s.gz\n", dir, names[i]);
    }
    return 0;
}

int results_pack_dir(const char *dir, int quiet, char *err, size_t errlen)
{
    return pack_names(dir, packed_names, N_PACKED, quiet, err, errlen);
}

/* ---- --tables, --drop-rows -------------------------------------------------------------------- */

static int pack_tables(const char *tables, int quiet, char *err, size_t errlen)
{
    const char *names[TABLES_COUNT];
    for (int t = 0; t < TABLES_COUNT; t++) names[t] = tables_list[t].file;
    return pack_names(tables, names, TABLES_COUNT, quiet, err, errlen);
}

/* Each packed table read back through the one reader: as many rows as were written. */
static int check_tables(const char *tables, const tables_written *w, char *err, size_t errlen)
{
    for (int t = 0; t < TABLES_COUNT; t++) {
        char path[SWEEP_PATH_MAX], gz[SWEEP_PATH_MAX];
        csv_table tab;
        if (path_join(path, sizeof path, tables, tables_list[t].file)) {
            snprintf(err, errlen, "%.200s...: path too long", tables);
            return -1;
        }
        if (csv_resolve(path, gz, sizeof gz) || strcmp(gz + strlen(gz) - 3, ".gz")) {
            snprintf(err, errlen, "%s.gz: not written", path);
            return -1;
        }
        if (csv_read_file(gz, &tab, err, errlen)) return -1;
        size_t rows = tab.nrows;
        csv_free(&tab);
        if (rows != w->rows[t]) {
            snprintf(err, errlen, "%s: reads back %zu rows, %zu were written", gz, rows, w->rows[t]);
            return -1;
        }
    }
    return 0;
}

/* results.csv and samples.csv, either form, removed: the tables stand for them. */
static int drop_rows(const char *dir, int quiet, char *err, size_t errlen)
{
    for (size_t i = 0; i < N_ROW_FILES; i++) {
        pack_paths pp;
        if (paths_of(dir, packed_names[i], "", &pp, err, errlen)) return -1;
        const char *forms[] = {pp.plain, pp.gz};
        for (size_t k = 0; k < 2; k++) {
            if (!path_exists(forms[k])) continue;
            if (remove(forms[k])) {
                snprintf(err, errlen, "%s: cannot remove it: %s", forms[k], strerror(errno));
                return -1;
            }
            if (!quiet) fprintf(stderr, "sweep pack: removed %s (tables/ stands for it)\n", forms[k]);
        }
    }
    return 0;
}

/* dir/tables/ written, packed and read back; then dir packed, or with drop
 * its confirm.csv packed and the rows removed (not gzipped first: a full
 * run's plain rows are 130 MB, and pack_file's read-back holds them parsed). */
static int tables_dir(const char *dir, int drop, int quiet, char *err, size_t errlen)
{
    char tables[SWEEP_PATH_MAX];
    tables_written w;
    if (path_join(tables, sizeof tables, dir, TABLES_DIR)) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        return -1;
    }
    if (results_tables_write(dir, drop, &w, err, errlen) || pack_tables(tables, quiet, err, errlen) ||
        check_tables(tables, &w, err, errlen))
        return -1;
    if (!quiet)
        fprintf(stderr, "sweep pack: %s/: %zu winners, %zu heatmap cells, %zu variant medians, %zu skipped lines "
                        "from %zu rows\n",
                tables, w.rows[0], w.rows[1], w.rows[2], w.rows[3], w.results_rows);
    if (!drop) return results_pack_dir(dir, quiet, err, errlen);
    return pack_names(dir, packed_names + N_ROW_FILES, N_PACKED - N_ROW_FILES, quiet, err, errlen) ||
                   drop_rows(dir, quiet, err, errlen)
               ? -1
               : 0;
}

/* dir/name.gz into dir/name where only the packed form is there. */
static int unpack_file(const char *dir, const char *name, char *err, size_t errlen)
{
    pack_paths pp;
    if (paths_of(dir, name, ".tmp", &pp, err, errlen)) return -1;
    const char *plain = pp.plain, *gz = pp.gz, *tmp = pp.tmp;
    if (path_exists(plain) || !path_exists(gz)) return 0;
    size_t len = 0;
    char *bytes = csv_slurp(gz, &len, err, errlen);
    if (!bytes) return -1;
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(bytes, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    free(bytes);
    if (!ok || rename(tmp, plain)) {
        snprintf(err, errlen, "%s: %s", plain, strerror(errno ? errno : EIO));
        remove(tmp);
        return -1;
    }
    return remove_source(gz, "unpacked into", name, "", err, errlen);
}

int results_unpack_dir(const char *dir, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof packed_names / sizeof packed_names[0]; i++)
        if (unpack_file(dir, packed_names[i], err, errlen)) return -1;
    return 0;
}

typedef struct pack_opts {
    int quiet, tables, drop, ndirs;
} pack_opts;

/* The options: SWEEP_EXIT_OK to go on, -1 when --help was printed, else the exit status. */
static int parse_opts(int argc, char **argv, pack_opts *o)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(pack_usage_text, stdout);
            return -1;
        }
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) o->quiet = 1;
        else if (!strcmp(argv[i], "--tables")) o->tables = 1;
        else if (!strcmp(argv[i], "--drop-rows")) o->drop = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "sweep pack: unknown option '%s' (see sweep pack --help)\n", argv[i]);
            return SWEEP_EXIT_USAGE;
        } else o->ndirs++;
    }
    if (o->drop && !o->tables) {
        fprintf(stderr, "sweep pack: --drop-rows needs --tables: the rows go only where the tables stand for them\n");
        return SWEEP_EXIT_USAGE;
    }
    if (!o->ndirs) {
        fprintf(stderr, "sweep pack: no results directory given (see sweep pack --help)\n");
        return SWEEP_EXIT_USAGE;
    }
    return SWEEP_EXIT_OK;
}

/* arg a directory this command can pack: 0, or -1 with one line said. */
static int check_dir(const char *arg, const pack_opts *o)
{
    char dir[SWEEP_PATH_MAX], csv[SWEEP_PATH_MAX], conf[SWEEP_PATH_MAX];
    if (resolve_user_path(arg, dir, sizeof dir) || path_join(csv, sizeof csv, dir, "results.csv") ||
        path_join(conf, sizeof conf, dir, "confirm.csv")) {
        fprintf(stderr, "sweep pack: %.200s...: path too long\n", arg);
        return -1;
    }
    const char *why = NULL;
    if (!path_is_dir(dir)) why = "no such directory";
    /* a run, or a confirmation written elsewhere (sweep confirm --out) */
    else if (!csv_exists(csv) && !csv_exists(conf))
        why = "no results.csv or confirm.csv (plain or .gz): not a results directory";
    else if (o->tables && !csv_exists(csv))
        why = "no results.csv or results.csv.gz: --tables derives its tables from the rows (dropped already?)";
    if (why) fprintf(stderr, "sweep pack: %s: %s\n", arg, why);
    return why ? -1 : 0;
}

int pack_main(int argc, char **argv)
{
    pack_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? SWEEP_EXIT_OK : rc;
    /* every directory checked before any is packed */
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-' && check_dir(argv[i], &o)) return SWEEP_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') continue;
        char dir[SWEEP_PATH_MAX], err[3 * SWEEP_PATH_MAX];
        resolve_user_path(argv[i], dir, sizeof dir);
        int failed = o.tables ? tables_dir(dir, o.drop, o.quiet, err, sizeof err)
                              : results_pack_dir(dir, o.quiet, err, sizeof err);
        if (failed) {
            fprintf(stderr, "sweep pack: %s\n", err);
            return SWEEP_EXIT_FAILED;
        }
    }
    return SWEEP_EXIT_OK;
}
