/* `sweep compare` (harness/compare/compare.h): the command line. Reads, judges
 * (compare.c), prints the short form or with --detail the per-configuration
 * document, and writes files only where asked (--out, --csv, --json). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"
#include "harness/core/files.h"
#include "harness/config/plan.h"
#include "harness/core/exit_codes.h"
#include "results_io/closest.h"


static const char compare_usage_text[] =
    "usage: bazel run //harness:sweep -- compare BASE NEW [options]\n"
    "       sweep compare BASE NEW [options]\n"
    "\n"
    "Compares two results directories of the sweep, configuration by configuration\n"
    "(variant, dtype, op, n, block dim, own axes, finish or scan mode): the\n"
    "speed-up of NEW (BASE median / NEW median, cold and hot) with a 95 % interval\n"
    "and a verdict. Two runs differ by more than their rows' noise even with no\n"
    "change of code (another process, card or machine): that scatter is fitted\n"
    "from the runs themselves, per size band (an empirical null; at least 30\n"
    "configurations a band): a configuration is judged against the scatter of its\n"
    "variant's configurations, and each variant against the scatter of the\n"
    "variants' shifts, over every size or from / up to the size where it moved.\n"
    "Too few configurations to fit: each row's own noise (with both runs'\n"
    "samples.csv: Mann-Whitney U and a bootstrap of the ratio). faster / slower:\n"
    "significant after the Benjamini-Hochberg correction (q = 0.05) and beyond\n"
    "the threshold; otherwise same.\n"
    "\n"
    "Prints one line per variant x dtype (x op): its speed-up relative to the\n"
    "machine (geometric mean, 95 % interval), its verdict and where it starts, how\n"
    "many configurations are faster / slower / the same, and the worst one (n as\n"
    "2^k, block x own axis, phase); then what the null fitted, how it was judged,\n"
    "and warnings (the same run twice, different devices, clocks or copy\n"
    "bandwidths). Writes nothing unless asked.\n"
    "\n"
    "  --detail              the per-configuration tables on stdout instead (Markdown)\n"
    "  --threshold PCT       smallest change that counts (default: the larger of the\n"
    "                        two rows' noise figures, at least 2)\n"
    "  --normalize cub|copy|machine\n"
    "                        before comparing, divide each row's times by a reference\n"
    "                        measured in its own run, so that a faster or slower\n"
    "                        machine does not read as a change of the code:\n"
    "                        cub: the fastest ok " SWEEP_CUB_REDUCE " / " SWEEP_CUB_SCAN " median at the\n"
    "                        same kind, dtype, op, scan mode and n, cold by cold and\n"
    "                        hot by hot (the library's rows: the reference, 1.0,\n"
    "                        not judged); copy: the time a copy of the row's\n"
    "                        bytes_moved takes at run.json's copy_bandwidth_GBps;\n"
    "                        machine: launch + bytes_moved / copy bandwidth, each\n"
    "                        run's own (launch_us, or fitted from its library rows).\n"
    "                        Rows without one are listed apart, with the reason.\n"
    "  --out DIR             write compare.md (with the per-configuration tables),\n"
    "                        compare.csv, compare.html and the charts into DIR\n"
    "  --csv FILE            the per-configuration table as CSV\n"
    "  --json FILE           everything as JSON\n"
    "  --fail-on-regression  exit 1 when any configuration or variant is slower\n"
    "  --help                this text\n"
    "\n"
    "Exit status: 0; 1 regression (with --fail-on-regression) or an output failed;\n"
    "2 bad input (nothing written).\n";

typedef struct compare_options {
    const char *base, *newer, *out, *csv, *json;
    double threshold; /* fraction; -1: default */
    compare_norm normalize;
    int fail_on_regression, help, detail;
} compare_options;

static int compare_usage_error(const char *msg)
{
    fprintf(stderr, "sweep compare: %s\n", msg);
    return SWEEP_EXIT_USAGE;
}

static int parse_options(int argc, char **argv, compare_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->threshold = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = !strcmp(a, "--out") ? &o->out : !strcmp(a, "--csv") ? &o->csv
                           : !strcmp(a, "--json") ? &o->json : NULL;
        if (val || !strcmp(a, "--threshold") || !strcmp(a, "--normalize")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                snprintf(err, errlen, "%s: needs a value", a);
                return -1;
            }
            const char *v = argv[++i];
            if (val) *val = v;
            else if (!strcmp(a, "--normalize")) {
                if (compare_norm_parse(v, &o->normalize)) {
                    snprintf(err, errlen, "--normalize: '%s' is not cub, copy or machine", v);
                    return -1;
                }
            } else {
                char *end;
                double t = strtod(v, &end);
                if (*end || !(t >= 0 && t < 1000)) {
                    snprintf(err, errlen, "--threshold: '%s' is not a percentage in [0, 1000)", v);
                    return -1;
                }
                o->threshold = t / 100;
            }
        } else if (!strcmp(a, "--fail-on-regression")) o->fail_on_regression = 1;
        else if (!strcmp(a, "--detail")) o->detail = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) o->help = 1;
        else if (a[0] == '-' && a[1]) {
            static const char *const flags[] = {"--detail", "--threshold", "--normalize", "--out", "--csv", "--json",
                                                "--fail-on-regression", "--help"};
            unknown_flag_message(err, errlen, a, flags, sizeof flags / sizeof flags[0], "compare --help");
            return -1;
        } else if (!o->base) o->base = a;
        else if (!o->newer) o->newer = a;
        else {
            snprintf(err, errlen, "'%s': only two results directories, BASE and NEW", a);
            return -1;
        }
    }
    if (!o->help && !o->newer) {
        snprintf(err, errlen, "needs two results directories: compare BASE NEW");
        return -1;
    }
    return 0;
}

/* Can FILE be written (its directory exists and takes files; it is no directory)? */
static int file_writable(const char *opt, const char *path, char *err, size_t errlen)
{
    char dir[SWEEP_PATH_MAX], why[SWEEP_PATH_MAX + 256];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
    if (path_is_dir(path)) snprintf(err, errlen, "%s: %s is a directory", opt, path);
    else if (!path_is_dir(dir)) snprintf(err, errlen, "%s: %s: no such directory", opt, dir);
    else if (dir_check_writable(dir, why, sizeof why)) snprintf(err, errlen, "%s: cannot write %s: %s", opt, path, why);
    else return 0;
    return -1;
}

/* Every output path, resolved and checked before anything is written;
 * out[0] == '\0': no --out. */
static int resolve_outputs(compare_options *o, char *out, char *csv, char *json, char *err, size_t errlen)
{
    char why[SWEEP_PATH_MAX + 256];
    csv[0] = json[0] = out[0] = '\0';
    if (o->out && resolve_user_path(o->out, out, SWEEP_PATH_MAX)) {
        snprintf(err, errlen, "--out: path too long");
        return -1;
    }
    if (out[0] && path_exists(out) && !path_is_dir(out)) {
        snprintf(err, errlen, "--out: %s exists and is not a directory", out);
        return -1;
    }
    if (out[0] && dir_check_writable(out, why, sizeof why)) {
        snprintf(err, errlen, "--out: cannot write %s: %s", out, why);
        return -1;
    }
    if (o->csv && (resolve_user_path(o->csv, csv, SWEEP_PATH_MAX) || file_writable("--csv", csv, err, errlen))) return -1;
    if (o->json && (resolve_user_path(o->json, json, SWEEP_PATH_MAX) || file_writable("--json", json, err, errlen)))
        return -1;
    return 0;
}

/* The files asked for, then one line naming them. */
static int write_outputs(const compare_result *r, const char *out, const char *csv, const char *json)
{
    char err[SWEEP_PATH_MAX + 512], said[3 * SWEEP_PATH_MAX + 64] = "";
    int failed = 0;
    if (out[0] && (make_dirs(out, err, sizeof err) || compare_write_dir(out, r, stderr, err, sizeof err))) failed = 1;
    else if (csv[0] && compare_write_csv(csv, r, err, sizeof err)) failed = 1;
    else if (json[0] && compare_write_json(json, r, err, sizeof err)) failed = 1;
    if (failed) {
        fprintf(stderr, "sweep compare: %s\n", err);
        return 1;
    }
    if (out[0]) snprintf(said, sizeof said, "%s/compare.md, compare.csv, compare.html", out);
    if (csv[0]) snprintf(said + strlen(said), sizeof said - strlen(said), "%s%s", said[0] ? ", " : "", csv);
    if (json[0]) snprintf(said + strlen(said), sizeof said - strlen(said), "%s%s", said[0] ? ", " : "", json);
    if (said[0]) fprintf(stderr, "sweep compare: wrote %s\n", said);
    return 0;
}

int compare_main(int argc, char **argv)
{
    static char err[2 * SWEEP_PATH_MAX + 1024];
    compare_options o;
    if (parse_options(argc, argv, &o, err, sizeof err)) return compare_usage_error(err);
    if (o.help) {
        fputs(compare_usage_text, stdout);
        return SWEEP_EXIT_OK;
    }
    static compare_result r;
    memset(&r, 0, sizeof r);
    r.threshold = o.threshold;
    r.normalize = o.normalize;
    static char base[SWEEP_PATH_MAX], newer[SWEEP_PATH_MAX], out[SWEEP_PATH_MAX], csv[SWEEP_PATH_MAX],
        json[SWEEP_PATH_MAX];
    if (resolve_user_path(o.base, base, sizeof base) || resolve_user_path(o.newer, newer, sizeof newer))
        return compare_usage_error("BASE or NEW: path too long");
    int rc = SWEEP_EXIT_USAGE;
    if (compare_load_run(base, &r.base, err, sizeof err) || compare_load_run(newer, &r.newer, err, sizeof err) ||
        resolve_outputs(&o, out, csv, json, err, sizeof err) || compare_build(&r, err, sizeof err)) {
        fprintf(stderr, "sweep compare: %s\n", err);
        goto done;
    }
    r.base.shown = o.base;
    r.newer.shown = o.newer;
    if (o.detail) compare_print_md(stdout, &r, NULL);
    else compare_print_short(stdout, &r);
    compare_print_footer(stdout, &r, o.detail);
    fflush(stdout);
    for (size_t i = 0; i < r.nwarnings; i++) fprintf(stderr, "sweep compare: warning: %s\n", r.warnings[i]);
    rc = write_outputs(&r, out, csv, json) ? SWEEP_EXIT_FAILED : SWEEP_EXIT_OK;
    size_t slower = compare_regressions(&r), vslower = compare_variant_regressions(&r);
    if (rc == SWEEP_EXIT_OK && o.fail_on_regression && (slower || vslower)) {
        fprintf(stderr, "sweep compare: %zu configuration%s and %zu variant%s slower (--fail-on-regression)\n",
                slower, slower == 1 ? "" : "s", vslower, vslower == 1 ? "" : "s");
        rc = SWEEP_EXIT_FAILED;
    }
done:
    compare_result_free(&r);
    return rc;
}
