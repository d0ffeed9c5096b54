/* bazel run //plots:render -- [options] RESULTS_DIR
 * Charts and report from a results directory (results.csv and run.json),
 * e.g. one brought back from a GPU host without gnuplot. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/render.h"

static void usage(FILE *f)
{
    fputs("usage: render [options] RESULTS_DIR\n"
          "Draws the charts (gnuplot) and writes report.md and index.html into RESULTS_DIR,\n"
          "reading only RESULTS_DIR/results.csv and RESULTS_DIR/run.json.\n"
          "  --n N            n of the ladder, metrics and heatmap charts and the tables\n"
          "                   (2^22 by default; 2^K or a number)\n"
          "  --baseline NAME  variant (or alias) of the cumulative speedup (default: reduce0)\n"
          "  --scripts DIR    gnuplot scripts from DIR instead of the built-in copies\n"
          "  --gnuplot PATH   gnuplot executable (default: $GNUPLOT, else gnuplot on PATH)\n"
          "  --no-charts      the report only\n"
          "  --link-charts    index.html links charts/*.png instead of embedding them\n"
          "  -q, --quiet      no progress lines\n"
          "  -h, --help       this text\n"
          "Exit status: 0 done, 1 report written but charts missing, 2 failed.\n",
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

int main(int argc, char **argv)
{
    plots_options o = {0};
    o.log = stderr;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define TAKES(flag) (strcmp(a, flag) == 0 ? (i + 1 < argc ? (val = argv[++i], 1) : -1) : 0)
        int t;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o.log = NULL;
        } else if (!strcmp(a, "--no-charts")) {
            o.no_charts = 1;
        } else if (!strcmp(a, "--link-charts")) {
            o.link_charts = 1;
        } else if ((t = TAKES("--n"))) {
            if (t < 0 || parse_n(val, &o.n)) {
                fprintf(stderr, "render: --n wants 2^K or a positive number, not %s\n", t < 0 ? "nothing" : val);
                return 2;
            }
        } else if ((t = TAKES("--baseline")) || (t = TAKES("--scripts")) || (t = TAKES("--gnuplot"))) {
            if (t < 0) {
                fprintf(stderr, "render: %s wants a value\n", a);
                return 2;
            }
            if (!strcmp(a, "--baseline")) o.baseline = val;
            else if (!strcmp(a, "--scripts")) o.scripts_dir = val;
            else o.gnuplot = val;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "render: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else if (dir) {
            fprintf(stderr, "render: one results directory, not %s and %s\n", dir, a);
            return 2;
        } else {
            dir = a;
        }
#undef TAKES
    }
    if (!dir) {
        usage(stderr);
        return 2;
    }
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
    char msg[2048];
    int rc = plots_render(dir, &o, msg, sizeof msg);
    fprintf(rc < 0 ? stderr : stdout, "%s\n", msg);
    return rc < 0 ? 2 : rc;
}
