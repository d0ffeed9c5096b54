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
    ctx->batch_max = r->e.profile_batch;
    ctx->cap_oom = registry_count() * DTYPE_COUNT;
    ctx->oom = calloc(ctx->cap_oom, sizeof *ctx->oom);
    if (!ctx->oom) ctx->cap_oom = 0;
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

/* Every input group of the plan (plan_groups), its configurations not
 * already there measured as one piece (sweep_piece.c), its rows written to
 * results.csv together; stops at a signal or a fatal device error. */
void run_loop(sweep_run *r)
{
    run_begin_loop(r);
    run_process_warmup(r);
    plan_group *g = NULL;
    size_t ng = 0;
    size_t *idx = malloc((r->plan.count ? r->plan.count : 1) * sizeof *idx);
    if (!idx || plan_groups(&r->plan, &g, &ng)) snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "out of memory");
    r->budget = (time_budget){.limit_s = r->o.time_limit_s, .t0 = r->t0};
    for (size_t k = 0; k < ng && !r->ctx.fatal[0]; k++) {
        size_t n = 0;
        double est = 0;
        for (size_t i = g[k].first; i < g[k].first + g[k].count; i++)
            if (!index_has(&r->ix, &r->plan.configs[i])) {
                idx[n++] = i;
                est += estimate_config_s(&r->plan.configs[i], &r->e.timing, &r->model);
            }
        if (!n) continue;
        if (stop_signal) {
            r->interrupted = 1;
            break;
        }
        if (!budget_fits(&r->budget, timing_now(), est)) { /* this input and the rest: --resume's */
            r->interrupted = r->time_limited = 1;
            r->time_left = r->todo - r->done;
            break;
        }
        int interrupted = 0;
        budget_start(&r->budget);
        double t_piece = timing_now();
        size_t got = run_piece(r, idx, n, &r->rows[r->n_rows], &interrupted);
        budget_input_done(&r->budget, timing_now() - t_piece, est);
        for (size_t i = 0; i < got; i++) csv_write_row(r->csv, &r->rows[r->n_rows + i], r->mc);
        fflush(r->csv);
        r->n_rows += got;
        r->done += got;
        run_checkpoint(r, r->n_rows);
        if (interrupted) {
            r->interrupted = 1;
            break;
        }
    }
    free(idx);
    free(g);
    nvtx_pop_all();
    progress_update(&r->pr, r->done, r->est_done, r->failures, NULL);
    progress_end(&r->pr);
    if (stop_signal) r->interrupted = 1;
    r->sig = stop_signal;
    fclose(r->csv);
    r->csv = NULL;
}
