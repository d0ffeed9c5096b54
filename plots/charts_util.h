/* The chart-building helpers of charts.c, shared with the charts kept in
 * files of their own (charts_bars.c, charts_heatmap.c, charts_cub.c): gnuplot parameter strings, the chart
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

/* names, colors, pts, dts, lws: one word per variant of vars[0..nv) */
void var_lists(const render_ctx *ctx, const int *vars, size_t nv, pbuf *p);
/* Pixels wide a chart must be for its title and subtitle. */
int titles_px(const render_ctx *ctx, const group *g, const char *title, const char *sub);
/* ttl (title — device · dtype op · day) and sub */
void common_titles(const render_ctx *ctx, const group *g, pbuf *p, const char *title, const char *sub);

/* File-name-safe copy of s. */
void safe_name(char *out, size_t len, const char *s);
/* Pixels the longest variant name of g takes as a tic label, plus a gap. */
int names_px(const render_ctx *ctx, const group *g);
/* var_lists for every series of g. */
void series_lists(const render_ctx *ctx, const group *g, pbuf *p);
/* plots-data/series-<stem>.dat: per variant the fastest configuration per n
 * (and the bytes moved at the peak when with_ideal). */
int write_series(render_ctx *ctx, const group *g, const char *stem, int with_ideal, char *err, size_t errlen);
/* The median t's 95 % interval from its relative standard error (the
 * noise columns, %): t × (1 ± 1.96 noise); [t, t] when the noise is unknown. */
void median_interval(double t, double noise_pct, double *lo, double *hi);
/* Does g have the data for the ideal line (a peak and bytes moved)? */
int group_has_ideal_data(const render_ctx *ctx, const group *g);

/* ---- the chart table (charts.c) ----------------------------------------------------- */

/* Scales shared by every chart of a run (charts_render computes them once). */
typedef struct run_scales {
    double heat_lo, heat_hi; /* the heatmaps' colour range, GB/s (hi <= lo: none) */
} run_scales;

/* One chart being made: what a chart kind's functions share. */
typedef struct chart_job {
    const run_scales *scales;
    render_ctx *ctx;
    int gi;
    const group *g;
    const char *stem; /* the group's: reduce-f32-sum */
    size_t si;        /* per-variant kinds: the series of g */
    char cstem[320];  /* the chart's file stem: <prefix>-<stem> unless title() sets another */
    char title[256];
    char sub[600];    /* the subtitle (data() sets it) */
    pbuf p;           /* the parameters after ttl and sub (data() adds them) */
    int w, h;         /* pixels: the kind's, data() may change them */
    int flag;         /* a kind's own value kept between its functions */
    void *state;      /* a kind's own data, freed by its done() */
    chart *c;
} chart_job;

/* A kind of chart: one row of the chart table. */
typedef struct chart_kind {
    const char *prefix; /* file prefix: <prefix>-<kind>-<dtype>-<op>.png and .svg */
    const char *script; /* plots/<script> */
    int w, h;           /* size in pixels, before data() adjusts it */
    int reduce_only;
    int per_variant;    /* one chart per series that title() accepts */
    /* Sets the title (and cstem, state); 0: no chart (per_variant kinds). */
    int (*title)(chart_job *j);
    void (*caption)(chart_job *j);
    /* Writes the data file, sets sub, params and size: 0 to draw, -1 when
     * it skipped the chart (skip_chart). */
    int (*data)(chart_job *j);
    void (*done)(chart_job *j); /* frees state; may be NULL */
    /* per_variant kinds: the title and note of the skipped chart when no series was accepted */
    const char *none_title, *none_note;
} chart_kind;

/* Write plots-data/<cstem>.dat (its name into dat) with write(f, j, arg):
 * 0, or -1 when it could not and skipped the chart. */
int chart_data_file(chart_job *j, char *dat, size_t len, void (*write)(FILE *f, chart_job *j, void *arg), void *arg);
/* Widen j to its title's and subtitle's width. */
void fit_titles(chart_job *j);
/* xmin, xmax, xstep, xstart of a log2 n axis from lo to hi. */
void p_n_axis(pbuf *p, unsigned long long lo, unsigned long long hi);

/* The bar charts at one n (charts_bars.c): the chart table's functions. */
int title_ladder(chart_job *j);
void caption_ladder(chart_job *j);
int data_ladder(chart_job *j);
void done_ladder(chart_job *j);
int title_metrics(chart_job *j);
void caption_metrics(chart_job *j);
int data_metrics(chart_job *j);

/* The heatmaps (charts_heatmap.c): the chart table's functions, and the
 * lowest and highest cell over every heatmap the run draws. */
int title_heatmap(chart_job *j);
void caption_heatmap(chart_job *j);
int data_heatmap(chart_job *j);
void done_heatmap(chart_job *j);
void heat_range(const render_ctx *ctx, double *lo, double *hi);

/* A y axis is logarithmic where its values span more than this factor. */
#define LOG_Y_SPAN 20.0
/* What the error bars of the charts against n are (subtitles). */
#define BARS_TEXT "bars: each median's 95 % interval"
/* (a format string: for snprintf only) */
#define BARS_CAPTION                                                                                              \
    " Error bars: each median's 95 %% interval, ± 1.96 times its standard error (results.csv noise_cold_pct, " \
    "noise_hot_pct); hidden by the marker where the noise is small."
/* ylog, ymin, ymax and yt (1-2-5 tics of a log axis, or ''); in charts_common.c */
void p_y_axis(pbuf *p, int ylog, double ymin, double ymax);

/* The charts against CUB (charts_cub.c): the chart table's functions. */
int title_speedup_vs_cub(chart_job *j);
int title_pct_copy(chart_job *j);
void caption_speedup_vs_cub(chart_job *j);
void caption_pct_copy(chart_job *j);
int data_speedup_vs_cub(chart_job *j);
int data_pct_copy(chart_job *j);

#endif
