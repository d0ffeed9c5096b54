/* What every chart kind (charts.c, charts_bars.c, charts_cub.c,
 * charts_heatmap.c) does alike: widen a chart to its titles, write its data
 * file, put its n and y axes on gnuplot's command line. Apart from charts.c so
 * that the kinds call these without calling back into the file that calls them. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "plots/charts_util.h"

void fit_titles(chart_job *j)
{
    int t = titles_px(j->ctx, j->g, j->title, j->sub);
    if (j->w < t) j->w = t;
}

int chart_data_file(chart_job *j, char *dat, size_t len, void (*write)(FILE *f, chart_job *j, void *arg), void *arg)
{
    char err[512];
    snprintf(dat, len, "%s.dat", j->cstem);
    FILE *f = open_data(j->ctx, dat, err, sizeof err);
    if (!f) {
        skip_chart(j->ctx, j->c, "%s", err);
        return -1;
    }
    write(f, j, arg);
    if (close_data(f, j->ctx, dat, err, sizeof err)) {
        skip_chart(j->ctx, j->c, "%s", err);
        return -1;
    }
    return 0;
}

void p_n_axis(pbuf *p, unsigned long long lo, unsigned long long hi)
{
    double xmin, xmax, xstart;
    int xstep;
    n_axis(lo, hi, &xmin, &xmax, &xstep, &xstart);
    p_num(p, "xmin", xmin);
    p_num(p, "xmax", xmax);
    p_int(p, "xstep", xstep);
    p_num(p, "xstart", xstart);
}

void p_y_axis(pbuf *p, int ylog, double ymin, double ymax)
{
    pbuf yt = {0};
    if (ylog) log_tics(ymin, ymax, &yt);
    p_int(p, "ylog", ylog);
    p_num(p, "ymin", ymin);
    p_num(p, "ymax", ymax);
    p_str(p, "yt", yt.s ? yt.s : "");
    free(yt.s);
}
