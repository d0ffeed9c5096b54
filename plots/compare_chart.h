/* The chart of `sweep compare` (harness/compare/compare.h): per variant, the speed-up
 * of NEW over BASE per configuration against n, drawn by plots/compare.gp as
 * DIR/<stem>.png and .svg; its data, the script and gnuplot's log go to
 * DIR/compare-data/. Knows nothing of kernels: it draws points. */
#ifndef PLOTS_COMPARE_CHART_H
#define PLOTS_COMPARE_CHART_H

#include <stddef.h>
#include <stdio.h>

typedef enum { CCP_SAME = 0, CCP_FASTER, CCP_SLOWER } compare_chart_verdict;

typedef struct compare_chart_point {
    double n;
    double speedup, lo, hi; /* lo, hi NaN: no interval */
    double threshold;       /* fraction: the band is [1 / (1 + t), 1 + t] */
    int hot;                /* 0 cold, 1 hot */
    compare_chart_verdict verdict;
} compare_chart_point;

/* Draw one chart. Returns 1 drawn; 0 not drawn because gnuplot is missing
 * (msg says so); -1 failed (msg: why, e.g. gnuplot's complaint). */
int compare_chart_draw(const char *dir, const char *stem, const char *title, const char *subtitle,
                       const compare_chart_point *p, size_t np, char *msg, size_t msglen);

#endif
