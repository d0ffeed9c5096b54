/* --devices: a worker per device (harness/run/workers.h), the parent that
 * deals the configurations and writes the rows as they come. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* In a worker (a fork of the parent, with its plan): its device open, its
 * profiler begun, its copy bandwidth measured, as a single-device run does
 * before its loop. Quiet: the parent speaks for the run. */
static int worker_open(void *p, int ordinal, worker_hello *h, char *msg, size_t len)
{
    sweep_run *r = p;
    r->o.device = ordinal;
    r->o.quiet = 1;
    if (run_open_device(r) != RUN_GO || run_negotiate_profiler(r, r->built_in) != RUN_GO) {
        snprintf(msg, len, "device %d could not be opened (see above)", ordinal);
        return -1;
    }
    r->mc = (metric_columns){r->setup.metrics, r->prof ? r->setup.metric_count : 0};
    progress_begin(&r->pr, stderr, 1, 0, 0);
    char m[1024] = "";
    double copy = r->dev->ops->copy_bandwidth(r->dev, m, sizeof m);
    r->ri.run.copy_GBps = copy > 0 ? copy : NAN;
    double launch = r->dev->ops->launch_cost(r->dev, m, sizeof m);
    r->ri.run.launch_us = launch > 0 ? launch : NAN;
    run_ctx *ctx = &r->ctx;
    ctx->dev = r->dev;
    ctx->prof = r->prof;
    ctx->e = &r->e;
    ctx->metric_count = r->mc.count;
    ctx->batching = r->prof && r->prof->queue && r->prof->run_queue;
    ctx->batch_max = r->e.profile_batch;
    ctx->cap_oom = registry_count() * DTYPE_COUNT;
    ctx->oom = calloc(ctx->cap_oom, sizeof *ctx->oom);
    if (!ctx->oom) ctx->cap_oom = 0;
    h->device = r->ri.device;
    h->copy_GBps = r->ri.run.copy_GBps;
    h->launch_us = r->ri.run.launch_us;
    h->profiler_passes = r->ri.profiler_passes;
    h->profiler_on = r->prof != NULL;
    snprintf(h->profiler_status, sizeof h->profiler_status, "%s", r->ri.profiler_status);
    h->metric_count = r->mc.count;
    memcpy(h->metrics, r->setup.metrics, sizeof h->metrics);
    return 0;
}

/* In a worker: one piece, as run_loop runs it (screen, refine, profile). */
static long worker_run(void *p, const size_t *idx, size_t n, sweep_row *rows, char *fatal, size_t len)
{
    sweep_run *r = p;
    int interrupted = 0;
    size_t got = run_piece(r, idx, n, rows, &interrupted);
    if (interrupted) return -1;
    if (r->ctx.fatal[0]) snprintf(fatal, len, "%s", r->ctx.fatal);
    return (long)got;
}

/* In a worker: one input's confirmation on its device. */
static int worker_confirm(void *p, const sweep_row *rows, size_t n, confirm_line **lines, size_t *count, char *note,
                          size_t len)
{
    sweep_run *r = p;
    confirm_params cp = {r->e.confirm_rounds, r->e.confirm_candidates, r->e.confirm_within, r->e.confirm_margin};
    char msg[512] = "";
    double t0 = timing_now();
    nvtx_push("confirm", NVTX_COLOR_RUN);
    int rc = confirm_run(r->dev, &cp, &r->e.timing, rows, n, r->ri.run.copy_GBps, &stop_signal, NULL, lines, count,
                         msg, sizeof msg);
    nvtx_pop();
    r->ctx.stages.confirm += timing_now() - t0;
    if (rc) snprintf(note, len, "stopped: %.200s", stop_signal ? "interrupted" : msg);
    return rc;
}

static void worker_close(void *p) { run_release_device(p); }

static void worker_stages(void *p, stage_times *out) { *out = ((sweep_run *)p)->ctx.stages; }

/* In the parent: a finished row, appended to results.csv at once. */
static void parent_row(void *p, worker_state *w, size_t idx, sweep_row *row)
{
    sweep_run *r = p;
    (void)w;
    if (r->n_rows >= r->n_loaded + r->plan.count) { /* cannot happen: every configuration is dealt once */
        row_free(row);
        return;
    }
    if (r->row_plan) r->row_plan[r->n_rows - r->n_loaded] = idx;
    r->rows[r->n_rows++] = *row;
    csv_write_row(r->csv, row, r->mc);
    fflush(r->csv);
    r->done++;
    if (row->status == ROW_INVALID || row->status == ROW_ERROR) r->failures++;
    r->est_done += estimate_config_s(&r->plan.configs[idx], &r->e.timing, &r->model);
    char label[256];
    config_label(&row->cfg, label, sizeof label);
    progress_update(&r->pr, r->done, r->est_done, r->failures, label);
    run_checkpoint(r, r->n_rows);
}

static void parent_label(void *p, size_t idx, char *buf, size_t len)
{
    config_label(&((sweep_run *)p)->plan.configs[idx], buf, len);
}

/* The confirmation's lines by job, put in job order once all are in. */
typedef struct confirm_batch {
    confirm_line *lines;
    size_t n;
} confirm_batch;

static confirm_batch *confirm_batches; /* one per confirmation job (the parent's) */

static void parent_lines(void *p, size_t job, const confirm_line *l, size_t n, const char *note)
{
    sweep_run *r = p;
    if (note[0] && !r->ri.confirm_note[0]) snprintf(r->ri.confirm_note, sizeof r->ri.confirm_note, "%s", note);
    if (!confirm_batches || !n || !(confirm_batches[job].lines = malloc(n * sizeof *l))) return;
    memcpy(confirm_batches[job].lines, l, n * sizeof *l);
    confirm_batches[job].n = n;
}

static const worker_hooks run_hooks = {NULL,          worker_open, worker_run,   worker_confirm, worker_stages,
                                       worker_close, parent_row,  parent_lines, parent_label};

/* --devices: the ordinals (all: every device the layer counts), one worker
 * forked for each after the plan is built; the run's identity and metric
 * columns from the first one's HELLO. Nothing is written before they are up. */
int run_start_workers(sweep_run *r, const sweep_profiler *built_in)
{
    char msg[1024];
    int all = r->o.devices_all; /* parsed by cli_parse */
    _Static_assert(WORKERS_MAX == DEVICES_MAX, "--devices lists at most WORKERS_MAX ordinals");
    memcpy(r->ordinals, r->o.device_ordinals, r->o.n_device_ordinals * sizeof *r->ordinals);
    r->n_ordinals = r->o.n_device_ordinals;
    int c = workers_count_devices(r->fake ? sweep_device_fake() : sweep_device_cuda(), msg, sizeof msg);
    if (c <= 0) return no_device(c < 0 ? msg : "no CUDA device: the driver reports none");
    if (all)
        for (int i = 0; i < c && i < WORKERS_MAX; i++) r->ordinals[r->n_ordinals++] = i;
    for (size_t i = 0; i < r->n_ordinals; i++) /* a device this host lacks is bad usage, as for --device */
        if (r->ordinals[i] >= c) {
            snprintf(r->err, sizeof r->err, "--devices: %d is out of range (this host has %d device%s: 0..%d)",
                     r->ordinals[i], c, c == 1 ? "" : "s", c - 1);
            return usage_error(r->err);
        }
    r->built_in = built_in;
    if (!(r->pool = calloc(1, sizeof *r->pool))) return run_failed("out of memory");
    install_signals(); /* the workers inherit the handler: a Ctrl-C stops their configuration too */
    r->signals = 1;
    worker_hooks h = run_hooks;
    h.ctx = r;
    if (workers_start(r->pool, r->ordinals, r->n_ordinals, r->plan.count, &h, &stop_signal, msg, sizeof msg))
        return run_failed(msg);
    const worker_hello *first = &r->pool->w[0].info;
    git_info(r->ri.git_sha, sizeof r->ri.git_sha, &r->ri.git_dirty);
    plan_fingerprint(r->plan_hash, r->ri.git_sha, r->ri.plan_fingerprint);
    r->ri.device = first->device;
    run_describe(r);
    r->ri.run.copy_GBps = first->copy_GBps;
    r->ri.run.launch_us = first->launch_us;
    r->ri.profiler_passes = first->profiler_passes;
    snprintf(r->ri.profiler_status, sizeof r->ri.profiler_status, "%s", first->profiler_status);
    memcpy(r->setup.metrics, first->metrics, sizeof r->setup.metrics);
    r->setup.metric_count = first->metric_count;
    if (!r->o.quiet)
        fprintf(stderr, "sweep: %zu workers, devices %s\n", r->pool->n, r->o.devices);
    return RUN_GO;
}

/* The pieces (shard.h plan_pieces: whole inputs, heaviest first) with the
 * configurations not in results.csv yet. NULL: no memory. */
static worker_job *run_deal_pieces(sweep_run *r, size_t *n_jobs)
{
    plan_piece *pc = NULL;
    size_t np = 0;
    *n_jobs = 0;
    if (plan_pieces(&r->plan, &r->e.timing, (unsigned)r->pool->n, &pc, &np)) return NULL;
    worker_job *jobs = calloc(np ? np : 1, sizeof *jobs);
    for (size_t k = 0; jobs && k < np; k++) {
        size_t *idx = malloc(pc[k].count * sizeof *idx), n = 0;
        double est = 0;
        if (!idx) continue;
        for (size_t i = pc[k].first; i < pc[k].first + pc[k].count; i++) {
            const sweep_config *cfg = &r->plan.configs[i];
            if (index_has(&r->ix, cfg)) continue;
            idx[n++] = i;
            est += estimate_config_s(cfg, &r->e.timing, &r->model);
        }
        r->est_total += est;
        r->todo += n;
        if (n) jobs[(*n_jobs)++] = (worker_job){idx, n, est};
        else free(idx);
    }
    free(pc);
    return jobs;
}

/* run.json "devices": each worker's device, what it ran, how it ended. */
static void run_note_devices(sweep_run *r)
{
    worker_pool *p = r->pool;
    if (!(r->devices = calloc(p->n ? p->n : 1, sizeof *r->devices))) return;
    for (size_t i = 0; i < p->n; i++) {
        r->devices[i].info = p->w[i].info.device;
        r->devices[i].copy_bandwidth_GBps = p->w[i].info.copy_GBps;
        r->devices[i].launch_us = p->w[i].info.launch_us;
        r->devices[i].configs = p->w[i].ran;
        snprintf(r->devices[i].fault, sizeof r->devices[i].fault, "%s", p->w[i].fault);
    }
    r->ri.devices = r->devices;
    memset(&r->ri.stages, 0, sizeof r->ri.stages);
    for (size_t i = 0; i < p->n; i++) {
        const stage_times *s = &p->w[i].stages;
        stage_times *t = &r->ri.stages;
        t->validate += s->validate, t->prepare += s->prepare, t->warmup += s->warmup, t->cold += s->cold;
        t->hot += s->hot, t->conditions += s->conditions, t->refine += s->refine, t->profile += s->profile;
        t->confirm += s->confirm, t->screened += s->screened, t->refined += s->refined;
        t->profile_queue += s->profile_queue, t->profile_run += s->profile_run;
        profile_times_add(&t->cupti, &s->cupti);
    }
    r->ri.device_count = p->n;
    r->ri.worker_faults = p->faults;
    r->ri.left_for_resume = p->left;
}

typedef struct placed_row {
    size_t plan;
    sweep_row row;
} placed_row;

static int by_plan(const void *a, const void *b)
{
    const placed_row *x = a, *y = b;
    return x->plan < y->plan ? -1 : x->plan > y->plan;
}

/* The rows this run received back in plan order, as a one-device run writes
 * them (the final results.csv, and so merges and diffs, do not depend on
 * which worker finished first). */
static void run_rows_in_plan_order(sweep_run *r)
{
    size_t n = r->n_rows - r->n_loaded;
    placed_row *p = r->row_plan && n ? malloc(n * sizeof *p) : NULL;
    if (!p) return;
    for (size_t i = 0; i < n; i++) p[i] = (placed_row){r->row_plan[i], r->rows[r->n_loaded + i]};
    qsort(p, n, sizeof *p, by_plan);
    for (size_t i = 0; i < n; i++) r->rows[r->n_loaded + i] = p[i].row;
    free(p);
}

/* One confirmation job per input with an ok library row, over every row of
 * that input (those resumed too), the largest inputs first. */
static worker_confirm_job *run_confirm_jobs(sweep_run *r, size_t *n_jobs)
{
    *n_jobs = 0;
    worker_confirm_job *jobs = calloc(r->n_rows ? r->n_rows : 1, sizeof *jobs);
    const sweep_row **ptrs = malloc((r->n_rows ? r->n_rows : 1) * sizeof *ptrs);
    size_t used = 0;
    if (!jobs || !ptrs) {
        free(jobs);
        free(ptrs);
        return NULL;
    }
    for (size_t i = 0; i < r->n_rows; i++) { /* each input's first row opens its job */
        const sweep_row *a = &r->rows[i];
        size_t j = 0;
        while (j < *n_jobs && !config_same_input(&jobs[j].rows[0]->cfg, &a->cfg)) j++;
        if (j < *n_jobs) continue;
        jobs[*n_jobs].rows = ptrs + used;
        int library = 0;
        for (size_t k = i; k < r->n_rows; k++)
            if (config_same_input(&r->rows[k].cfg, &a->cfg)) {
                ptrs[used++] = &r->rows[k];
                jobs[*n_jobs].n++;
                library |= confirm_has_library(&r->rows[k], 1);
            }
        if (library) (*n_jobs)++;
        else used -= jobs[*n_jobs].n, jobs[*n_jobs].n = 0;
    }
    return jobs;
}

/* The confirmation phase over the workers; confirm.csv. Not with --shard (a
 * part's inputs may be split: `sweep confirm` the merged run), nor after an
 * interrupt or a fault. */
static void run_dispatch_confirm(sweep_run *r, const worker_hooks *h)
{
    run_info *ri = &r->ri;
    snprintf(ri->drift_note, sizeof ri->drift_note, "not run: --devices (one device's first configurations again)");
    ri->confirm_rounds = r->e.confirm_rounds;
    ri->confirm_margin = r->e.confirm_margin;
    if (!r->e.confirm_rounds || !confirm_has_library(r->rows, r->n_rows)) return;
    const char *why = stop_signal ? "the run was interrupted" : run_after_refused(r);
    if (why) {
        snprintf(ri->confirm_note, sizeof ri->confirm_note, "not run: %s", why);
        return;
    }
    size_t n = 0;
    worker_confirm_job *jobs = run_confirm_jobs(r, &n);
    confirm_batches = calloc(n ? n : 1, sizeof *confirm_batches);
    if (!jobs || !confirm_batches) {
        snprintf(ri->confirm_note, sizeof ri->confirm_note, "not run: out of memory");
    } else {
        if (!r->o.quiet) fprintf(stderr, "sweep: confirming %zu inputs over %zu workers\n", n, r->pool->n);
        workers_confirm(r->pool, jobs, n, h, &stop_signal);
        size_t total = 0;
        for (size_t k = 0; k < n; k++) total += confirm_batches[k].n;
        r->confirm = malloc((total ? total : 1) * sizeof *r->confirm);
        for (size_t k = 0; r->confirm && k < n; k++) {
            if (confirm_batches[k].n)
                memcpy(r->confirm + r->n_confirm, confirm_batches[k].lines, confirm_batches[k].n * sizeof *r->confirm);
            r->n_confirm += confirm_batches[k].n;
        }
        if (r->pool->confirm_lost && !ri->confirm_note[0])
            snprintf(ri->confirm_note, sizeof ri->confirm_note, "stopped: %zu inputs not confirmed (a worker was lost)",
                     r->pool->confirm_lost);
        run_keep_confirm(r);
    }
    for (size_t k = 0; confirm_batches && k < n; k++) free(confirm_batches[k].lines);
    free(confirm_batches);
    confirm_batches = NULL;
    if (jobs && n) free((void *)jobs[0].rows);
    free(jobs);
}

/* --devices: run_loop's counterpart in the parent -- it deals the pieces,
 * the workers measure, every row is appended to results.csv as it comes;
 * then the confirmation, dealt the same way. */
void run_dispatch(sweep_run *r)
{
    if (r->setup.metric_count) r->model.profile_passes = r->ri.profiler_passes;
    r->model.host_profilers = (unsigned)r->pool->n; /* side by side on one host: plan_estimate.c */
    size_t n;
    worker_job *jobs = run_deal_pieces(r, &n);
    if (!r->o.quiet) {
        char est[32];
        format_duration(r->est_total, est, sizeof est);
        fprintf(stderr, "sweep: experiment %s, %zu configurations%s (%zu skipped in the plan) in %zu pieces, about %s "
                        "of one device's time over %zu -> %s\n",
                r->e.name, r->todo, r->n_loaded ? " left" : "", r->plan.skipped, n, est, r->pool->n, r->out_dir);
    }
    /* the ETA scales the model by the pace so far: the workers' parallelism included */
    progress_begin(&r->pr, stderr, r->o.quiet, r->todo, r->est_total);
    worker_hooks h = run_hooks;
    h.ctx = r;
    r->row_plan = malloc((r->plan.count ? r->plan.count : 1) * sizeof *r->row_plan);
    r->pool->budget = (time_budget){.limit_s = r->o.time_limit_s, .t0 = r->t0};
    if (!jobs || workers_dispatch(r->pool, jobs, n, &h, &stop_signal))
        snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "out of memory");
    for (size_t k = 0; jobs && k < n; k++) free(jobs[k].idx);
    free(jobs);
    run_rows_in_plan_order(r);
    progress_update(&r->pr, r->done, r->est_done, r->failures, NULL);
    progress_end(&r->pr);
    if (stop_signal) r->interrupted = 1;
    r->sig = stop_signal;
    if (r->pool->time_left) r->interrupted = r->time_limited = 1, r->time_left = r->pool->time_left;
    if (!r->interrupted && r->pool->left && !r->ctx.fatal[0])
        snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "%zu configuration%s not run: %zu worker%s lost", r->pool->left,
                 r->pool->left == 1 ? "" : "s", r->pool->faults, r->pool->faults == 1 ? "" : "s");
    fclose(r->csv);
    r->csv = NULL;
    run_dispatch_confirm(r, &h);
    workers_stop(r->pool, &h, &stop_signal);
    if (stop_signal) r->interrupted = 1;
    run_note_devices(r);
}
