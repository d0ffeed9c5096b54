#define _POSIX_C_SOURCE 200809L
#include "harness/core/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double timing_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Quantile of sorted data, linear interpolation between closest ranks
 * (Hyndman-Fan type 7, what numpy and R use by default). */
static double quantile(const double *s, size_t n, double q)
{
    double h = (n - 1) * q;
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

void timing_stats_compute(const double *x, size_t n, timing_stats *out)
{
    timing_stop stop = out->stop;
    double elapsed = out->elapsed_s;
    double clock_min = out->clock_min_mhz, clock_mean = out->clock_mean_mhz;
    unsigned throttled = out->throttled;
    memset(out, 0, sizeof *out);
    out->stop = stop;
    out->elapsed_s = elapsed;
    out->clock_min_mhz = clock_min;
    out->clock_mean_mhz = clock_mean;
    out->throttled = throttled;
    out->samples = n;
    if (n == 0) {
        out->median = out->min = out->max = out->mean = out->stdev = out->iqr = out->mad = out->noise = NAN;
        return;
    }
    double *s = malloc(n * sizeof *s);
    if (!s) {
        out->median = out->min = out->max = out->mean = out->stdev = out->iqr = out->mad = out->noise = NAN;
        return;
    }
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += s[i];
    out->mean = sum / n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (s[i] - out->mean) * (s[i] - out->mean);
    out->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = quantile(s, n, 0.5);
    out->iqr = quantile(s, n, 0.75) - quantile(s, n, 0.25);
    for (size_t i = 0; i < n; i++) s[i] = fabs(s[i] - out->median);
    qsort(s, n, sizeof *s, cmp_double);
    out->mad = quantile(s, n, 0.5);
    free(s);
    double sigma = 1.4826 * out->mad;
    out->noise = out->median > 0 ? 1.2533 * sigma / (out->median * sqrt((double)n)) : INFINITY;
}

const char *timing_stop_name(timing_stop s)
{
    switch (s) {
    case STOP_NOISE: return "noise";
    case STOP_TIMEOUT: return "timeout";
    case STOP_MAX_SAMPLES: return "max_samples";
    case STOP_INTERRUPTED: return "interrupted";
    case STOP_ERROR: return "error";
    case STOP_SCREEN: return "screen";
    default: return "";
    }
}

static timing_samples_hook samples_hook;
static void *samples_hook_ctx;

void timing_set_samples_hook(timing_samples_hook fn, void *ctx)
{
    samples_hook = fn;
    samples_hook_ctx = ctx;
}

int timing_measure(const timing_params *p, double budget_s, timing_sample_fn fn, void *ctx,
                   volatile sig_atomic_t *interrupt, timing_stats *out)
{
    size_t cap = 64, n = 0;
    double *x = malloc(cap * sizeof *x);
    unsigned min = p->min_samples ? p->min_samples : 1;
    unsigned max = p->max_samples >= min ? p->max_samples : min;
    double start = timing_now();
    int rc = 0;
    timing_stop stop = STOP_NONE;
    memset(out, 0, sizeof *out);
    out->clock_min_mhz = out->clock_mean_mhz = NAN;
    if (!x) {
        out->stop = STOP_ERROR;
        timing_stats_compute(NULL, 0, out);
        return -1;
    }
    while (stop == STOP_NONE) {
        if (interrupt && *interrupt) {
            stop = STOP_INTERRUPTED;
            break;
        }
        double ms;
        if ((rc = fn(ctx, &ms)) != 0) {
            stop = STOP_ERROR;
            break;
        }
        if (n == cap) {
            double *bigger = realloc(x, 2 * cap * sizeof *x);
            if (!bigger) {
                stop = STOP_ERROR;
                rc = -1;
                break;
            }
            x = bigger;
            cap *= 2;
        }
        x[n++] = ms;
        if (n < min) continue;
        if (n >= max) {
            stop = STOP_MAX_SAMPLES;
            break;
        }
        /* The rule sorts the samples: past 64 of them, look every n/32 samples. */
        if (n > 64 && n % (n / 32) != 0) {
            if (timing_now() - start >= budget_s) stop = STOP_TIMEOUT;
            continue;
        }
        timing_stats st = {0};
        timing_stats_compute(x, n, &st);
        if (st.noise <= p->max_noise) stop = STOP_NOISE;
        else if (timing_now() - start >= budget_s) stop = STOP_TIMEOUT;
    }
    out->stop = stop;
    out->elapsed_s = timing_now() - start;
    timing_stats_compute(x, n, out);
    if (samples_hook) samples_hook(samples_hook_ctx, x, n);
    free(x);
    return rc;
}

unsigned sample_batch_for(double launch_ms) { return sample_batch_within(launch_ms, 0); }

unsigned sample_batch_within(double launch_ms, double target_ms)
{
    if (!(launch_ms > 0)) return 1;
    double k = ceil((target_ms > 0 ? target_ms : SAMPLE_TARGET_MS) / launch_ms);
    if (k < 1) k = 1;
    if (k > SAMPLE_MAX_BATCH) k = SAMPLE_MAX_BATCH;
    return (unsigned)k;
}

unsigned warm_launches_for(double launch_ms, unsigned batch, double warm_ms, double sample_ms)
{
    double warm = warm_ms > 0 ? warm_ms : WARM_TARGET_MS;
    double k = launch_ms > 0 && isfinite(launch_ms)
                   ? ceil(warm / launch_ms)
                   : (batch ? batch : 1) * ceil(warm / (sample_ms > 0 ? sample_ms : SAMPLE_TARGET_MS));
    if (!(k >= 1)) k = 1;
    if (k > (double)SAMPLE_MAX_BATCH * 16) k = (double)SAMPLE_MAX_BATCH * 16;
    return (unsigned)k;
}

int timing_too_spread(const timing_stats *t, unsigned batch)
{
    if (t->stop == STOP_INTERRUPTED || t->stop == STOP_ERROR || t->samples < 2) return 0;
    if (!(t->median > 0) || (unsigned long)batch * 2 > SAMPLE_MAX_BATCH) return 0;
    return t->stdev / t->median > SAMPLE_MAX_SPREAD;
}

int timing_measure_spread(timing_batch_fn fn, void *ctx, unsigned *batch, timing_stats *out)
{
    double before = INFINITY; /* the last try's spread */
    for (int retry = 0;; retry++) {
        unsigned asked = *batch;
        int rc = fn(ctx, batch, out);
        if (rc != 0 || retry == SAMPLE_SPREAD_RETRIES || *batch < asked || !timing_too_spread(out, *batch))
            return rc;
        double spread = out->stdev / out->median;
        if (spread > SAMPLE_SPREAD_SHRINK * before) return rc; /* the longer sample did not average it out */
        before = spread;
        *batch *= 2;
    }
}

/* ---- clocks and throttling -------------------------------------------------------------------- */

double throttle_delay_s(double base_s, unsigned consecutive)
{
    double d = base_s;
    for (unsigned i = 2; i < consecutive && d < THROTTLE_MAX_DELAY_S; i++) d *= 2;
    return d < THROTTLE_MAX_DELAY_S ? d : (base_s > THROTTLE_MAX_DELAY_S ? base_s : THROTTLE_MAX_DELAY_S);
}

static void sleep_s(double s)
{
    if (!(s > 0)) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

typedef struct clocked {
    timing_clocked_fn fn;
    void *ctx;
    double floor_mhz; /* <= 0: no check */
    double recovery_s;
    volatile sig_atomic_t *interrupt;
    double sum_mhz, min_mhz;
    size_t n_mhz;
    unsigned throttled;
} clocked;

static int clocked_sample(void *p, double *ms)
{
    clocked *c = p;
    for (unsigned consecutive = 0;;) {
        double mhz = NAN;
        int rc = c->fn(c->ctx, ms, &mhz);
        if (rc != 0) return rc;
        int low = c->floor_mhz > 0 && isfinite(mhz) && mhz < c->floor_mhz;
        if (low && consecutive < THROTTLE_MAX_RETRIES && !(c->interrupt && *c->interrupt)) {
            c->throttled++;
            sleep_s(throttle_delay_s(c->recovery_s, ++consecutive));
            continue;
        }
        if (isfinite(mhz)) {
            c->sum_mhz += mhz;
            c->n_mhz++;
            if (!(mhz >= c->min_mhz)) c->min_mhz = mhz;
        }
        return 0;
    }
}

int timing_measure_clocked(const timing_params *p, double default_mhz, double budget_s, timing_clocked_fn fn,
                           void *ctx, volatile sig_atomic_t *interrupt, timing_stats *out)
{
    clocked c = {fn, ctx, 0, p->throttle_recovery_s, interrupt, 0, NAN, 0, 0};
    if (p->throttle_threshold > 0 && default_mhz > 0) c.floor_mhz = p->throttle_threshold * default_mhz;
    int rc = timing_measure(p, budget_s, clocked_sample, &c, interrupt, out);
    out->clock_min_mhz = c.n_mhz ? c.min_mhz : NAN;
    out->clock_mean_mhz = c.n_mhz ? c.sum_mhz / c.n_mhz : NAN;
    out->throttled = c.throttled;
    return rc;
}
