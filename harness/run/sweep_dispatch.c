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

/* In a worker: one configuration, as run_loop runs it. */
static int worker_run(void *p, size_t idx, sweep_row *row, char *fatal, size_t len)
{
    sweep_run *r = p;
    const sweep_config *cfg = &r->plan.configs[idx];
    if (row_init(row, cfg, r->mc.count)) {
        snprintf(fatal, len, "out of memory");
        return -1;
    }
    if (run_one(r, cfg, row)) return -1;
    if (r->ctx.fatal[0]) snprintf(fatal, len, "%s", r->ctx.fatal);
    return 0;
}

static void worker_close(void *p) { run_release_device(p); }

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

static const worker_hooks run_hooks = {NULL, worker_open, worker_run, worker_close, parent_row, parent_label};

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

/* The configurations not in results.csv yet, heaviest first. NULL: no memory. */
static size_t *run_deal_order(sweep_run *r, size_t *n)
{
    size_t *order = malloc((r->plan.count ? r->plan.count : 1) * sizeof *order);
    *n = 0;
    if (!order || shard_heaviest_first(&r->plan, &r->e.timing, order)) {
        free(order);
        return NULL;
    }
    for (size_t k = 0; k < r->plan.count; k++) {
        const sweep_config *cfg = &r->plan.configs[order[k]];
        if (index_has(&r->ix, cfg)) continue;
        order[(*n)++] = order[k];
        r->est_total += estimate_config_s(cfg, &r->e.timing, &r->model);
    }
    r->todo = *n;
    return order;
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

/* --devices: run_loop's counterpart in the parent -- it deals, the workers
 * measure, every row is appended to results.csv as it comes. */
void run_dispatch(sweep_run *r)
{
    if (r->setup.metric_count) r->model.profile_passes = r->ri.profiler_passes;
    size_t n;
    size_t *order = run_deal_order(r, &n);
    if (!r->o.quiet) {
        char est[32];
        format_duration(r->est_total, est, sizeof est);
        fprintf(stderr, "sweep: experiment %s, %zu configurations%s (%zu skipped in the plan), about %s of one "
                        "device's time over %zu -> %s\n",
                r->e.name, r->todo, r->n_loaded ? " left" : "", r->plan.skipped, est, r->pool->n, r->out_dir);
    }
    /* the ETA scales the model by the pace so far: the workers' parallelism included */
    progress_begin(&r->pr, stderr, r->o.quiet, r->todo, r->est_total);
    worker_hooks h = run_hooks;
    h.ctx = r;
    r->row_plan = malloc((r->plan.count ? r->plan.count : 1) * sizeof *r->row_plan);
    if (!order || workers_dispatch(r->pool, order, n, &h, &stop_signal))
        snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "out of memory");
    free(order);
    run_rows_in_plan_order(r);
    progress_update(&r->pr, r->done, r->est_done, r->failures, NULL);
    progress_end(&r->pr);
    if (stop_signal) r->interrupted = 1;
    r->sig = stop_signal;
    run_note_devices(r);
    if (!r->interrupted && r->pool->left && !r->ctx.fatal[0])
        snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "%zu configuration%s not run: %zu worker%s lost", r->pool->left,
                 r->pool->left == 1 ? "" : "s", r->pool->faults, r->pool->faults == 1 ? "" : "s");
    fclose(r->csv);
    r->csv = NULL;
}
