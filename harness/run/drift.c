/* See drift.h. */
#include "harness/run/drift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/confirm_stats.h"
#include "harness/run/remeasure.h"

static int timed_gpu_row(const sweep_row *r)
{
    return r->status == ROW_OK && r->cfg.v->runner != RUNNER_HOST && r->cold.samples;
}

static void extremes(const double *x, size_t n, double *mid, double *lo, double *hi)
{
    *mid = confirm_median(x, n);
    *lo = *hi = n ? x[0] : NAN;
    for (size_t i = 1; i < n; i++) {
        if (x[i] < *lo) *lo = x[i];
        if (x[i] > *hi) *hi = x[i];
    }
}

int drift_check(sweep_device *dev, const timing_params *t, const sweep_row *rows, size_t n, unsigned k,
                volatile sig_atomic_t *stop, drift_report *out, char *msg, size_t len)
{
    memset(out, 0, sizeof *out);
    double *cold = calloc(k ? k : 1, sizeof *cold), *hot = calloc(k ? k : 1, sizeof *hot);
    double clock0 = 0, clock1 = 0, start = timing_now();
    size_t m = 0, mh = 0, n0 = 0, n1 = 0; /* mh: of the m, those with a hot phase (timing.h hot_below_l2) */
    int rc = 0;
    if (!cold || !hot) {
        snprintf(out->note, sizeof out->note, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; !rc && i < n && m < k && !*stop; i++) {
        const sweep_row *r = &rows[i];
        if (!timed_gpu_row(r)) continue;
        unsigned cb = r->cold_batch, hb = r->hot_batch;
        timing_stats c, h;
        int has_hot = row_has_hot(r);
        dev_status st = remeasure_config(dev, &r->cfg, t, "drift", &cb, has_hot ? &hb : NULL, stop, &c, &h, msg, len);
        if (st != DEV_OK) {
            snprintf(out->note, sizeof out->note, "the device failed: %.150s", msg);
            rc = -1;
            break;
        }
        if (out->n_items < DRIFT_MAX_ITEMS) {
            drift_item *it = &out->items[out->n_items++];
            *it = (drift_item){.cold0 = r->cold.median, .cold1 = c.median, .hot0 = has_hot ? r->hot.median : NAN,
                               .hot1 = has_hot ? h.median : NAN,
                               .clock0 = r->cold.clock_mean_mhz, .clock1 = c.clock_mean_mhz};
            config_label(&r->cfg, it->label, sizeof it->label);
        }
        cold[m] = c.median / r->cold.median;
        if (has_hot) hot[mh++] = h.median / r->hot.median;
        if (isfinite(r->cold.clock_mean_mhz)) clock0 += r->cold.clock_mean_mhz, n0++;
        if (isfinite(c.clock_mean_mhz)) clock1 += c.clock_mean_mhz, n1++;
        out->throttled_end += c.throttled + h.throttled;
        m++;
    }
    out->configs = m;
    out->ran = m > 0 && !rc;
    if (!m && !rc) snprintf(out->note, sizeof out->note, "no timed configuration to measure again");
    extremes(cold, m, &out->cold_ratio, &out->cold_min, &out->cold_max);
    extremes(hot, mh, &out->hot_ratio, &out->hot_min, &out->hot_max);
    out->clock_start_mhz = n0 ? clock0 / n0 : NAN;
    out->clock_end_mhz = n1 ? clock1 / n1 : NAN;
    out->elapsed_s = timing_now() - start;
    free(cold);
    free(hot);
    return rc;
}

