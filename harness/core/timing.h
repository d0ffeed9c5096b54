/* Timing statistics and the stopping rule, apart from any device: a
 * measurement is a loop over a sample function (one timed launch, or one batch
 * of back-to-back launches divided by its length) that stops as NVBench does:
 * at least min_samples, then as soon as the noise is below max_noise, or when
 * the time budget is spent, or at max_samples.
 *
 * Noise is robust and measures the reported figure: the relative standard
 * error of the median, 1.2533 * sigma / (median * sqrt(samples)), with sigma
 * estimated as 1.4826 * MAD (the median absolute deviation), so one descheduled
 * sample does not keep a measurement running. The spread of the samples
 * themselves is reported beside it (stdev, IQR). */
#ifndef HARNESS_TIMING_H
#define HARNESS_TIMING_H

#include <signal.h>
#include <stddef.h>

typedef struct timing_params {
    unsigned min_samples; /* floor: sampling never stops before this many */
    unsigned max_samples; /* ceiling */
    double max_noise;     /* fraction: 0.005 = 0.5 % */
    double timeout_s;     /* per configuration: cold and hot get half each */
    /* Throttling (NVBench's rule): a sample whose SM clock is below
     * throttle_threshold x the device's default clock is discarded; the host
     * sleeps throttle_recovery_s (doubling after two in a row, up to
     * THROTTLE_MAX_DELAY_S) and takes it again. 0: no check. */
    double throttle_threshold;  /* fraction: 0.75 = 75 % */
    double throttle_recovery_s; /* seconds */
    /* Untimed launches before the hot samples (ms); 0: WARM_TARGET_MS. */
    double warm_ms;
    /* A sample's launches last at least this (ms); 0: SAMPLE_TARGET_MS. */
    double sample_ms;
    /* Timing in two stages (harness/run/sweep_piece.c): every configuration
     * first to screen_samples samples a phase (0: no screen, every one to the
     * rule above); then, per input, the ones that could be their variant's
     * fastest there (within twice their and its summed screen noise, cold or
     * hot) or lie within refine_within (a fraction) of the input's fastest
     * are measured again to the rule above. */
    unsigned screen_samples;
    double refine_within;
    /* The hot phase is timed only on inputs under hot_below_l2 x the
     * device's L2 (TIMING_DEFAULT_HOT_BELOW_L2; 0: on every input), in every
     * stage: the screen, the refine, the drift check and the confirmation. */
    unsigned hot_below_l2;
} timing_params;

#define TIMING_DEFAULT_MIN_SAMPLES 10
#define TIMING_DEFAULT_MAX_SAMPLES 1000
#define TIMING_DEFAULT_MAX_NOISE 0.005
#define TIMING_DEFAULT_TIMEOUT_S 0.1
#define TIMING_DEFAULT_THROTTLE_THRESHOLD 0.75
#define TIMING_DEFAULT_THROTTLE_RECOVERY_S 0.05
/* The recovery delay grows to this at most; and after this many throttled
 * takes of one sample in a row, the sample is kept as it is (its clock shows
 * in the row's minimum) so that a device held down for good cannot stall the run. */
#define THROTTLE_MAX_DELAY_S 0.5
#define THROTTLE_MAX_RETRIES 8

typedef enum {
    STOP_NONE = 0,
    STOP_NOISE,       /* noise fell below max_noise */
    STOP_TIMEOUT,     /* the time budget ran out (after min_samples) */
    STOP_MAX_SAMPLES, /* max_samples reached */
    STOP_INTERRUPTED, /* SIGINT/SIGTERM */
    STOP_ERROR,       /* the sample function failed */
    STOP_SCREEN,      /* the screen's samples were taken and the row was not refined (harness/run/sweep_piece.c) */
} timing_stop;

typedef struct timing_stats {
    size_t samples;
    double median, min, max, mean, stdev, iqr, mad; /* milliseconds */
    double noise;                                   /* fraction (relative standard error of the median) */
    double elapsed_s;                               /* wall time the measurement took */
    timing_stop stop;
    /* The SM clock over the kept samples (timing_measure_clocked): minimum
     * and mean in MHz, NaN when not measured; throttled: samples discarded
     * and taken again because the clock was below the threshold. */
    double clock_min_mhz, clock_mean_mhz;
    unsigned throttled;
} timing_stats;

/* Statistics of x[0..n); x is not modified. NaN everywhere when n == 0. */
void timing_stats_compute(const double *x, size_t n, timing_stats *out);

const char *timing_stop_name(timing_stop s);

/* One sample in milliseconds; returns 0, or nonzero on failure (the
 * measurement stops with STOP_ERROR and returns that value). */
typedef int (*timing_sample_fn)(void *ctx, double *ms);

/* Sample until the rule says stop; budget_s is this measurement's time budget.
 * `interrupt` (may be NULL) is polled between samples. Returns 0, or the
 * sample function's failure. */
int timing_measure(const timing_params *p, double budget_s, timing_sample_fn fn, void *ctx,
                   volatile sig_atomic_t *interrupt, timing_stats *out);

/* One sample and the SM clock over it: *mhz NaN when it was not measured. */
typedef int (*timing_clocked_fn)(void *ctx, double *ms, double *mhz);

/* timing_measure() over samples that carry their SM clock: a sample below
 * p->throttle_threshold x default_mhz is discarded and taken again after the
 * recovery delay (see timing_params); out gets the kept samples' clock
 * minimum and mean and the count of discarded ones. default_mhz <= 0 or a
 * threshold of 0: no check, the clocks are still recorded. */
int timing_measure_clocked(const timing_params *p, double default_mhz, double budget_s, timing_clocked_fn fn,
                           void *ctx, volatile sig_atomic_t *interrupt, timing_stats *out);

/* The delay before taking a sample again after `consecutive` throttled
 * takes in a row (1, 2, ...): base, base, then doubling, at most THROTTLE_MAX_DELAY_S. */
double throttle_delay_s(double base_s, unsigned consecutive);

/* When set, every finished timing_measure() hands its samples (ms, in the
 * order taken) to this hook: the sweep's --samples file. NULL: none. */
typedef void (*timing_samples_hook)(void *ctx, const double *ms, size_t n);
void timing_set_samples_hook(timing_samples_hook fn, void *ctx);

/* Monotonic seconds. */
double timing_now(void);

/* Launches per timed sample, so that one sample lasts at least
 * SAMPLE_TARGET_MS: 1..SAMPLE_MAX_BATCH.
 *
 * Why 0.5 ms: in the H200 default run with one launch per cold sample and
 * about 50 us per hot sample (n >= 2^20), stdev/median was over 1 % in 91 of
 * 98 series of 8-16 us samples and 253 of 264 of 32-64 us samples, but in 9
 * of 148 at 128-256 us and 1 of 748 at 256 us or more: the events jitter by
 * about 0.5 us a sample, whatever the sample's length. */
#define SAMPLE_TARGET_MS 0.5
#define SAMPLE_MAX_BATCH 1024u
unsigned sample_batch_for(double launch_ms);
/* The same for a sample of at least target_ms (0: SAMPLE_TARGET_MS). */
unsigned sample_batch_within(double launch_ms, double target_ms);
/* The screen's samples (harness/run/sweep_piece.c): 0.1 ms, so at about 0.5 us
 * of event jitter a sample reads within about 0.5 %, the screen's noise
 * floor; at small n a configuration's screen takes about 2 ms instead of 8
 * (h200x4/profile-split/2p10: 2.7 ms cold, 4.9 ms hot with 0.5 ms samples). */
#define SCREEN_SAMPLE_MS 0.1

/* Untimed launches before the hot samples, at least this long. Why: in the
 * H200 default run the first 2-3 hot samples at 2^28 (about 1.5 ms of
 * launches after the cold phase) were 15-19 % slower than the other 37,
 * which agreed within 0.5 %; one warm batch of 0.5 ms did not absorb it. */
#define WARM_TARGET_MS 5.0
/* The screen's warm-up before its hot samples (harness/run/sweep_piece.c),
 * one of its samples: the configurations before it on the same input have
 * warmed the device, and a configuration that is refined is warmed up in
 * full again. */
#define SCREEN_WARM_MS 0.1
/* From this many times the L2 an input is timed cold only, by default: there
 * a hot launch finds next to none of its input in L2. In the committed H200
 * runs with both phases at those inputs, hot / cold median was 1.0000-1.0006
 * with 5-95 % of rows within 0.9973-1.0098 (default, 212 rows; vs-cub, 99 rows
 * per size bucket up to 128 x L2; big-n), where the screen's own noise floor
 * is 0.5 %. Timing the hot phase there anyway cost `full` 3 min 37 s of its
 * refine stage and 1 min 19 s of its confirmation on one H200 (the time
 * model, experiments/JOURNAL.md 10.7). */
#define TIMING_DEFAULT_HOT_BELOW_L2 16
/* Untimed launches that last at least warm_ms (0: WARM_TARGET_MS), from a
 * launch's time: ceil(warm_ms / launch_ms), at least 1. Where launch_ms is
 * unknown, `batch` launches a sample for each sample of sample_ms (0:
 * SAMPLE_TARGET_MS) the warm-up lasts. Why by the launch's time: a count of
 * samples (10 at the full rule) ran 10 launches wherever one launch outlasts
 * a sample, 30 ms at 2^30 (a 3 ms scan) and 1.6 s for a 160 ms slow rung,
 * where 5 ms was meant. */
unsigned warm_launches_for(double launch_ms, unsigned batch, double warm_ms, double sample_ms);

/* A measurement whose samples spread more than SAMPLE_MAX_SPREAD
 * (stdev/median) is taken again with twice the launches per sample, at most
 * SAMPLE_SPREAD_RETRIES times (while the batch stays within SAMPLE_MAX_BATCH).
 * Why: in the H200 default run, the only series of n >= 2^20 over 1 % were
 * decoupled look-back scans (ours and CUB's, 1.03-1.07 %) whose launches
 * really differ from one to the next (IQR as wide as the stdev, no outlier);
 * a longer sample averages that out. The row reports the last measurement
 * and its batch; samples.csv keeps every one. */
#define SAMPLE_MAX_SPREAD 0.01
#define SAMPLE_SPREAD_RETRIES 3
/* ... and only while each doubling shrinks the spread to at most this much of
 * the try before (per-launch jitter averages out as 1/sqrt(2) = 0.71 a
 * doubling). Why: on an H100, 88 refined reductions at 2^12-2^16 of `full
 * --shard 0/32` spread 2.3 % (stdev, median) at 688 launches a sample, 8 x
 * the first batch, against 0.7 % for their input's screened rows at 14: a
 * spread that longer samples do not average, paid 15 tries (1 + 2 + 4 + 8) in
 * the refine stage (110.6 s against 29.3 s for shard 31/32; JOURNAL 10.7). */
#define SAMPLE_SPREAD_SHRINK 0.9
/* 1 when `t` (taken at `batch` launches a sample) should be taken again with
 * twice the batch: spread over SAMPLE_MAX_SPREAD, the batch can double, and
 * the measurement ended normally. */
int timing_too_spread(const timing_stats *t, unsigned batch);

/* One measurement at *batch launches a sample (timing_measure underneath);
 * it may lower *batch (the cold phase, when the input copies do not fit).
 * Returns 0, or nonzero to stop (a failure, handed back as is). */
typedef int (*timing_batch_fn)(void *ctx, unsigned *batch, timing_stats *out);

/* The spread rule, the stopping rule beside the noise rule (as NVBench's
 * stopping criteria): measure at *batch; while timing_too_spread() says so,
 * at most SAMPLE_SPREAD_RETRIES times and while the last doubling shrank the
 * spread (SAMPLE_SPREAD_SHRINK), measure again at twice the batch. A
 * batch that came back smaller than asked ends it too (doubling again would
 * not help). *batch and *out are the last measurement's; every measurement's
 * samples go to the samples hook. Returns the last call's result. */
int timing_measure_spread(timing_batch_fn fn, void *ctx, unsigned *batch, timing_stats *out);

#endif
