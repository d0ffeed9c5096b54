/* One piece of the plan: consecutive configurations of one input (plan.h
 * plan_groups; --devices deals them, the single-device loop walks them),
 * measured in three stages:
 *   screen   every configuration validated, warmed up and timed to the
 *            experiment's screen (screen_samples a phase), its profile left;
 *   refine   the ones a conclusion could depend on, timed again to the full
 *            rule: those that could be their variant's fastest at this input
 *            (cold or hot median within twice the summed screen noise of the
 *            variant's fastest, each noise at least the full rule's max_noise;
 *            cold alone at inputs timed only cold: [timing] hot_below
 *            x L2 and more, timing.h) and
 *            those within refine_within of the input's fastest -- the winners
 *            table, each heatmap's best cell and the confirmation's
 *            candidates (within confirm_within, 2 %, of the fastest) are
 *            among them. The others keep their screen timings, stop = screen
 *            (samples_hot 0 at inputs timed cold only);
 *   profile  every timed configuration under the profiler, in batches on the
 *            input's buffers (one CUPTI session per batch of up to 64).
 * With screen_samples = 0 the first stage is the full rule and nothing is
 * refined. The rows come out together when the piece is done: a row is
 * finished once refined and profiled. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static int screened(const sweep_row *r)
{
    return r->status == ROW_OK && r->cfg.v->runner != RUNNER_HOST && r->cold.samples;
}


/* A screen's noise from 3 samples is itself noisy (its MAD may be 0): each
 * side of a comparison counts at least the full rule's max_noise (floor). */
static double floored(double noise, double floor) { return isfinite(noise) && noise > floor ? noise : floor; }

/* Whether x's phase median is within reach of the fastest of its variant
 * (vbest) or within `within` of the input's fastest (ibest). */
static int in_reach(const timing_stats *x, const timing_stats *vbest, const timing_stats *ibest, double within,
                    double floor)
{
    double reach = vbest->median * (1 + 2 * (floored(x->noise, floor) + floored(vbest->noise, floor)));
    return x->median <= reach || x->median <= ibest->median * (1 + within);
}

/* pick[k] = 1 for the rows to refine (rows[0..n) of one input). */
static void pick_refine(const sweep_row *rows, size_t n, double within, double floor, unsigned char *pick)
{
    const timing_stats *icold = NULL, *ihot = NULL;
    for (size_t k = 0; k < n; k++) {
        pick[k] = 0;
        if (!screened(&rows[k])) continue;
        if (!icold || rows[k].cold.median < icold->median) icold = &rows[k].cold;
        if (row_has_hot(&rows[k]) && (!ihot || rows[k].hot.median < ihot->median)) ihot = &rows[k].hot;
    }
    for (size_t k = 0; k < n; k++) {
        if (!screened(&rows[k])) continue;
        const timing_stats *vcold = &rows[k].cold, *vhot = row_has_hot(&rows[k]) ? &rows[k].hot : NULL;
        for (size_t j = 0; j < n; j++) {
            if (!screened(&rows[j]) || rows[j].cfg.v != rows[k].cfg.v) continue;
            if (rows[j].cold.median < vcold->median) vcold = &rows[j].cold;
            if (vhot && row_has_hot(&rows[j]) && rows[j].hot.median < vhot->median) vhot = &rows[j].hot;
        }
        pick[k] = in_reach(&rows[k].cold, vcold, icold, within, floor) ||
                  (vhot && in_reach(&rows[k].hot, vhot, ihot, within, floor));
    }
}

/* The refine stage over the picked rows; the rest are marked as stopped at
 * the screen. 0, or -1: interrupted. */
static int refine_rows(sweep_run *r, sweep_row *rows, size_t n, const timing_params *full)
{
    run_ctx *ctx = &r->ctx;
    unsigned char *pick = malloc(n ? n : 1);
    if (!pick) return 0; /* no memory: every row keeps its screen */
    pick_refine(rows, n, full->refine_within, full->max_noise > 0 ? full->max_noise : 0.005, pick);
    ctx->timing = full;
    int rc = 0;
    for (size_t k = 0; k < n; k++)
        if (screened(&rows[k])) rows[k].cold.stop = rows[k].hot.stop = STOP_SCREEN; /* until refined */
    for (size_t k = 0; k < n && !ctx->fatal[0]; k++) {
        if (!screened(&rows[k]) || !pick[k]) continue;
        if (stop_signal) {
            rc = -1;
            break;
        }
        char label[256];
        config_label(&rows[k].cfg, label, sizeof label);
        progress_update(&r->pr, r->done, r->est_done, r->failures, label);
        variant_range_open(ctx, rows[k].cfg.v);
        nvtx_push(label, nvtx_family_color(rows[k].cfg.v->family));
        nvtx_push("refine", nvtx_family_color(rows[k].cfg.v->family));
        double t0 = timing_now();
        cfg_outcome out = refine_config(ctx, &rows[k].cfg, &rows[k]);
        ctx->stages.refine += timing_now() - t0;
        ctx->stages.refined++;
        nvtx_pop();
        nvtx_pop();
        if (out == CFG_INTERRUPTED) {
            rc = -1;
            break;
        }
        row_derive_bandwidth(&rows[k], r->ri.run.peak_GBps, r->ri.run.copy_GBps);
        if (out == CFG_FATAL && !ctx->fatal[0]) snprintf(ctx->fatal, sizeof ctx->fatal, "the device failed");
    }
    free(pick);
    return rc;
}

/* The profile stage: every timed row of the piece, batched on its buffers. */
static void profile_rows(sweep_run *r, sweep_row *rows, size_t n)
{
    run_ctx *ctx = &r->ctx;
    if (!ctx->prof || !ctx->metric_count) return;
    double t0 = timing_now();
    for (size_t k = 0; k < n && !ctx->fatal[0] && !stop_signal; k++) {
        if (rows[k].status != ROW_OK || rows[k].cfg.v->runner == RUNNER_HOST || !rows[k].cold.samples) continue;
        variant_range_open(ctx, rows[k].cfg.v);
        profile_row(ctx, &rows[k].cfg, &rows[k]);
    }
    if (ctx->fatal[0]) profile_queue_drop(ctx, "not measured: the device failed before the batch ran");
    else profile_queue_run(ctx);
    ctx->stages.profile += timing_now() - t0;
}

/* A measured configuration's row: bandwidths, notes for skips and failures,
 * and recovery of the device after a failure. */
static void run_settle_row(sweep_run *r, sweep_row *row, cfg_outcome out, const char *label)
{
    char note[1200], msg[1024];
    row_derive_bandwidth(row, r->ri.run.peak_GBps, r->ri.run.copy_GBps);
    if (out == CFG_NO_MEMORY) {
        snprintf(note, sizeof note, "sweep: SKIPPED %s: %s", label, row->skip_reason ? row->skip_reason : "");
        progress_note(&r->pr, note);
    }
    if (row->status == ROW_INVALID || row->status == ROW_ERROR) {
        r->failures++;
        snprintf(note, sizeof note, "sweep: %s %s: %s", row->status == ROW_INVALID ? "INVALID" : "ERROR", label,
                 row->error ? row->error : "");
        progress_note(&r->pr, note);
        /* the queued profile phases first: recovering may take the device's buffers */
        if (out != CFG_FATAL) profile_queue_run(&r->ctx);
        if (out != CFG_FATAL && r->dev->ops->recover(r->dev, msg, sizeof msg) != 0)
            snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "%.511s", msg);
    }
    if (out == CFG_FATAL && !r->ctx.fatal[0]) snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "the device failed");
}

/* One configuration of the plan into its row: skipped (the plan's reason, or
 * an earlier allocation failure), or measured inside its NVTX ranges.
 * 0: the row is done; -1: interrupted (no row). */
int run_one(sweep_run *r, const sweep_config *cfg, sweep_row *row)
{
    char label[256];
    config_label(cfg, label, sizeof label);
    row_set_device(row, &r->ri.device);
    size_t oom_n = cfg->skip_reason ? 0 : oom_floor(&r->ctx, cfg);
    if (cfg->skip_reason) {
        row_set_skip(row, cfg->skip_reason);
        return 0;
    }
    if (oom_n) {
        char reason[128], ns[32];
        format_size(oom_n, ns, sizeof ns);
        snprintf(reason, sizeof reason, "out of device memory at n=%s for this variant and dtype", ns);
        row_set_skip(row, reason);
        return 0;
    }
    progress_update(&r->pr, r->done, r->est_done, r->failures, label);
    variant_range_open(&r->ctx, cfg->v);
    nvtx_push(label, nvtx_family_color(cfg->v->family));
    cfg_outcome out = run_config(&r->ctx, cfg, row);
    nvtx_pop();
    if (out == CFG_INTERRUPTED) {
        row_free(row); /* a half-measured configuration is not a row */
        return -1;
    }
    run_settle_row(r, row, out, label);
    r->est_done += estimate_config_s(cfg, &r->e.timing, &r->model);
    return 0;
}

size_t run_piece(sweep_run *r, const size_t *idx, size_t n, sweep_row *rows, int *interrupted)
{
    run_ctx *ctx = &r->ctx;
    const timing_params *full = &r->e.timing;
    timing_params screen = *full;
    int screening = r->e.timing.screen_samples > 0;
    screen.min_samples = screen.max_samples = r->e.timing.screen_samples;
    screen.screen_samples = 0;
    screen.warm_ms = SCREEN_WARM_MS;
    screen.sample_ms = SCREEN_SAMPLE_MS;
    *interrupted = 0;
    ctx->timing = screening ? &screen : full;
    ctx->screening = screening;
    ctx->l2_bytes = r->ri.device.l2_bytes;
    ctx->defer_profile = 1;
    size_t done = 0;
    for (; done < n && !ctx->fatal[0]; done++) {
        if (stop_signal) break;
        if (row_init(&rows[done], &r->plan.configs[idx[done]], r->mc.count)) {
            snprintf(ctx->fatal, sizeof ctx->fatal, "out of memory");
            break;
        }
        if (run_one(r, &r->plan.configs[idx[done]], &rows[done])) break; /* interrupted: no row */
    }
    ctx->screening = 0;
    if (done < n && !ctx->fatal[0]) { /* interrupted (or no memory): the piece's rows are not finished */
        for (size_t k = 0; k < done; k++) row_free(&rows[k]);
        *interrupted = 1;
        ctx->timing = NULL;
        return 0;
    }
    for (size_t k = 0; screening && k < done; k++) ctx->stages.screened += screened(&rows[k]);
    if (screening && refine_rows(r, rows, done, full)) {
        for (size_t k = 0; k < done; k++) row_free(&rows[k]);
        *interrupted = 1;
        ctx->timing = NULL;
        return 0;
    }
    ctx->timing = NULL;
    profile_rows(r, rows, done);
    if (stop_signal) { /* a profile stage cut short: its rows lack their metrics */
        for (size_t k = 0; k < done; k++) row_free(&rows[k]);
        *interrupted = 1;
        return 0;
    }
    return done;
}
