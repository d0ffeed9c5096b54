/* bazel run //plots:render -- [options] RESULTS_DIR
 * Charts and report from a results directory (results.csv, run.json and
 * confirm.csv), e.g. one brought back from a GPU host without gnuplot. The
 * results directory is only read: the report goes to --out DIR, by default
 * ./<basename>-report/ where the command was typed. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plots/render.h"
#include "results_io/closest.h"

static void usage(FILE *f)
{
    fputs("usage: render [options] RESULTS_DIR\n"
          "Draws the charts (gnuplot) and writes report.md, index.html, charts/ and plots-data/\n"
          "into the output directory, reading only RESULTS_DIR (results.csv, run.json,\n"
          "confirm.csv), which it leaves untouched.\n"
          "  --out DIR        output directory, created if missing (default: ./NAME-report,\n"
          "                   NAME the results directory's last component, relative to the\n"
          "                   directory the command was typed in); --out RESULTS_DIR\n"
          "                   writes beside the results, as the committed runs keep them\n"
          "  --n N            n of the ladder, metrics and heatmap charts and the tables\n"
          "                   (2^22 by default; 2^K or a number)\n"
          "  --baseline NAME  variant (or alias) of the cumulative speedup (default: reduce0)\n"
          "  --scripts DIR    gnuplot scripts from DIR instead of the built-in copies\n"
          "  --gnuplot PATH   gnuplot executable (default: $GNUPLOT, else gnuplot on PATH)\n"
          "  --no-charts      the report only\n"
          "  --link-charts    index.html links charts/*.png instead of embedding them\n"
          "  --svg            each chart also as SVG (default: PNG only)\n"
          "  -q, --quiet      no progress lines\n"
          "  -h, --help       this text\n"
          "Exit status: 0 done, 1 report written but charts missing, 2 bad input (one line,\n"
          "nothing written) or failed.\n",
          f);
}

static int parse_n(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (strncmp(s, "2^", 2) == 0) {
        long k = strtol(s + 2, &end, 10);
        if (*end || end == s + 2 || k < 0 || k > 62) return -1;
        *out = (size_t)1 << k;
        return 0;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || end == s || errno || v == 0) return -1;
    *out = (size_t)v;
    return 0;
}

/* The output directory: --out as given (relative to where the command was
 * typed), else ./<basename of dir>-report there. -1 when dir has no name. */
static int out_path(const char *dir, const char *out, const char *bwd, char *buf, size_t len)
{
    const char *base = bwd && *bwd ? bwd : ".";
    if (out) {
        if (out[0] == '/' || !(bwd && *bwd)) snprintf(buf, len, "%s", out);
        else snprintf(buf, len, "%s/%s", bwd, out);
        return 0;
    }
    char name[PATH_MAX];
    if (!realpath(dir, name) && snprintf(name, sizeof name, "%s", dir) >= (int)sizeof name) return -1;
    size_t l = strlen(name);
    while (l > 1 && name[l - 1] == '/') name[--l] = '\0';
    const char *slash = strrchr(name, '/');
    const char *last = slash ? slash + 1 : name;
    if (!*last || !strcmp(last, ".") || !strcmp(last, "..")) return -1;
    snprintf(buf, len, "%s/%s-report", base, last);
    return 0;
}

/* "render: unknown option '--ot' (see render --help); closest: --out" */
static int unknown_option(const char *a)
{
    static const char *const flags[] = {"--out", "--n", "--baseline", "--scripts", "--gnuplot", "--no-charts",
                                        "--link-charts", "--svg", "--quiet", "--help"};
    char err[512];
    unknown_flag_message(err, sizeof err, a, flags, sizeof flags / sizeof flags[0], "render --help");
    fprintf(stderr, "render: %s\n", err);
    return 2;
}

/* Is prog an executable file: as given when it names a directory, else on PATH? */
static int executable(const char *prog)
{
    if (strchr(prog, '/')) return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    for (const char *p = path ? path : ""; *p;) {
        size_t l = strcspn(p, ":");
        if (l && snprintf(buf, sizeof buf, "%.*s/%s", (int)l, p, prog) < (int)sizeof buf && access(buf, X_OK) == 0)
            return 1;
        p += l + (p[l] == ':');
    }
    return 0;
}

/* The paths the user named, before anything is written: the results and
 * scripts directories exist, the gnuplot asked for is there. */
static int check_inputs(const char *dir, const plots_options *o)
{
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "render: %s: no such results directory\n", dir);
        return 2;
    }
    if (o->scripts_dir && (stat(o->scripts_dir, &st) || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "render: --scripts: %s: no such directory\n", o->scripts_dir);
        return 2;
    }
    if (o->gnuplot && !o->no_charts && !executable(o->gnuplot)) {
        fprintf(stderr, "render: --gnuplot: %s: not an executable file%s\n", o->gnuplot,
                strchr(o->gnuplot, '/') ? "" : " on PATH");
        return 2;
    }
    return 0;
}

/* The options into o and the results directory into *dir; 0 go, 1 --help
 * printed, 2 bad usage (one line said). */
static int parse_args(int argc, char **argv, plots_options *o, const char **dir)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define TAKES(flag) (strcmp(a, flag) == 0 ? (i + 1 < argc ? (val = argv[++i], 1) : -1) : 0)
        int t;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->log = NULL;
        } else if (!strcmp(a, "--no-charts")) {
            o->no_charts = 1;
        } else if (!strcmp(a, "--link-charts")) {
            o->link_charts = 1;
        } else if (!strcmp(a, "--svg")) {
            o->svg = 1;
        } else if ((t = TAKES("--n"))) {
            if (t < 0 || parse_n(val, &o->n)) {
                fprintf(stderr, "render: --n wants 2^K or a positive number, not %s\n", t < 0 ? "nothing" : val);
                return 2;
            }
        } else if ((t = TAKES("--baseline")) || (t = TAKES("--scripts")) || (t = TAKES("--gnuplot")) ||
                   (t = TAKES("--out"))) {
            if (t < 0 || !*val) {
                fprintf(stderr, "render: %s wants a value\n", a);
                return 2;
            }
            if (!strcmp(a, "--baseline")) o->baseline = val;
            else if (!strcmp(a, "--scripts")) o->scripts_dir = val;
            else if (!strcmp(a, "--out")) o->out_dir = val;
            else o->gnuplot = val;
        } else if (a[0] == '-' && a[1]) {
            return unknown_option(a);
        } else if (*dir) {
            fprintf(stderr, "render: one results directory, not %s and %s\n", *dir, a);
            return 2;
        } else {
            *dir = a;
        }
#undef TAKES
    }
    if (!*dir) {
        fprintf(stderr, "render: needs a results directory (render [options] RESULTS_DIR; see --help)\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    plots_options o = {0};
    o.log = stderr;
    const char *dir = NULL;
    int rc = parse_args(argc, argv, &o, &dir);
    if (rc) return rc == 1 ? 0 : rc;
    /* Under `bazel run` the working directory is the runfiles tree: relative
     * paths mean the directory the command was typed in. */
    char buf[8192];
    const char *bwd = getenv("BUILD_WORKING_DIRECTORY");
    if (dir[0] != '/' && bwd && *bwd) {
        snprintf(buf, sizeof buf, "%s/%s", bwd, dir);
        dir = buf;
    }
    /* the same for a relative scripts directory */
    char sbuf[8192];
    if (o.scripts_dir && o.scripts_dir[0] != '/' && bwd && *bwd) {
        snprintf(sbuf, sizeof sbuf, "%s/%s", bwd, o.scripts_dir);
        o.scripts_dir = sbuf;
    }
    if ((rc = check_inputs(dir, &o))) return rc;
    char obuf[8192];
    if (out_path(dir, o.out_dir, bwd, obuf, sizeof obuf)) {
        fprintf(stderr, "render: no output directory can be named after %s; give --out DIR\n", dir);
        return 2;
    }
    o.out_dir = obuf;
    char msg[2048];
    rc = plots_render(dir, &o, msg, sizeof msg);
    fprintf(rc < 0 ? stderr : stdout, "%s\n", msg);
    return rc < 0 ? 2 : rc;
}
