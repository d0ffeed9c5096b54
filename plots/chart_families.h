/* The report's chart families: the prefixes charts.c gives its charts
 * (charts/<family>-*.png), and the names an experiment's lead_chart takes.
 * Header-only, so that the experiment-file reader (harness/config/settings.c)
 * checks a lead_chart without linking the renderer. */
#ifndef PLOTS_CHART_FAMILIES_H
#define PLOTS_CHART_FAMILIES_H

#include <string.h>

static const char *const plots_chart_families[] = {"speedup-vs-cub", "ladder",  "bandwidth", "pct-copy",
                                                   "time",           "heatmap", "metrics",   "hotcold", NULL};

static inline int plots_chart_family_known(const char *name)
{
    for (size_t i = 0; name && plots_chart_families[i]; i++)
        if (!strcmp(name, plots_chart_families[i])) return 1;
    return 0;
}

#endif
