/* The single-device loop: every configuration not already there, one
 * results.csv line each as it finishes; the process warm-up before it. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What is left to do, said once; signals, the run's NVTX ranges, the copy
 * bandwidth; the per-configuration context. */
static void run_begin_loop(sweep_run *r)
{
    if (r->prof) r->model.profile_passes = r->ri.profiler_passes; /* the ETA includes the profile phase */
    for (size_t i = 0; i < r->plan.count; i++) {
        if (index_has(&r->ix, &r->plan.configs[i])) continue;
        r->todo++;
        r->est_total += estimate_config_s(&r->plan.configs[i], &r->e.timing, &r->model);
    }
    if (!r->o.quiet) {
        char est[32];
        format_duration(r->est_total, est, sizeof est);
        fprintf(stderr, "sweep: experiment %s, %zu configurations%s (%zu skipped in the plan), about %s -> %s\n",
                r->e.name, r->todo, r->n_loaded ? " left" : "", r->plan.skipped, est, r->out_dir);
    }
    install_signals();
    r->signals = 1;
    nvtx_push(SWEEP_NVTX_RUN, NVTX_COLOR_RUN);
    nvtx_push(SWEEP_NVTX_COPY_BANDWIDTH, NVTX_COLOR_RUN);
    char msg[1024] = "";
    double copy = r->dev->ops->copy_bandwidth(r->dev, msg, sizeof msg);
    if (copy > 0) r->ri.run.copy_GBps = copy;
    else if (!r->o.quiet) fprintf(stderr, "sweep: copy bandwidth not measured: %s\n", msg);
    /* The machine model's other term (compare --normalize machine), in the same range. */
    double launch = r->dev->ops->launch_cost(r->dev, msg, sizeof msg);
    nvtx_pop();
    if (launch > 0) r->ri.run.launch_us = launch;
    else if (!r->o.quiet) fprintf(stderr, "sweep: launch cost not measured: %s\n", msg);
    nvtx_push(r->e.name, NVTX_COLOR_EXPERIMENT);
    progress_begin(&r->pr, stderr, r->o.quiet, r->todo, r->est_total);
    run_ctx *ctx = &r->ctx;
    ctx->dev = r->dev;
    ctx->prof = r->prof;
    ctx->e = &r->e;
    ctx->metric_count = r->mc.count;
    ctx->samples = r->samples;
    ctx->batching = r->prof && r->prof->queue && r->prof->run_queue;
    ctx->cap_oom = registry_count() * DTYPE_COUNT;
    ctx->oom = calloc(ctx->cap_oom, sizeof *ctx->oom);
    if (!ctx->oom) ctx->cap_oom = 0;
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

/* Every configuration not already there, a results.csv line each as it
 * finishes; stops at a signal or a fatal device error. */
/* The process's first measured configuration ran 1.2-1.95x slower than the
 * same configuration measured again at the end of the process, in every one
 * of 11 processes on an H200 and an H100, at the same SM clock, memory clock
 * and temperature (FINDINGS, "Drift"). So before the first row, its
 * configuration is measured once, untimed and discarded -- on input its own
 * validation wrote (compute-sanitizer's initcheck: not on fresh buffers). */
static void run_process_warmup(sweep_run *r)
{
    for (size_t i = 0; i < r->plan.count; i++) {
        const sweep_config *cfg = &r->plan.configs[i];
        if (cfg->skip_reason || cfg->v->runner == RUNNER_HOST || index_has(&r->ix, cfg)) continue;
        unsigned cb = 0, hb = 0;
        timing_stats c, h;
        char msg[512];
        sweep_validation val;
        nvtx_push("process warm-up", NVTX_COLOR_RUN);
        kernel_args a;
        config_kernel_args(cfg, &a);
        if (r->dev->ops->validate(r->dev, cfg->v, &a, config_seed(r->e.seed, cfg), &val) == DEV_OK && val.ok)
            remeasure_config(r->dev, cfg, &r->e.timing, "measure", &cb, &hb, &stop_signal, &c, &h, msg, sizeof msg);
        nvtx_pop();
        r->dev->ops->recover(r->dev, msg, sizeof msg); /* a failure is the real run's to report */
        return;
    }
}

/* The rows not yet in results.csv, in plan order, once no profile phase
 * waits (a row after a queued one waits too, so the order stays). */
static void write_ready_rows(sweep_run *r)
{
    if (r->ctx.n_queued) return;
    for (; r->n_written < r->n_rows; r->n_written++) csv_write_row(r->csv, &r->rows[r->n_written], r->mc);
    fflush(r->csv);
}

/* The run's end, interrupted or not: the queued profile phases run (given up
 * when the device failed), and every row is written. */
static void finish_rows(sweep_run *r)
{
    if (r->ctx.fatal[0]) profile_queue_drop(&r->ctx, "not measured: the device failed before the batch ran");
    else profile_queue_run(&r->ctx);
    write_ready_rows(r);
}

void run_loop(sweep_run *r)
{
    run_begin_loop(r);
    run_process_warmup(r);
    r->n_written = r->n_rows;
    for (size_t i = 0; i < r->plan.count; i++) {
        const sweep_config *cfg = &r->plan.configs[i];
        if (index_has(&r->ix, cfg)) continue;
        if (stop_signal) {
            r->interrupted = 1;
            break;
        }
        /* a batch ends before a configuration of another group, outside its ranges */
        if (!cfg->skip_reason) profile_queue_settle(&r->ctx, cfg);
        write_ready_rows(r);
        sweep_row *row = &r->rows[r->n_rows];
        if (row_init(row, cfg, r->mc.count)) {
            snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "out of memory");
            break;
        }
        if (run_one(r, cfg, row)) {
            r->interrupted = 1;
            break;
        }
        r->n_rows++;
        r->done++;
        write_ready_rows(r);
        run_checkpoint(r, r->n_written);
        if (r->ctx.fatal[0]) break;
    }
    finish_rows(r);
    nvtx_pop_all();
    progress_update(&r->pr, r->done, r->est_done, r->failures, NULL);
    progress_end(&r->pr);
    if (stop_signal) r->interrupted = 1;
    r->sig = stop_signal;
    fclose(r->csv);
    r->csv = NULL;
}
