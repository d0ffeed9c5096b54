/* The charts' shared helpers (charts_util.h): gnuplot parameter strings, the
 * chart list, running gnuplot (PNG and SVG; every command line also written to
 * plots-data/commands.sh, which redraws the charts by hand), data files,
 * titles, the log2 n axis and the series file. */
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

/* The command that draws these charts again (report, index.html). */
void render_command(const render_ctx *ctx, char *buf, size_t len)
{
    textf(buf, len, "bazel run //plots:render -- --out %s %s", ctx->out, ctx->dir);
}

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
void safe_name(char *out, size_t len, const char *s)
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

/* The title's suffix holds the device's name, its count, dtype, op and day. */
#define TITLE_SUFFIX_LEN (sizeof ((results_run *)0)->device + 128)

/* "NVIDIA H200 · f32 sum · 2026-11-21"; a run of several devices (--devices,
 * merged shards) says how many: "NVIDIA H200 ×2 · ..." (each row is the one
 * its configuration got, whichever device ran it). */
static void title_suffix(const render_ctx *ctx, const group *g, char *out, size_t len)
{
    const results_run *ri = &ctx->r->run;
    char many[16] = "";
    if (ri->n_devices > 1) snprintf(many, sizeof many, " ×%d", ri->n_devices);
    snprintf(out, len, "%s%s%s%s %s%s%s", ri->device[0] ? ri->device : "", ri->device[0] ? many : "",
             ri->device[0] ? " · " : "", g->dtype, g->op, ri->day[0] ? " · " : "", ri->day);
}

/* "the fastest (cold median) of its block dims × finishes" */
void folded_text(unsigned folded, char *out, size_t len)
{
    const char *names[4] = {"block dims", "own-axis values", "finishes", "scan modes"};
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

/* Draw chart c with script (e.g. "bandwidth.gp") as PNG, and SVG where asked (plots_options.svg). */
void draw(render_ctx *ctx, chart *c, const char *script, int w, int h, const char *params)
{
    char script_path[PATH_LEN];
    if (strcmp(ctx->gpdir, ".") == 0) snprintf(script_path, sizeof script_path, "%s", script);
    else join_path(script_path, sizeof script_path, ctx->gpdir, script);
    static const char *const fmts[2] = {"png", "svg"};
    for (int k = 0; k < (ctx->opt.svg ? 2 : 1); k++) {
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
int names_px(const render_ctx *ctx, const group *g)
{
    size_t longest = 8;
    for (size_t i = 0; i < g->ns; i++) {
        size_t l = strlen(ctx->r->vars[g->s[i].var].name);
        if (l > longest) longest = l;
    }
    return (int)(longest * 7.5) + 24;
}

/* Per-block lists of variants: names, colours, point types, dash types,
 * widths (the palette's slots, palette.h). */
void var_lists(const render_ctx *ctx, const int *vars, size_t nv, pbuf *p)
{
    pbuf names = {0}, colors = {0}, pts = {0}, dts = {0}, lws = {0};
    for (size_t i = 0; i < nv; i++) {
        const var_info *v = &ctx->r->vars[vars[i]];
        char nm[128];
        snprintf(nm, sizeof nm, "%s", v->name);
        for (char *q = nm; *q; q++)
            if (*q == ' ' || *q == '\'') *q = '_';
        pb_add(&names, "%s%s", i ? " " : "", nm);
        pb_add(&colors, "%s#%06x", i ? " " : "", v->color);
        pb_add(&pts, "%s%d", i ? " " : "", v->point_type);
        pb_add(&dts, "%s%d", i ? " " : "", v->dash_type);
        pb_add(&lws, "%s%s", i ? " " : "", v->is_cub ? "2.8" : "1.4");
    }
    p_str(p, "names", names.s ? names.s : "");
    p_str(p, "colors", colors.s ? colors.s : "");
    p_str(p, "pts", pts.s ? pts.s : "");
    p_str(p, "dts", dts.s ? dts.s : "");
    p_str(p, "lws", lws.s ? lws.s : "");
    free(names.s);
    free(colors.s);
    free(pts.s);
    free(dts.s);
    free(lws.s);
}

/* The same for every series of g. */
void series_lists(const render_ctx *ctx, const group *g, pbuf *p)
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
    char suffix[TITLE_SUFFIX_LEN];
    title_suffix(ctx, g, suffix, sizeof suffix);
    double t = (double)(strlen(title) + 3 + strlen(suffix)) * 8.8, s = (double)strlen(sub) * 7.0;
    return (int)(t > s ? t : s) + 60;
}

void common_titles(const render_ctx *ctx, const group *g, pbuf *p, const char *title, const char *sub)
{
    char suffix[TITLE_SUFFIX_LEN], full[TITLE_SUFFIX_LEN + 256];
    title_suffix(ctx, g, suffix, sizeof suffix);
    snprintf(full, sizeof full, "%s — %s", title, suffix);
    p_text(p, "ttl", full);
    p_text(p, "sub", sub);
}

/* ---- the series file: per variant, the fastest configuration per n ------------ */

void median_interval(double t, double noise_pct, double *lo, double *hi)
{
    double e = isfinite(noise_pct) && noise_pct > 0 ? t * 1.96 * noise_pct / 100.0 : 0;
    *lo = t - e > 0 ? t - e : t;
    *hi = t + e;
}

/* bandwidth low and high, time low and high (µs) of one median */
static void series_intervals(FILE *f, double t_ms, double noise_pct, double bw)
{
    double lo, hi;
    median_interval(t_ms, noise_pct, &lo, &hi);
    dat_num(f, bw * t_ms / hi);
    dat_num(f, bw * t_ms / lo);
    dat_num(f, lo * 1e3);
    dat_num(f, hi * 1e3);
}

int write_series(render_ctx *ctx, const group *g, const char *stem, int with_ideal, char *err, size_t errlen)
{
    char name[200];
    snprintf(name, sizeof name, "series-%s.dat", stem);
    FILE *f = open_data(ctx, name, err, errlen);
    if (!f) return -1;
    fprintf(f, "# %s %s %s: per variant (one block each, in this order), the fastest configuration per n\n", g->kind,
            g->dtype, g->op);
    fprintf(f, "# n bw_cold_GBps time_cold_us bw_hot_GBps time_hot_us block_dim coarse, then the medians' 95 %% "
               "intervals (median × (1 ± 1.96 noise), a screened row's noise widened, the value itself where the noise "
               "is unknown): bw_cold_lo "
               "bw_cold_hi time_cold_lo_us time_cold_hi_us bw_hot_lo bw_hot_hi time_hot_lo_us time_hot_hi_us\n");
    for (size_t i = 0; i < g->ns; i++) {
        fprintf(f, "# %s\n", ctx->r->vars[g->s[i].var].name);
        for (size_t j = 0; j < g->s[i].npts; j++) {
            const row *w = g->s[i].pts[j].best;
            fprintf(f, "%llu", w->base.cfg.n);
            dat_num(f, w->bw_cold);
            dat_num(f, w->t_cold * 1e3);
            dat_num(f, w->bw_hot);
            dat_num(f, w->t_hot * 1e3);
            fprintf(f, " %ld %ld", w->base.cfg.block_dim, w->base.cfg.axis[0]);
            series_intervals(f, w->t_cold, results_row_noise_pct(&w->base, 0), w->bw_cold); /* screen rows widened */
            series_intervals(f, w->t_hot, results_row_noise_pct(&w->base, 1), w->bw_hot);
            fputc('\n', f);
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
                    if (w->base.cfg.n <= last || !(w->bytes > 0)) continue;
                    if (!next || w->base.cfg.n < next) {
                        next = w->base.cfg.n;
                        bytes = w->bytes;
                    } else if (w->base.cfg.n == next && w->bytes < bytes) {
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

int group_has_ideal_data(const render_ctx *ctx, const group *g)
{
    if (!isfinite(ctx->r->run.peak_GBps)) return 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++)
            if (g->s[i].pts[j].best->bytes > 0) return 1;
    return 0;
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
