/* The confirmation phase's arithmetic, apart from any device: the speed-up of
 * x over a reference measured in the same interleaved rounds, with a
 * bootstrap 95 % interval.
 *
 * Why per-round ratios: the rounds interleave the entrants (A B ... L, then
 * L ... B A), so a drift of the device (clocks, temperature) between rounds
 * moves both sides of a round alike and cancels in its ratio. The estimate
 * is the geometric mean of the ratios (a ratio's natural centre: x twice as
 * fast and half as fast average to 1); the interval is the percentile
 * bootstrap over rounds (resampling rounds with replacement), as benchstat
 * and NVBench's robust compare use order statistics rather than a normal
 * assumption. */
#ifndef HARNESS_CONFIRM_STATS_H
#define HARNESS_CONFIRM_STATS_H

#include <stddef.h>
#include <stdint.h>

#define CONFIRM_BOOTSTRAP_RESAMPLES 10000

/* ref[i] / x[i] over the n rounds: *est the geometric mean, [*lo, *hi] the
 * 2.5th and 97.5th percentiles of the geometric means of `resamples`
 * resamples drawn with a fixed generator from `seed` (the same data give
 * the same interval). NaN everywhere when n == 0 or a value is not positive. */
void confirm_ratio_interval(const double *ref, const double *x, size_t n, unsigned resamples, uint64_t seed,
                            double *est, double *lo, double *hi);

/* The median of x[0..n) (NaN when n == 0); x is not modified. */
double confirm_median(const double *x, size_t n);

#endif
