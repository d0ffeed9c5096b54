/* Timing statistics and the stopping rule, with sample functions instead of
 * a GPU; the hot batch size; the progress ETA. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "harness/run/progress.h"
#include "harness/backend/sweep_device.h"
#include "harness/core/timing.h"

static void test_stats(void **state)
{
    (void)state;
    const double x[] = {5, 1, 4, 2, 3}; /* sorted: 1 2 3 4 5 */
    timing_stats s = {0};
    timing_stats_compute(x, 5, &s);
    assert_int_equal(s.samples, 5);
    assert_true(s.median == 3);
    assert_true(s.min == 1 && s.max == 5);
    assert_true(s.mean == 3);
    assert_true(fabs(s.stdev - sqrt(2.5)) < 1e-12);
    assert_true(s.iqr == 2); /* type 7: q1 = 2, q3 = 4 */
    assert_true(s.mad == 1);
    assert_true(fabs(s.noise - 1.2533 * 1.4826 * 1 / (3 * sqrt(5.0))) < 1e-12);
    const double even[] = {1, 2, 3, 10};
    timing_stats_compute(even, 4, &s);
    assert_true(s.median == 2.5);
    assert_true(fabs(s.iqr - (4.75 - 1.75)) < 1e-12);
    timing_stats_compute(NULL, 0, &s);
    assert_int_equal(s.samples, 0);
    assert_true(isnan(s.median));
}

typedef struct seq {
    const double *v;
    size_t n, i;
    int fail_at;     /* -1: never */
    long sleep_ns;   /* per sample */
    volatile sig_atomic_t *raise_at_flag;
    size_t raise_at;
} seq;

static int seq_sample(void *p, double *ms)
{
    seq *s = p;
    if (s->fail_at >= 0 && (size_t)s->fail_at == s->i) return 7;
    if (s->raise_at_flag && s->i == s->raise_at) *s->raise_at_flag = 1;
    if (s->sleep_ns) {
        struct timespec ts = {0, s->sleep_ns};
        nanosleep(&ts, NULL);
    }
    *ms = s->v[s->i % s->n];
    s->i++;
    return 0;
}

static void test_stops_on_noise_after_min_samples(void **state)
{
    (void)state;
    const double flat[] = {1.0};
    seq s = {flat, 1, 0, -1, 0, NULL, 0};
    timing_params p = {10, 1000, 0.005, 10.0};
    timing_stats st;
    assert_int_equal(timing_measure(&p, 10.0, seq_sample, &s, NULL, &st), 0);
    assert_int_equal(st.samples, 10); /* the floor, even when already quiet */
    assert_int_equal(st.stop, STOP_NOISE);
    assert_true(st.median == 1.0);
}

static void test_noisy_needs_more_samples(void **state)
{
    (void)state;
    /* +-10 %: the median's standard error falls below 0.5 % only with many samples */
    const double noisy[] = {0.9, 1.1, 1.0, 0.95, 1.05, 0.92, 1.08, 0.97, 1.03, 1.0};
    seq s = {noisy, 10, 0, -1, 0, NULL, 0};
    timing_params p = {10, 100000, 0.005, 10.0};
    timing_stats st;
    assert_int_equal(timing_measure(&p, 10.0, seq_sample, &s, NULL, &st), 0);
    assert_int_equal(st.stop, STOP_NOISE);
    assert_true(st.samples > 50);
    assert_true(st.noise <= 0.005);
    /* a ceiling */
    s.i = 0;
    p.max_samples = 20;
    assert_int_equal(timing_measure(&p, 10.0, seq_sample, &s, NULL, &st), 0);
    assert_int_equal(st.samples, 20);
    assert_int_equal(st.stop, STOP_MAX_SAMPLES);
}

static void test_timeout_after_min_samples(void **state)
{
    (void)state;
    const double noisy[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    seq s = {noisy, 10, 0, -1, 2000000 /* 2 ms */, NULL, 0};
    timing_params p = {5, 1000000, 0.0001, 0.02};
    timing_stats st;
    assert_int_equal(timing_measure(&p, 0.02, seq_sample, &s, NULL, &st), 0);
    assert_int_equal(st.stop, STOP_TIMEOUT);
    assert_true(st.samples >= 5);
    assert_true(st.samples < 100);
    /* the floor holds even past the budget */
    s.i = 0;
    p.min_samples = 15;
    assert_int_equal(timing_measure(&p, 0.001, seq_sample, &s, NULL, &st), 0);
    assert_int_equal(st.samples, 15);
}

static void test_interrupt_and_error(void **state)
{
    (void)state;
    const double flat[] = {1.0, 2.0};
    volatile sig_atomic_t flag = 0;
    seq s = {flat, 2, 0, -1, 0, &flag, 3};
    timing_params p = {100, 1000, 0.005, 10.0};
    timing_stats st;
    assert_int_equal(timing_measure(&p, 10.0, seq_sample, &s, &flag, &st), 0);
    assert_int_equal(st.stop, STOP_INTERRUPTED);
    assert_int_equal(st.samples, 4);
    seq f = {flat, 2, 0, 2, 0, NULL, 0};
    assert_int_equal(timing_measure(&p, 10.0, seq_sample, &f, NULL, &st), 7);
    assert_int_equal(st.stop, STOP_ERROR);
    assert_int_equal(st.samples, 2);
    assert_string_equal(timing_stop_name(STOP_NOISE), "noise");
    assert_string_equal(timing_stop_name(STOP_TIMEOUT), "timeout");
}

static void test_sample_batch(void **state)
{
    (void)state;
    assert_int_equal(sample_batch_for(0.005), 100); /* 5 us -> 100 launches: a 0.5 ms sample */
    assert_int_equal(sample_batch_for(0.003), 167); /* rounds up: never shorter than the target */
    assert_int_equal(sample_batch_for(0.0001), SAMPLE_MAX_BATCH);
    assert_int_equal(sample_batch_for(2.0), 1);
    assert_int_equal(sample_batch_for(0.5), 1);
    assert_int_equal(sample_batch_for(NAN), 1);
    assert_int_equal(sample_batch_for(0.0), 1);
}

/* The hot warm-up lasts WARM_TARGET_MS whatever one launch takes: a 3 ms launch warms twice, not ten
 * times (a sample's count); a 160 ms one once; a 3 us one about as the sample rule did. */
static void test_warm_launches(void **state)
{
    (void)state;
    assert_int_equal(warm_launches_for(3.0, 1, 0, 0), 2);
    assert_int_equal(warm_launches_for(160.0, 1, 0, 0), 1);
    assert_int_equal(warm_launches_for(0.5, 1, 0, 0), 10);
    assert_int_equal(warm_launches_for(0.003, 167, 0, 0), 1667);
    assert_int_equal(warm_launches_for(1.0, 1, SCREEN_WARM_MS, SCREEN_SAMPLE_MS), 1); /* the screen's */
    /* no launch time: the batch for each sample of the warm-up, as before */
    assert_int_equal(warm_launches_for(NAN, 4, 0, 0), 40);
    assert_int_equal(warm_launches_for(0, 0, 0, 0), 10);
}

static void test_eta(void **state)
{
    (void)state;
    assert_true(progress_eta(10, 0, 100) < 0);
    /* half the modelled work in 10 s: 10 s left */
    assert_true(fabs(progress_eta(10, 50, 100) - 10) < 1e-9);
    /* running twice as slow as the model */
    assert_true(fabs(progress_eta(20, 10, 30) - 40) < 1e-9);
    assert_true(progress_eta(5, 120, 100) == 0);
}

/* timing_too_spread: over the limit asks again; at the limit, an interrupted
 * or failed measurement, too few samples, or a batch that cannot double do not. */
static void test_too_spread(void **state)
{
    (void)state;
    timing_stats t = {.samples = 10, .median = 1.0, .stdev = 0.0101, .stop = STOP_NOISE};
    assert_true(timing_too_spread(&t, 1));
    assert_true(timing_too_spread(&t, SAMPLE_MAX_BATCH / 2));
    assert_false(timing_too_spread(&t, SAMPLE_MAX_BATCH / 2 + 1));
    t.stop = STOP_TIMEOUT;
    assert_true(timing_too_spread(&t, 4));
    t.stop = STOP_INTERRUPTED;
    assert_false(timing_too_spread(&t, 4));
    t.stop = STOP_ERROR;
    assert_false(timing_too_spread(&t, 4));
    t.stop = STOP_NOISE;
    t.stdev = SAMPLE_MAX_SPREAD;
    assert_false(timing_too_spread(&t, 4));
    t.stdev = 0.5;
    t.samples = 1;
    assert_false(timing_too_spread(&t, 4));
    t.samples = 10;
    t.median = 0.0;
    assert_false(timing_too_spread(&t, 4));
}

/* A measurement whose spread at batch b is spreads[log2 b] (stdev over a median of 1). */
typedef struct spread_series {
    const double *spreads;
    unsigned tries;
} spread_series;

static int series_fn(void *ctx, unsigned *batch, timing_stats *out)
{
    spread_series *s = ctx;
    unsigned k = 0;
    while ((1u << k) < *batch) k++;
    *out = (timing_stats){.samples = 10, .median = 1.0, .stdev = s->spreads[k], .stop = STOP_NOISE};
    s->tries++;
    return 0;
}

/* The spread rule doubles the batch while the spread is over the limit and
 * each doubling shrank it to 0.9 of the try before or less: per-launch
 * jitter (x 0.71 a doubling) goes on to the retry limit; a spread that a
 * longer sample does not average stops after one doubling. */
static void test_spread_rule_stops_when_not_shrinking(void **state)
{
    (void)state;
    static const double jitter[] = {0.040, 0.028, 0.020, 0.014, 0.010};
    static const double steady[] = {0.023, 0.023, 0.023, 0.023, 0.023};
    static const double slowing[] = {0.030, 0.025, 0.024, 0.010, 0.010};
    static const double fine[] = {0.009, 0.009};
    struct { const double *spreads; unsigned tries, batch; } cases[] = {
        {jitter, SAMPLE_SPREAD_RETRIES + 1, 1u << SAMPLE_SPREAD_RETRIES}, /* the retry limit */
        {steady, 2, 2}, /* no shrink: one doubling */
        {slowing, 3, 4}, /* 0.83 goes on, 0.96 stops */
        {fine, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spread_series s = {cases[i].spreads, 0};
        unsigned batch = 1;
        timing_stats out;
        assert_int_equal(timing_measure_spread(series_fn, &s, &batch, &out), 0);
        assert_int_equal(s.tries, cases[i].tries);
        assert_int_equal(batch, cases[i].batch);
        assert_true(out.stdev == cases[i].spreads[cases[i].tries - 1]); /* the last try's */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_stops_on_noise_after_min_samples),
        cmocka_unit_test(test_noisy_needs_more_samples),
        cmocka_unit_test(test_timeout_after_min_samples),
        cmocka_unit_test(test_interrupt_and_error),
        cmocka_unit_test(test_sample_batch),
        cmocka_unit_test(test_warm_launches),
        cmocka_unit_test(test_eta),
        cmocka_unit_test(test_too_spread),
        cmocka_unit_test(test_spread_rule_stops_when_not_shrinking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
