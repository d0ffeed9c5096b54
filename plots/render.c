/* plots_render: read the results, draw the charts, write the report. */
#define _XOPEN_SOURCE 700
#include "plots/render.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plots/internal.h"
#include "plots/scripts.h"

/* The gnuplot to run: $GNUPLOT, else "gnuplot" found on PATH. Fills path
 * (what to exec) and returns 1 when found. */
static int find_gnuplot(const char *explicit_path, char *path, size_t len)
{
    const char *want = explicit_path && *explicit_path ? explicit_path : getenv("GNUPLOT");
    if (want && *want) {
        if (strchr(want, '/')) {
            snprintf(path, len, "%s", want);
            return access(want, X_OK) == 0;
        }
    } else {
        want = "gnuplot";
    }
    const char *env = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s", env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/%s", *d ? d : ".", want);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) return 1;
    }
    path[0] = '\0';
    return 0;
}

int plots_gnuplot_available(void)
{
    char path[PATH_LEN];
    return find_gnuplot(NULL, path, sizeof path);
}

static int make_dir(const char *path, char *err, size_t errlen)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
        snprintf(err, errlen, "%s: not a directory", path);
        return -1;
    }
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
}

/* Remove what an earlier rendering left in a directory of ours (files with
 * these extensions only), so no chart outlives its data. */
static void clear_dir(const char *dir, const char *const *exts, size_t nexts)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot) continue;
        for (size_t i = 0; i < nexts; i++)
            if (strcmp(dot, exts[i]) == 0) {
                char p[PATH_LEN];
                join_path(p, sizeof p, dir, e->d_name);
                remove(p);
            }
    }
    closedir(d);
}

static int write_file(const char *path, const char *text, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        textf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fputs(text, f);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        textf(err, errlen, "%s: write error", path);
        return -1;
    }
    return 0;
}

/* mkdir -p: the output directory and any missing parents. */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char p[PATH_LEN];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0755) && errno != EEXIST) {
            textf(err, errlen, "%s: %s", p, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    return make_dir(p, err, errlen);
}

/* The output directory (created), and plots-data/ and charts/ under it
 * (absolute, since gnuplot runs inside plots-data), emptied of what an
 * earlier run drew. */
static int setup_dirs(render_ctx *ctx, char *err, size_t errlen)
{
    char abs_dir[PATH_MAX];
    if (make_dirs(ctx->out, err, errlen)) return -1;
    if (!realpath(ctx->out, abs_dir)) {
        snprintf(err, errlen, "%s: %s", ctx->out, strerror(errno));
        return -1;
    }
    join_path(ctx->data_dir, sizeof ctx->data_dir, abs_dir, "plots-data");
    join_path(ctx->charts_dir, sizeof ctx->charts_dir, abs_dir, "charts");
    if (make_dir(ctx->data_dir, err, errlen) || make_dir(ctx->charts_dir, err, errlen)) return -1;
    static const char *const chart_exts[] = {".png", ".svg"};
    static const char *const data_exts[] = {".dat", ".gp", ".log", ".sh"};
    clear_dir(ctx->charts_dir, chart_exts, 2);
    clear_dir(ctx->data_dir, data_exts, 4);
    return 0;
}

/* The scripts: a directory given, else the built-in copies written out. */
static int setup_scripts(render_ctx *ctx, char *err, size_t errlen)
{
    const char *sd = ctx->opt.scripts_dir && *ctx->opt.scripts_dir ? ctx->opt.scripts_dir : getenv("PLOTS_SCRIPTS_DIR");
    if (sd && *sd) {
        char abs_sd[PATH_MAX];
        if (!realpath(sd, abs_sd)) {
            snprintf(err, errlen, "scripts directory %s: %s", sd, strerror(errno));
            return -1;
        }
        snprintf(ctx->gpdir, sizeof ctx->gpdir, "%s", abs_sd);
        return 0;
    }
    snprintf(ctx->gpdir, sizeof ctx->gpdir, ".");
    for (size_t i = 0; i < plots_script_count; i++) {
        char p[PATH_LEN];
        join_path(p, sizeof p, ctx->data_dir, plots_scripts[i].name);
        if (write_file(p, plots_scripts[i].text, err, errlen)) return -1;
    }
    return 0;
}

/* gnuplot, or why the charts are not drawn. */
static void setup_gnuplot(render_ctx *ctx)
{
    if (ctx->opt.no_charts) {
        ctx->why_not_drawn = "charts were turned off";
    } else if (!find_gnuplot(ctx->opt.gnuplot, ctx->gnuplot, sizeof ctx->gnuplot)) {
        char *why = ctx->why_buf;
        const char *asked = ctx->opt.gnuplot && *ctx->opt.gnuplot ? ctx->opt.gnuplot : getenv("GNUPLOT");
        if (asked && *asked) textf(why, sizeof ctx->why_buf, "gnuplot (%s) was not found", asked);
        else textf(why, sizeof ctx->why_buf, "gnuplot was not found on PATH");
        ctx->why_not_drawn = why;
    }
    if (ctx->why_not_drawn) ctx->gnuplot[0] = '\0';
}

/* The charts, with plots-data/commands.sh beside them. */
static int render_charts(render_ctx *ctx, char *err, size_t errlen)
{
    char cmds_path[PATH_LEN];
    join_path(cmds_path, sizeof cmds_path, ctx->data_dir, "commands.sh");
    ctx->cmds = fopen(cmds_path, "w");
    if (ctx->cmds) {
        fputs("#!/bin/sh\n# Redraws every chart of this report into ../charts/ (gnuplot: $GNUPLOT or\n"
              "# gnuplot on PATH). Written by plots/render with the data beside it.\nset -e\n"
              "cd \"$(dirname \"$0\")\"\ngnuplot=${GNUPLOT:-gnuplot}\nmkdir -p ../charts\n",
              ctx->cmds);
    }
    ctx_log(ctx, "%s: %zu rows, %zu groups%s", ctx->dir, ctx->r->nrows, ctx->r->ngroups,
            ctx->gnuplot[0] ? "" : " (report only)");
    int crc = charts_render(ctx, err, errlen);
    if (ctx->cmds) {
        fclose(ctx->cmds);
        chmod(cmds_path, 0755);
        ctx->cmds = NULL;
    }
    return crc;
}

/* The closing message; 0, or 1 when charts are missing. */
static int render_message(const render_ctx *ctx, char *msg, size_t msglen)
{
    if (ctx->opt.no_charts) {
        snprintf(msg, msglen, "plots: report in %s/index.html and report.md (charts turned off)", ctx->out);
        return 0;
    }
    if (ctx->why_not_drawn) {
        char redo[PATH_LEN];
        render_command(ctx, redo, sizeof redo);
        snprintf(msg, msglen, "plots: %s; wrote %s/report.md and index.html without charts; draw them later with `%s`",
                 ctx->why_not_drawn, ctx->out, redo);
        return 1;
    }
    if (ctx->failed) {
        snprintf(msg, msglen, "plots: %zu chart%s failed (see %s/plots-data/gnuplot.log); %zu drawn, report in %s/index.html",
                 ctx->failed, ctx->failed > 1 ? "s" : "", ctx->out, ctx->drawn, ctx->out);
        return 1;
    }
    snprintf(msg, msglen, "plots: %zu chart%s drawn, %zu skipped (no data); report in %s/index.html and report.md",
             ctx->drawn, ctx->drawn == 1 ? "" : "s", ctx->skipped, ctx->out);
    return 0;
}

int plots_render(const char *results_dir, const plots_options *opt, char *msg, size_t msglen)
{
    static const plots_options defaults = {0};
    char err[1024] = "";
    render_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.opt = opt ? *opt : defaults;
    if (!ctx.opt.n) ctx.opt.n = PLOTS_DEFAULT_N;
    if (!results_dir || !*results_dir) {
        snprintf(msg, msglen, "plots: no results directory given");
        return -1;
    }
    snprintf(ctx.dir, sizeof ctx.dir, "%s", results_dir);
    size_t dl = strlen(ctx.dir);
    while (dl > 1 && ctx.dir[dl - 1] == '/') ctx.dir[--dl] = '\0';
    snprintf(ctx.out, sizeof ctx.out, "%s", ctx.opt.out_dir && *ctx.opt.out_dir ? ctx.opt.out_dir : ctx.dir);
    dl = strlen(ctx.out);
    while (dl > 1 && ctx.out[dl - 1] == '/') ctx.out[--dl] = '\0';

    results r;
    if (results_load(ctx.dir, &r, err, sizeof err)) {
        snprintf(msg, msglen, "plots: %s", err);
        return -1;
    }
    ctx.r = &r;
    int rc = -1;
    if (!setup_dirs(&ctx, err, sizeof err) && !setup_scripts(&ctx, err, sizeof err)) {
        setup_gnuplot(&ctx);
        if (!render_charts(&ctx, err, sizeof err) && !report_write(&ctx, err, sizeof err))
            rc = render_message(&ctx, msg, msglen);
    }
    if (rc < 0) snprintf(msg, msglen, "plots: %s", err);
    free(ctx.charts);
    results_free(&r);
    return rc;
}
