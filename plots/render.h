/* Charts and a report from one results directory.
 *
 * Reads RESULTS_DIR/results.csv, run.json and confirm.csv (nothing else, and
 * nothing about kernels) and writes, into the output directory (out_dir,
 * else RESULTS_DIR itself):
 *
 *   charts/<chart>.png            every chart, drawn by gnuplot (plots/<chart>.gp);
 *                                 also .svg with plots_options.svg (render --svg)
 *   plots-data/                   the chart data (.dat), the gnuplot scripts
 *                                 and commands.sh, which redraws every chart
 *                                 by hand; gnuplot.log holds gnuplot's output
 *   report.md, index.html         what the run found (plots/answer.c), the lead
 *                                 chart, then per kind x dtype the tables and
 *                                 charts, the run's metadata, failures and
 *                                 skips, and an appendix (heatmaps); index.html
 *                                 opens from the file system: no server, no
 *                                 external assets; PNGs are embedded in base64
 *
 * The charts, per kind (reduce, scan), dtype and op found in the results:
 *   bandwidth  cold bandwidth vs n per variant, theoretical peak and copy lines
 *   ladder     reductions at one n: time, step and cumulative speedup
 *   time       cold time vs n, log-log, CUB in bold, the bytes/peak floor
 *   hotcold    hot vs cold bandwidth around the L2 size, one panel per variant
 *   metrics    warp efficiency, bank conflicts, DRAM throughput, occupancy
 *   heatmap    block dim x coarse factor bandwidth, per coarsened variant
 *   speedup-vs-cub  CUB's median / each variant's vs n, cold and hot panels
 *              (each point the fastest configuration in that L2 state)
 *   pct-copy   bandwidth as % of the measured copy vs n, cold and hot panels
 *              (these two only where the group has CUB rows)
 * Where several configurations (block dims, coarse factors, finishes, scan
 * modes) exist for one variant and n, each point is the fastest of them
 * (lowest cold median); the chart subtitles say which axes were folded.
 * A chart whose data is absent is skipped with a note in the report. */
#ifndef PLOTS_RENDER_H
#define PLOTS_RENDER_H

#include <stddef.h>
#include <stdio.h>

/* The renderer's one entry for the harness: this header. Besides the report
 * (below), the compare chart and the chart families an experiment's
 * lead_chart may name come through it. */
#include "plots/chart_families.h"
#include "plots/compare_chart.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every field's zero value is its default: `plots_options o = {0};`. */
typedef struct plots_options {
    size_t n;                /* n of the ladder, metrics and heatmap charts and of the
                                report's tables; 0: 2^22. Where a group lacks it, the
                                nearest measured n is used and the chart says so. */
    const char *baseline;    /* variant (name or one of its aliases) the cumulative
                                speedup is measured against; NULL: the variant whose
                                aliases name reduce0 when there is one, else the first */
    const char *gnuplot;     /* gnuplot executable; NULL: $GNUPLOT, else gnuplot on PATH */
    const char *scripts_dir; /* directory holding the *.gp scripts; NULL: $PLOTS_SCRIPTS_DIR,
                                else the copies built into the library */
    int no_charts;           /* non-zero: write the report only, without running gnuplot */
    int svg;                 /* non-zero: each chart also as SVG (charts/<chart>.svg); 0: PNG
                                only, the one format the docs link and results keep */
    int link_charts;         /* non-zero: index.html refers to the charts/ PNG files instead of
                                embedding them (for results kept beside their charts,
                                as the committed ones are: half the bytes) */
    const char *out_dir;     /* where report.md, index.html, charts/ and plots-data/ go
                                (created if missing); NULL: results_dir itself (the
                                sweep's end-of-run report). The results directory is
                                only read when it differs. */
    FILE *log;               /* progress and notes, one line each; NULL: silent */
} plots_options;

/* Render charts and report for results_dir. opt may be NULL (defaults).
 * Returns 0 when every chart with data was drawn and the report written;
 * 1 when the report was written but charts are missing (gnuplot absent, or a
 * chart failed: see plots-data/gnuplot.log); -1 when the results could not be
 * read or the report not written (e.g. results.csv lacks a required column:
 * the message names it). msg receives one line saying what happened. */
int plots_render(const char *results_dir, const plots_options *opt, char *msg, size_t msglen);

/* Non-zero when a gnuplot executable is found ($GNUPLOT, else on PATH). */
int plots_gnuplot_available(void);

/* The file at path as base64 onto out (an image embedded in HTML): the
 * report's and `sweep compare`'s one encoder. 0, or -1 when unreadable. */
int plots_embed_base64(FILE *out, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* PLOTS_RENDER_H */
