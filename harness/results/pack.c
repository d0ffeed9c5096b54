/* `sweep pack DIR...` (pack.h): results.csv and samples.csv into their
 * gzip forms, read back before the plain files go; and the inverse for --resume. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/pack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "harness/core/exit_codes.h"
#include "harness/core/files.h"
#include "results_io/csv.h"

static const char pack_usage_text[] =
    "usage: sweep pack DIR... [--quiet]\n"
    "\n"
    "Packs finished results directories for committing: results.csv, and\n"
    "samples.csv and confirm.csv where the run has them, become results.csv.gz,\n"
    "samples.csv.gz and confirm.csv.gz (gzip). Each packed file is read back and must give the plain file's bytes\n"
    "before the plain file is removed. Every reader (sweep compare, merge,\n"
    "confirm, --resume, the renderer) takes either form; --resume unpacks first.\n"
    "A directory already packed is left as it is.\n"
    "\n"
    "  --quiet   no line per file packed\n"
    "\n"
    "Exit status: 0 packed; 1 a file could not be written or did not read back\n"
    "the same (its plain file kept); 2 bad input (no DIR, or a DIR without\n"
    "results.csv or confirm.csv, plain or .gz).\n";

/* The files a run's directory packs, in this order. */
static const char *const packed_names[] = {"results.csv", "samples.csv", "confirm.csv"};

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

int results_pack_dir(const char *dir, int quiet, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof packed_names / sizeof packed_names[0]; i++) {
        int done = 0;
        if (pack_file(dir, packed_names[i], &done, err, errlen)) return -1;
        if (done && !quiet) fprintf(stderr, "sweep pack: %s/%s.gz\n", dir, packed_names[i]);
    }
    return 0;
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

int pack_main(int argc, char **argv)
{
    int quiet = 0, ndirs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(pack_usage_text, stdout);
            return SWEEP_EXIT_OK;
        }
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "sweep pack: unknown option '%s' (see sweep pack --help)\n", argv[i]);
            return SWEEP_EXIT_USAGE;
        } else ndirs++;
    }
    if (!ndirs) {
        fprintf(stderr, "sweep pack: no results directory given (see sweep pack --help)\n");
        return SWEEP_EXIT_USAGE;
    }
    /* every directory checked before any is packed */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') continue;
        char dir[SWEEP_PATH_MAX], csv[SWEEP_PATH_MAX], conf[SWEEP_PATH_MAX];
        if (resolve_user_path(argv[i], dir, sizeof dir) || path_join(csv, sizeof csv, dir, "results.csv") ||
            path_join(conf, sizeof conf, dir, "confirm.csv")) {
            fprintf(stderr, "sweep pack: %.200s...: path too long\n", argv[i]);
            return SWEEP_EXIT_USAGE;
        }
        /* a run, or a confirmation written elsewhere (sweep confirm --out) */
        if (!path_is_dir(dir) || (!csv_exists(csv) && !csv_exists(conf))) {
            fprintf(stderr, "sweep pack: %s: %s\n", argv[i],
                    path_is_dir(dir) ? "no results.csv or confirm.csv (plain or .gz): not a results directory"
                                     : "no such directory");
            return SWEEP_EXIT_USAGE;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') continue;
        char dir[SWEEP_PATH_MAX], err[3 * SWEEP_PATH_MAX];
        resolve_user_path(argv[i], dir, sizeof dir);
        if (results_pack_dir(dir, quiet, err, sizeof err)) {
            fprintf(stderr, "sweep pack: %s\n", err);
            return SWEEP_EXIT_FAILED;
        }
    }
    return SWEEP_EXIT_OK;
}
