/* compare_chart.h: the data file, then plots/compare.gp twice (PNG, SVG). */
#define _POSIX_C_SOURCE 200809L
#include "plots/compare_chart.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plots/render.h"
#include "plots/scripts.h"

extern char **environ;

/* Okabe-Ito blue and vermillion: told apart with any colour vision. */
static const unsigned verdict_rgb[] = {0x7a7a7a, 0x0072b2, 0xd55e00}; /* same, faster, slower */
/* The verdict in the marker's shape too, for readers who cannot tell the
 * colours: circle, triangle up, triangle down; filled cold, open
 * hot (gnuplot point types). */
static const int verdict_pt[2][3] = {{7, 9, 11}, {6, 8, 10}};

/* Points of one n and phase side by side: the k-th of m moved by a fraction
 * of an octave, so that configurations at one n do not hide each other. */
static double jittered(const compare_chart_point *p, size_t np, size_t i)
{
    size_t k = 0, m = 0;
    for (size_t j = 0; j < np; j++)
        if (p[j].n == p[i].n && p[j].hot == p[i].hot) {
            if (j < i) k++;
            m++;
        }
    return m > 1 ? p[i].n * exp2(((double)k - (m - 1) / 2.0) * 0.5 / m) : p[i].n;
}

static void dat(FILE *f, double x) { isfinite(x) ? fprintf(f, " %.6g", x) : fputs(" ?", f); }

/* Blocks: cold points, hot points, the band. Ranges for the axes. */
static void write_data(FILE *f, const compare_chart_point *p, size_t np, double *r)
{
    r[0] = INFINITY, r[1] = 0, r[2] = 1, r[3] = 1;
    for (int hot = 0; hot < 2; hot++) {
        fprintf(f, "# %s: n speed-up low high colour marker\n", hot ? "hot" : "cold");
        for (size_t i = 0; i < np; i++) {
            if (p[i].hot != hot || !isfinite(p[i].speedup)) continue;
            double lo = isfinite(p[i].lo) ? p[i].lo : p[i].speedup, hi = isfinite(p[i].hi) ? p[i].hi : p[i].speedup;
            dat(f, jittered(p, np, i));
            dat(f, p[i].speedup);
            dat(f, lo);
            dat(f, hi);
            fprintf(f, " %u %d\n", verdict_rgb[p[i].verdict], verdict_pt[hot][p[i].verdict]);
            r[0] = fmin(r[0], p[i].n), r[1] = fmax(r[1], p[i].n), r[2] = fmin(r[2], lo), r[3] = fmax(r[3], hi);
        }
        fputs("\n\n", f);
    }
    fputs("# band: n low high (the widest threshold at each n)\n", f);
    double last = -1;
    for (;;) { /* ascending n */
        double n = INFINITY, t = 0;
        for (size_t i = 0; i < np; i++)
            if (p[i].n > last && p[i].n < n) n = p[i].n;
        if (!isfinite(n)) break;
        for (size_t i = 0; i < np; i++)
            if (p[i].n == n && isfinite(p[i].threshold)) t = fmax(t, p[i].threshold);
        fprintf(f, "%.6g %.6g %.6g\n", n, 1 / (1 + t), 1 + t);
        r[2] = fmin(r[2], 1 / (1 + t)), r[3] = fmax(r[3], 1 + t);
        last = n;
    }
}

/* gnuplot in data_dir with -e params and the script; 0 when it exits 0. */
static int run_gnuplot(const char *data_dir, const char *params, char *msg, size_t len)
{
    const char *gp = getenv("GNUPLOT");
    if (!gp || !*gp) gp = "gnuplot";
    char log[4300], script[4300];
    snprintf(log, sizeof log, "%s/gnuplot.log", data_dir);
    snprintf(script, sizeof script, "%s/compare.gp", data_dir);
    size_t cl = strlen(data_dir) * 2 + strlen(params) + 16;
    char *cmd = malloc(cl);
    if (!cmd) return -1;
    int w = snprintf(cmd, cl, "cd '");
    for (const char *q = data_dir; *q; q++) w += snprintf(cmd + w, cl - (size_t)w, *q == '\'' ? "''" : "%c", *q);
    snprintf(cmd + w, cl - (size_t)w, "'; %s", params);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {(char *)gp, "-e", cmd, script, NULL};
    pid_t pid;
    fflush(NULL);
    int e = posix_spawnp(&pid, gp, &fa, NULL, argv, environ), status = 0;
    posix_spawn_file_actions_destroy(&fa);
    free(cmd);
    if (e) {
        snprintf(msg, len, "cannot run %s: %s", gp, strerror(e));
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    snprintf(msg, len, "gnuplot failed (exit %d); see %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1, log);
    return -1;
}

/* key='value'; with quotes doubled and enhanced-text specials escaped. */
static void param_text(FILE *f, const char *key, const char *val)
{
    fprintf(f, "%s='", key);
    for (const char *c = val; *c; c++) {
        if (*c == '\'') fputs("''", f);
        else if (strchr("\\^_@&~{}", *c)) fprintf(f, "\\%c", *c);
        else fputc(*c, f);
    }
    fputs("'; ", f);
}

static int write_script(const char *data_dir, char *msg, size_t len)
{
    for (size_t i = 0; i < plots_script_count; i++) {
        if (strcmp(plots_scripts[i].name, "compare.gp") && strcmp(plots_scripts[i].name, "common.gp")) continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", data_dir, plots_scripts[i].name);
        FILE *f = fopen(path, "w");
        if (!f || fputs(plots_scripts[i].text, f) < 0 || fclose(f)) {
            snprintf(msg, len, "%s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int compare_chart_draw(const char *dir, const char *stem, const char *title, const char *subtitle,
                       const compare_chart_point *p, size_t np, char *msg, size_t msglen)
{
    char data_dir[4200], dat_path[4400];
    snprintf(data_dir, sizeof data_dir, "%s/compare-data", dir);
    snprintf(dat_path, sizeof dat_path, "%s/%s.dat", data_dir, stem);
    if ((mkdir(data_dir, 0755) && errno != EEXIST) || write_script(data_dir, msg, msglen)) {
        if (errno) snprintf(msg, msglen, "%s: %s", data_dir, strerror(errno));
        return -1;
    }
    FILE *f = fopen(dat_path, "w");
    double r[4];
    if (!f) {
        snprintf(msg, msglen, "%s: %s", dat_path, strerror(errno));
        return -1;
    }
    write_data(f, p, np, r);
    int hascold = 0, hashot = 0;
    for (size_t i = 0; i < np; i++)
        if (isfinite(p[i].speedup)) *(p[i].hot ? &hashot : &hascold) = 1;
    if (fclose(f)) {
        snprintf(msg, msglen, "%s: write error", dat_path);
        return -1;
    }
    if (!plots_gnuplot_available()) {
        snprintf(msg, msglen, "gnuplot not found: no chart (data in %s)", data_dir);
        return 0;
    }
    static const char *const fmts[1] = {"png"}; /* one format: the PNG the docs link */
    for (int k = 0; k < 1; k++) {
        char *params = NULL, out[4400];
        size_t plen = 0;
        FILE *m = open_memstream(&params, &plen);
        if (!m) return -1;
        fprintf(m, "gpdir='.'; fmt='%s'; out='../%s.%s'; w=%d; h=%d; data='%s.dat'; ", fmts[k], stem, fmts[k], 960,
                540, stem);
        param_text(m, "ttl", title);
        param_text(m, "sub", subtitle);
        double pad = (r[3] - r[2]) * 0.05;
        int logy = r[3] > 4 * r[2];
        fprintf(m, "hascold=%d; hashot=%d; xmin=%.6g; xmax=%.6g; ymin=%.6g; ymax=%.6g; logy=%d;", hascold, hashot,
                (isfinite(r[0]) ? r[0] : 1) / 2, (r[1] > 0 ? r[1] : 2) * 2, logy ? r[2] / 1.1 : r[2] - pad,
                logy ? r[3] * 1.1 : r[3] + pad, logy);
        fclose(m);
        snprintf(out, sizeof out, "%s/%s.%s", dir, stem, fmts[k]);
        remove(out);
        int rc = run_gnuplot(data_dir, params, msg, msglen);
        free(params);
        struct stat st;
        if (!rc && (stat(out, &st) || !st.st_size)) {
            snprintf(msg, msglen, "gnuplot wrote no %s", out);
            rc = -1;
        }
        if (rc) return -1;
    }
    return 1;
}
