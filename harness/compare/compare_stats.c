/* compare_stats.h: the tests and intervals behind a compare verdict. */
#include "harness/compare/compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SQRT2 1.4142135623730951

const char *compare_verdict_name(compare_verdict v)
{
    switch (v) {
    case CV_SAME: return "same";
    case CV_FASTER: return "faster";
    case CV_SLOWER: return "slower";
    case CV_NA: break;
    }
    return "n/a";
}

const char *compare_method_name(compare_method m)
{
    switch (m) {
    case CM_SAMPLES: return "samples";
    case CM_NOISE: return "noise";
    case CM_NULL: return "empirical null";
    case CM_NONE: break;
    }
    return "none";
}

/* ---- medians ---------------------------------------------------------------- */

/* The k-th smallest of x[0..n) (x is reordered). */
static double select_kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return x[k];
    }
    return x[k];
}

/* Median of x[0..n), reordering x. */
static double median_inplace(double *x, size_t n)
{
    double hi = select_kth(x, n, n / 2);
    if (n % 2) return hi;
    /* after the selection x[0..n/2) holds the lower half: its largest */
    double lo = x[0];
    for (size_t i = 1; i < n / 2; i++)
        if (x[i] > lo) lo = x[i];
    return (lo + hi) / 2;
}

double cs_median(const double *x, size_t n)
{
    if (!n) return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c) return NAN;
    memcpy(c, x, n * sizeof *c);
    double m = median_inplace(c, n);
    free(c);
    return m;
}

/* ---- Mann-Whitney U --------------------------------------------------------- */

typedef struct tagged {
    double x;
    int from_a;
} tagged;

static int tagged_cmp(const void *p, const void *q)
{
    double a = ((const tagged *)p)->x, b = ((const tagged *)q)->x;
    return a < b ? -1 : a > b;
}

double cs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    if (!na || !nb) return NAN;
    tagged *t = malloc(n * sizeof *t);
    if (!t) return NAN;
    for (size_t i = 0; i < na; i++) t[i] = (tagged){a[i], 1};
    for (size_t i = 0; i < nb; i++) t[na + i] = (tagged){b[i], 0};
    qsort(t, n, sizeof *t, tagged_cmp);
    double rank_a = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && t[j].x == t[i].x) j++;
        double avg = (double)(i + j + 1) / 2; /* ranks i+1..j */
        for (size_t k = i; k < j; k++)
            if (t[k].from_a) rank_a += avg;
        double c = (double)(j - i);
        ties += c * c * c - c;
        i = j;
    }
    free(t);
    double u = rank_a - (double)na * (na + 1) / 2, mu = (double)na * nb / 2, N = (double)n;
    double var = (double)na * nb / 12 * ((N + 1) - ties / (N * (N - 1)));
    if (!(var > 0)) return 1.0;
    double d = fabs(u - mu) - 0.5; /* continuity */
    if (d < 0) d = 0;
    return erfc(d / sqrt(var) / SQRT2);
}

/* ---- bootstrap ---------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static double resampled_median(const double *x, size_t n, double *scratch, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) scratch[i] = x[xorshift(rng) % n];
    return median_inplace(scratch, n);
}

static int dbl_cmp(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return a < b ? -1 : a > b;
}

void cs_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, unsigned rounds, uint64_t seed,
                        double level, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (!na || !nb || !rounds) return;
    double *scratch = malloc((na > nb ? na : nb) * sizeof *scratch);
    double *ratios = malloc(rounds * sizeof *ratios);
    uint64_t rng = seed ? seed : 1;
    if (scratch && ratios) {
        for (unsigned r = 0; r < rounds; r++) {
            double ma = resampled_median(a, na, scratch, &rng);
            double mb = resampled_median(b, nb, scratch, &rng);
            ratios[r] = ma / mb;
        }
        qsort(ratios, rounds, sizeof *ratios, dbl_cmp);
        double tail = (1 - level) / 2;
        size_t il = (size_t)floor(tail * (rounds - 1)), ih = (size_t)ceil((1 - tail) * (rounds - 1));
        *lo = ratios[il];
        *hi = ratios[ih];
    }
    free(scratch);
    free(ratios);
}

/* ---- the rows' noise ---------------------------------------------------------------- */

double cs_median_rse(const compare_side *s)
{
    if (isfinite(s->noise) && s->noise >= 0) return s->noise;
    if (isfinite(s->stdev) && s->median > 0 && s->samples > 0) return 1.2533 * s->stdev / (s->median * sqrt((double)s->samples));
    return NAN;
}

/* z of a two-sided interval at `level` (bisection on erfc: no table to trust). */
static double z_for(double level)
{
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / SQRT2) > 1 - level) lo = mid;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

/* The robust noise of a side's own samples (as timing.h computes it). */
static double samples_rse(const double *x, size_t n, double median)
{
    double *d = malloc(n * sizeof *d);
    if (!d || !(median > 0)) {
        free(d);
        return NAN;
    }
    for (size_t i = 0; i < n; i++) d[i] = fabs(x[i] - median);
    double mad = median_inplace(d, n);
    free(d);
    return 1.2533 * 1.4826 * mad / (median * sqrt((double)n));
}

static void judge_samples(const compare_side *b, const compare_side *nw, compare_phase *o)
{
    o->method = CM_SAMPLES;
    o->base_ms = cs_median(b->ms, b->n_ms);
    o->new_ms = cs_median(nw->ms, nw->n_ms);
    o->base_n = b->n_ms;
    o->new_n = nw->n_ms;
    o->p = cs_mann_whitney_p(b->ms, b->n_ms, nw->ms, nw->n_ms);
    cs_bootstrap_ratio(b->ms, b->n_ms, nw->ms, nw->n_ms, COMPARE_BOOTSTRAP_ROUNDS, COMPARE_BOOTSTRAP_SEED,
                       COMPARE_CI_LEVEL, &o->lo, &o->hi);
    double nb = cs_median_rse(b), nn = cs_median_rse(nw);
    if (!isfinite(nb)) nb = samples_rse(b->ms, b->n_ms, o->base_ms);
    if (!isfinite(nn)) nn = samples_rse(nw->ms, nw->n_ms, o->new_ms);
    o->noise = fmax(nb, nn); /* fmax: a NaN side gives the other */
}

static void judge_noise(const compare_side *b, const compare_side *nw, compare_phase *o)
{
    o->base_ms = b->median;
    o->new_ms = nw->median;
    o->base_n = b->samples;
    o->new_n = nw->samples;
    double nb = cs_median_rse(b), nn = cs_median_rse(nw);
    o->noise = fmax(nb, nn);
    if (!isfinite(nb) || !isfinite(nn)) {
        o->method = CM_NONE; /* no spread known: the threshold alone cannot make it significant */
        return;
    }
    o->method = CM_NOISE;
    double se = sqrt(nb * nb + nn * nn), lr = log(b->median / nw->median), z = z_for(COMPARE_CI_LEVEL);
    o->lo = exp(lr - z * se);
    o->hi = exp(lr + z * se);
    o->p = se > 0 ? erfc(fabs(lr) / se / SQRT2) : (lr == 0 ? 1.0 : 0.0);
}

void compare_judge(const compare_side *base, const compare_side *newer, double threshold, compare_phase *out)
{
    memset(out, 0, sizeof *out);
    out->base_ms = out->new_ms = out->speedup = out->lo = out->hi = out->p = NAN;
    out->change = out->threshold = out->noise = out->adj = out->null_scale = NAN;
    out->verdict = CV_NA;
    if (!(base->median > 0) || !(newer->median > 0)) return;
    if (base->ms && newer->ms && base->n_ms >= COMPARE_MIN_SAMPLES && newer->n_ms >= COMPARE_MIN_SAMPLES)
        judge_samples(base, newer, out);
    else judge_noise(base, newer, out);
    out->speedup = out->base_ms / out->new_ms;
    out->change = out->new_ms / out->base_ms - 1;
    out->threshold = threshold >= 0 ? threshold : fmax(isfinite(out->noise) ? out->noise : 0, COMPARE_MIN_THRESHOLD);
    out->verdict = CV_SAME;
    compare_decide(out, isfinite(out->p) && out->p <= COMPARE_FDR_Q);
}

void compare_decide(compare_phase *ph, int significant)
{
    if (ph->verdict == CV_NA) return;
    double s = ph->adj > 0 ? ph->adj : ph->speedup; /* NaN or unset: judged as measured */
    int large = s > 1 + ph->threshold || s < 1 / (1 + ph->threshold);
    ph->verdict = !(significant && large) ? CV_SAME : s > 1 ? CV_FASTER : CV_SLOWER;
}

/* ---- across configurations ------------------------------------------------------------ */

static const double *bh_p; /* qsort has no context argument */

static int by_p(const void *x, const void *y)
{
    double a = bh_p[*(const size_t *)x], b = bh_p[*(const size_t *)y];
    return a < b ? -1 : a > b;
}

size_t cs_bh_reject(const double *p, size_t n, double q, int *reject, size_t *tests)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order), m = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        reject[i] = 0;
        if (order && isfinite(p[i])) order[m++] = i;
    }
    if (tests) *tests = m;
    if (!order) return 0;
    bh_p = p;
    qsort(order, m, sizeof *order, by_p);
    /* step up: the largest rank whose p is within its share of q */
    for (size_t r = m; r > 0 && !k; r--)
        if (p[order[r - 1]] <= q * (double)r / (double)m) k = r;
    for (size_t r = 0; r < k; r++) reject[order[r]] = 1;
    free(order);
    return k;
}

void cs_geomean_interval(const double *logs, size_t n, unsigned rounds, uint64_t seed, double level, double *gm,
                         double *lo, double *hi)
{
    *gm = *lo = *hi = NAN;
    if (!n) return;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += logs[i];
    *gm = exp(sum / (double)n);
    double *means = malloc((rounds ? rounds : 1) * sizeof *means);
    if (!means || !rounds) {
        free(means);
        return;
    }
    uint64_t rng = seed ? seed : 1;
    for (unsigned r = 0; r < rounds; r++) {
        double s = 0;
        for (size_t i = 0; i < n; i++) s += logs[xorshift(&rng) % n];
        means[r] = s / (double)n;
    }
    qsort(means, rounds, sizeof *means, dbl_cmp);
    double tail = (1 - level) / 2;
    *lo = exp(means[(size_t)floor(tail * (rounds - 1))]);
    *hi = exp(means[(size_t)ceil((1 - tail) * (rounds - 1))]);
    free(means);
}
