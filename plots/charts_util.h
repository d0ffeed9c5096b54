/* The chart-building helpers of charts.c, shared with the charts kept in
 * files of their own (charts_cub.c): gnuplot parameter strings, the chart
 * list, drawing, data files, titles and the log2 n axis. */
#ifndef PLOTS_CHARTS_UTIL_H
#define PLOTS_CHARTS_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "plots/internal.h"

/* gnuplot -e parameters, key=value; pairs */
typedef struct pbuf {
    char *s;
    size_t len, cap;
} pbuf;

void pb_add(pbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void p_str(pbuf *b, const char *key, const char *val);  /* key='value'; */
void p_text(pbuf *b, const char *key, const char *val); /* the same, enhanced-text specials escaped */
void p_num(pbuf *b, const char *key, double v);         /* NaN when not finite */
void p_int(pbuf *b, const char *key, long long v);

/* "Reduction" / "Scan" */
const char *kind_word(const char *kind);
/* "reduce-f32-sum" */
void group_stem(const group *g, char *out, size_t len);
/* "the fastest (lowest cold median) of its block dims × coarse factors" */
void folded_text(unsigned folded, char *out, size_t len);
double log2d(double x);
/* x range and tic step of a log2 n axis */
void n_axis(unsigned long long lo, unsigned long long hi, double *xmin, double *xmax, int *xstep, double *xstart);
/* The smallest and largest n of the group's points. */
void series_extent(const group *g, unsigned long long *lo, unsigned long long *hi);

/* A new chart of group gi in ctx->charts; NULL when out of memory. */
chart *new_chart(render_ctx *ctx, int gi, const char *stem, const char *title);
/* Mark c skipped, with why (shown in the report and logged). */
void skip_chart(render_ctx *ctx, chart *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Draw c with script (e.g. "bandwidth.gp") as PNG and SVG, w x h pixels. */
void draw(render_ctx *ctx, chart *c, const char *script, int w, int h, const char *params);

/* plots-data/<name>: open for writing, and close checking for write errors. */
FILE *open_data(render_ctx *ctx, const char *name, char *err, size_t errlen);
int close_data(FILE *f, const render_ctx *ctx, const char *name, char *err, size_t errlen);
void dat_num(FILE *f, double v);      /* " %.6g", " ?" when not finite */
void dat_str(FILE *f, const char *s); /* a double-quoted data-file string */

/* Tics of a log axis from lo to hi as a gnuplot tic list (1-2-5 steps);
 * nothing added when the range spans three decades or more. */
void log_tics(double lo, double hi, pbuf *out);

/* names, colors, pts, lws: one word per variant of vars[0..nv) */
void var_lists(const render_ctx *ctx, const int *vars, size_t nv, pbuf *p);
/* Pixels wide a chart must be for its title and subtitle. */
int titles_px(const render_ctx *ctx, const group *g, const char *title, const char *sub);
/* ttl (title — device · dtype op · day) and sub */
void common_titles(const render_ctx *ctx, const group *g, pbuf *p, const char *title, const char *sub);

/* The charts against CUB (charts_cub.c). */
void chart_speedup_vs_cub(render_ctx *ctx, int gi, const char *stem);
void chart_pct_copy(render_ctx *ctx, int gi, const char *stem);

#endif
