/* The confirmation phase's arithmetic and the throttle rule, on known data:
 * the bootstrap interval of a per-round ratio, the verdict and its margin,
 * and timing_measure_clocked discarding and taking again the samples whose
 * clock is below the threshold. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness/run/confirm_stats.h"
#include "harness/core/timing.h"
#include "results_io/confirm_io.h"

/* Every round the same ratio: the estimate and both ends are that ratio. */
static void constant_ratio(void **state)
{
    (void)state;
    double ref[10], x[10], est, lo, hi;
    for (int i = 0; i < 10; i++) {
        x[i] = 0.8 + 0.01 * i; /* the times drift; the ratio does not */
        ref[i] = 1.25 * x[i];
    }
    confirm_ratio_interval(ref, x, 10, CONFIRM_BOOTSTRAP_RESAMPLES, 1, &est, &lo, &hi);
    assert_true(fabs(est - 1.25) < 1e-12);
    assert_true(fabs(lo - 1.25) < 1e-12 && fabs(hi - 1.25) < 1e-12);
}

/* Five rounds at 1.0 and five at 1.1: the estimate is the geometric mean
 * sqrt(1.1); a resample's mean log is k/10 log 1.1 with k ~ Binomial(10, 1/2),
 * whose 2.5th and 97.5th percentiles are k = 2 and k = 8 (P(k <= 1) = 1.1 %,
 * P(k <= 2) = 5.5 %): the interval is [1.1^0.2, 1.1^0.8], give or take
 * one step of k. The same seed gives the same interval. */
static void two_ratio_interval(void **state)
{
    (void)state;
    double ref[10], x[10], est, lo, hi, est2, lo2, hi2;
    for (int i = 0; i < 10; i++) {
        x[i] = 2.0;
        ref[i] = i % 2 ? 2.2 : 2.0;
    }
    confirm_ratio_interval(ref, x, 10, CONFIRM_BOOTSTRAP_RESAMPLES, 7, &est, &lo, &hi);
    assert_true(fabs(est - sqrt(1.1)) < 1e-12);
    assert_true(lo >= pow(1.1, 0.1) - 1e-12 && lo <= pow(1.1, 0.3) + 1e-12);
    assert_true(hi >= pow(1.1, 0.7) - 1e-12 && hi <= pow(1.1, 0.9) + 1e-12);
    assert_true(lo < est && est < hi);
    confirm_ratio_interval(ref, x, 10, CONFIRM_BOOTSTRAP_RESAMPLES, 7, &est2, &lo2, &hi2);
    assert_true(lo == lo2 && hi == hi2 && est == est2);
}

static void bad_input_is_nan(void **state)
{
    (void)state;
    double ref[2] = {1, 1}, x[2] = {1, 0}, est, lo, hi;
    confirm_ratio_interval(ref, x, 2, 100, 1, &est, &lo, &hi);
    assert_true(isnan(est) && isnan(lo) && isnan(hi));
    confirm_ratio_interval(ref, x, 0, 100, 1, &est, &lo, &hi);
    assert_true(isnan(est));
    double odd[3] = {3, 1, 2}, even[4] = {4, 1, 3, 2};
    assert_true(confirm_median(odd, 3) == 2 && confirm_median(even, 4) == 2.5);
}

static void verdicts(void **state)
{
    (void)state;
    assert_string_equal(confirm_verdict(1.001, 1.003, 0), "faster");
    assert_string_equal(confirm_verdict(0.997, 0.999, 0), "slower");
    assert_string_equal(confirm_verdict(0.999, 1.003, 0), "tie");
    /* a margin: the whole interval must clear it */
    assert_string_equal(confirm_verdict(1.001, 1.003, 0.01), "tie");
    assert_string_equal(confirm_verdict(1.011, 1.02, 0.01), "faster");
    assert_string_equal(confirm_verdict(0.98, 0.989, 0.01), "slower");
    assert_string_equal(confirm_verdict(0.98, 0.995, 0.01), "tie");
}

/* A sampler whose every 3rd sample runs at 900 MHz (below 75 % of 1980),
 * or every sample when `always`. */
typedef struct fake {
    unsigned calls;
    int always;
} fake;

static int sample(void *p, double *ms, double *mhz)
{
    fake *f = p;
    int low = f->always || f->calls % 3 == 2;
    f->calls++;
    *mhz = low ? 900.0 : 1980.0;
    *ms = low ? 2.2 : 1.0;
    return 0;
}

static void throttled_samples_taken_again(void **state)
{
    (void)state;
    timing_params p = {10, 10, 0, 10.0, 0.75, 0};
    timing_stats st;
    fake f = {0, 0};
    assert_int_equal(timing_measure_clocked(&p, 1980, 10.0, sample, &f, NULL, &st), 0);
    assert_int_equal(st.samples, 10);
    /* 10 kept samples at 1980 MHz; the 3rd, 6th, ... calls were discarded: 14 calls, 4 of them low */
    assert_int_equal(f.calls, 14);
    assert_int_equal(st.throttled, 4);
    assert_true(st.clock_min_mhz == 1980.0 && st.clock_mean_mhz == 1980.0);
    assert_true(st.max == 1.0); /* no slow sample kept */

    /* the check off: every sample kept, the clocks still recorded */
    p.throttle_threshold = 0;
    f = (fake){0, 0};
    timing_measure_clocked(&p, 1980, 10.0, sample, &f, NULL, &st);
    assert_int_equal(f.calls, 10);
    assert_int_equal(st.throttled, 0);
    assert_true(st.clock_min_mhz == 900.0);
}

/* A device held down for good: each sample is kept after THROTTLE_MAX_RETRIES. */
static void always_throttled_gives_up(void **state)
{
    (void)state;
    timing_params p = {3, 3, 0, 10.0, 0.75, 0};
    timing_stats st;
    fake f = {0, 1};
    timing_measure_clocked(&p, 1980, 10.0, sample, &f, NULL, &st);
    assert_int_equal(st.samples, 3);
    assert_int_equal(st.throttled, 3 * THROTTLE_MAX_RETRIES);
    assert_true(st.clock_min_mhz == 900.0);
}

static void recovery_delay_grows(void **state)
{
    (void)state;
    assert_true(throttle_delay_s(0.05, 1) == 0.05);
    assert_true(throttle_delay_s(0.05, 2) == 0.05);
    assert_true(fabs(throttle_delay_s(0.05, 3) - 0.1) < 1e-12);
    assert_true(fabs(throttle_delay_s(0.05, 4) - 0.2) < 1e-12);
    assert_true(throttle_delay_s(0.05, 8) == THROTTLE_MAX_DELAY_S);
    assert_true(throttle_delay_s(0, 5) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_ratio),
        cmocka_unit_test(two_ratio_interval),
        cmocka_unit_test(bad_input_is_nan),
        cmocka_unit_test(verdicts),
        cmocka_unit_test(throttled_samples_taken_again),
        cmocka_unit_test(always_throttled_gives_up),
        cmocka_unit_test(recovery_delay_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
