/* The charts of committed runs, drawn again into a temporary directory
 * without gnuplot (the data files and plots-data/commands.sh, which holds
 * every chart's gnuplot parameters, are written all the same), checked from
 * those files:
 *   - every variant has one colour and marker in every chart of the run (the
 *     line charts' names/colors/pts lists, the ladder's and metrics' data);
 *   - variants of one kind get distinct (colour, marker) pairs;
 *   - the ladder's "fastest" label is on the bar with the lowest time;
 *   - every heatmap of the run has the same colour range, the lowest and
 *     highest cell over all of them;
 *   - the speed-up over CUB: each point inside its interval, and where the
 *     run's confirm.csv measured it, the confirmed speed-up and interval.
 * Where gnuplot is installed, two runs are also drawn, every chart without a
 * failure, and the ladder and metrics SVGs draw each variant's marker in its
 * colour (once per panel). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plots/render.h"
#include "plots/results.h"
#include "results_io/axis_names.h"
#include "results_io/confirm_io.h"
#include "tests/sweep_test_util.h"

#define RESULTS "experiments/results/h200/"

/* ---- a copy of a committed run, rendered ------------------------------------------------ */

/* Copy RESULTS<run>/{results.csv,run.json,confirm.csv} to a temporary
 * directory and render it there (drawing when draw and gnuplot is found). */
static const char *render_copy(const char *run, int draw, int *rc)
{
    char rel[256], srcdir[4096], cmd[9000];
    snprintf(rel, sizeof rel, RESULTS "%s/results.csv", run);
    snprintf(srcdir, sizeof srcdir, "%s", tu_data_file(rel));
    *strrchr(srcdir, '/') = '\0';
    const char *dir = tu_tempdir(run);
    int w = snprintf(cmd, sizeof cmd,
                     "cp -L '%s'/results.csv* '%s/run.json' '%s/' && for c in '%s'/confirm.csv*; do [ ! -e \"$c\" ] || cp -L \"$c\" '%s/'; done",
                     srcdir, srcdir, dir, srcdir, dir); /* results.csv or results.csv.gz (sweep pack) */
    assert_true(w < (int)sizeof cmd);
    assert_int_equal(system(cmd), 0);
    plots_options o = {0};
    o.svg = 1; /* the point counts read the SVGs */
    if (!draw) o.gnuplot = "/nonexistent/gnuplot";
    char msg[2048];
    *rc = plots_render(dir, &o, msg, sizeof msg);
    print_message("%s: %s\n", run, msg);
    return dir;
}

static char *slurp_in(const char *dir, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = tu_read_file(path);
    if (!text) fail_msg("%s: not written", path);
    return text;
}

/* ---- the gnuplot parameters of each chart (plots-data/commands.sh) --------------------- */

/* The value of key in a parameter string (key='text'; or key=number;) into
 * out, quotes undoubled; 0 when absent. */
static int param(const char *params, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = params; (p = strstr(p, key)); p += kl) {
        if ((p != params && p[-1] != ' ') || p[kl] != '=') continue;
        const char *v = p + kl + 1;
        size_t o = 0;
        if (*v == '\'') {
            for (v++; *v && !(v[0] == '\'' && v[1] != '\''); v++) {
                if (v[0] == '\'') v++; /* '' is one quote */
                if (o + 1 < len) out[o++] = *v;
            }
        } else {
            for (; *v && *v != ';'; v++)
                if (o + 1 < len) out[o++] = *v;
        }
        out[o] = '\0';
        return 1;
    }
    return 0;
}

/* The PNG command lines of commands.sh, shell quoting undone: one string of
 * parameters per chart. */
static size_t chart_params(const char *dir, char ***out)
{
    char *text = slurp_in(dir, "plots-data/commands.sh");
    size_t n = 0;
    char **lines = calloc(1024, sizeof *lines);
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < 1024; l = strtok_r(NULL, "\n", &save)) {
        const char *e = strstr(l, " -e '");
        if (!e || !strstr(l, "fmt='\\''png'\\''")) continue;
        char *p = malloc(strlen(l) + 1);
        size_t o = 0;
        for (const char *c = e + 5; *c; c++) {
            if (strncmp(c, "'\\''", 4) == 0) p[o++] = '\'', c += 3;
            else if (*c == '\'') break; /* the end of the shell-quoted -e argument */
            else p[o++] = *c;
        }
        p[o] = '\0';
        lines[n++] = p;
    }
    free(text);
    *out = lines;
    return n;
}

static void free_params(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

/* "bandwidth-reduce-f32-sum" from out='../charts/bandwidth-reduce-f32-sum.png' */
static void chart_stem(const char *params, char *stem, size_t len)
{
    char out[512];
    assert_true(param(params, "out", out, sizeof out));
    const char *s = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
    assert_true(snprintf(stem, len, "%s", s) < (int)len);
    char *dot = strrchr(stem, '.');
    if (dot) *dot = '\0';
}

/* ---- the palette: one (colour, marker) per variant ---------------------------------------- */

typedef struct slot {
    char name[96], kind[16], colour[16];
    int marker;
    char first[160]; /* the chart it was first seen in */
} slot;

typedef struct palette_seen {
    slot s[256];
    size_t n;
    int charts, uses;
} palette_seen;

/* The kind a chart draws: reduce or scan, from its stem's words. */
static const char *stem_kind(const char *stem)
{
    return strstr(stem, "-scan-") || strstr(stem, "-scan_") ? "scan" : "reduce";
}

/* Record that chart stem draws name with colour and marker: the same as in
 * every other chart of the run. */
static void see(palette_seen *ps, const char *stem, const char *name, const char *colour, int marker)
{
    ps->uses++;
    for (size_t i = 0; i < ps->n; i++) {
        slot *x = &ps->s[i];
        if (strcmp(x->name, name)) continue;
        if (strcmp(x->colour, colour) || x->marker != marker)
            fail_msg("%s: %s is %s marker %d, but %s marker %d in %s", stem, name, colour, marker, x->colour,
                     x->marker, x->first);
        return;
    }
    assert_true(ps->n < 256);
    slot *x = &ps->s[ps->n++];
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->kind, sizeof x->kind, "%s", stem_kind(stem));
    snprintf(x->colour, sizeof x->colour, "%s", colour);
    x->marker = marker;
    snprintf(x->first, sizeof x->first, "%s", stem);
}

/* The names, colors and pts lists of one line chart. */
static void see_lists(palette_seen *ps, const char *stem, const char *params)
{
    char names[4096], colors[4096], pts[4096];
    if (!param(params, "names", names, sizeof names)) return;
    assert_true(param(params, "colors", colors, sizeof colors));
    assert_true(param(params, "pts", pts, sizeof pts));
    ps->charts++;
    char *s1 = NULL, *s2 = NULL, *s3 = NULL;
    char *nm = strtok_r(names, " ", &s1), *co = strtok_r(colors, " ", &s2), *pt = strtok_r(pts, " ", &s3);
    for (; nm; nm = strtok_r(NULL, " ", &s1), co = strtok_r(NULL, " ", &s2), pt = strtok_r(NULL, " ", &s3)) {
        if (!co || !pt) fail_msg("%s: the names, colors and pts lists differ in length", stem);
        see(ps, stem, nm, co, atoi(pt));
    }
}

/* One bar chart's data file: the name in column 2 (quoted), the colour
 * (decimal 0xRRGGBB) in column col, the marker in column mcol. */
static void see_bars(palette_seen *ps, const char *dir, const char *stem, int col, int mcol)
{
    char name[300];
    snprintf(name, sizeof name, "plots-data/%s.dat", stem);
    char *text = slurp_in(dir, name);
    ps->charts++;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') continue;
        char *q1 = strchr(l, '"'), *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
        assert_non_null(q2);
        char var[96];
        snprintf(var, sizeof var, "%.*s", (int)(q2 - q1 - 1), q1 + 1);
        /* columns after the name: split on blanks outside quotes */
        int k = 3;
        unsigned colour = 0;
        int marker = -1;
        for (char *c = q2 + 1; *c && k <= mcol;) {
            while (*c == ' ') c++;
            if (!*c) break;
            char *end = c;
            if (*c == '"') end = strchr(c + 1, '"') + 1;
            else while (*end && *end != ' ') end++;
            if (k == col) colour = (unsigned)strtoul(c, NULL, 10);
            if (k == mcol) marker = atoi(c);
            k++;
            c = end;
        }
        char hex[16];
        snprintf(hex, sizeof hex, "#%06x", colour);
        assert_true(marker >= 0);
        see(ps, stem, var, hex, marker);
    }
    free(text);
}

/* Distinct variants of one kind: distinct (colour, marker) pairs. */
static void check_distinct(const palette_seen *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        for (size_t j = i + 1; j < ps->n; j++) {
            const slot *a = &ps->s[i], *b = &ps->s[j];
            if (strcmp(a->kind, b->kind) == 0 && strcmp(a->colour, b->colour) == 0 && a->marker == b->marker)
                fail_msg("%s and %s share colour %s and marker %d", a->name, b->name, a->colour, a->marker);
        }
}

static void check_palette(const char *dir, char **params, size_t np)
{
    palette_seen *ps = calloc(1, sizeof *ps);
    for (size_t i = 0; i < np; i++) {
        char stem[200];
        chart_stem(params[i], stem, sizeof stem);
        if (strncmp(stem, "ladder-", 7) == 0) see_bars(ps, dir, stem, 6, 9);
        else if (strncmp(stem, "metrics-", 8) == 0) see_bars(ps, dir, stem, 9, 10);
        else see_lists(ps, stem, params[i]);
    }
    check_distinct(ps);
    print_message("palette: %zu variants, %d uses in %d charts, each with one colour and marker\n", ps->n, ps->uses,
                  ps->charts);
    assert_true(ps->n >= 2);
    assert_true(ps->uses > (int)ps->n); /* variants seen in more than one chart */
    free(ps);
}

/* ---- the ladder's "fastest" label ------------------------------------------------------- */

/* Returns the variant labelled fastest in plots-data/<stem>.dat. */
static void check_fastest(const char *dir, const char *stem, char *who, size_t len)
{
    char name[300];
    snprintf(name, sizeof name, "plots-data/%s.dat", stem);
    char *text = slurp_in(dir, name);
    double tmin = INFINITY, tlab = NAN;
    int labels = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') continue;
        char *q1 = strchr(l, '"'), *q2 = strchr(q1 + 1, '"');
        double t = strtod(q2 + 1, NULL); /* time_us, right after the name */
        tmin = fmin(tmin, t);
        if (strstr(q2, "fastest")) {
            labels++;
            tlab = t;
            snprintf(who, len, "%.*s", (int)(q2 - q1 - 1), q1 + 1);
        }
    }
    free(text);
    if (labels != 1) fail_msg("%s: %d bars labelled fastest", stem, labels);
    if (tlab != tmin) fail_msg("%s: \"fastest\" on %s at %g µs; the lowest time is %g µs", stem, who, tlab, tmin);
}

/* ---- one colour range over the heatmaps -------------------------------------------------- */

/* The lowest and highest cell of a heatmap's data (index 0, column 3). */
static void heat_cells(const char *dir, const char *stem, double *lo, double *hi)
{
    char name[300];
    snprintf(name, sizeof name, "plots-data/%s.dat", stem);
    char *text = slurp_in(dir, name);
    char *end = strstr(text, "\n\n"); /* index 0 ends at the first blank line */
    if (end) *end = '\0';
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        double x, y, bw;
        if (l[0] == '#' || sscanf(l, "%lf %lf %lf", &x, &y, &bw) != 3) continue;
        *lo = fmin(*lo, bw), *hi = fmax(*hi, bw);
    }
    free(text);
}

/* Enhanced text back to plain: drop the backslashes before specials. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++)
        if (!(s[0] == '\\' && s[1])) *o++ = *s;
    *o = '\0';
}

/* A heatmap's x axis is its variant's own axis, by name and unit
 * ("vectors_in_flight (16-byte vectors per thread)" for reduce_one_launch),
 * in the label and the title: results that call it `coarse` included. */
static void check_heatmap_axis(const char *stem, const char *params)
{
    char xl[160], ttl[300], want[160];
    assert_true(param(params, "xl", xl, sizeof xl));
    assert_true(param(params, "ttl", ttl, sizeof ttl));
    unescape(xl);
    unescape(ttl);
    for (size_t i = 0; i < results_axis_name_count(); i++) {
        const results_axis_name *a = results_axis_name_get(i);
        char prefix[128];
        snprintf(prefix, sizeof prefix, "heatmap-%s-", a->variant);
        if (strncmp(stem, prefix, strlen(prefix))) continue;
        snprintf(want, sizeof want, "%s (%s)", a->axis, a->unit);
        if (strcmp(xl, want)) fail_msg("%s: x label '%s', want '%s'", stem, xl, want);
        if (!strstr(ttl, a->axis)) fail_msg("%s: title '%s' lacks %s", stem, ttl, a->axis);
        return;
    }
    fail_msg("%s: a heatmap of a variant without an own axis", stem);
}

static int check_heatmaps(const char *dir, char **params, size_t np)
{
    double cbmin = NAN, cbmax = NAN, lo = INFINITY, hi = -INFINITY;
    int n = 0;
    for (size_t i = 0; i < np; i++) {
        char stem[200], a[64], b[64];
        chart_stem(params[i], stem, sizeof stem);
        if (strncmp(stem, "heatmap-", 8)) continue;
        assert_true(param(params[i], "cbmin", a, sizeof a) && param(params[i], "cbmax", b, sizeof b));
        if (!n++) cbmin = atof(a), cbmax = atof(b);
        if (atof(a) != cbmin || atof(b) != cbmax)
            fail_msg("%s: cbrange [%s:%s], another heatmap's [%g:%g]", stem, a, b, cbmin, cbmax);
        heat_cells(dir, stem, &lo, &hi);
        check_heatmap_axis(stem, params[i]);
    }
    if (n) {
        print_message("%d heatmaps on one scale [%g:%g] GB/s\n", n, cbmin, cbmax);
        /* the data file holds six significant digits */
        assert_true(fabs(cbmin - lo) <= 1e-5 * lo && fabs(cbmax - hi) <= 1e-5 * hi);
    }
    return n;
}

/* ---- the speed-up over CUB: intervals, confirmed points ---------------------------------- */

/* Where the point came from the confirmation, its line's speed-up and interval. */
static void check_confirmed(const confirm_line *cl, size_t ncl, const char *group, const char *var,
                            unsigned long long n, int hot, double v, double lo, double hi)
{
    const confirm_line *best = NULL;
    for (size_t i = 0; i < ncl; i++) {
        char g[64];
        snprintf(g, sizeof g, "%s-%s-%s", cl[i].kind, cl[i].dtype, cl[i].op);
        if (!strcmp(g, group) && cl[i].n == n && !strcmp(cl[i].variant, var) &&
            !strcmp(cl[i].phase, hot ? "hot" : "cold") &&
            !strcmp(cl[i].role, "candidate") && (!best || cl[i].median_ms < best->median_ms))
            best = &cl[i];
    }
    if (!best) fail_msg("%s at n = %llu: marked confirmed, not in confirm.csv", var, n);
    assert_true(fabs(v - best->speedup) <= 1e-5 * v);
    assert_true(fabs(lo - best->ci_lo) <= 1e-5 * lo && fabs(hi - best->ci_hi) <= 1e-5 * hi);
}

/* Every point of plots-data/<stem>.dat inside its interval; the confirmed
 * ones equal to confirm.csv. Returns the number of confirmed points. */
static int check_vs_cub(const char *dir, const char *stem, const confirm_line *cl, size_t ncl)
{
    char name[300], var[96] = "";
    snprintf(name, sizeof name, "plots-data/%s.dat", stem);
    char *text = slurp_in(dir, name);
    int confirmed = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') {
            if (!strchr(l + 2, ' ')) snprintf(var, sizeof var, "%s", l + 2);
            continue;
        }
        unsigned long long n;
        char f[13][32];
        assert_int_equal(sscanf(l, "%llu %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s", &n, f[1],
                                f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12]),
                         13);
        for (int hot = 0; hot < 2; hot++) {
            if (!strcmp(f[1 + hot], "?")) continue;
            double v = atof(f[1 + hot]), lo = atof(f[7 + 2 * hot]), hi = atof(f[8 + 2 * hot]);
            if (!(lo <= v * (1 + 1e-6) && v <= hi * (1 + 1e-6)))
                fail_msg("%s: %s at n = %llu: %g outside [%g, %g]", stem, var, n, v, lo, hi);
            if (atoi(f[11 + hot]) == 2) {
                check_confirmed(cl, ncl, stem + strlen("speedup-vs-cub-"), var, n, hot, v, lo, hi);
                confirmed++;
            }
        }
    }
    free(text);
    return confirmed;
}

/* ---- the tests -------------------------------------------------------------------------------- */

/* vs-cub: two kinds, three dtypes, heatmaps of six variants, a confirmation. */
static void test_vs_cub_run(void **state)
{
    (void)state;
    int rc;
    const char *dir = render_copy("vs-cub", 0, &rc);
    assert_int_equal(rc, 1); /* the report written, the charts not drawn */
    char **params;
    size_t np = chart_params(dir, &params);
    assert_true(np >= 40);
    check_palette(dir, params, np);
    assert_true(check_heatmaps(dir, params, np) >= 2);
    char who[96];
    check_fastest(dir, "ladder-reduce-f32-sum", who, sizeof who);
    char path[4400], err[512];
    snprintf(path, sizeof path, "%s/confirm.csv", dir);
    confirm_line *cl = NULL;
    size_t ncl = 0;
    assert_int_equal(confirm_read_csv(path, &cl, &ncl, err, sizeof err), 0);
    int confirmed = check_vs_cub(dir, "speedup-vs-cub-reduce-f32-sum", cl, ncl) +
                    check_vs_cub(dir, "speedup-vs-cub-scan-f32-sum", cl, ncl);
    print_message("speed-up over CUB: %d points with the confirmation's interval\n", confirmed);
    assert_true(confirmed > 0);
    free(cl);
    /* drawn nowhere: no chart files, the data all there */
    snprintf(path, sizeof path, "%s/charts/bandwidth-reduce-f32-sum.png", dir);
    assert_false(tu_exists(path));
    free_params(params, np);
}

/* harris-ladder: eight rungs and CUB, which is the fastest at 2^22; the
 * label belongs on its bar. */
static void test_ladder_fastest_label(void **state)
{
    (void)state;
    int rc;
    const char *dir = render_copy("harris-ladder", 0, &rc);
    char **params;
    size_t np = chart_params(dir, &params);
    check_palette(dir, params, np);
    char who[96];
    check_fastest(dir, "ladder-reduce-f32-sum", who, sizeof who);
    assert_string_equal(who, "reduce_cub");
    free_params(params, np);
}

/* default: more variants of a kind than the palette has colours. */
static void test_many_variants(void **state)
{
    (void)state;
    int rc;
    const char *dir = render_copy("default", 0, &rc);
    char **params;
    size_t np = chart_params(dir, &params);
    check_palette(dir, params, np);
    assert_true(check_heatmaps(dir, params, np) >= 2);
    char who[96];
    check_fastest(dir, "ladder-reduce-f32-sum", who, sizeof who);
    free_params(params, np);
}

/* How many points the SVG chart draws with gnuplot point type pt (its
 * symbol #gpPt<pt-1>) in colour (0xRRGGBB). */
static int svg_points(const char *svg, int pt, unsigned colour)
{
    char sym[48];
    snprintf(sym, sizeof sym, "<use xlink:href='#gpPt%d' transform=", pt - 1);
    int n = 0;
    for (const char *p = svg; (p = strstr(p, sym)); p += strlen(sym)) {
        const char *c = strstr(p, "color='rgb(");
        const char *end = strchr(p, '>');
        unsigned r, g, b;
        if (c && end && c < end && sscanf(c + 11, "%u ,%u ,%u", &r, &g, &b) == 3 && (r << 16 | g << 8 | b) == colour)
            n++;
    }
    return n;
}

/* Every variant of a bar chart's data drawn as its marker in its colour, in
 * each of the chart's panels: colour and marker in columns col and mcol. */
static void check_markers_drawn(const char *dir, const char *stem, int col, int mcol, int panels)
{
    char name[300];
    snprintf(name, sizeof name, "charts/%s.svg", stem);
    char *svg = slurp_in(dir, name);
    snprintf(name, sizeof name, "plots-data/%s.dat", stem);
    char *text = slurp_in(dir, name);
    int vars = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') continue;
        char *q2 = strchr(strchr(l, '"') + 1, '"');
        unsigned colour = 0;
        int marker = -1, k = 3;
        for (char *c = q2 + 1; *c && k <= mcol; k++) { /* the columns after the name, as see_bars reads them */
            while (*c == ' ') c++;
            char *end = *c == '"' ? strchr(c + 1, '"') + 1 : c + strcspn(c, " ");
            if (k == col) colour = (unsigned)strtoul(c, NULL, 10);
            if (k == mcol) marker = atoi(c);
            c = end;
        }
        int drawn = svg_points(svg, marker, colour);
        if (drawn < panels)
            fail_msg("%s: %.*s's marker %d in #%06x drawn %d times, want %d", stem, (int)(q2 - l), l, marker, colour,
                     drawn, panels);
        vars++;
    }
    print_message("%s: %d variants, each marker drawn in its colour in %d panel%s\n", stem, vars, panels,
                  panels > 1 ? "s" : "");
    assert_true(vars >= 2);
    free(text);
    free(svg);
}

/* Drawn where gnuplot is installed: every chart of two runs, none failed;
 * the ladder and the metrics chart draw each variant's marker. */
static void test_drawn(void **state)
{
    (void)state;
    if (!plots_gnuplot_available()) {
        print_message("gnuplot not found: drawing skipped (the data checks above ran)\n");
        skip();
    }
    static const char *const runs[] = {"harris-ladder", "coarsening"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        int rc;
        const char *dir = render_copy(runs[i], 1, &rc);
        assert_int_equal(rc, 0);
        if (i) continue;
        check_markers_drawn(dir, "ladder-reduce-f32-sum", 6, 9, 1);
        /* harris-ladder has all four metrics panels: warp, bank, DRAM, occupancy */
        check_markers_drawn(dir, "metrics-reduce-f32-sum", 9, 10, 4);
    }
}

/* The renderer reads every numeric figure of the tag table into its rows:
 * on the committed vs-cub run (schema 4), each value is the CSV's number,
 * and the figures the charts draw agree with them. */
static void test_rows_carry_every_figure(void **state)
{
    (void)state;
    char rel[256], dir[4096], err[512];
    snprintf(rel, sizeof rel, RESULTS "vs-cub/results.csv");
    const char *csv = tu_data_file(rel);
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(csv, '/') - csv), csv);
    results r;
    if (results_load(dir, &r, err, sizeof err)) fail_msg("%s", err);
    size_t seen_temp = 0;
    for (size_t i = 0; i < r.nrows; i++) {
        const row *w = &r.rows[i];
        size_t j = 0;
        while (j < r.csv.nrows && r.csv.lines[j] != w->base.line) j++;
        assert_true(j < r.csv.nrows);
        char **f = r.csv.rows[j];
        for (int k = 0; k < RC_COUNT; k++) {
            int at = csv_column_of(&r.csv, (results_col)k);
            if (!results_cols[k].measure || at < 0 || !*f[at]) continue;
            char *end;
            double x = strtod(f[at], &end);
            if (*end)
                assert_true(isnan(w->base.values[k])); /* a text: stop_cold, status, ... */
            else if (w->base.values[k] != x)
                fail_msg("line %zu %s: %g, CSV %s", w->base.line, results_cols[k].name, w->base.values[k], f[at]);
        }
        if (w->ok) assert_true(w->base.values[RC_TIME_COLD_MEDIAN_MS] == w->t_cold);
        seen_temp += isfinite(w->base.values[RC_GPU_TEMP_C]);
    }
    assert_true(seen_temp > 0); /* NVML's temperature: a figure no chart names */
    results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_cub_run),
        cmocka_unit_test(test_ladder_fastest_label),
        cmocka_unit_test(test_many_variants),
        cmocka_unit_test(test_drawn),
        cmocka_unit_test(test_rows_carry_every_figure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
