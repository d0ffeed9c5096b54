/* Shared between the renderer's parts: the render context, the chart list,
 * gnuplot parameters and invocation, the report writer. */
#ifndef PLOTS_INTERNAL_H
#define PLOTS_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "plots/render.h"
#include "plots/results.h"

#define PLOTS_DEFAULT_N ((size_t)1 << 22)
#define PATH_LEN 4096

typedef enum { CH_DRAWN, CH_FAILED, CH_SKIPPED, CH_NOT_DRAWN } chart_state;

typedef struct chart {
    int group;            /* index into results.groups */
    char stem[160];       /* file name without extension: bandwidth-reduce-f32-sum */
    char title[256];      /* plain text */
    char caption[768];    /* what it shows and how the points were chosen */
    chart_state state;
    char note[512];       /* skipped: why; failed: gnuplot's complaint */
} chart;

/* One row of a seed-style table (the ladder and the report share it). */
typedef struct ladder_row {
    int var;
    const row *w;
    double step, cum;     /* NaN where not applicable */
    int is_cub, is_base, is_best;
} ladder_row;

typedef struct ladder {
    unsigned long long n; /* 0: nothing measured */
    ladder_row *rows;
    size_t nrows;
    int base_var;         /* -1 when none */
    char missing[512];    /* variants of the group not measured at n */
    char note[256];       /* e.g. the requested baseline was not found */
} ladder;

typedef struct render_ctx {
    const results *r;
    plots_options opt;
    char dir[PATH_LEN];      /* the results directory (read only) */
    char out[PATH_LEN];      /* where the report and charts go: opt.out_dir, else dir */
    char data_dir[PATH_LEN]; /* dir/plots-data */
    char charts_dir[PATH_LEN];
    char gpdir[PATH_LEN];    /* scripts directory as gnuplot sees it (from data_dir) */
    char gnuplot[PATH_LEN];  /* "" when charts are not drawn */
    const char *why_not_drawn;
    char why_buf[PATH_LEN + 64];
    FILE *cmds;              /* plots-data/commands.sh */
    chart *charts;
    size_t ncharts, cap;
    size_t drawn, failed, skipped, not_drawn;
} render_ctx;

/* Build the ladder of group g at the n nearest to want (reductions and scans:
 * registry order, the library baseline last). Caller frees l->rows. */
void ladder_build(const results *r, const group *g, unsigned long long want, const char *baseline, ladder *l);

/* Draw every chart into ctx->charts (or record why not). Returns 0, -1 when a
 * data file could not be written (message in err). */
int charts_render(render_ctx *ctx, char *err, size_t errlen);

/* Write report.md and index.html. Returns 0 or -1 with a message. */
int report_write(render_ctx *ctx, char *err, size_t errlen);

/* The command that draws this report again (for "draw it later" notes). */
void render_command(const render_ctx *ctx, char *buf, size_t len);

/* "f32 sum", "Reductions" / "Scans" */
const char *kind_title(const char *kind);

/* Text helpers. textf is snprintf for messages and paths, where truncating a
 * long one is the right thing. */
void textf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void join_path(char *out, size_t len, const char *a, const char *b);
void ctx_log(const render_ctx *ctx, const char *fmt, ...);

#endif
