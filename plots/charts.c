/* The charts: for each group (kind x dtype x op) write the data gnuplot reads
 * into plots-data/, then run plots/<chart>.gp twice (PNG and SVG) with its
 * parameters on the command line (-e). Every gnuplot command line is also
 * written to plots-data/commands.sh, which redraws the charts by hand. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include "plots/charts_util.h"

/* ---- parameter strings ------------------------------------------------------ */

void pb_add(pbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap : 256);
        while (cap <= b->len + (size_t)n) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) return;
        if (!b->s) s[0] = '\0';
        b->s = s;
        b->cap = cap;
    }
}

/* key='value'; (a gnuplot single-quoted string: a quote is doubled) */
void p_str(pbuf *b, const char *key, const char *val)
{
    pb_add(b, "%s='", key);
    for (const char *p = val; *p; p++) pb_add(b, *p == '\'' ? "''" : "%c", *p);
    pb_add(b, "'; ");
}

/* The same for text shown in enhanced mode: its specials are escaped. */
void p_text(pbuf *b, const char *key, const char *val)
{
    pbuf e = {0};
    pb_add(&e, "%s", "");
    for (const char *p = val; *p; p++) {
        if (strchr("\\^_@&~{}", *p)) pb_add(&e, "\\");
        pb_add(&e, "%c", *p);
    }
    p_str(b, key, e.s ? e.s : "");
    free(e.s);
}

void p_num(pbuf *b, const char *key, double v)
{
    if (isfinite(v)) pb_add(b, "%s=%.9g; ", key, v);
    else pb_add(b, "%s=NaN; ", key);
}

void p_int(pbuf *b, const char *key, long long v) { pb_add(b, "%s=%lld; ", key, v); }

void textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

void join_path(char *out, size_t len, const char *a, const char *b) { textf(out, len, "%s/%s", a, b); }

void ctx_log(const render_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->opt.log) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("plots: ", ctx->opt.log);
    vfprintf(ctx->opt.log, fmt, ap);
    fputc('\n', ctx->opt.log);
    va_end(ap);
}

const char *kind_title(const char *kind)
{
    if (strcmp(kind, "reduce") == 0) return "Reductions";
    if (strcmp(kind, "scan") == 0) return "Scans";
    return kind;
}

const char *kind_word(const char *kind)
{
    if (strcmp(kind, "reduce") == 0) return "Reduction";
    if (strcmp(kind, "scan") == 0) return "Scan";
    return kind;
}

/* File-name-safe copy. */
static void safe_name(char *out, size_t len, const char *s)
{
    size_t i = 0;
    for (; *s && i + 1 < len; s++) {
        char c = *s;
        out[i++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                    c == '.')
                       ? c
                       : '_';
    }
    out[i] = '\0';
}

void group_stem(const group *g, char *out, size_t len)
{
    char k[32], d[32], o[32];
    safe_name(k, sizeof k, g->kind);
    safe_name(d, sizeof d, g->dtype);
    safe_name(o, sizeof o, g->op);
    snprintf(out, len, "%s-%s-%s", k, d, o);
}

/* "NVIDIA H200 · f32 sum · 2026-11-21" */
static void title_suffix(const render_ctx *ctx, const group *g, char *out, size_t len)
{
    const run_info *ri = &ctx->r->run;
    snprintf(out, len, "%s%s%s %s%s%s", ri->device[0] ? ri->device : "", ri->device[0] ? " · " : "", g->dtype, g->op,
             ri->day[0] ? " · " : "", ri->day);
}

/* "the fastest (cold median) of its block dims × finishes" */
void folded_text(unsigned folded, char *out, size_t len)
{
    const char *names[4] = {"block dims", "coarse factors", "finishes", "scan modes"};
    out[0] = '\0';
    int k = 0;
    for (int i = 0; i < 4; i++)
        if (folded & (1u << i)) {
            size_t l = strlen(out);
            snprintf(out + l, len - l, "%s%s", k++ ? " × " : "", names[i]);
        }
    if (!k) snprintf(out, len, "one configuration each");
    else {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "the fastest (lowest cold median) of its %s", out);
        snprintf(out, len, "%s", tmp);
    }
}

double log2d(double x) { return log(x) / log(2.0); }

/* x range and tic step of a log2 n axis */
void n_axis(unsigned long long lo, unsigned long long hi, double *xmin, double *xmax, int *xstep,
                   double *xstart)
{
    *xstart = pow(2.0, ceil(log2d((double)lo) - 1e-9));
    *xmin = (double)lo / 1.45;
    *xmax = (double)hi * 1.45;
    double span = log2d((double)hi) - log2d((double)lo);
    *xstep = span <= 9 ? 2 : span <= 18 ? 4 : span <= 27 ? 8 : 16;
}

chart *new_chart(render_ctx *ctx, int gi, const char *stem, const char *title)
{
    if (ctx->ncharts == ctx->cap) {
        size_t cap = ctx->cap ? ctx->cap * 2 : 32;
        chart *c = realloc(ctx->charts, cap * sizeof *c);
        if (!c) return NULL;
        ctx->charts = c;
        ctx->cap = cap;
    }
    chart *c = &ctx->charts[ctx->ncharts++];
    memset(c, 0, sizeof *c);
    c->group = gi;
    snprintf(c->stem, sizeof c->stem, "%s", stem);
    snprintf(c->title, sizeof c->title, "%s", title);
    return c;
}

void skip_chart(render_ctx *ctx, chart *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->note, sizeof c->note, fmt, ap);
    va_end(ap);
    c->state = CH_SKIPPED;
    ctx->skipped++;
    ctx_log(ctx, "skipped %s: %s", c->stem, c->note);
}

/* ---- running gnuplot ---------------------------------------------------------- */

static void shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* Run gnuplot in the data directory (its first command is `cd` there); its
 * output is appended to gnuplot.log. posix_spawn, not fork: the caller may be
 * a sweep holding a large CUDA process image. Returns 0 on exit status 0;
 * else -1 with the tail of its output in err. */
static int gp_run(render_ctx *ctx, const char *script_path, const char *params, char *err, size_t errlen)
{
    char log_path[PATH_LEN], script_abs[PATH_LEN];
    join_path(log_path, sizeof log_path, ctx->data_dir, "gnuplot.log");
    if (script_path[0] == '/') textf(script_abs, sizeof script_abs, "%s", script_path);
    else join_path(script_abs, sizeof script_abs, ctx->data_dir, script_path);
    pbuf cmd = {0};
    pb_add(&cmd, "cd '");
    for (const char *q = ctx->data_dir; *q; q++) pb_add(&cmd, *q == '\'' ? "''" : "%c", *q);
    pb_add(&cmd, "'; %s", params);
    if (!cmd.s) {
        textf(err, errlen, "out of memory");
        return -1;
    }
    struct stat st;
    off_t before = stat(log_path, &st) == 0 ? st.st_size : 0;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {ctx->gnuplot, "-e", cmd.s, script_abs, NULL};
    fflush(NULL);
    pid_t pid;
    int e = posix_spawnp(&pid, ctx->gnuplot, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(cmd.s);
    if (e) {
        textf(err, errlen, "cannot run %s: %s", ctx->gnuplot, strerror(e));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            return -1;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    /* the tail of what it said */
    char tail[400] = "";
    FILE *f = fopen(log_path, "rb");
    if (f) {
        fseeko(f, 0, SEEK_END);
        off_t end = ftello(f);
        off_t from = end - (off_t)(sizeof tail - 1) > before ? end - (off_t)(sizeof tail - 1) : before;
        fseeko(f, from, SEEK_SET);
        size_t got = fread(tail, 1, sizeof tail - 1, f);
        tail[got] = '\0';
        fclose(f);
        for (char *p = tail; *p; p++)
            if (*p == '\n' || *p == '\r') *p = ' ';
    }
    if (WIFEXITED(status))
        snprintf(err, errlen, "gnuplot exit %d: %s", WEXITSTATUS(status), tail);
    else
        snprintf(err, errlen, "gnuplot killed by signal %d: %s", WIFSIGNALED(status) ? WTERMSIG(status) : 0, tail);
    return -1;
}

/* Draw chart c with script (e.g. "bandwidth.gp") as PNG and SVG. */
void draw(render_ctx *ctx, chart *c, const char *script, int w, int h, const char *params)
{
    char script_path[PATH_LEN];
    if (strcmp(ctx->gpdir, ".") == 0) snprintf(script_path, sizeof script_path, "%s", script);
    else join_path(script_path, sizeof script_path, ctx->gpdir, script);
    static const char *const fmts[2] = {"png", "svg"};
    for (int k = 0; k < 2; k++) {
        pbuf p = {0};
        char out[300], full[PATH_LEN];
        snprintf(out, sizeof out, "../charts/%s.%s", c->stem, fmts[k]);
        textf(full, sizeof full, "%s/%s.%s", ctx->charts_dir, c->stem, fmts[k]);
        p_str(&p, "gpdir", ctx->gpdir);
        p_str(&p, "fmt", fmts[k]);
        p_str(&p, "out", out);
        p_int(&p, "w", w);
        p_int(&p, "h", h);
        pb_add(&p, "%s", params);
        if (ctx->cmds) {
            fputs("\"$gnuplot\" -e ", ctx->cmds);
            shell_quote(ctx->cmds, p.s);
            fputc(' ', ctx->cmds);
            shell_quote(ctx->cmds, script_path);
            fputc('\n', ctx->cmds);
        }
        if (!ctx->gnuplot[0]) {
            free(p.s);
            continue;
        }
        remove(full);
        char err[512];
        int rc = gp_run(ctx, script_path, p.s, err, sizeof err);
        free(p.s);
        struct stat st;
        if (rc == 0 && (stat(full, &st) != 0 || st.st_size == 0)) {
            snprintf(err, sizeof err, "gnuplot wrote no %s", out + 3);
            rc = -1;
        }
        if (rc) {
            c->state = CH_FAILED;
            snprintf(c->note, sizeof c->note, "%s", err);
            ctx->failed++;
            ctx_log(ctx, "failed %s.%s: %s", c->stem, fmts[k], err);
            return;
        }
    }
    if (!ctx->gnuplot[0]) {
        c->state = CH_NOT_DRAWN;
        ctx->not_drawn++;
        return;
    }
    c->state = CH_DRAWN;
    ctx->drawn++;
    ctx_log(ctx, "drew %s", c->stem);
}

FILE *open_data(render_ctx *ctx, const char *name, char *err, size_t errlen)
{
    char path[PATH_LEN];
    join_path(path, sizeof path, ctx->data_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return f;
}

int close_data(FILE *f, const render_ctx *ctx, const char *name, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        textf(err, errlen, "%s/%s: write error", ctx->data_dir, name);
        return -1;
    }
    return 0;
}

void dat_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, " %.6g", v);
    else fputs(" ?", f);
}

/* A gnuplot data-file string: double-quoted, quotes dropped. */
void dat_str(FILE *f, const char *s)
{
    fputs(" \"", f);
    for (; *s; s++)
        if (*s != '"' && *s != '\n') fputc(*s, f);
    fputc('"', f);
}

/* Pixels the longest variant name of g takes as a tic label (DejaVu Sans at
 * 10 points is about 7.5 pixels a character), plus a gap. */
static int names_px(const render_ctx *ctx, const group *g)
{
    size_t longest = 8;
    for (size_t i = 0; i < g->ns; i++) {
        size_t l = strlen(ctx->r->vars[g->s[i].var].name);
        if (l > longest) longest = l;
    }
    return (int)(longest * 7.5) + 24;
}

/* Per-block lists of variants: names, colours, point types, widths. */
void var_lists(const render_ctx *ctx, const int *vars, size_t nv, pbuf *p)
{
    pbuf names = {0}, colors = {0}, pts = {0}, lws = {0};
    for (size_t i = 0; i < nv; i++) {
        const var_info *v = &ctx->r->vars[vars[i]];
        char nm[128];
        snprintf(nm, sizeof nm, "%s", v->name);
        for (char *q = nm; *q; q++)
            if (*q == ' ' || *q == '\'') *q = '_';
        pb_add(&names, "%s%s", i ? " " : "", nm);
        pb_add(&colors, "%s#%06x", i ? " " : "", v->color);
        pb_add(&pts, "%s%d", i ? " " : "", v->point_type);
        pb_add(&lws, "%s%s", i ? " " : "", v->is_cub ? "2.8" : "1.4");
    }
    p_str(p, "names", names.s ? names.s : "");
    p_str(p, "colors", colors.s ? colors.s : "");
    p_str(p, "pts", pts.s ? pts.s : "");
    p_str(p, "lws", lws.s ? lws.s : "");
    free(names.s);
    free(colors.s);
    free(pts.s);
    free(lws.s);
}

/* The same for every series of g. */
static void series_lists(const render_ctx *ctx, const group *g, pbuf *p)
{
    int *vars = malloc((g->ns ? g->ns : 1) * sizeof *vars);
    if (!vars) return;
    for (size_t i = 0; i < g->ns; i++) vars[i] = g->s[i].var;
    var_lists(ctx, vars, g->ns, p);
    free(vars);
}

/* Pixels wide a chart must be for its title and subtitle (bold 10 points,
 * then 8.5; multi-byte characters count a little wide, which errs safe). */
int titles_px(const render_ctx *ctx, const group *g, const char *title, const char *sub)
{
    char suffix[256];
    title_suffix(ctx, g, suffix, sizeof suffix);
    double t = (double)(strlen(title) + 3 + strlen(suffix)) * 8.8, s = (double)strlen(sub) * 7.0;
    return (int)(t > s ? t : s) + 60;
}

void common_titles(const render_ctx *ctx, const group *g, pbuf *p, const char *title, const char *sub)
{
    char suffix[256], full[512];
    title_suffix(ctx, g, suffix, sizeof suffix);
    snprintf(full, sizeof full, "%s — %s", title, suffix);
    p_text(p, "ttl", full);
    p_text(p, "sub", sub);
}

/* ---- the series file: per variant, the fastest configuration per n ------------ */

static int write_series(render_ctx *ctx, const group *g, const char *stem, int with_ideal, char *err, size_t errlen)
{
    char name[200];
    snprintf(name, sizeof name, "series-%s.dat", stem);
    FILE *f = open_data(ctx, name, err, errlen);
    if (!f) return -1;
    fprintf(f, "# %s %s %s: per variant (one block each, in this order), the fastest configuration per n\n", g->kind,
            g->dtype, g->op);
    fprintf(f, "# n bw_cold_GBps time_cold_us bw_hot_GBps time_hot_us block_dim coarse\n");
    for (size_t i = 0; i < g->ns; i++) {
        fprintf(f, "# %s\n", ctx->r->vars[g->s[i].var].name);
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            fprintf(f, "%llu", w->n);
            dat_num(f, w->bw_cold);
            dat_num(f, w->t_cold * 1e3);
            dat_num(f, w->bw_hot);
            dat_num(f, w->t_hot * 1e3);
            fprintf(f, " %ld %ld\n", w->block_dim, w->coarse);
        }
        fputs("\n\n", f);
    }
    if (with_ideal) {
        /* the time the fewest bytes moved at each n would take at the peak */
        fprintf(f, "# bytes moved / theoretical peak: n ideal_us\n");
        unsigned long long last = 0;
        for (;;) {
            unsigned long long next = 0;
            double bytes = INFINITY;
            for (size_t i = 0; i < g->ns; i++)
                for (size_t j = 0; j < g->s[i].npts; j++) {
                    const row *w = g->s[i].pts[j].best;
                    if (w->n <= last || !(w->bytes > 0)) continue;
                    if (!next || w->n < next) {
                        next = w->n;
                        bytes = w->bytes;
                    } else if (w->n == next && w->bytes < bytes) {
                        bytes = w->bytes;
                    }
                }
            if (!next) break;
            fprintf(f, "%llu %.6g\n", next, bytes / (ctx->r->run.peak_GBps * 1e3));
            last = next;
        }
        fputs("\n\n", f);
    }
    return close_data(f, ctx, name, err, errlen);
}

void series_extent(const group *g, unsigned long long *lo, unsigned long long *hi)
{
    *lo = 0;
    *hi = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            unsigned long long n = g->s[i].pts[j].n;
            if (!*lo || n < *lo) *lo = n;
            if (n > *hi) *hi = n;
        }
}

static int group_has_ideal_data(const render_ctx *ctx, const group *g)
{
    if (!isfinite(ctx->r->run.peak_GBps)) return 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++)
            if (g->s[i].pts[j].best->bytes > 0) return 1;
    return 0;
}

/* ---- 1. bandwidth vs n ---------------------------------------------------------- */

static void chart_bandwidth(render_ctx *ctx, int gi, const char *stem)
{
    const group *g = &ctx->r->groups[gi];
    char cstem[200], title[128];
    snprintf(cstem, sizeof cstem, "bandwidth-%s", stem);
    snprintf(title, sizeof title, "%s bandwidth vs n", kind_word(g->kind));
    chart *c = new_chart(ctx, gi, cstem, title);
    if (!c) return;
    char folded[256];
    folded_text(g->folded, folded, sizeof folded);
    int scan = strcmp(g->kind, "scan") == 0;
    snprintf(c->caption, sizeof c->caption,
             "Cold-L2 bandwidth (bytes moved%s ÷ median time) per variant against n; each point is %s. "
             "Dashed: the device's theoretical peak; dotted: the copy bandwidth measured in this run.",
             scan ? ", counting read + write," : "", folded);
    if (!ctx->r->has_bw) {
        skip_chart(ctx, c, "results.csv has neither bw_cold_GBps nor bytes_moved");
        return;
    }
    double maxbw = 0;
    size_t npts = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            double b = g->s[i].pts[j].best->bw_cold;
            if (isfinite(b)) {
                npts++;
                if (b > maxbw) maxbw = b;
            }
        }
    if (!npts) {
        skip_chart(ctx, c, "no cold bandwidth in any ok row");
        return;
    }
    const run_info *ri = &ctx->r->run;
    if (isfinite(ri->peak_GBps) && ri->peak_GBps > maxbw) maxbw = ri->peak_GBps;
    if (isfinite(ri->copy_GBps) && ri->copy_GBps > maxbw) maxbw = ri->copy_GBps;
    unsigned long long lo, hi;
    series_extent(g, &lo, &hi);
    double xmin, xmax, xstart;
    int xstep;
    n_axis(lo, hi, &xmin, &xmax, &xstep, &xstart);
    pbuf p = {0};
    char sub[512];
    snprintf(sub, sizeof sub, "cold L2 (flushed before each launch); each point: %s", folded);
    common_titles(ctx, g, &p, title, sub);
    char dat[220];
    snprintf(dat, sizeof dat, "series-%s.dat", stem);
    p_str(&p, "data", dat);
    p_int(&p, "nvar", (long long)g->ns);
    series_lists(ctx, g, &p);
    p_num(&p, "peak", ri->peak_GBps);
    p_num(&p, "copy", ri->copy_GBps);
    p_num(&p, "xmin", xmin);
    p_num(&p, "xmax", xmax);
    p_int(&p, "xstep", xstep);
    p_num(&p, "xstart", xstart);
    p_num(&p, "ymax", maxbw * 1.08);
    p_str(&p, "ylab", scan ? "bandwidth, cold (GB/s, read + write)" : "bandwidth, cold (GB/s)");
    draw(ctx, c, "bandwidth.gp", 1280, 720, p.s ? p.s : "");
    free(p.s);
}

/* Tics of a log axis from lo to hi: decades when it spans three or more,
 * else 1-2-5 steps, so that a short range still has labelled tics. Written as
 * a gnuplot tic list; empty when decades do. */
void log_tics(double lo, double hi, pbuf *out)
{
    if (log10(hi / lo) >= 3) return;
    static const double m[] = {1, 2, 5};
    int n = 0;
    pb_add(out, "(");
    for (int d = (int)floor(log10(lo)); d <= (int)ceil(log10(hi)); d++)
        for (int k = 0; k < 3; k++) {
            double v = m[k] * pow(10, d);
            if (v < lo || v > hi) continue;
            pb_add(out, "%s'%g' %g", n++ ? ", " : "", v, v);
        }
    pb_add(out, ")");
}

/* ---- 5. time vs n --------------------------------------------------------------- */

static void chart_time(render_ctx *ctx, int gi, const char *stem)
{
    const group *g = &ctx->r->groups[gi];
    char cstem[200], title[128];
    snprintf(cstem, sizeof cstem, "time-%s", stem);
    snprintf(title, sizeof title, "%s time vs n (log-log)", kind_word(g->kind));
    chart *c = new_chart(ctx, gi, cstem, title);
    if (!c) return;
    char folded[256];
    folded_text(g->folded, folded, sizeof folded);
    int has_cub = 0;
    for (size_t i = 0; i < g->ns; i++) has_cub |= ctx->r->vars[g->s[i].var].is_cub;
    int ideal = group_has_ideal_data(ctx, g);
    snprintf(c->caption, sizeof c->caption,
             "Cold median time per variant against n, both axes logarithmic; each point is %s. %s%s", folded,
             has_cub ? "The library baseline (CUB) is drawn bold. " : "",
             ideal ? "Dashed: the bytes moved at the theoretical peak. Where a line stops being flat (launch "
                     "latency) and runs parallel to it, bandwidth rules."
                   : "Where a line stops being flat (launch latency) and rises with n, bandwidth rules.");
    double tmin = INFINITY, tmax = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            double t = g->s[i].pts[j].best->t_cold * 1e3;
            if (t < tmin) tmin = t;
            if (t > tmax) tmax = t;
        }
    if (!(tmax > 0)) {
        skip_chart(ctx, c, "no cold times");
        return;
    }
    unsigned long long lo, hi;
    series_extent(g, &lo, &hi);
    double xmin, xmax, xstart;
    int xstep;
    n_axis(lo, hi, &xmin, &xmax, &xstep, &xstart);
    pbuf p = {0};
    char sub[512];
    snprintf(sub, sizeof sub, "cold L2; each point: %s%s", folded, has_cub ? "" : "; no CUB rows in these results");
    common_titles(ctx, g, &p, title, sub);
    char dat[220];
    snprintf(dat, sizeof dat, "series-%s.dat", stem);
    p_str(&p, "data", dat);
    p_int(&p, "nvar", (long long)g->ns);
    series_lists(ctx, g, &p);
    p_int(&p, "hasideal", ideal);
    p_num(&p, "xmin", xmin);
    p_num(&p, "xmax", xmax);
    p_int(&p, "xstep", xstep);
    p_num(&p, "xstart", xstart);
    double ylo = tmin / 1.6, yhi = tmax * 1.6;
    pbuf yt = {0};
    log_tics(ylo, yhi, &yt);
    p_num(&p, "ymin", ylo);
    p_num(&p, "ymax", yhi);
    p_str(&p, "yt", yt.s ? yt.s : "");
    free(yt.s);
    draw(ctx, c, "time.gp", 1280, 720, p.s ? p.s : "");
    free(p.s);
}

/* ---- 6. hot vs cold around the L2 size -------------------------------------------- */

static void chart_hotcold(render_ctx *ctx, int gi, const char *stem)
{
    const group *g = &ctx->r->groups[gi];
    char cstem[200], title[128];
    snprintf(cstem, sizeof cstem, "hotcold-%s", stem);
    snprintf(title, sizeof title, "%s: hot vs cold L2 around the L2 size", kind_title(g->kind));
    chart *c = new_chart(ctx, gi, cstem, title);
    if (!c) return;
    const run_info *ri = &ctx->r->run;
    char l2txt[64] = "";
    if (isfinite(ri->l2_bytes)) snprintf(l2txt, sizeof l2txt, "%.*f MiB", ri->l2_bytes < 10 * 1048576.0 ? 1 : 0,
                                         ri->l2_bytes / 1048576.0);
    snprintf(c->caption, sizeof c->caption,
             "Bandwidth with a cold L2 (flushed before each launch, solid) and a hot one (the same input reused, "
             "dashed) for footprints (the bytes moved) from 1/16 to 16 times the L2 size (%s); the dashed vertical "
             "line is where the footprint equals the L2. One panel per variant, a common scale. Left of the line a "
             "hot launch finds its data in L2.",
             l2txt[0] ? l2txt : "?");
    if (!ctx->r->has_hot) {
        skip_chart(ctx, c, "results.csv has no time_hot_median_ms column");
        return;
    }
    if (!isfinite(ri->l2_bytes)) {
        skip_chart(ctx, c, "the L2 size is unknown (run.json device.l2_bytes)");
        return;
    }
    if (!ctx->r->has_bw) {
        skip_chart(ctx, c, "results.csv has neither bw_cold_GBps nor bytes_moved");
        return;
    }
    /* the footprint per element: the bytes moved over n (input, plus output
     * for scans), else the element size */
    double per = INFINITY;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            if (w->bytes > 0 && w->bytes / (double)w->n < per) per = w->bytes / (double)w->n;
        }
    if (!isfinite(per)) per = (double)g->esize;
    double lo = ri->l2_bytes / 16.0 / per, hi = ri->l2_bytes * 16.0 / per;
    pbuf sel = {0};
    int nsel = 0;
    double ymax = 0;
    unsigned long long nlo = 0, nhi = 0;
    for (size_t i = 0; i < g->ns; i++) {
        int k = 0;
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            if ((double)w->n < lo || (double)w->n > hi || !isfinite(w->bw_cold) || !isfinite(w->bw_hot)) continue;
            k++;
        }
        if (k < 2) continue;
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            if ((double)w->n < lo || (double)w->n > hi || !isfinite(w->bw_cold) || !isfinite(w->bw_hot)) continue;
            if (w->bw_cold > ymax) ymax = w->bw_cold;
            if (w->bw_hot > ymax) ymax = w->bw_hot;
            if (!nlo || w->n < nlo) nlo = w->n;
            if (w->n > nhi) nhi = w->n;
        }
        pb_add(&sel, "%s%zu", nsel ? " " : "", i + 1);
        nsel++;
    }
    if (!nsel) {
        free(sel.s);
        skip_chart(ctx, c, "no variant has two or more sizes with hot and cold times between L2/16 and 16 × L2");
        return;
    }
    double l2n = ri->l2_bytes / per;
    if ((double)nlo > l2n) nlo = (unsigned long long)l2n;
    if ((double)nhi < l2n) nhi = (unsigned long long)l2n;
    int cols = nsel <= 3 ? nsel : nsel == 4 ? 2 : nsel <= 9 ? 3 : 4;
    int rows = (nsel + cols - 1) / cols;
    double xmin, xmax, xstart;
    int xstep;
    n_axis(nlo, nhi, &xmin, &xmax, &xstep, &xstart);
    xstep = log2d((double)nhi / (double)nlo) <= 6 ? 2 : 4;
    pbuf p = {0};
    char folded[256], sub[600];
    folded_text(g->folded, folded, sizeof folded);
    snprintf(sub, sizeof sub, "solid: cold L2; dashed: hot (input reused); each point: %s", folded);
    int w = cols * 340 + 60, h = rows * 250 + 120;
    if (w < 760) w = 760;
    if (w < titles_px(ctx, g, title, sub)) w = titles_px(ctx, g, title, sub);
    common_titles(ctx, g, &p, title, sub);
    char dat[220], l2lab[80];
    snprintf(dat, sizeof dat, "series-%s.dat", stem);
    snprintf(l2lab, sizeof l2lab, "L2 %s", l2txt);
    p_str(&p, "data", dat);
    series_lists(ctx, g, &p);
    p_str(&p, "sel", sel.s);
    p_int(&p, "nsel", nsel);
    p_int(&p, "rows", rows);
    p_int(&p, "cols", cols);
    p_num(&p, "xmin", xmin);
    p_num(&p, "xmax", xmax);
    p_int(&p, "xstep", xstep);
    p_num(&p, "xstart", xstart);
    p_num(&p, "ymax", ymax * 1.1);
    p_num(&p, "l2n", l2n);
    p_str(&p, "l2lab", l2lab);
    draw(ctx, c, "hotcold.gp", w, h, p.s ? p.s : "");
    free(p.s);
    free(sel.s);
}

/* ---- the ladder (chart 2 and the report's tables) ---------------------------------- */

static int has_alias(const var_info *v, const char *token)
{
    var_info only_alias = *v;
    only_alias.name = "";
    return var_matches(&only_alias, token);
}

void ladder_build(const results *r, const group *g, unsigned long long want, const char *baseline, ladder *l)
{
    memset(l, 0, sizeof *l);
    l->base_var = -1;
    l->n = group_nearest_n(g, want);
    if (!l->n) return;
    l->rows = calloc(g->ns ? g->ns : 1, sizeof *l->rows);
    if (!l->rows) return;
    /* the ladder in order, the library baseline after it */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < g->ns; i++) {
            const var_info *v = &r->vars[g->s[i].var];
            if (v->is_cub != pass) continue;
            const row *w = series_at(&g->s[i], l->n);
            if (!w) {
                size_t len = strlen(l->missing);
                snprintf(l->missing + len, sizeof l->missing - len, "%s%s", len ? ", " : "", v->name);
                continue;
            }
            l->rows[l->nrows++] = (ladder_row){.var = g->s[i].var, .w = w, .step = NAN, .cum = NAN, .is_cub = v->is_cub};
        }
    if (!l->nrows) return;
    int base = -1;
    if (baseline && *baseline) {
        for (size_t i = 0; i < l->nrows; i++)
            if (var_matches(&r->vars[l->rows[i].var], baseline)) base = (int)i;
        if (base < 0)
            snprintf(l->note, sizeof l->note, "The baseline %s is not among these results; the first rung stands in.",
                     baseline);
    } else {
        for (size_t i = 0; i < l->nrows && base < 0; i++)
            if (has_alias(&r->vars[l->rows[i].var], "reduce0")) base = (int)i;
    }
    if (base < 0)
        for (size_t i = 0; i < l->nrows && base < 0; i++)
            if (!l->rows[i].is_cub) base = (int)i;
    if (base < 0) base = 0;
    l->rows[base].is_base = 1;
    l->base_var = l->rows[base].var;
    double tb = l->rows[base].w->t_cold;
    const ladder_row *prev = NULL;
    ladder_row *best = NULL;
    for (size_t i = 0; i < l->nrows; i++) {
        ladder_row *x = &l->rows[i];
        x->cum = tb / x->w->t_cold;
        if (x->is_cub) continue;
        if (prev) x->step = prev->w->t_cold / x->w->t_cold;
        prev = x;
        if (!best || x->w->t_cold < best->w->t_cold) best = x;
    }
    if (best) best->is_best = 1;
}

static void speed_text(double s, char *buf, size_t len)
{
    if (!isfinite(s)) snprintf(buf, len, "–");
    else if (s >= 100) snprintf(buf, len, "×%.0f", s);
    else if (s >= 10) snprintf(buf, len, "×%.1f", s);
    else if (s >= 0.01) snprintf(buf, len, "×%.2f", s);
    else snprintf(buf, len, "×%.2g", s);
}

static void chart_ladder(render_ctx *ctx, int gi, const char *stem)
{
    const group *g = &ctx->r->groups[gi];
    char cstem[200], title[128];
    snprintf(cstem, sizeof cstem, "ladder-%s", stem);
    ladder l;
    unsigned long long want = ctx->opt.n;
    ladder_build(ctx->r, g, want, ctx->opt.baseline, &l);
    char ns[32], wants[32];
    format_n(l.n, ns, sizeof ns);
    format_n(want, wants, sizeof wants);
    snprintf(title, sizeof title, "Reduction ladder at n = %s", l.n ? ns : wants);
    chart *c = new_chart(ctx, gi, cstem, title);
    if (!c) {
        free(l.rows);
        return;
    }
    char folded[256];
    folded_text(g->folded, folded, sizeof folded);
    textf(c->caption, sizeof c->caption,
             "Each reduction at n = %s in the order of the results (the seeds' tables), the library baseline set apart "
             "at the bottom: cold median time (left) and speedup (right): cumulative against %s, and step over the "
             "rung above. Each bar is %s.%s%s%s%s",
             l.n ? ns : wants, l.base_var >= 0 ? ctx->r->vars[l.base_var].name : "the first rung", folded,
             l.n && l.n != want ? " The requested n was not measured: this is the nearest." : "",
             l.missing[0] ? " Not measured at this n: " : "", l.missing, l.missing[0] ? "." : "");
    if (l.nrows < 1) {
        skip_chart(ctx, c, "no reduction measured");
        free(l.rows);
        return;
    }
    char dat[220];
    snprintf(dat, sizeof dat, "ladder-%s.dat", stem);
    char err[512];
    FILE *f = open_data(ctx, dat, err, sizeof err);
    if (!f) {
        skip_chart(ctx, c, "%s", err);
        free(l.rows);
        return;
    }
    fprintf(f, "# y name time_us cumulative step colour time_label speedup_label\n");
    double tmin = INFINITY, tmax = 0, smin = 1, smax = 1, y = 0, ylast = 0;
    int prev_cub = 0;
    for (size_t i = 0; i < l.nrows; i++) {
        const ladder_row *x = &l.rows[i];
        const var_info *v = &ctx->r->vars[x->var];
        if (i && x->is_cub && !prev_cub) y += 0.6;
        prev_cub = x->is_cub;
        double t = x->w->t_cold * 1e3;
        char tl[64], cum[32], step[32], sl[128];
        format_ms(x->w->t_cold, tl, sizeof tl);
        if (x->is_best) strncat(tl, "  fastest", sizeof tl - strlen(tl) - 1);
        speed_text(x->cum, cum, sizeof cum);
        speed_text(x->step, step, sizeof step);
        if (x->is_base) snprintf(sl, sizeof sl, "%s  baseline", cum);
        else if (x->is_cub) snprintf(sl, sizeof sl, "%s  (library)", cum);
        else if (isfinite(x->step)) snprintf(sl, sizeof sl, "%s  (step %s)", cum, step);
        else snprintf(sl, sizeof sl, "%s", cum);
        fprintf(f, "%.2f", y);
        dat_str(f, v->name);
        fprintf(f, " %.6g %.6g", t, x->cum);
        dat_num(f, x->step);
        fprintf(f, " %u", v->color);
        dat_str(f, tl);
        dat_str(f, sl);
        fputc('\n', f);
        if (t < tmin) tmin = t;
        if (t > tmax) tmax = t;
        if (x->cum < smin) smin = x->cum;
        if (x->cum > smax) smax = x->cum;
        ylast = y;
        y += 1;
    }
    if (close_data(f, ctx, dat, err, sizeof err)) {
        skip_chart(ctx, c, "%s", err);
        free(l.rows);
        return;
    }
    pbuf p = {0};
    char sub[512];
    snprintf(sub, sizeof sub, "cold L2; each bar: %s%s", folded,
             l.n != want ? "; the requested n was not measured, this is the nearest" : "");
    common_titles(ctx, g, &p, title, sub);
    p_str(&p, "data", dat);
    p_num(&p, "ymax", ylast);
    double txmin = pow(10, floor(log10(tmin / 1.2))), txmax = tmax * pow(tmax / txmin, 0.28) * 1.5;
    double sxmin = smin / 1.6, sxmax = smax * pow(smax / sxmin, 0.45) * 2.5;
    pbuf tt = {0}, st = {0};
    log_tics(txmin, txmax, &tt);
    log_tics(sxmin, sxmax, &st);
    p_num(&p, "txmin", txmin);
    p_num(&p, "txmax", txmax);
    p_str(&p, "tt", tt.s ? tt.s : "");
    p_num(&p, "sxmin", sxmin);
    p_num(&p, "sxmax", sxmax);
    p_str(&p, "st", st.s ? st.s : "");
    free(tt.s);
    free(st.s);
    p_str(&p, "base", l.base_var >= 0 ? ctx->r->vars[l.base_var].name : "first rung");
    int w = 1400, h = 170 + (int)(ylast + 1) * 30;
    if (h < 420) h = 420;
    double left = (double)names_px(ctx, g) / w;
    p_num(&p, "left", left);
    p_num(&p, "split", left + (0.985 - left) * 0.45);
    draw(ctx, c, "ladder.gp", w, h, p.s ? p.s : "");
    free(p.s);
    free(l.rows);
}

/* "0", "812", "83.4k", "3.82M" */
static void count_text(double v, char *buf, size_t len)
{
    if (!isfinite(v)) snprintf(buf, len, "?");
    else if (v < 1e3) snprintf(buf, len, "%.0f", v);
    else if (v < 1e6) snprintf(buf, len, "%.3gk", v / 1e3);
    else if (v < 1e9) snprintf(buf, len, "%.3gM", v / 1e6);
    else snprintf(buf, len, "%.3gG", v / 1e9);
}

/* ---- 3. metrics per variant ---------------------------------------------------------- */

static void chart_metrics(render_ctx *ctx, int gi, const char *stem)
{
    const results *r = ctx->r;
    const group *g = &r->groups[gi];
    char cstem[200], title[128];
    snprintf(cstem, sizeof cstem, "metrics-%s", stem);
    unsigned long long want = ctx->opt.n, n = group_nearest_n(g, want);
    char ns[32];
    format_n(n ? n : want, ns, sizeof ns);
    snprintf(title, sizeof title, "%s: hardware metrics at n = %s", kind_title(g->kind), ns);
    chart *c = new_chart(ctx, gi, cstem, title);
    if (!c) return;
    int have_any_col = 0;
    for (int k = 0; k < PM_COUNT; k++) have_any_col |= r->metric_col[k] >= 0;
    int dram_from_pct = r->metric_col[PM_DRAM_PCT] >= 0;
    /* else DRAM bytes (read + write where both exist, else the total) over the cold time */
    int dram_bytes_k = r->metric_col[PM_DRAM_READ] >= 0 ? PM_DRAM_READ : PM_DRAM_BYTES;
    snprintf(c->caption, sizeof c->caption,
             "Per variant at n = %s, from the fastest configuration that has the metric: warp efficiency "
             "(active threads per executed warp instruction as a share of 32; all threads and predicated-on "
             "threads, the one that shows divergence), shared-memory bank conflicts (loads and stores, log scale), "
             "%s, achieved occupancy. Panels without data are left out.%s",
             ns, dram_from_pct ? "DRAM throughput as a share of the peak" : "DRAM bytes ÷ cold time as a share of the peak",
             n && n != want ? " The requested n was not measured: this is the nearest." : "");
    if (!have_any_col) {
        if (r->n_metric_cols)
            skip_chart(ctx, c,
                       "results.csv has %zu metric column%s, but none for warp efficiency, shared bank conflicts, "
                       "DRAM throughput or bytes, or occupancy (the names are in plots/README.md)",
                       r->n_metric_cols, r->n_metric_cols > 1 ? "s" : "");
        else
            skip_chart(ctx, c, "results.csv has no metric columns (the run was not profiled)");
        return;
    }
    char dat[220];
    snprintf(dat, sizeof dat, "metrics-%s.dat", stem);
    char err[512];
    FILE *f = open_data(ctx, dat, err, sizeof err);
    if (!f) {
        skip_chart(ctx, c, "%s", err);
        return;
    }
    fprintf(f, "# y name warp_eff_pct warp_eff_pred_pct bank_ld bank_st dram_pct occupancy_pct colour bank_ld_label "
               "bank_st_label na_warp na_bank na_dram na_occupancy\n");
    int has_warp = 0, has_pred = 0, has_bank = 0, has_dram = 0, has_occ = 0, y = 0;
    pbuf yt = {0}; /* the names as a gnuplot tic list */
    double bank_max = 1;
    for (size_t i = 0; i < g->ns && n; i++) {
        const var_info *v = &r->vars[g->s[i].var];
        if (!series_at(&g->s[i], n)) continue;
        double val[PM_COUNT];
        const row *src[PM_COUNT];
        for (int k = 0; k < PM_COUNT; k++) {
            src[k] = best_with_metric(r, g, g->s[i].var, n, k);
            val[k] = src[k] ? src[k]->m[k] : NAN;
        }
        double we = val[PM_WARP_EFF] / 32.0 * 100.0, wep = val[PM_WARP_EFF_PRED] / 32.0 * 100.0;
        double dram = val[PM_DRAM_PCT];
        if (!dram_from_pct && isfinite(r->run.peak_GBps) && src[dram_bytes_k]) {
            double bytes = val[dram_bytes_k];
            const row *w = src[dram_bytes_k];
            if (dram_bytes_k == PM_DRAM_READ && isfinite(w->m[PM_DRAM_WRITE])) bytes += w->m[PM_DRAM_WRITE];
            dram = bytes / (w->t_cold * 1e6) / r->run.peak_GBps * 100.0;
        }
        double occ = val[PM_OCCUPANCY];
        has_warp |= isfinite(we) || isfinite(wep);
        has_pred |= isfinite(wep);
        has_bank |= isfinite(val[PM_BANK_LD]) || isfinite(val[PM_BANK_ST]);
        has_dram |= isfinite(dram);
        has_occ |= isfinite(occ);
        if (isfinite(val[PM_BANK_LD]) && val[PM_BANK_LD] > bank_max) bank_max = val[PM_BANK_LD];
        if (isfinite(val[PM_BANK_ST]) && val[PM_BANK_ST] > bank_max) bank_max = val[PM_BANK_ST];
        pb_add(&yt, "%s'%s' %d", y ? ", " : "(", v->name, y);
        fprintf(f, "%d", y++);
        dat_str(f, v->name);
        dat_num(f, we);
        dat_num(f, wep);
        dat_num(f, val[PM_BANK_LD]);
        dat_num(f, val[PM_BANK_ST]);
        dat_num(f, dram);
        dat_num(f, occ);
        fprintf(f, " %u", v->color);
        char lab[32];
        count_text(val[PM_BANK_LD], lab, sizeof lab);
        dat_str(f, lab);
        count_text(val[PM_BANK_ST], lab, sizeof lab);
        dat_str(f, lab);
        /* "n/a" where a panel has nothing for this variant */
        dat_str(f, isfinite(we) || isfinite(wep) ? " " : "n/a");
        dat_str(f, isfinite(val[PM_BANK_LD]) || isfinite(val[PM_BANK_ST]) ? " " : "n/a");
        dat_str(f, isfinite(dram) ? " " : "n/a");
        dat_str(f, isfinite(occ) ? " " : "n/a");
        fputc('\n', f);
    }
    if (yt.s) pb_add(&yt, ")");
    if (close_data(f, ctx, dat, err, sizeof err)) {
        free(yt.s);
        skip_chart(ctx, c, "%s", err);
        return;
    }
    if (!(has_warp || has_bank || has_dram || has_occ)) {
        free(yt.s);
        skip_chart(ctx, c, "the metric columns are empty at n = %s", ns);
        return;
    }
    char folded[256], sub[512];
    folded_text(g->folded, folded, sizeof folded);
    snprintf(sub, sizeof sub, "each variant: the fastest configuration with the metric, at n = %s%s", ns,
             n != want ? " (nearest measured)" : "");
    pbuf p = {0};
    common_titles(ctx, g, &p, title, sub);
    p_str(&p, "data", dat);
    p_str(&p, "yt", yt.s ? yt.s : "()");
    free(yt.s);
    p_int(&p, "ymax", y - 1);
    p_int(&p, "has_warp", has_warp);
    p_int(&p, "has_pred", has_pred);
    p_int(&p, "has_bank", has_bank);
    p_int(&p, "has_dram", has_dram);
    p_int(&p, "has_occ", has_occ);
    double bmax = pow(10, ceil(log10(bank_max))) * 30;
    p_num(&p, "bank_max", bmax);
    p_int(&p, "bank_step", log10(bmax / 0.5) > 6 ? 100 : 10);
    p_str(&p, "dram_lab", dram_from_pct ? "DRAM throughput\n(% of peak)" : "DRAM bytes ÷ cold time\n(% of peak)");
    int np = has_warp + has_bank + has_dram + has_occ;
    int npx = names_px(ctx, g), w = npx + np * 330 + 30, h = 190 + y * 34;
    if (w < 1000) w = 1000;
    if (w < titles_px(ctx, g, title, sub)) w = titles_px(ctx, g, title, sub);
    if (h < 420) h = 420;
    p_num(&p, "left", (double)npx / w);
    draw(ctx, c, "metrics.gp", w, h, p.s ? p.s : "");
    free(p.s);
}

/* ---- 4. block dim x coarse factor heatmaps ------------------------------------------- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static size_t add_unique(long *arr, size_t n, long v)
{
    for (size_t i = 0; i < n; i++)
        if (arr[i] == v) return n;
    arr[n] = v;
    return n + 1;
}

static size_t index_of(const long *arr, size_t n, long v)
{
    for (size_t i = 0; i < n; i++)
        if (arr[i] == v) return i;
    return 0;
}

/* Did variant var of group g run two or more block dim x coarse factor
 * configurations at n? */
static int several_cells(const results *r, const group *g, int var, unsigned long long n)
{
    const row *first = NULL;
    for (size_t i = 0; i < r->nrows; i++) {
        const row *w = &r->rows[i];
        if (w->var != var || w->n != n || !w->ok || strcmp(w->kind, g->kind) || strcmp(w->dtype, g->dtype) ||
            strcmp(w->op, g->op))
            continue;
        if (!first) first = w;
        else if (w->block_dim != first->block_dim || w->coarse != first->coarse) return 1;
    }
    return 0;
}

static void chart_heatmaps(render_ctx *ctx, int gi, const char *stem)
{
    const results *r = ctx->r;
    const group *g = &r->groups[gi];
    int any = 0;
    for (size_t si = 0; si < g->ns; si++) {
        int var = g->s[si].var;
        const var_info *v = &r->vars[var];
        /* coarse factors of this variant in this group, any n */
        long coarse1 = -2;
        int several = 0;
        for (size_t i = 0; i < r->nrows; i++) {
            const row *w = &r->rows[i];
            if (w->var != var || !w->ok || strcmp(w->kind, g->kind) || strcmp(w->dtype, g->dtype) || strcmp(w->op, g->op))
                continue;
            if (coarse1 == -2) coarse1 = w->coarse;
            else if (w->coarse != coarse1) several = 1;
        }
        if (!several) continue;
        any = 1;
        /* n: the nearest to the one asked for among those where the variant
         * ran more than one block dim x coarse factor configuration */
        unsigned long long want = ctx->opt.n, n = 0;
        {
            double bd = INFINITY;
            for (size_t j = 0; j < g->s[si].npts; j++) {
                unsigned long long m = g->s[si].pts[j].n;
                if (!several_cells(r, g, var, m)) continue;
                double d = fabs(log2d((double)m) - log2d((double)want));
                if (d < bd - 1e-12 || (fabs(d - bd) <= 1e-12 && m > n)) bd = d, n = m;
            }
            if (!n) n = g->s[si].pts[0].n; /* then the chart is skipped below */
        }
        char vname[128], cstem[320], title[256], ns[32];
        safe_name(vname, sizeof vname, v->name);
        snprintf(cstem, sizeof cstem, "heatmap-%s-%s-%s", vname, g->dtype, g->op);
        format_n(n, ns, sizeof ns);
        snprintf(title, sizeof title, "%s: block dim × coarse factor at n = %s", v->name, ns);
        chart *c = new_chart(ctx, gi, cstem, title);
        if (!c) return;
        /* the cells */
        long blocks[64], coarses[64];
        size_t nb = 0, nc = 0;
        for (size_t i = 0; i < r->nrows; i++) {
            const row *w = &r->rows[i];
            if (w->var != var || w->n != n || strcmp(w->kind, g->kind) || strcmp(w->dtype, g->dtype) ||
                strcmp(w->op, g->op) || w->block_dim < 0 || w->coarse < 0)
                continue;
            if (nb < 64) nb = add_unique(blocks, nb, w->block_dim);
            if (nc < 64) nc = add_unique(coarses, nc, w->coarse);
        }
        qsort(blocks, nb, sizeof *blocks, cmp_long);
        qsort(coarses, nc, sizeof *coarses, cmp_long);
        unsigned folded = 0;
        double *bw = malloc((nb * nc > 0 ? nb * nc : 1) * sizeof *bw);
        const char **why = calloc(nb * nc > 0 ? nb * nc : 1, sizeof *why);
        const row **first = calloc(nb * nc > 0 ? nb * nc : 1, sizeof *first);
        if (!bw || !why || !first) {
            free(bw), free(why), free(first);
            skip_chart(ctx, c, "out of memory");
            continue;
        }
        for (size_t k = 0; k < nb * nc; k++) bw[k] = NAN;
        for (size_t i = 0; i < r->nrows; i++) {
            const row *w = &r->rows[i];
            if (w->var != var || w->n != n || strcmp(w->kind, g->kind) || strcmp(w->dtype, g->dtype) ||
                strcmp(w->op, g->op) || w->block_dim < 0 || w->coarse < 0)
                continue;
            size_t k = index_of(blocks, nb, w->block_dim) * nc + index_of(coarses, nc, w->coarse);
            if (w->ok && isfinite(w->bw_cold)) {
                if (first[k] && strcmp(first[k]->finish, w->finish)) folded |= AX_FINISH;
                if (first[k] && strcmp(first[k]->scan_mode, w->scan_mode)) folded |= AX_MODE;
                if (!first[k]) first[k] = w;
                if (!isfinite(bw[k]) || w->bw_cold > bw[k]) bw[k] = w->bw_cold;
            } else if (!why[k]) {
                why[k] = w->status;
            }
        }
        double lo = INFINITY, hi = 0;
        size_t ncells = 0, best = 0;
        for (size_t k = 0; k < nb * nc; k++)
            if (isfinite(bw[k])) {
                ncells++;
                if (bw[k] < lo) lo = bw[k];
                if (bw[k] > hi) hi = bw[k], best = k;
            }
        snprintf(c->caption, sizeof c->caption,
                 "Cold bandwidth of %s at n = %s for each block dim and coarse factor measured%s; the outlined cell "
                 "is the fastest; hatched cells were not measured (skipped, failed or not in the sweep).%s",
                 v->name, ns,
                 folded & (AX_FINISH | AX_MODE) ? " (each cell the fastest of its finishes or scan modes)" : "",
                 n != want ? " The requested n has no block dim × coarse factor sweep for this variant: this is the "
                             "nearest n that has one."
                           : "");
        if (ncells < 2) {
            free(bw), free(why), free(first);
            skip_chart(ctx, c, "fewer than two measured cells at n = %s", ns);
            continue;
        }
        char dat[340], err[512];
        snprintf(dat, sizeof dat, "%s.dat", cstem);
        FILE *f = open_data(ctx, dat, err, sizeof err);
        if (!f) {
            free(bw), free(why), free(first);
            skip_chart(ctx, c, "%s", err);
            continue;
        }
        fprintf(f, "# x y bw_cold_GBps label label_colour (x: coarse index, y: block dim index)\n");
        int hasmissing = 0;
        for (size_t b = 0; b < nb; b++)
            for (size_t cc = 0; cc < nc; cc++) {
                double x = bw[b * nc + cc];
                if (!isfinite(x)) continue;
                char lab[32];
                snprintf(lab, sizeof lab, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
                double t = hi > lo ? (x - lo) / (hi - lo) : 1.0;
                fprintf(f, "%zu %zu %.6g", cc, b, x);
                dat_str(f, lab);
                fprintf(f, " %u\n", t < 0.62 ? 0xffffffu : 0x111111u);
            }
        fputs("\n\n# x y label: cells without a measurement\n", f);
        for (size_t b = 0; b < nb; b++)
            for (size_t cc = 0; cc < nc; cc++) {
                size_t k = b * nc + cc;
                if (isfinite(bw[k])) continue;
                fprintf(f, "%zu %zu", cc, b);
                dat_str(f, why[k] ? why[k] : "–");
                fputc('\n', f);
                hasmissing = 1;
            }
        /* an empty block would not count as an index: keep index 2 where the script looks */
        if (!hasmissing) fputs("-100 -100 \"\"\n", f);
        fprintf(f, "\n\n# the fastest cell\n%zu %zu\n", best % nc, best / nc);
        if (close_data(f, ctx, dat, err, sizeof err)) {
            free(bw), free(why), free(first);
            skip_chart(ctx, c, "%s", err);
            continue;
        }
        pbuf xt = {0}, yt = {0};
        pb_add(&xt, "(");
        for (size_t cc = 0; cc < nc; cc++) pb_add(&xt, "%s'%ld' %zu", cc ? ", " : "", coarses[cc], cc);
        pb_add(&xt, ")");
        pb_add(&yt, "(");
        for (size_t b = 0; b < nb; b++) pb_add(&yt, "%s'%ld' %zu", b ? ", " : "", blocks[b], b);
        pb_add(&yt, ")");
        char sub[512];
        snprintf(sub, sizeof sub, "cold L2; GB/s per cell, colours from the lowest to the highest%s%s",
                 folded & (AX_FINISH | AX_MODE) ? "; each cell: the fastest of its finishes / scan modes" : "",
                 n != want ? "; the nearest n with a block dim × coarse sweep" : "");
        pbuf p = {0};
        char suffix[256], full[600];
        title_suffix(ctx, g, suffix, sizeof suffix);
        snprintf(full, sizeof full, "%s — %s", title, suffix);
        p_text(&p, "ttl", full);
        p_text(&p, "sub", sub);
        p_str(&p, "data", dat);
        p_int(&p, "nx", (long long)nc);
        p_int(&p, "ny", (long long)nb);
        p_str(&p, "xt", xt.s);
        p_str(&p, "yt", yt.s);
        p_num(&p, "cbmin", hi > lo ? lo : lo * 0.9);
        p_num(&p, "cbmax", hi > lo ? hi : hi * 1.1 + 1e-9);
        p_int(&p, "hasmissing", hasmissing);
        int w = 330 + (int)nc * 92, h = 230 + (int)nb * 56;
        if (w < 900) w = 900;
        if (w < titles_px(ctx, g, title, sub)) w = titles_px(ctx, g, title, sub);
        if (h < 420) h = 420;
        draw(ctx, c, "heatmap.gp", w, h, p.s ? p.s : "");
        free(p.s);
        free(xt.s);
        free(yt.s);
        free(bw), free(why), free(first);
    }
    if (!any) {
        char cstem[200];
        snprintf(cstem, sizeof cstem, "heatmap-%s", stem);
        chart *c = new_chart(ctx, gi, cstem, "Block dim × coarse factor heatmaps");
        if (c) skip_chart(ctx, c, "no variant has more than one coarse factor in these results");
    }
}

/* ---- every chart ---------------------------------------------------------------- */

int charts_render(render_ctx *ctx, char *err, size_t errlen)
{
    const results *r = ctx->r;
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const group *g = &r->groups[gi];
        char stem[120];
        group_stem(g, stem, sizeof stem);
        if (!g->ns) {
            chart *c = new_chart(ctx, (int)gi, stem, "Charts");
            if (c) skip_chart(ctx, c, "no configuration of %s %s %s ran successfully", g->kind, g->dtype, g->op);
            continue;
        }
        if (write_series(ctx, g, stem, group_has_ideal_data(ctx, g), err, errlen)) return -1;
        int reduce = strcmp(g->kind, "reduce") == 0;
        chart_bandwidth(ctx, (int)gi, stem);
        if (reduce) chart_ladder(ctx, (int)gi, stem);
        chart_metrics(ctx, (int)gi, stem);
        chart_heatmaps(ctx, (int)gi, stem);
        chart_time(ctx, (int)gi, stem);
        chart_hotcold(ctx, (int)gi, stem);
        chart_speedup_vs_cub(ctx, (int)gi, stem);
        chart_pct_copy(ctx, (int)gi, stem);
    }
    return 0;
}
