/* One configuration of the sweep: validate, warm up, time cold and hot,
 * profile, into its row; and the index of rows already there (--resume). */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Every variant sees the same input for a given dtype and n. */
uint64_t config_seed(uint64_t base, const sweep_config *c)
{
    return mix64(base ^ mix64(((uint64_t)c->dtype << 56) ^ (uint64_t)c->n));
}

/* ---- resumed rows: a hash of the configurations already there ----------------------------------- */



static uint64_t axes_hash(const sweep_config *c)
{
    uint64_t h = mix64((uint64_t)(uintptr_t)c->v);
    h = mix64(h ^ ((uint64_t)c->dtype | (uint64_t)c->op << 8 | (uint64_t)c->block_dim << 16));
    h = mix64(h ^ ((uint64_t)c->n));
    h = mix64(h ^ ((uint64_t)c->axis[0] | (uint64_t)(c->v->kind == KIND_SCAN ? c->scan_mode : c->finish) << 32));
    h = mix64(h ^ (uint64_t)c->axis[1]);
    return h;
}

int index_build(row_index *ix, const sweep_row *rows, size_t n)
{
    ix->cap = 16;
    while (ix->cap < 2 * n + 16) ix->cap *= 2;
    ix->slots = calloc(ix->cap, sizeof *ix->slots);
    ix->rows = rows;
    if (!ix->slots) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t s = axes_hash(&rows[i].cfg) & (ix->cap - 1);
        while (ix->slots[s]) s = (s + 1) & (ix->cap - 1);
        ix->slots[s] = i + 1;
    }
    return 0;
}

int index_has(const row_index *ix, const sweep_config *c)
{
    if (!ix->slots) return 0;
    size_t s = axes_hash(c) & (ix->cap - 1);
    while (ix->slots[s]) {
        if (config_same_axes(&ix->rows[ix->slots[s] - 1].cfg, c)) return 1;
        s = (s + 1) & (ix->cap - 1);
    }
    return 0;
}

/* ---- one configuration ---------------------------------------------------------------------------- */



/* --samples: one samples.csv line per timed sample, through timing.h's hook. */
typedef struct samples_sink {
    FILE *f;
    const sweep_config *cfg;
    const char *phase;
    const unsigned *batch; /* the row's: final once the measurement runs */
} samples_sink;

static void write_samples(void *p, const double *ms, size_t n)
{
    samples_sink *s = p;
    char label[256];
    config_label(s->cfg, label, sizeof label);
    for (size_t i = 0; i < n; i++)
        fprintf(s->f, "%s,%zu,\"%s\",%s,%u,%zu,%.9g\n", s->cfg->v->name, s->cfg->n, label, s->phase, *s->batch, i,
                ms[i]);
    fflush(s->f);
}

static void samples_begin(samples_sink *s, run_ctx *ctx, const sweep_config *cfg, const char *phase,
                          const unsigned *batch)
{
    if (!ctx->samples) return;
    *s = (samples_sink){ctx->samples, cfg, phase, batch};
    timing_set_samples_hook(write_samples, s);
}

static void samples_end(void) { timing_set_samples_hook(NULL, NULL); }

/* The configuration's buffers could not be allocated: a skipped row with the
 * CUDA error text, and a mark so that larger ones of its kind skip too. */
static cfg_outcome no_memory(sweep_row *r, const char *msg, run_ctx *ctx, const sweep_config *cfg)
{
    /* the device layer released and allocated its buffers again: the queued
     * configurations' shared ones are gone */
    profile_queue_drop(ctx, "not measured: the device buffers were allocated again after an allocation failure");
    char reason[900];
    snprintf(reason, sizeof reason, "out of device memory: %s", msg[0] ? msg : "cudaErrorMemoryAllocation");
    row_set_skip(r, reason);
    row_set_error(r, NULL);
    r->cold.samples = r->hot.samples = 0;
    for (size_t i = 0; i < ctx->n_oom; i++)
        if (ctx->oom[i].v == cfg->v && ctx->oom[i].dtype == cfg->dtype) {
            if (cfg->n < ctx->oom[i].n) ctx->oom[i].n = cfg->n;
            return CFG_NO_MEMORY;
        }
    if (ctx->n_oom < ctx->cap_oom) ctx->oom[ctx->n_oom++] = (oom_mark){cfg->v, cfg->dtype, cfg->n};
    return CFG_NO_MEMORY;
}

/* The smallest n an allocation failed at for cfg's variant and dtype, if cfg is at or above it (else 0). */
size_t oom_floor(const run_ctx *ctx, const sweep_config *cfg)
{
    for (size_t i = 0; i < ctx->n_oom; i++)
        if (ctx->oom[i].v == cfg->v && ctx->oom[i].dtype == cfg->dtype && cfg->n >= ctx->oom[i].n)
            return ctx->oom[i].n;
    return 0;
}

static int same_group(const sweep_config *x, const sweep_config *y)
{
    if (x->v != y->v || x->dtype != y->dtype || x->op != y->op || x->n != y->n) return 0;
    return x->v->kind == KIND_SCAN ? x->scan_mode == y->scan_mode : x->finish == y->finish;
}

static void phase_push(const char *name, const variant *v) { nvtx_push(name, nvtx_family_color(v->family)); }

static cfg_outcome fail_row(sweep_row *r, dev_status st, const char *msg, run_ctx *ctx)
{
    row_set_status(r, ROW_ERROR);
    row_set_error(r, msg);
    r->cold.samples = r->hot.samples = 0;
    if (st == DEV_FATAL) {
        snprintf(ctx->fatal, sizeof ctx->fatal, "%s", msg);
        return CFG_FATAL;
    }
    return CFG_DONE;
}

/* The CPU baseline row: validate and time the host loop (no device, no profile). */
static cfg_outcome run_cpu_config(run_ctx *ctx, const sweep_config *cfg, sweep_row *row)
{
    sweep_validation val;
    phase_push("cold", cfg->v);
    kernel_args a;
    config_kernel_args(cfg, &a);
    int rc = cpu_serial_run(&a, config_seed(ctx->e->seed, cfg), &ctx->e->timing, ctx->e->timing.timeout_s,
                            &stop_signal, &val, &row->cold);
    nvtx_pop();
    row->validated = 1;
    row->plain.values[RC_VALIDATION_ERROR_ABS] = val.error_abs;
    row->plain.values[RC_VALIDATION_TOLERANCE_ABS] = val.tolerance_abs;
    if (rc != 0) {
        row_set_skip(row, val.message);
        return CFG_DONE;
    }
    if (!val.ok) {
        row_set_status(row, ROW_INVALID);
        row_set_error(row, val.message[0] ? val.message : "validation failed");
        return CFG_DONE;
    }
    row->cold_batch = 1;
    return row->cold.stop == STOP_INTERRUPTED ? CFG_INTERRUPTED : CFG_DONE;
}

/* One timed phase (cold or hot) of a configuration, for timing.h's spread rule. */
typedef struct phase_call {
    run_ctx *ctx;
    const sweep_config *cfg;
    const kernel_args *a;
    int cold;
    double launch_ms; /* what the hot phase's warm-up is counted from */
    char *msg;
    size_t len;
} phase_call;

static int measure_once(void *p, unsigned *batch, timing_stats *out)
{
    phase_call *c = p;
    sweep_device *dev = c->ctx->dev;
    const timing_params *t = c->ctx->timing ? c->ctx->timing : &c->ctx->e->timing;
    double half = t->timeout_s / 2;
    if (c->cold)
        return dev->ops->measure_cold(dev, c->cfg->v, c->a, t, batch, half, &stop_signal, out, c->msg, c->len);
    unsigned warm = warm_launches_for(c->launch_ms, *batch, t->warm_ms, t->sample_ms);
    return dev->ops->measure_hot(dev, c->cfg->v, c->a, t, *batch, warm, half, &stop_signal, out, c->msg, c->len);
}

/* The phase in its NVTX range, its samples to samples.csv: batches sized
 * from `launch_ms`, then the spread rule (timing.h). */
static dev_status measure_phase(run_ctx *ctx, const sweep_config *cfg, const kernel_args *a, int cold,
                                unsigned *batch, timing_stats *out, double launch_ms, char *msg, size_t len)
{
    const char *phase = cold ? "cold" : "hot";
    phase_call call = {ctx, cfg, a, cold, launch_ms, msg, len};
    samples_sink sink;
    *batch = sample_batch_within(launch_ms, ctx->timing ? ctx->timing->sample_ms : 0);
    phase_push(phase, cfg->v);
    /* samples.csv: the screen's samples apart from the full rule's (a refined row has both) */
    samples_begin(&sink, ctx, cfg, ctx->screening ? (cold ? "screen-cold" : "screen-hot") : phase, batch);
    /* The screen takes its samples once: a spread over 1 % is taken again with longer batches only under
     * the full rule (its noise is in the row either way, and a refined row is measured again) */
    dev_status st = ctx->screening ? (dev_status)measure_once(&call, batch, out)
                                   : (dev_status)timing_measure_spread(measure_once, &call, batch, out);
    samples_end();
    nvtx_pop();
    return st;
}

/* The profile phase: the configuration once more, inside its range, under
 * the profiler; a failure is the row's error, its metrics left empty. */
static void profile_config(run_ctx *ctx, const sweep_config *cfg, const kernel_args *a, sweep_row *row)
{
    const sweep_profiler *pr = ctx->prof;
    const variant *v = cfg->v;
    cudaStream_t stream = ctx->dev->ops->stream(ctx->dev);
    char msg[768] = "", label[256];
    config_label(cfg, label, sizeof label);
    /* before() and after() stay outside the range, so a tool that selects
     * the "profile" range sees the configuration's launches alone. */
    int r = pr->before ? pr->before(pr->state, v, a, stream, msg, sizeof msg) : 0;
    if (r == 0) {
        phase_push("profile", v);
        r = pr->profile(pr->state, label, v, a, stream, row->plain.metrics, msg, sizeof msg);
        nvtx_pop();
        int r2 = pr->after ? pr->after(pr->state, v, a, stream, msg + strlen(msg), sizeof msg - strlen(msg)) : 0;
        if (r == 0) r = r2;
        keep_signals(&ctx->signals_noted);
    }
    if (r != 0) {
        char full[800];
        snprintf(full, sizeof full, "profile: %s", msg[0] ? msg : "failed");
        row_set_error(row, full);
    }
}

/* ---- the profile phase in batches (harness/device/profiler.h, 2b) -------------------------------------- */

/* The variant's NVTX range, the one open at the experiment's level: the
 * loop's configurations and a batch's slots nest under their own variant's. */
void variant_range_open(run_ctx *ctx, const variant *v)
{
    if (ctx->open_variant == v) return;
    if (ctx->open_variant) nvtx_pop();
    nvtx_push(v->name, nvtx_family_color(v->family));
    ctx->open_variant = v;
}

/* Slot k's ranges: its variant's (a batch may hold several variants, with
 * order = size), its configuration range opened again, and its "profile". */
static void queue_enter(void *user, size_t k)
{
    run_ctx *ctx = user;
    char label[256];
    config_label(&ctx->queue[k].cfg, label, sizeof label);
    variant_range_open(ctx, ctx->queue[k].cfg.v);
    phase_push(label, ctx->queue[k].cfg.v);
    phase_push("profile", ctx->queue[k].cfg.v);
}

static void queue_leave(void *user, size_t k)
{
    (void)user;
    (void)k;
    nvtx_pop();
    nvtx_pop();
}

void profile_queue_drop(run_ctx *ctx, const char *why)
{
    char full[800];
    snprintf(full, sizeof full, "profile: %s", why);
    for (size_t k = 0; k < ctx->n_queued; k++) row_set_error(ctx->queue[k].row, full);
    ctx->n_queued = 0;
    ctx->queue_full = 0;
}

void profile_queue_run(run_ctx *ctx)
{
    size_t n = ctx->n_queued, mc = ctx->metric_count;
    if (!n) return;
    const sweep_profiler *pr = ctx->prof;
    char msg[768] = "";
    double *values = malloc(n * mc * sizeof *values);
    if (!values) {
        profile_queue_drop(ctx, "out of host memory for the batch's metrics");
        return;
    }
    for (size_t i = 0; i < n * mc; i++) values[i] = NAN; /* a value the profiler has not: empty */
    sweep_profile_hooks hooks = {ctx, queue_enter, queue_leave};
    double t0 = timing_now();
    int r = pr->run_queue(pr->state, n, &hooks, ctx->dev->ops->stream(ctx->dev), values, mc, msg, sizeof msg);
    ctx->stages.profile_run += timing_now() - t0;
    if (pr->times) pr->times(pr->state, &ctx->stages.cupti); /* cumulative */
    keep_signals(&ctx->signals_noted);
    if (r != 0) {
        profile_queue_drop(ctx, msg[0] ? msg : "failed");
    } else {
        for (size_t k = 0; k < n; k++) memcpy(ctx->queue[k].row->plain.metrics, values + k * mc, mc * sizeof *values);
        ctx->n_queued = 0;
        ctx->queue_full = 0;
    }
    free(values);
}

/* A batch holds configurations on the same buffers: the same input (dtype,
 * n, seed) and the same shared output (the same kind and size), so they can
 * wait while the next ones validate and time on those buffers
 * (config_batch_with: one variant's with order = variant, every variant's at
 * that input with order = size). */
void profile_queue_settle(run_ctx *ctx, const sweep_config *next)
{
    if (!ctx->n_queued) return;
    size_t cap = ctx->batch_max && ctx->batch_max < SWEEP_PROFILE_QUEUE_MAX ? ctx->batch_max : SWEEP_PROFILE_QUEUE_MAX;
    if (next && !ctx->queue_full && ctx->n_queued < cap &&
        config_batch_with(&ctx->queue[0].cfg, next))
        return;
    profile_queue_run(ctx);
}

/* After timing: the configuration joins the batch (its row waits for it). */
static void profile_enqueue(run_ctx *ctx, const sweep_config *cfg, const kernel_args *a, sweep_row *row)
{
    const sweep_profiler *pr = ctx->prof;
    char msg[768] = "";
    /* Should the device layer ever move the shared buffers within a group,
     * the queued configurations' ones are gone: their metrics with them. */
    if (ctx->n_queued && (ctx->queue[0].a.in != a->in || ctx->queue[0].a.out != a->out))
        profile_queue_drop(ctx, "not measured: the device layer moved the group's input or output buffers");
    profile_queue_settle(ctx, cfg);
    double t0 = timing_now();
    int r = pr->queue(pr->state, ctx->n_queued, cfg->v, a, ctx->dev->ops->stream(ctx->dev), msg, sizeof msg);
    ctx->stages.profile_queue += timing_now() - t0;
    if (r < 0) {
        char full[800];
        snprintf(full, sizeof full, "profile: %s", msg[0] ? msg : "could not be queued");
        row_set_error(row, full);
        return;
    }
    ctx->queue[ctx->n_queued++] = (profile_entry){row, *cfg, *a};
    ctx->queue_full = r == SWEEP_PROFILE_QUEUE_FULL;
}

/* NVML's view after a timed phase: the clock-event reasons seen after either
 * phase (idle left out: the device idles between batches), and after the
 * row's last (`last`: the hot one, or the cold one of an input timed cold
 * only), the temperature and power. */
static void row_read_conditions(run_ctx *ctx, sweep_row *row, int last)
{
    gpu_conditions g;
    if (!ctx->nvml || nvml_reader_read(ctx->nvml, &g) != 0) return;
    unsigned long long seen = g.clock_event_reasons & ~NVML_EVENT_GPU_IDLE;
    if (seen) {
        char names[128], *have = row->clock_events;
        gpu_clock_event_names(seen, names, sizeof names);
        if (!strstr(have, names))
            snprintf(have + strlen(have), sizeof row->clock_events - strlen(have), "%s%s", have[0] ? "|" : "", names);
    }
    if (last) {
        row->plain.values[RC_GPU_TEMP_C] = g.temperature_c;
        row->plain.values[RC_GPU_POWER_W] = g.power_w;
        row->plain.values[RC_GPU_MEM_CLOCK_MHZ] = g.mem_clock_mhz;
    }
}

/* Seconds since *t, and *t moved to now (run.json "stages"). */
static double lap(double *t)
{
    double now = timing_now(), d = now - *t;
    *t = now;
    return d;
}

/* validate -> warmup -> cold -> hot -> profile, each in its NVTX range. */
cfg_outcome run_config(run_ctx *ctx, const sweep_config *cfg, sweep_row *row)
{
    if (cfg->v->runner == RUNNER_HOST) return run_cpu_config(ctx, cfg, row);
    const variant *v = cfg->v;
    const experiment *e = ctx->e;
    sweep_device *dev = ctx->dev;
    char msg[768];
    kernel_args a;
    config_kernel_args(cfg, &a);
    profile_queue_settle(ctx, cfg); /* a batch of another input runs before this one's buffers are taken */

    dev_status st = DEV_OK;
    sweep_validation val = {.ok = 1, .error_abs = NAN, .tolerance_abs = NAN};
    /* Above validate_all_to, the first configuration of a (variant, dtype,
     * op, finish/mode, n) group vouches for the rest -- unless it failed. */
    int vouched = !cfg->validate && ctx->group_ok && same_group(&ctx->group, cfg);
    if (!vouched) {
        phase_push("validate", v);
        double t0 = timing_now();
        st = dev->ops->validate(dev, v, &a, config_seed(e->seed, cfg), &val);
        ctx->validate_s += timing_now() - t0;
        ctx->stages.validate += timing_now() - t0;
        nvtx_pop();
        if (st == DEV_NO_MEMORY) return no_memory(row, val.message, ctx, cfg);
        ctx->group = *cfg;
        ctx->group_ok = val.ok;
    }
    row->validated = !vouched;
    row->plain.values[RC_VALIDATION_ERROR_ABS] = val.error_abs;
    row->plain.values[RC_VALIDATION_TOLERANCE_ABS] = val.tolerance_abs;
    if (!val.ok) {
        row_set_status(row, val.cuda_error ? ROW_ERROR : ROW_INVALID);
        row_set_error(row, val.message[0] ? val.message : "validation failed");
        if (st == DEV_FATAL) {
            snprintf(ctx->fatal, sizeof ctx->fatal, "%.500s", val.message);
            return CFG_FATAL;
        }
        return CFG_DONE;
    }
    if (stop_signal) return CFG_INTERRUPTED;

    msg[0] = '\0';
    stage_times *sg = &ctx->stages;
    double t = timing_now();
    st = dev->ops->prepare(dev, v, &a, msg, sizeof msg);
    sg->prepare += lap(&t);
    if (st != DEV_OK) return st == DEV_NO_MEMORY ? no_memory(row, msg, ctx, cfg) : fail_row(row, st, msg, ctx);

    phase_push("warmup", v);
    double launch_ms = NAN;
    st = dev->ops->warmup(dev, v, &a, &launch_ms, msg, sizeof msg);
    nvtx_pop();
    sg->warmup += lap(&t);
    row->launch_ms = launch_ms;
    if (st != DEV_OK) return fail_row(row, st, msg, ctx);
    if (stop_signal) return CFG_INTERRUPTED;

    int hot = config_times_hot(cfg, e->timing.hot_below_l2, ctx->l2_bytes);
    st = measure_phase(ctx, cfg, &a, 1, &row->cold_batch, &row->cold, launch_ms, msg, sizeof msg);
    sg->cold += lap(&t);
    if (st != DEV_OK) return fail_row(row, st, msg, ctx);
    if (row->cold.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;
    row_read_conditions(ctx, row, !hot);
    sg->conditions += lap(&t);
    if (hot) {
        st = measure_phase(ctx, cfg, &a, 0, &row->hot_batch, &row->hot, row->cold.median, msg, sizeof msg);
        sg->hot += lap(&t);
        if (st != DEV_OK) return fail_row(row, st, msg, ctx);
        if (row->hot.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;
        row_read_conditions(ctx, row, 1);
        sg->conditions += lap(&t);
    }

    if (ctx->prof && ctx->metric_count && !ctx->defer_profile) {
        if (ctx->batching) profile_enqueue(ctx, cfg, &a, row);
        else profile_config(ctx, cfg, &a, row);
    }
    return CFG_DONE;
}

/* A timed configuration measured again, cold and (below hot_below) hot, under ctx->timing (the
 * refine stage): its buffers made ready, no validation (its screen validated
 * it) and no warm-up launches: the screen loaded its module, and its warm-up's
 * timed launch sizes the batches as it did there (the hot phase keeps its
 * warm-up). The row's timings are replaced; a failure is its error. */
cfg_outcome refine_config(run_ctx *ctx, const sweep_config *cfg, sweep_row *row)
{
    char msg[768] = "";
    kernel_args a;
    config_kernel_args(cfg, &a);
    sweep_device *dev = ctx->dev;
    dev_status st = dev->ops->prepare(dev, cfg->v, &a, msg, sizeof msg);
    if (st != DEV_OK) return st == DEV_NO_MEMORY ? no_memory(row, msg, ctx, cfg) : fail_row(row, st, msg, ctx);
    double launch_ms = row->launch_ms > 0 ? row->launch_ms : row->cold.median;
    timing_stats cold, hot;
    unsigned cb = 0, hb = 0;
    if ((st = measure_phase(ctx, cfg, &a, 1, &cb, &cold, launch_ms, msg, sizeof msg)) != DEV_OK)
        return fail_row(row, st, msg, ctx);
    if (cold.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;
    memset(&hot, 0, sizeof hot);
    if (config_times_hot(cfg, ctx->e->timing.hot_below_l2, ctx->l2_bytes)) {
        if ((st = measure_phase(ctx, cfg, &a, 0, &hb, &hot, cold.median, msg, sizeof msg)) != DEV_OK)
            return fail_row(row, st, msg, ctx);
        if (hot.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;
    }
    row->cold = cold;
    row->hot = hot;
    row->cold_batch = cb;
    row->hot_batch = hb;
    row_read_conditions(ctx, row, 1);
    return CFG_DONE;
}

/* The profile phase of a timed configuration whose run_config left it
 * (ctx->defer_profile): batched where the profiler batches. */
void profile_row(run_ctx *ctx, const sweep_config *cfg, sweep_row *row)
{
    if (!ctx->prof || !ctx->metric_count) return;
    char msg[768] = "";
    kernel_args a;
    config_kernel_args(cfg, &a);
    dev_status st = ctx->dev->ops->prepare(ctx->dev, cfg->v, &a, msg, sizeof msg);
    if (st != DEV_OK) {
        char full[800];
        snprintf(full, sizeof full, "profile: %s", msg[0] ? msg : "buffers could not be prepared");
        row_set_error(row, full);
        return;
    }
    if (ctx->batching) profile_enqueue(ctx, cfg, &a, row);
    else profile_config(ctx, cfg, &a, row);
}
