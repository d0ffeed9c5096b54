/* See confirm_stats.h. */
#include "harness/run/confirm_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile_sorted(const double *s, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    size_t j = i + 1 < n ? i + 1 : i;
    return s[i] + (h - (double)i) * (s[j] - s[i]);
}

double confirm_median(const double *x, size_t n)
{
    if (!n) return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = quantile_sorted(s, n, 0.5);
    free(s);
    return m;
}

/* splitmix64: small, fast and reproducible everywhere. */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void confirm_ratio_interval(const double *ref, const double *x, size_t n, unsigned resamples, uint64_t seed,
                            double *est, double *lo, double *hi)
{
    *est = *lo = *hi = NAN;
    if (!n || !resamples) return;
    double *logr = malloc(n * sizeof *logr), *means = malloc(resamples * sizeof *means);
    if (!logr || !means) {
        free(logr);
        free(means);
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(ref[i] > 0) || !(x[i] > 0)) goto out;
        logr[i] = log(ref[i] / x[i]);
        sum += logr[i];
    }
    *est = exp(sum / (double)n);
    uint64_t state = seed;
    for (unsigned b = 0; b < resamples; b++) {
        double s = 0;
        for (size_t i = 0; i < n; i++) s += logr[next(&state) % n];
        means[b] = s / (double)n;
    }
    qsort(means, resamples, sizeof *means, cmp_double);
    *lo = exp(quantile_sorted(means, resamples, 0.025));
    *hi = exp(quantile_sorted(means, resamples, 0.975));
out:
    free(logr);
    free(means);
}
