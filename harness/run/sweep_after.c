/* After the rows: the drift check and the confirmation phase, then the
 * output files (results.csv, run.json, summary.md) and the charts. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"
#include "plots/render.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* After the main pass, on its device: the drift check, then the
 * confirmation phase where there are library rows (harness/run/drift.h,
 * harness/run/confirm.h); NVML's end-of-run reading last. Not with --shard (a
 * part's groups may be split: `sweep confirm` the merged run) nor after an
 * interrupt or a fault. */
void run_after_pass(sweep_run *r)
{
    run_info *ri = &r->ri;
    const char *why = run_after_refused(r);
    char msg[1024] = "";
    if (why && r->e.drift_check) snprintf(ri->drift_note, sizeof ri->drift_note, "not run: %s", why);
    else if (r->e.drift_check) {
        nvtx_push("drift check", NVTX_COLOR_RUN);
        drift_check(r->dev, &r->e.timing, r->rows, r->n_rows, r->e.drift_check, &stop_signal, &r->drift, msg,
                    sizeof msg);
        nvtx_pop();
        if (r->drift.ran) ri->drift = &r->drift;
        else snprintf(ri->drift_note, sizeof ri->drift_note, "not run: %s", r->drift.note);
    }
    ri->confirm_rounds = r->e.confirm_rounds;
    ri->confirm_margin = r->e.confirm_margin;
    if (!r->e.confirm_rounds || !confirm_has_library(r->rows, r->n_rows)) {
        /* nothing asked, or nothing to confirm against */
    } else if (why || stop_signal) {
        snprintf(ri->confirm_note, sizeof ri->confirm_note, "not run: %s", why ? why : "interrupted");
    } else {
        confirm_params p = {r->e.confirm_rounds, r->e.confirm_candidates, r->e.confirm_within, r->e.confirm_margin};
        double t0 = timing_now();
        nvtx_push("confirm", NVTX_COLOR_RUN);
        if (confirm_run(r->dev, &p, &r->e.timing, r->rows, r->n_rows, ri->run.copy_GBps, &stop_signal,
                        r->o.quiet ? NULL : stderr, &r->confirm, &r->n_confirm, msg, sizeof msg))
            snprintf(ri->confirm_note, sizeof ri->confirm_note, "stopped: %.200s", stop_signal ? "interrupted" : msg);
        nvtx_pop();
        r->ctx.stages.confirm += timing_now() - t0;
        run_keep_confirm(r);
    }
    if (r->ctx.nvml) nvml_reader_read(r->ctx.nvml, &ri->cond_end);
}

/* Charts and report at the end of a run, when gnuplot is here; otherwise one
 * line saying how to draw them later (results brought back from a GPU host). */
static void render_charts(const char *out_dir, int quiet)
{
    char msg[1024];
    if (!plots_gnuplot_available()) {
        fprintf(stderr,
                "sweep: gnuplot not found: no charts; draw them later with `bazel run //plots:render -- --out %s %s`\n",
                out_dir, out_dir);
        return;
    }
    plots_options po;
    memset(&po, 0, sizeof po);
    po.log = quiet ? NULL : stderr;
    int rc = plots_render(out_dir, &po, msg, sizeof msg);
    if (rc < 0) fprintf(stderr, "sweep: charts failed: %s\n", msg);
    else fprintf(stderr, "sweep: charts and report in %s (index.html, report.md)%s%s\n", out_dir, rc ? ": " : "",
                 rc ? msg : "");
}


/* A shard's rows: each one's index in the whole plan (run.json
 * plan_positions), for merge. Rows come in plan order (also after --resume,
 * mostly), so the search starts after the last one found. NULL: no memory. */
static size_t *run_row_positions(const sweep_run *r)
{
    size_t *pos = malloc((r->n_rows ? r->n_rows : 1) * sizeof *pos);
    size_t hint = 0, n = r->plan.count;
    for (size_t i = 0; pos && i < r->n_rows; i++) {
        pos[i] = SIZE_MAX; /* not in this shard's plan: merge names it */
        for (size_t t = 0; t < n; t++) {
            size_t k = (hint + t) % n;
            if (!config_same_axes(&r->rows[i].cfg, &r->plan.configs[k])) continue;
            pos[i] = r->positions[k];
            hint = k + 1;
            break;
        }
    }
    return pos;
}

/* One device, this process: run.json's "devices" says the same as --devices
 * would, a list of one (*one, which must outlive the writing). */
static void one_device_list(run_info *ri, run_device *one, size_t done)
{
    *one = (run_device){ri->device, ri->run.copy_GBps, ri->run.launch_us, done, ""};
    if (ri->devices || !ri->run.have_device) return;
    ri->devices = one;
    ri->device_count = 1;
}

/* Derived figures over every row; results.csv, run.json and summary.md
 * replaced whole. 0, or -1 when one could not be written. */
static int run_write_outputs(sweep_run *r)
{
    run_info *ri = &r->ri;
    rows_derive_speedups(r->rows, r->n_rows);
    ri->run.interrupted = r->interrupted;
    ri->complete = !r->interrupted && !r->ctx.fatal[0];
    if (r->time_limited)
        snprintf(ri->stop_reason, sizeof ri->stop_reason,
                 "stopped at --time-limit %g s: %zu configurations left, which no input's time fitted; --resume "
                 "continues", r->o.time_limit_s, r->time_left);
    else if (r->interrupted)
        snprintf(ri->stop_reason, sizeof ri->stop_reason, "interrupted by %s",
                 r->sig == SIGTERM ? "SIGTERM" : "SIGINT");
    else if (r->ctx.fatal[0]) snprintf(ri->stop_reason, sizeof ri->stop_reason, "%s", r->ctx.fatal);
    ri->rows = r->n_rows;
    ri->failures = r->failures;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].status == ROW_SKIPPED) ri->skipped++;
    ri->wall_time_s = timing_now() - r->t0;
    ri->validate_s = ri->devices ? NAN : r->ctx.validate_s; /* --devices: the workers validated */
    if (!r->pool) ri->stages = r->ctx.stages; /* --devices: the workers' sums, from their DONE messages */
    if (r->shard.active) ri->row_positions = r->row_positions = run_row_positions(r);
    run_device one;
    one_device_list(ri, &one, r->done);
    int failed = 0;
    if (results_write_csv(r->csv_path, r->rows, r->n_rows, r->mc, r->err, sizeof r->err))
        failed = run_failed(r->err);
    if (run_json_write(r->json_path, ri, r->err, sizeof r->err)) failed = run_failed(r->err);
    if (summary_write(r->md_path, r->rows, r->n_rows, ri, r->err, sizeof r->err)) failed = run_failed(r->err);
    if (ri->devices == &one) ri->devices = NULL, ri->device_count = 0;
    return failed ? -1 : 0;
}

/* ---- run.json while the run goes on ---------------------------------------------------------- */

/* A process ended from outside (SIGKILL, a time limit's second signal, a hang
 * ended by its caller, the machine lost) writes no end, and its run.json would
 * still be the one of the start: no rows, no time. So every
 * RUN_CHECKPOINT_S run.json is written again with what results.csv holds so
 * far, marked unfinished; the end replaces it. 30 s: a rewrite costs well
 * under a millisecond, and a killed run loses at most that much of its record. */
#define RUN_CHECKPOINT_S 30.0

void run_checkpoint(sweep_run *r, size_t written)
{
    double every = RUN_CHECKPOINT_S, now = timing_now();
    const char *fake_every = r->fake ? getenv("SWEEP_FAKE_CHECKPOINT_S") : NULL; /* tests: seconds, not 30 */
    if (fake_every && atof(fake_every) > 0) every = atof(fake_every);
    if (now - (r->checkpoint_t > 0 ? r->checkpoint_t : r->t0) < every) return;
    r->checkpoint_t = now;
    run_info ri = r->ri; /* a copy: the end counts for itself */
    ri.rows = written;
    ri.failures = ri.skipped = 0;
    for (size_t i = 0; i < written && i < r->n_rows; i++) {
        if (r->rows[i].status == ROW_SKIPPED) ri.skipped++;
        if (r->rows[i].status == ROW_INVALID || r->rows[i].status == ROW_ERROR) ri.failures++;
    }
    ri.wall_time_s = now - r->t0;
    ri.validate_s = ri.devices ? NAN : r->ctx.validate_s;
    if (!r->pool) ri.stages = r->ctx.stages;
    ri.complete = 0;
    snprintf(ri.stop_reason, sizeof ri.stop_reason,
             "unfinished: written while the run went on, %zu rows after %.0f s; a run.json still saying this "
             "was stopped from outside before its end (SIGKILL, a hang, the machine lost): --resume continues",
             written, ri.wall_time_s);
    run_device one;
    one_device_list(&ri, &one, r->done);
    char err[1024];
    if (run_json_write(r->json_path, &ri, err, sizeof err) && !r->o.quiet)
        fprintf(stderr, "sweep: note: run.json not updated: %s\n", err);
}

/* The files, the summary, what went wrong, the charts; the exit status. */
int run_finish(sweep_run *r)
{
    int write_failed = run_write_outputs(r);
    run_release_device(r);
    if (!r->o.quiet) {
        printf("\n");
        summary_print(stdout, r->rows, r->n_rows, &r->ri);
        fflush(stdout);
    }
    fprintf(stderr, "sweep: %zu rows in %s (results.csv, run.json, summary.md)\n", r->n_rows, r->out_dir);
    if (r->ctx.fatal[0])
        fprintf(stderr, "sweep: stopped early: %s\nsweep: the rows so far are kept; --resume --out %s continues "
                        "in a new process\n",
                r->ctx.fatal, r->out_dir);
    if (r->ri.worker_faults)
        fprintf(stderr, "sweep: %zu worker%s lost (run.json devices[].fault); every row they finished is kept%s\n",
                r->ri.worker_faults, r->ri.worker_faults == 1 ? "" : "s",
                r->ri.left_for_resume ? "" : ", and what they were running ran on another device");
    if (r->failures)
        fprintf(stderr, "sweep: %zu configuration%s failed (see the summary and results.csv)\n", r->failures,
                r->failures == 1 ? "" : "s");
    if (!r->interrupted && r->n_rows) render_charts(r->out_dir, r->o.quiet);
    if (r->time_limited) {
        fprintf(stderr, "sweep: stopped at --time-limit %g s with %zu configurations left; --resume --out %s "
                        "continues\n", r->o.time_limit_s, r->time_left, r->out_dir);
        return SWEEP_EXIT_TIME_LIMIT;
    }
    if (r->interrupted) {
        fprintf(stderr, "sweep: interrupted; --resume --out %s continues\n", r->out_dir);
        return 128 + (r->sig ? r->sig : SIGINT);
    }
    if (r->failures || r->ctx.fatal[0] || r->ri.worker_faults || write_failed) return SWEEP_EXIT_FAILED;
    return SWEEP_EXIT_OK;
}
