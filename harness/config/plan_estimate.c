/* The time a plan takes: a model, not a measurement (harness/config/plan.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>

#include "cupti/metrics.h"
#include "harness/config/plan.h"
#include "harness/core/timing.h"
#include "harness/device/profiler.h"

#include <string.h>

estimate_model estimate_model_default(void)
{
    estimate_model m = {.peak_GBps = 4800.0, .l2_bytes = (size_t)60 << 20, .host_threads = 16};
    return m;
}

/* ---- timing --------------------------------------------------------------------------------------
 * Checked against the H200 runs of commit efa21fb. In the plain default run
 * cut at 260 s (results/h200/profile-cost/plain-partial, 4076 timed rows)
 * every measurement stopped at min_samples (10.00 cold, 10.01 hot on
 * average), so that is the model's count (it was 1.5x). Each launch runs at
 * its variant's own fraction of peak (plan_speed.c; one fraction for every
 * variant, a third, was 20 % low on that run and 18 % high on the cluster
 * run: the slow rungs and the fast ones differ by 1000x). CONFIG_FIXED_S is
 * what a configuration costs beyond its validation and samples (workspace
 * set-up, the cold input copies, the clock probes, NVML after each row,
 * measurements taken again for spread), fitted so that the model meets that
 * run at its last progress line (6101 rows, about 250 s). Then the cluster
 * run (135.9 s) is modelled at 148 s (+9 %) and the whole big-n run (600-632
 * s over two processes) at 550 s (-8 to -13 %); the speeds come from those
 * same runs, so this is a check of the rest, not of them. */
/* 9 ms before the host's queueing of a sample's launches had its own term
 * (LAUNCH_ENQUEUE_S); with it, 4 ms puts this model, run with the parameters
 * of that build (0.5 ms screen samples, 1 ms screen warm-up, the three passes
 * of --metrics all, batches of at most 64), at -4.6 % of the default run
 * (252.6 s measured), -4.9 % and -1.6 % of the full experiment's shards 0/32
 * and 1/32 (278.2 s, 262.8 s; h200x4/). */
/* With the refine stage counted per variant and input (REFINE_BASE below),
 * 0.5 ms: the model meets the two-pass build's default run on one card at
 * its timing stages (95.5 s measured, h200x4-two-pass/batch512/default-1gpu). */
#define CONFIG_FIXED_S 0.5e-3
/* The host's time to queue one launch of a sample's batch: the stream is
 * held until all are queued (a sample at 2^10, 167 launches of 3 us, took
 * about 0.9 ms where its kernels run 0.5 ms: h200x4/profile-split/2p10). */
#define LAUNCH_ENQUEUE_S 2.5e-6
/* With a screen (timing.screen > 0), how many configurations the refine
 * stage takes: of a variant's c configurations at an input (sweep_config.peers),
 * about REFINE_BASE + REFINE_SLOPE x c, at most c. Measured on H200 runs
 * (h200x4-two-pass): the default experiment refined 1.8 of 5, 3.2 of 9, 3.7 of
 * 25 and 6.7 of 58 (averages over the pairs of each size), the full
 * experiment's heaviest inputs 3.0 of 7, 3.3 of 20 and 18 of 156: near each
 * variant's best a few, and a tenth of the rest (the input's margin,
 * refine_within). A flat share (16 % before) put the default's refine stage at
 * 0.6x and the full shards' at 1.4x what they took: the few-configuration
 * variants, slow rungs among them, refine most of theirs. REFINE_SHARE stands
 * where a configuration has no peers counted. The slope was 0.1: that counted
 * 33,782 refined in full where its run over four cards refined 25,785
 * (h200x4/full-time-limit), 1061 in the default where it refined 894
 * (full-time-limit/host/default-1gpu), 938 and 1206 in full's shards 0/32
 * and 16/32 where they refined 722 and 841 alone (h200/range-cost). At 0.06
 * the model counts 26,372, 894, 734 and 865. */
#define REFINE_BASE 2.0
#define REFINE_SLOPE 0.06
#define REFINE_SHARE 0.16

/* One launch: the variant's bytes at its own fraction of peak (plan_speed.c), 5 us at least. */
static double kernel_s(const sweep_config *c, const estimate_model *m)
{
    double n = (double)c->n, elem = (double)dtype_size(c->dtype);
    double bytes = c->v->bytes_moved ? config_bytes_moved(c) : 2 * n * elem;
    if (!(bytes > 0)) bytes = n * elem;
    double kernel = bytes / (m->peak_GBps * 1e9 * plan_variant_speed(c->v));
    return kernel < 5e-6 ? 5e-6 : kernel;
}

/* ---- validation (harness/check/check.c) ----------------------------------------------------------
 * Per input (seed, dtype, n, op, scan mode; the checker keeps the last one):
 * the CPU reference, every chunk folded on the host's cores (and for a scan
 * computed again chunk by chunk and uploaded once, 16 bytes an element).
 * Per configuration: the input drawn on the device, the output poisoned,
 * the launch, and for a scan one compare pass reading the output and the
 * reference; where the reference does not fit on the device the scan's
 * reference is computed and uploaded again for each configuration
 * (streamed).
 * Fitted to the three H200 runs with run.json validate_s (commit efa21fb,
 * 16 host cores): results/h200/cluster (29.1 s), the first 3740 rows of
 * results/h200/profile-cost/metrics-partial (37.4 s) and the rows of
 * results/h200/big-n its resumed process ran (92.7 s, streamed). The device
 * terms are a few per cent of each; three unknowns took the rest exactly: an
 * element folded 11.3 ns on a core (0.71 ns on 16; the first guess was 5), a
 * scan's reference element 0.54 ns end to end (the upload of 16 bytes at
 * about 30 GB/s; the guess was 0.64), and 39 ms for each new input (its
 * buffers, the device draw, the chunk pool; the guess had none). A fit of
 * three points to three constants checks nothing: a fourth run will.
 * Since that fit the fold keeps its state in registers with no switch per
 * element (reference.c fold_loop): on the build host the chunked fold went
 * from 7.86 to 3.08 ns an element on a core (f32; f64 7.43 to 2.62, i32 5.58
 * to 2.86; bit-identical results), so the fold constant below is the fitted
 * 11.3 ns over 2.55: a prediction until an H200 run fits it again. */
#define CHECK_FIXED_S 0.3e-3          /* per check: synchronisations, the tally, the first copy back */
#define INPUT_FIXED_S 38.6e-3         /* per input: its buffers made and drawn, the reference's set-up */
#define REF_FOLD_S_PER_ELEM 4.4e-9    /* one core: draw an element, compensated add */
#define REF_SCAN_S_PER_ELEM 8.6e-9    /* one core: draw, scan, write 16 bytes (hidden by the upload) */
#define REF_UPLOAD_GBPS 29.6          /* the scan reference's upload, 16 bytes an element */
#define CHECK_BW_FRACTION 0.7         /* fill, poison and compare passes: this share of the peak */
#define REF_BYTES_PER_ELEM 16.0       /* a scan's reference on the device: value and magnitude sum */
#define RESIDENT_DEVICE_BYTES 60e9    /* about half an H200 beside the buffers: above, streamed */

static int ref_streamed(const sweep_config *c)
{
    return c->v->kind == KIND_SCAN && (double)c->n * REF_BYTES_PER_ELEM > RESIDENT_DEVICE_BYTES;
}

/* The scan's reference computed on the host and uploaded: the two overlap. */
static double scan_reference_s(const sweep_config *c, const estimate_model *m, double threads)
{
    double host = (double)c->n * REF_SCAN_S_PER_ELEM / threads;
    double upload = (double)c->n * REF_BYTES_PER_ELEM / (REF_UPLOAD_GBPS * 1e9);
    return host > upload ? host : upload;
}

/* What one input's reference costs, once for the configurations that share it. */
static double input_reference_s(const sweep_config *c, const estimate_model *m)
{
    double threads = m->host_threads > 0 ? m->host_threads : 1;
    double fold = INPUT_FIXED_S + (double)c->n * REF_FOLD_S_PER_ELEM / threads;
    if (c->v->kind != KIND_SCAN || ref_streamed(c)) return fold;
    return fold + scan_reference_s(c, m, threads);
}

double estimate_references_s(const sweep_plan *p, const estimate_model *m)
{
    double total = 0;
    const sweep_config *last = NULL;
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason || !c->validate || c->v->runner == RUNNER_HOST) continue;
        if (!last || !config_same_input(last, c)) total += input_reference_s(c, m);
        last = c;
    }
    return total;
}

/* One configuration's check, its input's reference aside (estimate_references_s). */
static double check_config_s(const sweep_config *c, const estimate_model *m, double kernel)
{
    double n = (double)c->n, elem = (double)dtype_size(c->dtype);
    double bw = m->peak_GBps * 1e9 * CHECK_BW_FRACTION;
    double out = c->v->kind == KIND_SCAN ? n : 1;
    double passes = n * elem + out * elem; /* the input drawn, the output poisoned */
    if (c->v->kind == KIND_SCAN) passes += n * elem + n * REF_BYTES_PER_ELEM; /* the compare */
    double s = CHECK_FIXED_S + passes / bw + kernel;
    if (ref_streamed(c)) s += scan_reference_s(c, m, m->host_threads > 0 ? m->host_threads : 1);
    return s;
}

/* One timed measurement, cold and hot, under t: warm-up, then cold and hot
 * samples, min_samples each, of a batch lasting SAMPLE_TARGET_MS (timing.h);
 * a cold sample also flushes (2x L2 read), hot ones follow a warm batch;
 * CONFIG_FIXED_S beside. */
enum { STAGE_ONE, STAGE_SCREEN, STAGE_REFINE }; /* one full-rule measurement, or the two stages */

static double measure_s(const sweep_config *c, const timing_params *t, const estimate_model *m, double kernel,
                        int stage)
{
    double flush = 2.0 * (double)m->l2_bytes / (m->peak_GBps * 1e9 * 0.6);
    double overhead = 25e-6;
    double samples = t->min_samples;
    if (samples > t->max_samples) samples = t->max_samples;
    double batch = sample_batch_within(kernel * 1e3, t->sample_ms);
    /* a sample's launches are queued behind the stream's hold, then run */
    double one = batch * (kernel + LAUNCH_ENQUEUE_S) + overhead;
    double cold = samples * (one + flush);
    double warm = warm_launches_for(kernel * 1e3, (unsigned)batch, t->warm_ms, t->sample_ms) * kernel;
    double hot = warm + samples * one;
    /* The timeout caps each half once min_samples are in. */
    double floor_cold = t->min_samples * (one + flush);
    double floor_hot = warm + t->min_samples * one;
    double half = t->timeout_s / 2;
    if (cold > half) cold = floor_cold > half ? floor_cold : half;
    if (hot > half) hot = floor_hot > half ? floor_hot : half;
    if (!config_times_hot(c, t->hot_below_l2, m->l2_bytes)) hot = 0; /* in every stage */
    /* the warm-up: an untimed launch, but none right after the check (cuda_warmup), and a timed one;
     * none in the refine stage, which sizes its batches from the screen */
    double warmup = stage == STAGE_REFINE ? 0 : (c->validate ? 1 : 2) * kernel;
    return CONFIG_FIXED_S + warmup + overhead + cold + hot;
}

/* A configuration's timing in its stages: the screen (or, with no screen, the
 * one full-rule measurement), and the share of a refine it is expected to take
 * (*share of one, *refine_s the time for it). */
static void timing_stages(const sweep_config *c, const timing_params *t, const estimate_model *m, double kernel,
                          double *screen_s, double *refine_s, double *share)
{
    *refine_s = *share = 0;
    if (!t->screen_samples || c->v->runner == RUNNER_HOST) {
        *screen_s = measure_s(c, t, m, kernel, STAGE_ONE);
        return;
    }
    /* Two stages (harness/run/sweep_piece.c): the screen for every one, the
     * full rule again for the share refined. */
    timing_params screen = *t;
    screen.min_samples = screen.max_samples = t->screen_samples;
    screen.screen_samples = 0;
    screen.warm_ms = SCREEN_WARM_MS;
    screen.sample_ms = SCREEN_SAMPLE_MS;
    *share = REFINE_SHARE;
    if (c->peers) *share = fmin(1.0, (REFINE_BASE + REFINE_SLOPE * c->peers) / c->peers);
    *screen_s = measure_s(c, &screen, m, kernel, STAGE_SCREEN);
    *refine_s = *share * measure_s(c, t, m, kernel, STAGE_REFINE);
}

void estimate_config_parts(const sweep_config *c, const timing_params *t, const estimate_model *m, double *validate_s,
                           double *measure)
{
    double kernel = kernel_s(c, m), screen, refine, share;
    /* Validation: the check on the device; the reference is the plan's (estimate_references_s). */
    *validate_s = c->validate ? check_config_s(c, m, kernel) : 0.0;
    timing_stages(c, t, m, kernel, &screen, &refine, &share);
    *measure = screen + refine;
}

void estimate_timing_stages(const sweep_plan *p, const timing_params *t, const estimate_model *m, double *screen_s,
                            double *refine_s, double *refined)
{
    *screen_s = *refine_s = *refined = 0;
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue;
        double screen, refine, share;
        timing_stages(c, t, m, kernel_s(c, m), &screen, &refine, &share);
        *screen_s += screen;
        *refine_s += refine;
        *refined += share;
    }
}

static double profile_config_s(const sweep_config *c, const estimate_model *m, unsigned passes);

double estimate_config_s(const sweep_config *c, const timing_params *t, const estimate_model *m)
{
    if (c->skip_reason) return 0;
    double v, s;
    estimate_config_parts(c, t, m, &v, &s);
    if (m->profile_passes && c->v->runner != RUNNER_HOST) s += profile_config_s(c, m, m->profile_passes);
    return v + s;
}

double estimate_plan_s(const sweep_plan *p, const timing_params *t, const estimate_model *m)
{
    double total = RUN_STARTUP_S + estimate_references_s(p, m);
    for (size_t i = 0; i < p->count; i++) total += estimate_config_s(&p->configs[i], t, m);
    return total;
}

void format_duration(double s, char *buf, size_t len)
{
    if (!(s >= 0) || !isfinite(s)) {
        snprintf(buf, len, "?");
        return;
    }
    if (s < 10) snprintf(buf, len, "%.1f s", s);
    else if (s < 60) snprintf(buf, len, "%.0f s", s);
    else if (s < 3600) snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* ---- the profile phase ------------------------------------------------------------------------
 * The sweep profiles consecutive configurations on the same buffers (one
 * kind, dtype and n: config_batch_with) in one batch, after their timings;
 * with order = variant that is one variant's, with order = size every
 * variant's at that input: one CUPTI session per batch of at most [profile] batch
 * (harness/device/profiler.h, cupti/profiler.h), each configuration one range
 * of every pass, the L2 flushed before each range. The constants are what
 * run.json's stages timed of every part in one process alone on an H200
 * (results/h200/range-cost: full --shard 0/32 and 16/32, 38 and 34
 * batches of about 135 and 197) and what tools/profile_cost split a range
 * into there. For a batch of b configurations:
 *   its session, enabled, configured and disabled: 16 ms + 0.28 ms x b
 *     (51 ms at 135, 63 ms at 197);
 *   each pass's start and stop: 0.095 s + 0.55 ms x b (0.179 s at 135,
 *     0.208 s at 197; profile_cost 0.09-0.10 s at 1, 0.32-0.40 s at 512);
 *   each range: CUPTI's push and pop, 1.1 ms beyond its kernel at every n
 *     and fill (the SM's counters cost it: profile_cost), and the L2 flush
 *     before it, 0.13 ms;
 *   per configuration: its workspace queued and freed, its values
 *     evaluated (0.15 ms).
 * Processes profiling side by side on one host (--devices) each pay more
 * for CUPTI's parts: over four H200s the full experiment's profile stage took
 * the workers 1916 s (results/h200x4/full-time-limit) where these constants
 * give 1174 s alone, 902 s of it CUPTI's parts (the rest the kernels and each
 * configuration's own 0.15 ms), so with W such processes the CUPTI parts
 * cost 1 + PROFILE_HOST_SHARE x (W - 1) times as much (1.82 at four).
 * A pass of SASS-patched metrics (cupti/metrics.h: the two outside the
 * default set) runs the patched kernel: at 2^30 that pass took about 13x the
 * kernel beyond the others (profile-split/2p30: 96 ms a configuration in
 * ranges over 3 passes of a 5.9 ms mean kernel); at 2^26 about 3x. */
#define PROFILE_SESSION_S 0.016
#define PROFILE_SESSION_CONFIG_S 0.00028
#define PROFILE_PASS_S 0.095
#define PROFILE_PASS_CONFIG_S 0.00055
#define PROFILE_RANGE_PASS_S (0.0011 + 0.00013)
#define PROFILE_RANGE_S 0.00015
#define PROFILE_HOST_SHARE 0.274
#define PROFILE_PATCHED_EXTRA 13.0
#define PROFILE_BATCH_DEFAULT 512 /* [profile] batch, where a plan does not say */
/* A configuration's share of its batch, where the plan is not at hand
 * (estimate_config_s: the progress line's ETA, --time-limit, --shard's
 * weights): the full experiment's mean batch. */
#define PROFILE_NOMINAL_BATCH 200.0
/* Passes (counted by the profiler host API for GH100, which needs no GPU):
 * the default set's hardware counters take 2, the SASS-patched metrics a
 * pass of their own; a list of hardware metrics about one pass per 8.5. */
#define PROFILE_DEFAULT_PASSES 2u
#define PROFILE_METRICS_PER_PASS 8.5

/* What CUPTI's parts cost with m->host_profilers processes profiling on the host, over alone. */
static double host_share(const estimate_model *m)
{
    return m->host_profilers > 1 ? 1.0 + PROFILE_HOST_SHARE * (double)(m->host_profilers - 1) : 1.0;
}

/* One configuration's own part of its batch. */
static double profile_range_s(const sweep_config *c, const estimate_model *m, unsigned passes)
{
    double kernel = kernel_s(c, m);
    return PROFILE_RANGE_S + passes * (PROFILE_RANGE_PASS_S * host_share(m) + kernel) +
           (m->profile_patched ? PROFILE_PATCHED_EXTRA * kernel : 0);
}

/* What a batch of b configurations costs beyond its configurations' own parts. */
static double profile_batch_s(double b, unsigned passes, const estimate_model *m)
{
    if (b <= 0) return 0;
    return host_share(m) *
           (PROFILE_SESSION_S + PROFILE_SESSION_CONFIG_S * b + passes * (PROFILE_PASS_S + PROFILE_PASS_CONFIG_S * b));
}

static double profile_config_s(const sweep_config *c, const estimate_model *m, unsigned passes)
{
    return profile_range_s(c, m, passes) + profile_batch_s(PROFILE_NOMINAL_BATCH, passes, m) / PROFILE_NOMINAL_BATCH;
}

/* Whether c joins the batch that `first` opened, `in_batch` configurations
 * holding `ws` bytes of workspace: the sweep's rule (harness/device/profiler.h),
 * and a piece's batch runs when the piece ends (harness/run/sweep_piece.c), so
 * a batch holds one input's configurations. */
static int same_batch(const sweep_plan *p, const sweep_config *first, const sweep_config *c, size_t in_batch, size_t ws)
{
    return first && in_batch < (p->profile_batch ? p->profile_batch : PROFILE_BATCH_DEFAULT) &&
           ws < sweep_profile_workspace_cap(p->model_memory_bytes) && config_batch_with(first, c) &&
           config_same_input(first, c);
}

double estimate_profile_s(const sweep_plan *p, const experiment *e, const estimate_model *m, size_t *configs,
                          unsigned *passes, char *how, size_t howlen)
{
    *configs = 0;
    *passes = 0;
    if (how && howlen) how[0] = '\0';
    if (m->no_profile || e->metrics_mode == METRICS_NONE) return 0;
    *passes = estimate_profile_passes(e);
    estimate_model mp = *m;
    mp.profile_patched = estimate_profile_patched(e);
    m = &mp;
    double total = 0;
    size_t batches = 0, in_batch = 0, ws = 0;
    const sweep_config *first = NULL;
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue; /* a skipped row does not end a batch */
        if (c->v->runner == RUNNER_HOST) {
            first = NULL;
            continue;
        }
        if (!same_batch(p, first, c, in_batch, ws)) {
            batches++;
            total += profile_batch_s((double)in_batch, *passes, m);
            first = c;
            in_batch = 0;
            ws = 0;
        }
        in_batch++;
        ws += config_workspace_size(c);
        (*configs)++;
        total += profile_range_s(c, m, *passes);
    }
    total += profile_batch_s((double)in_batch, *passes, m);
    if (how)
        snprintf(how, howlen,
                 "%zu batches, one per run of configurations on the same buffers (at most %d, and %.3g GiB of "
                 "their workspaces); a batch of b: its session %.3g s + %.2g ms x b, each pass's start and stop "
                 "%.3g s + %.2g ms x b; each configuration %.2g ms and a pass %.2g ms, plus the kernels%s; "
                 "measured alone on an H200 (results/h200/range-cost)%s; passes: %s",
                 batches, p->profile_batch ? p->profile_batch : PROFILE_BATCH_DEFAULT,
                 (double)sweep_profile_workspace_cap(p->model_memory_bytes) / (double)(1u << 30), PROFILE_SESSION_S,
                 PROFILE_SESSION_CONFIG_S * 1e3, PROFILE_PASS_S, PROFILE_PASS_CONFIG_S * 1e3, PROFILE_RANGE_S * 1e3,
                 PROFILE_RANGE_PASS_S * 1e3, mp.profile_patched ? " (the SASS-patched pass: 13x the kernel more)" : "",
                 mp.host_profilers > 1 ? ", CUPTI's parts x the host's share" : "",
                 e->metrics_mode == METRICS_LIST ? "one per 8.5 hardware metrics listed, one more for SASS-patched ones"
                                                 : "2 for the default set");
    return total;
}

static int is_library(const variant *v) { return !strcmp(v->family, "cub"); }

static int same_size(const sweep_config *a, const sweep_config *b)
{
    if (a->v->kind != b->v->kind || a->dtype != b->dtype || a->op != b->op || a->n != b->n) return 0;
    return a->v->kind != KIND_SCAN || a->scan_mode == b->scan_mode;
}

void estimate_after_rows(const sweep_plan *p, const experiment *e, const estimate_model *m, double *drift_s,
                         double *confirm_s, size_t *confirm_sizes)
{
    timing_params round = e->timing, full = e->timing;
    round.max_samples = round.min_samples;
    round.screen_samples = full.screen_samples = 0; /* neither the drift check nor a round screens */
    double v, s;
    unsigned k = 0;
    *drift_s = *confirm_s = 0;
    *confirm_sizes = 0;
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason || c->v->runner == RUNNER_HOST) continue;
        if (k < e->drift_check) {
            estimate_config_parts(c, &full, m, &v, &s);
            *drift_s += s;
            k++;
        }
        if (!e->confirm_rounds || !is_library(c->v)) continue;
        size_t j = 0; /* one library configuration per size: the first */
        while (j < i && !(is_library(p->configs[j].v) && !p->configs[j].skip_reason && same_size(&p->configs[j], c))) j++;
        if (j < i) continue;
        size_t ours = 0; /* the variants that can be candidates at this size, at most confirm_candidates */
        for (size_t q = 0; q < p->count; q++) {
            const sweep_config *o = &p->configs[q];
            if (o->skip_reason || is_library(o->v) || !same_size(o, c)) continue;
            size_t r = 0;
            while (r < q && !(p->configs[r].v == o->v && !p->configs[r].skip_reason && same_size(&p->configs[r], c))) r++;
            ours += r == q;
        }
        if (!ours) continue;
        if (ours > e->confirm_candidates) ours = e->confirm_candidates;
        estimate_config_parts(c, &round, m, &v, &s);
        *confirm_s += (double)(ours + 1) * e->confirm_rounds * s;
        (*confirm_sizes)++;
    }
}

/* ---- pieces of work (harness/config/shard.h: plan_pieces) -------------------------------------
 * A process that measures consecutive configurations of one input computes
 * its reference once and profiles them in real batches (profile_batch_s each),
 * where estimate_config_s charges a nominal share of a batch; the pieces are
 * costed so, and a group split in two pays its reference and a batch twice. */
/* e's metrics as CUPTI names: how many hardware ones, whether any is SASS-patched. */
static void count_raw(const experiment *e, size_t *hardware, int *patched)
{
    *hardware = 0;
    *patched = 0;
    const char *names[EXPERIMENT_MAX_METRICS];
    for (size_t i = 0; i < e->metric_count; i++) names[i] = e->metrics[i];
    metric_plan *plan = metric_plan_new(names, e->metric_count, NULL, 0);
    if (!plan) {
        *hardware = e->metric_count;
        return;
    }
    for (size_t i = 0; i < plan->nraw; i++) {
        if (strstr(plan->raw[i], "__sass_")) *patched = 1;
        else (*hardware)++;
    }
    metric_plan_free(plan);
}

unsigned estimate_profile_passes(const experiment *e)
{
    if (e->metrics_mode == METRICS_NONE) return 0;
    if (e->metrics_mode != METRICS_LIST) return PROFILE_DEFAULT_PASSES;
    size_t hardware;
    int patched;
    count_raw(e, &hardware, &patched);
    unsigned passes = (unsigned)ceil((double)hardware / PROFILE_METRICS_PER_PASS) + (unsigned)patched;
    return passes < 1 ? 1 : passes;
}

int estimate_profile_patched(const experiment *e)
{
    if (e->metrics_mode != METRICS_LIST) return 0;
    size_t hardware;
    int patched;
    count_raw(e, &hardware, &patched);
    return patched;
}

double estimate_reference_s(const sweep_config *c, const estimate_model *m) { return input_reference_s(c, m); }

double estimate_config_own_s(const sweep_config *c, const timing_params *t, const estimate_model *m, unsigned passes)
{
    if (c->skip_reason) return 0;
    double v, s;
    estimate_config_parts(c, t, m, &v, &s);
    if (passes && c->v->runner != RUNNER_HOST) s += profile_range_s(c, m, passes);
    return v + s;
}

double estimate_piece_s(const sweep_plan *p, size_t first, size_t count, const timing_params *t,
                        const estimate_model *m, unsigned passes)
{
    double total = 0;
    const sweep_config *last_ref = NULL, *batch = NULL;
    size_t in_batch = 0, ws = 0;
    for (size_t i = first; i < first + count && i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue; /* costs nothing and ends no batch */
        total += estimate_config_own_s(c, t, m, passes);
        if (c->validate && c->v->runner != RUNNER_HOST) { /* the references as estimate_references_s counts them */
            if (!last_ref || !config_same_input(last_ref, c)) total += input_reference_s(c, m);
            last_ref = c;
        }
        if (!passes) continue;
        if (c->v->runner == RUNNER_HOST) {
            batch = NULL;
            continue;
        }
        if (!same_batch(p, batch, c, in_batch, ws)) {
            total += profile_batch_s((double)in_batch, passes, m);
            batch = c;
            in_batch = 0;
            ws = 0;
        }
        in_batch++;
        ws += config_workspace_size(c);
    }
    return total + profile_batch_s((double)in_batch, passes, m);
}
