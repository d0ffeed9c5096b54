#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep.h"
#include "plots/render.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/config/cli.h"
#include "harness/compare/compare.h"
#include "harness/run/confirm.h"
#include "harness/run/confirm_main.h"
#include "harness/run/drift.h"
#include "harness/run/nvml_conditions.h"
#include "harness/results/merge.h"
#include "harness/reference/cpu_baseline.h"
#include "harness/results/files.h"
#include "harness/run/fit.h"
#include "harness/run/nvtx_ranges.h"
#include "harness/config/plan.h"
#include "harness/run/progress.h"
#include "harness/run/remeasure.h"
#include "harness/results/results.h"
#include "harness/config/shard.h"
#include "harness/run/sweep_device.h"
#include "harness/run/workers.h"
#include "kernels/registry.h"

/* ---- signals ------------------------------------------------------------------------------ */

/* The signal that asked the run to stop (0: none). Timing loops poll it; the
 * handler resets itself, so a second Ctrl-C ends the process at once. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Should a profiling library install SIGINT/SIGTERM handlers of its own, an
 * interrupt would end the run without its summary and run.json: put ours
 * back after each profile phase (unless a signal already came), and say so. */
static void keep_signals(int *noted)
{
    if (stop_signal) return;
    struct sigaction cur;
    int replaced = 0;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != on_signal) replaced = 1;
    if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler != on_signal) replaced = 1;
    if (!replaced) return;
    if (!(*noted)++) fprintf(stderr, "sweep: note: the profiler replaced the SIGINT/SIGTERM handlers; the sweep's are back\n");
    install_signals();
}

static void restore_signals(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

/* ---- the run's identity --------------------------------------------------------------------- */

/* Quote for a POSIX shell: 'it'\''s'. */
static void shell_quote(const char *s, char *out, size_t len)
{
    size_t k = 0;
    if (len < 3) {
        out[0] = '\0';
        return;
    }
    out[k++] = '\'';
    for (; *s && k + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *s;
        }
    }
    out[k++] = '\'';
    out[k] = '\0';
}

static int run_capture(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t got = fread(out, 1, len - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    while (got && (out[got - 1] == '\n' || out[got - 1] == '\r')) out[--got] = '\0';
    return st == 0 ? 0 : -1;
}

/* A bundle's record of its commit (tools/bundle): SOURCE beside bin/, two
 * lines, the sha and 0/1 for a dirty tree. 0 if found. */
static int bundle_source(char *sha, size_t len, int *dirty)
{
    char exe[SWEEP_PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return -1;
    exe[k] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0';
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/../SOURCE", exe);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[128] = "";
    int d = -1, ok = fscanf(f, "%127s %d", line, &d) >= 1 && strlen(line) >= 7;
    fclose(f);
    if (!ok) return -1;
    snprintf(sha, len, "%.63s", line);
    *dirty = d == 0 || d == 1 ? d : -1;
    return 0;
}

/* The commit the binary was built from: git rev-parse in the workspace
 * `bazel run` came from; else a bundle's SOURCE beside the binary (a bundle
 * unpacked inside some other checkout must not take that checkout's sha);
 * else git in the current directory; else "unknown". */
static void git_info(char *sha, size_t len, int *dirty)
{
    const char *ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    char dir[SWEEP_PATH_MAX], q[2 * SWEEP_PATH_MAX], cmd[2 * SWEEP_PATH_MAX + 128], out[4096];
    snprintf(sha, len, "unknown");
    *dirty = -1;
    if (ws && *ws) snprintf(dir, sizeof dir, "%s", ws);
    else if (bundle_source(sha, len, dirty) == 0) return;
    else if (!getcwd(dir, sizeof dir)) snprintf(dir, sizeof dir, ".");
    shell_quote(dir, q, sizeof q);
    snprintf(cmd, sizeof cmd, "git -C %s rev-parse HEAD 2>/dev/null", q);
    if (run_capture(cmd, out, sizeof out) != 0 || strlen(out) < 7) return;
    snprintf(sha, len, "%.63s", out);
    snprintf(cmd, sizeof cmd, "git -C %s status --porcelain --untracked-files=no 2>/dev/null", q);
    if (run_capture(cmd, out, sizeof out) == 0) *dirty = out[0] != '\0';
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Every variant sees the same input for a given dtype and n. */
static uint64_t config_seed(uint64_t base, const kernel_args *a)
{
    return mix64(base ^ mix64(((uint64_t)a->dtype << 56) ^ (uint64_t)a->n));
}

/* ---- --list ------------------------------------------------------------------------------------ */

static void axis_bits(unsigned mask, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!mask) return;
    unsigned lo = (unsigned)__builtin_ctz(mask), hi = 31u - (unsigned)__builtin_clz(mask);
    int contiguous = ((mask >> lo) & ((mask >> lo) + 1)) == 0;
    if (lo == hi) snprintf(buf, len, "%u", 1u << lo);
    else if (contiguous) snprintf(buf, len, "%u..%u", 1u << lo, 1u << hi);
    else
        for (unsigned b = lo; b <= hi; b++)
            if (mask & (1u << b)) {
                char t[16];
                snprintf(t, sizeof t, "%s%u", buf[0] ? "," : "", 1u << b);
                strncat(buf, t, len - strlen(buf) - 1);
            }
}

void sweep_print_list(FILE *f)
{
    fprintf(f, "%zu variants (name, seed alias, family; what it demonstrates; axes):\n\n", registry_count());
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        char bd[64], cf[64], dt[64], op[64], fm[96];
        axis_bits(v->block_dims, bd, sizeof bd);
        axis_bits(v->coarse_factors, cf, sizeof cf);
        format_mask(v->dtypes, DTYPE_COUNT, dtype_name_i, dt, sizeof dt);
        format_mask(v->ops, OP_COUNT, op_name_i, op, sizeof op);
        if (v->kind == KIND_SCAN) format_mask(v->scan_modes, SCAN_MODE_COUNT, scan_mode_name_i, fm, sizeof fm);
        else format_mask(v->finishes, FINISH_COUNT, finish_name_i, fm, sizeof fm);
        fprintf(f, "%-32s alias: %s  [%s, %s]\n", v->name, v->alias ? v->alias : "-", kind_name(v->kind), v->family);
        fprintf(f, "    %s\n", v->description);
        fprintf(f, "    block dims %s; coarse %s; %s %s; dtypes %s; ops %s", bd, cf,
                v->kind == KIND_SCAN ? "scan modes" : "finishes", fm, dt, op);
        if (v->max_n) {
            char mx[32];
            format_size(v->max_n, mx, sizeof mx);
            fprintf(f, "; n <= %s", mx);
        }
        fprintf(f, "\n");
        if (v->limits) fprintf(f, "    limits: %s\n", v->limits);
    }
    char dirs[8][4096];
    size_t nd = experiment_dirs(dirs, 8);
    for (size_t i = 0; i < nd; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d) continue;
        fprintf(f, "\nexperiments in %s:", dirs[i]);
        struct dirent *en;
        while ((en = readdir(d)) != NULL) {
            size_t l = strlen(en->d_name);
            if (l > 4 && !strcmp(en->d_name + l - 4, ".ini")) fprintf(f, " %.*s", (int)(l - 4), en->d_name);
        }
        fprintf(f, "\n");
        closedir(d);
        break;
    }
}

/* ---- output directory ------------------------------------------------------------------------- */

/* The newest results/<timestamp>-<name> under the user's directory. */
static int newest_run_dir(const char *name, char *out, size_t len)
{
    char base[SWEEP_PATH_MAX], results[SWEEP_PATH_MAX];
    user_base_dir(base, sizeof base);
    if (path_join(results, sizeof results, base, "results")) return -1;
    DIR *d = opendir(results);
    if (!d) return -1;
    char best[256] = "";
    char suffix[EXPERIMENT_NAME_LEN + 2];
    snprintf(suffix, sizeof suffix, "-%.63s", name);
    struct dirent *en;
    while ((en = readdir(d)) != NULL) {
        size_t l = strlen(en->d_name), sl = strlen(suffix);
        if (l <= sl || strcmp(en->d_name + l - sl, suffix) || en->d_name[0] == '.') continue;
        if (strcmp(en->d_name, best) > 0 && l < sizeof best) snprintf(best, sizeof best, "%s", en->d_name);
    }
    closedir(d);
    if (!best[0]) return -1;
    return path_join(out, len, results, best);
}

/* ---- resumed rows: a hash of the configurations already there ----------------------------------- */

typedef struct row_index {
    size_t *slots; /* row index + 1; 0 = empty */
    size_t cap;
    const sweep_row *rows;
} row_index;

static uint64_t axes_hash(const sweep_config *c)
{
    const kernel_args *a = &c->a;
    uint64_t h = mix64((uint64_t)(uintptr_t)c->v);
    h = mix64(h ^ ((uint64_t)a->dtype | (uint64_t)a->op << 8 | (uint64_t)a->block_dim << 16));
    h = mix64(h ^ ((uint64_t)a->n));
    h = mix64(h ^ ((uint64_t)a->coarse | (uint64_t)(c->v->kind == KIND_SCAN ? a->scan_mode : a->finish) << 32));
    return h;
}

static int index_build(row_index *ix, const sweep_row *rows, size_t n)
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

static int index_has(const row_index *ix, const sweep_config *c)
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

typedef enum { CFG_DONE = 0, CFG_INTERRUPTED, CFG_FATAL, CFG_NO_MEMORY } cfg_outcome;

/* Where an allocation failed: later configurations of that variant and dtype
 * at that n or above are skipped with the same reason. */
typedef struct oom_mark {
    const variant *v;
    dtype_t dtype;
    size_t n;
} oom_mark;

typedef struct run_ctx {
    sweep_config group; /* the last configuration that validated itself */
    int group_ok;       /* ... and passed */
    sweep_device *dev;
    const sweep_profiler *prof; /* NULL: no profile phase */
    const experiment *e;
    size_t metric_count;
    char fatal[512];
    oom_mark *oom; /* one per variant and dtype at most */
    size_t n_oom, cap_oom;
    FILE *samples; /* --samples: samples.csv, else NULL */
    int signals_noted; /* the profiler's replacing of our handlers was reported */
    nvml_reader *nvml; /* NULL: no NVML on this host (run.json says why) */
} run_ctx;

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
        fprintf(s->f, "%s,%zu,\"%s\",%s,%u,%zu,%.9g\n", s->cfg->v->name, s->cfg->a.n, label, s->phase, *s->batch, i,
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
    char reason[900];
    snprintf(reason, sizeof reason, "out of device memory: %s", msg[0] ? msg : "cudaErrorMemoryAllocation");
    row_set_skip(r, reason);
    row_set_error(r, NULL);
    r->cold.samples = r->hot.samples = 0;
    for (size_t i = 0; i < ctx->n_oom; i++)
        if (ctx->oom[i].v == cfg->v && ctx->oom[i].dtype == cfg->a.dtype) {
            if (cfg->a.n < ctx->oom[i].n) ctx->oom[i].n = cfg->a.n;
            return CFG_NO_MEMORY;
        }
    if (ctx->n_oom < ctx->cap_oom) ctx->oom[ctx->n_oom++] = (oom_mark){cfg->v, cfg->a.dtype, cfg->a.n};
    return CFG_NO_MEMORY;
}

/* The smallest n an allocation failed at for cfg's variant and dtype, if cfg is at or above it (else 0). */
static size_t oom_floor(const run_ctx *ctx, const sweep_config *cfg)
{
    for (size_t i = 0; i < ctx->n_oom; i++)
        if (ctx->oom[i].v == cfg->v && ctx->oom[i].dtype == cfg->a.dtype && cfg->a.n >= ctx->oom[i].n)
            return ctx->oom[i].n;
    return 0;
}

static int same_group(const sweep_config *x, const sweep_config *y)
{
    const kernel_args *a = &x->a, *b = &y->a;
    if (x->v != y->v || a->dtype != b->dtype || a->op != b->op || a->n != b->n) return 0;
    return x->v->kind == KIND_SCAN ? a->scan_mode == b->scan_mode : a->finish == b->finish;
}

static void phase_push(const char *name, const variant *v) { nvtx_push(name, nvtx_family_color(v->family)); }

static cfg_outcome fail_row(sweep_row *r, dev_status st, const char *msg, run_ctx *ctx)
{
    r->status = ROW_ERROR;
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
    int rc = cpu_serial_run(&cfg->a, config_seed(ctx->e->seed, &cfg->a), &ctx->e->timing, ctx->e->timing.timeout_s,
                            &stop_signal, &val, &row->cold);
    nvtx_pop();
    row->validated = 1;
    row->values[RC_VALIDATION_ERROR_ABS] = val.error_abs;
    row->values[RC_VALIDATION_TOLERANCE_ABS] = val.tolerance_abs;
    if (rc != 0) {
        row_set_skip(row, val.message);
        return CFG_DONE;
    }
    if (!val.ok) {
        row->status = ROW_INVALID;
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
    char *msg;
    size_t len;
} phase_call;

static int measure_once(void *p, unsigned *batch, timing_stats *out)
{
    phase_call *c = p;
    sweep_device *dev = c->ctx->dev;
    const timing_params *t = &c->ctx->e->timing;
    double half = t->timeout_s / 2;
    if (c->cold)
        return dev->ops->measure_cold(dev, c->cfg->v, c->a, t, batch, half, &stop_signal, out, c->msg, c->len);
    return dev->ops->measure_hot(dev, c->cfg->v, c->a, t, *batch, half, &stop_signal, out, c->msg, c->len);
}

/* The phase in its NVTX range, its samples to samples.csv: batches sized
 * from `launch_ms`, then the spread rule (timing.h). */
static dev_status measure_phase(run_ctx *ctx, const sweep_config *cfg, const kernel_args *a, int cold,
                                unsigned *batch, timing_stats *out, double launch_ms, char *msg, size_t len)
{
    const char *phase = cold ? "cold" : "hot";
    phase_call call = {ctx, cfg, a, cold, msg, len};
    samples_sink sink;
    *batch = sample_batch_for(launch_ms);
    phase_push(phase, cfg->v);
    samples_begin(&sink, ctx, cfg, phase, batch);
    dev_status st = (dev_status)timing_measure_spread(measure_once, &call, batch, out);
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
        r = pr->profile(pr->state, label, v, a, stream, row->metrics, msg, sizeof msg);
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

/* NVML's view after a timed phase: the clock-event reasons seen after either
 * phase (idle left out: the device idles between batches), and after the hot
 * one, the temperature and power. */
static void row_read_conditions(run_ctx *ctx, sweep_row *row, int hot)
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
    if (hot) {
        row->values[RC_GPU_TEMP_C] = g.temperature_c;
        row->values[RC_GPU_POWER_W] = g.power_w;
        row->values[RC_GPU_MEM_CLOCK_MHZ] = g.mem_clock_mhz;
    }
}

/* validate -> warmup -> cold -> hot -> profile, each in its NVTX range. */
static cfg_outcome run_config(run_ctx *ctx, const sweep_config *cfg, sweep_row *row)
{
    if (cfg->v->runner == RUNNER_HOST) return run_cpu_config(ctx, cfg, row);
    const variant *v = cfg->v;
    const experiment *e = ctx->e;
    sweep_device *dev = ctx->dev;
    char msg[768];
    kernel_args a = cfg->a;

    dev_status st = DEV_OK;
    sweep_validation val = {.ok = 1, .error_abs = NAN, .tolerance_abs = NAN};
    /* Above validate_all_to, the first configuration of a (variant, dtype,
     * op, finish/mode, n) group vouches for the rest -- unless it failed. */
    int vouched = !cfg->validate && ctx->group_ok && same_group(&ctx->group, cfg);
    if (!vouched) {
        phase_push("validate", v);
        st = dev->ops->validate(dev, v, &a, config_seed(e->seed, &a), &val);
        nvtx_pop();
        if (st == DEV_NO_MEMORY) return no_memory(row, val.message, ctx, cfg);
        ctx->group = *cfg;
        ctx->group_ok = val.ok;
    }
    row->validated = !vouched;
    row->values[RC_VALIDATION_ERROR_ABS] = val.error_abs;
    row->values[RC_VALIDATION_TOLERANCE_ABS] = val.tolerance_abs;
    if (!val.ok) {
        row->status = val.cuda_error ? ROW_ERROR : ROW_INVALID;
        row_set_error(row, val.message[0] ? val.message : "validation failed");
        if (st == DEV_FATAL) {
            snprintf(ctx->fatal, sizeof ctx->fatal, "%.500s", val.message);
            return CFG_FATAL;
        }
        return CFG_DONE;
    }
    if (stop_signal) return CFG_INTERRUPTED;

    msg[0] = '\0';
    if ((st = dev->ops->prepare(dev, v, &a, msg, sizeof msg)) != DEV_OK)
        return st == DEV_NO_MEMORY ? no_memory(row, msg, ctx, cfg) : fail_row(row, st, msg, ctx);

    phase_push("warmup", v);
    double launch_ms = NAN;
    st = dev->ops->warmup(dev, v, &a, &launch_ms, msg, sizeof msg);
    nvtx_pop();
    if (st != DEV_OK) return fail_row(row, st, msg, ctx);
    if (stop_signal) return CFG_INTERRUPTED;

    if ((st = measure_phase(ctx, cfg, &a, 1, &row->cold_batch, &row->cold, launch_ms, msg, sizeof msg)) != DEV_OK)
        return fail_row(row, st, msg, ctx);
    if (row->cold.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;
    row_read_conditions(ctx, row, 0);
    if ((st = measure_phase(ctx, cfg, &a, 0, &row->hot_batch, &row->hot, row->cold.median, msg, sizeof msg)) != DEV_OK)
        return fail_row(row, st, msg, ctx);
    if (row->hot.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;
    row_read_conditions(ctx, row, 1);

    if (ctx->prof && ctx->metric_count) profile_config(ctx, cfg, &a, row);
    return CFG_DONE;
}

/* ---- the run ---------------------------------------------------------------------------------------- */

static void now_strings(char *iso, size_t ilen, char *stamp, size_t slen)
{
    time_t t = time(NULL);
    struct tm g, l;
    gmtime_r(&t, &g);
    localtime_r(&t, &l);
    strftime(iso, ilen, "%Y-%m-%dT%H:%M:%SZ", &g);
    strftime(stamp, slen, "%Y%m%d-%H%M%S", &l);
}

static int env_flag(const char *name)
{
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0") != 0;
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "sweep: %s\n", msg);
    return SWEEP_EXIT_USAGE;
}

static int run_failed(const char *msg)
{
    fprintf(stderr, "sweep: %s\n", msg);
    return SWEEP_EXIT_FAILED;
}

/* No device to run on (exit 1, nothing written): the reason, then the way to
 * try the sweep anyway. */
static int no_device(const char *msg)
{
    fprintf(stderr, "sweep: %s\n", msg);
    fprintf(stderr, "sweep: to try the sweep without a GPU, add --fake-device (synthetic times, no CUDA call; "
                    "see --help)\n");
    return SWEEP_EXIT_FAILED;
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

/* One run of the sweep, from the command line to the last file. sweep_main
 * walks its steps in order; each either lets the run go on (RUN_GO) or ends it
 * with an exit status, and run_close() releases whatever the steps took. */
#define RUN_GO (-1)

typedef struct sweep_run {
    int argc;
    char **argv;
    double t0;
    sweep_options o;
    int fake;
    experiment e;
    char exp_path[SWEEP_PATH_MAX];
    int builtin;
    sweep_plan plan;
    estimate_model model;
    /* --shard: the part, its configurations' indices in the whole plan */
    shard_spec shard;
    size_t *positions, *row_positions;
    size_t plan_total;
    uint64_t plan_hash;  /* over the whole plan, before the part is taken */
    int device_from_rank; /* --device came from the launcher's local rank */
    /* the output */
    char out_dir[SWEEP_PATH_MAX], csv_path[SWEEP_PATH_MAX], json_path[SWEEP_PATH_MAX], md_path[SWEEP_PATH_MAX];
    char date[32], stamp[32];
    FILE *csv, *samples;
    /* the device and its profiler */
    sweep_device *dev; /* non-NULL once open */
    run_info ri;
    fit_reasons fit_skips;
    const sweep_profiler *prof; /* non-NULL once begun with columns */
    sweep_profiler_setup setup;
    metric_columns mc;
    /* rows: those already there (--resume), then the plan's */
    sweep_row *rows;
    size_t n_rows, n_loaded;
    row_index ix;
    /* the loop */
    run_ctx ctx;
    progress pr;
    size_t todo, done, failures;
    double est_total, est_done;
    const variant *open_variant; /* whose NVTX range is open */
    int signals, interrupted, sig;
    char err[8192];
    /* --devices: the workers (the parent's view), and in a worker the profiler to begin */
    worker_pool *pool;
    int ordinals[WORKERS_MAX];
    size_t n_ordinals;
    run_device *devices;
    const sweep_profiler *built_in;
    /* after the main pass */
    drift_report drift;
    confirm_line *confirm;
    size_t n_confirm;
    size_t *row_plan; /* per row the parent received, its plan index (rows come in finishing order) */
} sweep_run;

/* --shard auto: which launcher said what, in one line. */
static void say_shard_source(const sweep_run *r)
{
    static const struct { const char *source, *name, *vars; } launchers[] = {
        {"slurm", "Slurm", "SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID"},
        {"ompi", "Open MPI", "OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK"},
        {"pmi", "MPICH/PMI", "PMI_RANK, PMI_SIZE, MPI_LOCALRANKID"},
        {"pmix", "PMIx", "PMIX_RANK, PMIX_SIZE, PMIX_LOCAL_RANK"},
    };
    const shard_spec *s = &r->shard;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        if (strcmp(launchers[i].source, s->source)) continue;
        char dev[96] = "";
        if (r->device_from_rank) snprintf(dev, sizeof dev, "; device %d from its local rank", r->o.device);
        fprintf(stderr, "sweep: --shard auto: shard %u of %u from %s (%s)%s\n", s->index, s->count,
                launchers[i].name, launchers[i].vars, dev);
    }
}

/* --shard: the whole plan's hash first (the fingerprint merge checks), then
 * this process's part of it; --shard auto asks the launcher, whose local
 * rank picks the device unless --device was given. */
static int run_shard_plan(sweep_run *r)
{
    r->plan_total = r->plan.count;
    r->plan_hash = plan_hash(&r->plan, &r->e);
    if (!r->o.shard) return RUN_GO;
    if (shard_parse(r->o.shard, &r->shard, r->err, sizeof r->err)) return usage_error(r->err); /* checked by cli */
    if (r->shard.is_auto) {
        char msg[1024];
        if (shard_from_env(&r->shard, msg, sizeof msg)) {
            snprintf(r->err, sizeof r->err, "--shard %s", msg);
            return usage_error(r->err);
        }
        if (!r->o.device_given && r->shard.local_rank >= 0) {
            r->o.device = r->shard.local_rank;
            r->device_from_rank = 1;
        }
        say_shard_source(r);
    }
    if (shard_select(&r->plan, &r->e.timing, &r->shard, &r->positions)) return run_failed("out of memory");
    return RUN_GO;
}

/* The command line, the experiment and its plan: every usage error is found
 * here, before anything is written. --help, --list and --dry-run end here. */
static int run_read_plan(sweep_run *r)
{
    sweep_options *o = &r->o;
    if (cli_parse(r->argc, r->argv, o, r->err, sizeof r->err)) return usage_error(r->err);
    if (o->help) {
        cli_usage(stdout);
        return SWEEP_EXIT_OK;
    }
    if (o->list) {
        sweep_print_list(stdout);
        return SWEEP_EXIT_OK;
    }
    r->fake = o->fake_device || env_flag("SWEEP_FAKE_DEVICE");
    if (find_experiment(o->experiment, r->exp_path, sizeof r->exp_path, &r->builtin, r->err, sizeof r->err))
        return usage_error(r->err);
    if (r->builtin) experiment_defaults(&r->e);
    else if (experiment_load(r->exp_path, &r->e, r->err, sizeof r->err)) return usage_error(r->err);
    if (cli_apply(o, &r->e, r->err, sizeof r->err)) return usage_error(r->err);
    if (plan_build(&r->e, &r->plan, r->err, sizeof r->err)) return usage_error(r->err);
    r->model = estimate_model_default();
    r->model.no_profile = o->no_cupti;
    int rc = run_shard_plan(r);
    if (rc != RUN_GO) return rc;
    if (o->dry_run) {
        if (r->shard.active)
            printf("shard %u of %u (0-based, from %s): %zu of the plan's %zu configurations\n\n", r->shard.index,
                   r->shard.count, r->shard.source, r->plan.count, r->plan_total);
        plan_print(stdout, &r->e, &r->plan, &r->model);
        return SWEEP_EXIT_OK;
    }
    return RUN_GO;
}

/* --out with --shard: each %r is the shard's index, so one command line
 * (srun, mpirun) gives every rank its own directory. */
static int shard_out_path(const sweep_run *r, const char *in, char *out, size_t len)
{
    size_t k = 0;
    for (const char *p = in; *p; p++) {
        int n = 1;
        if (r->shard.active && p[0] == '%' && p[1] == 'r') {
            n = snprintf(out + k, len - k, "%u", r->shard.index);
            p++;
        } else if (k + 1 < len) out[k] = *p;
        if (n < 0 || k + (size_t)n >= len) return -1;
        k += (size_t)n;
    }
    out[k] = '\0';
    return 0;
}

/* Where the output goes: --out, the newest run of the experiment (--resume),
 * or results/<timestamp>-<experiment>. */
static int run_name_output(sweep_run *r)
{
    now_strings(r->date, sizeof r->date, r->stamp, sizeof r->stamp);
    if (r->o.out) {
        char out[SWEEP_PATH_MAX];
        if (shard_out_path(r, r->o.out, out, sizeof out) || resolve_user_path(out, r->out_dir, sizeof r->out_dir))
            return usage_error("--out: path too long");
    } else if (r->o.resume) {
        if (newest_run_dir(r->e.name, r->out_dir, sizeof r->out_dir)) {
            char base[SWEEP_PATH_MAX];
            user_base_dir(base, sizeof base);
            snprintf(r->err, sizeof r->err,
                     "--resume: no results/*-%.63s directory under %s (name one with --out DIR)", r->e.name, base);
            return usage_error(r->err);
        }
    } else {
        char rel[512];
        snprintf(rel, sizeof rel, "results/%s-%.63s", r->stamp, r->e.name);
        if (r->shard.active) /* every shard of a job starts in the same second */
            snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "-shard%u", r->shard.index);
        if (resolve_user_path(rel, r->out_dir, sizeof r->out_dir)) return usage_error("output path too long");
    }
    if (path_join(r->csv_path, sizeof r->csv_path, r->out_dir, "results.csv") ||
        path_join(r->json_path, sizeof r->json_path, r->out_dir, "run.json") ||
        path_join(r->md_path, sizeof r->md_path, r->out_dir, "summary.md"))
        return usage_error("output path too long");
    return RUN_GO;
}

/* --resume: the directory holds this experiment's run, in this schema. */
static int run_check_resume(sweep_run *r)
{
    char name[EXPERIMENT_NAME_LEN], why[1024];
    int schema = 0;
    const char *dir = r->out_dir;
    if (!path_is_dir(dir)) snprintf(r->err, sizeof r->err, "--resume: %s is not a directory", dir);
    else if (!path_exists(r->json_path) || !path_exists(r->csv_path))
        snprintf(r->err, sizeof r->err, "--resume: %s has no run.json and results.csv: not a sweep's output", dir);
    else if (run_json_read_identity(r->json_path, name, sizeof name, &schema, why, sizeof why))
        snprintf(r->err, sizeof r->err, "--resume: %s", why);
    else if (schema < SWEEP_SCHEMA_OLDEST || schema > SWEEP_SCHEMA_VERSION)
        snprintf(r->err, sizeof r->err, "--resume: %s has schema version %d; this build writes %d (and reads %d..%d)",
                 dir, schema, SWEEP_SCHEMA_VERSION, SWEEP_SCHEMA_OLDEST, SWEEP_SCHEMA_VERSION);
    else if (strcmp(name, r->e.name))
        snprintf(r->err, sizeof r->err, "--resume: %s holds experiment '%.63s', not '%.63s'", dir, name, r->e.name);
    else return RUN_GO;
    return usage_error(r->err);
}

/* The output directory: named, fit for this run (resume, force), writable. */
static int run_open_output(sweep_run *r)
{
    int rc = run_name_output(r);
    if (rc != RUN_GO) return rc;
    if (r->o.resume) {
        if ((rc = run_check_resume(r)) != RUN_GO) return rc;
    } else if (path_exists(r->out_dir)) {
        if (!path_is_dir(r->out_dir)) {
            snprintf(r->err, sizeof r->err, "--out: %s exists and is not a directory", r->out_dir);
            return usage_error(r->err);
        }
        if (!r->o.force && !dir_is_empty(r->out_dir)) {
            snprintf(r->err, sizeof r->err,
                     "output directory %s exists (--force replaces its results, --resume continues the run there)",
                     r->out_dir);
            return usage_error(r->err);
        }
    }
    char why[SWEEP_PATH_MAX + 256];
    if (dir_check_writable(r->out_dir, why, sizeof why)) {
        snprintf(r->err, sizeof r->err, "%s: cannot write %s: %s", r->o.out ? "--out" : "output directory",
                 r->out_dir, why);
        return usage_error(r->err);
    }
    return RUN_GO;
}

/* Device memory (harness/run/fit.h): a size that can never fit is bad usage;
 * configurations that do not fit are skipped rows. */
static int run_fit_memory(sweep_run *r)
{
    char msg[1024];
    fit_budget fb = {.ordinal = r->o.device};
    if (r->dev->ops->memory(r->dev, &fb.free_bytes, &fb.total_bytes, &fb.held_bytes, msg, sizeof msg) != 0) {
        if (!r->o.quiet) fprintf(stderr, "sweep: device memory not checked: %s\n", msg);
        return RUN_GO;
    }
    const char *origin = cli_value(&r->o, "--sizes") ? "--sizes" : NULL;
    long marked = plan_fit_memory(&r->plan, &fb, origin, &r->fit_skips, r->err, sizeof r->err);
    if (marked < 0) return usage_error(r->err);
    if (marked && !r->o.quiet)
        fprintf(stderr, "sweep: %ld configuration%s not fit in device %d's memory: skipped\n", marked,
                marked == 1 ? " does" : "s do", r->o.device);
    return RUN_GO;
}

/* What run.json says about the run, and the time model fitted to the device. */
static void run_describe(sweep_run *r)
{
    run_info *ri = &r->ri;
    ri->have_device = 1;
    ri->fake_device = r->fake;
    ri->argc = r->argc;
    ri->argv = r->argv;
    snprintf(ri->date, sizeof ri->date, "%s", r->date);
    if (gethostname(ri->host, sizeof ri->host) != 0) snprintf(ri->host, sizeof ri->host, "unknown");
    ri->host[sizeof ri->host - 1] = '\0';
    snprintf(ri->experiment, sizeof ri->experiment, "%.63s", r->e.name);
    snprintf(ri->experiment_source, sizeof ri->experiment_source, "%s", r->builtin ? "built in" : r->exp_path);
    ri->exp = &r->e;
    ri->peak_bandwidth_GBps = ri->device.peak_bandwidth_GBps;
    ri->copy_bandwidth_GBps = NAN;
    ri->plan_configs = r->plan.count;
    ri->plan_skipped = r->plan.skipped;
    ri->plan_total = r->plan_total;
    if (r->shard.active) {
        ri->shard_index = r->shard.index;
        ri->shard_count = r->shard.count;
        snprintf(ri->shard_source, sizeof ri->shard_source, "%s", r->shard.source);
    }
    estimate_model *m = &r->model;
    m->peak_GBps = ri->device.peak_bandwidth_GBps > 0 ? ri->device.peak_bandwidth_GBps : m->peak_GBps;
    m->l2_bytes = ri->device.l2_bytes ? ri->device.l2_bytes : m->l2_bytes;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0) m->host_threads = cpus > 32 ? 32 : (int)cpus;
}

/* The device: none is exit 1, still before anything is written. */
static int run_open_device(sweep_run *r)
{
    sweep_device *dev = r->fake ? sweep_device_fake() : sweep_device_cuda();
    char msg[1024];
    /* git runs in a child process: before the device holds memory. */
    git_info(r->ri.git_sha, sizeof r->ri.git_sha, &r->ri.git_dirty);
    plan_fingerprint(r->plan_hash, r->ri.git_sha, r->ri.plan_fingerprint);
    int opened = dev->ops->open(dev, r->o.device, &r->ri.device, msg, sizeof msg);
    if (opened == -2 && r->device_from_rank && r->o.device != 0) {
        /* one GPU per task (srun --gpus-per-task=1 sets CUDA_VISIBLE_DEVICES):
         * the task sees its GPU as device 0, whatever its local rank */
        fprintf(stderr, "sweep: --shard auto: local rank %d is not a device here; device 0\n", r->o.device);
        r->o.device = 0;
        opened = dev->ops->open(dev, 0, &r->ri.device, msg, sizeof msg);
    }
    if (opened == -2) return usage_error(msg); /* --device out of range */
    if (opened) return strncmp(msg, "no CUDA device", 14) ? run_failed(msg) : no_device(msg);
    r->dev = dev;
    r->ctx.nvml = nvml_reader_open(r->ri.device.pci_bus_id, r->ri.nvml_status, sizeof r->ri.nvml_status);
    if (r->ctx.nvml) {
        r->ri.nvml_status[0] = '\0';
        nvml_reader_read(r->ctx.nvml, &r->ri.cond_start);
    }
    int rc = run_fit_memory(r);
    if (rc != RUN_GO) return rc;
    run_describe(r);
    return RUN_GO;
}

/* The profile phase: what the profiler says to the metrics asked for. Its
 * answer lands in run.json; an unknown name is bad usage. */
static int run_negotiate_profiler(sweep_run *r, const sweep_profiler *built_in)
{
    const sweep_profiler *prof = r->fake ? r->dev->ops->builtin_profiler(r->dev) : built_in;
    const experiment *e = &r->e;
    sweep_profiler_setup *setup = &r->setup;
    char *status = r->ri.profiler_status;
    size_t slen = sizeof r->ri.profiler_status;
    if (r->o.no_cupti) snprintf(status, slen, "off: --no-cupti");
    else if (e->metrics_mode == METRICS_NONE) snprintf(status, slen, "off: the experiment asks for no metrics");
    else if (!prof) snprintf(status, slen, "off: no profiler in this build");
    if (r->o.no_cupti || e->metrics_mode == METRICS_NONE || !prof) return RUN_GO;
    const char *names[EXPERIMENT_MAX_METRICS];
    for (size_t i = 0; i < e->metric_count; i++) names[i] = e->metrics[i];
    setup->device = &r->ri.device;
    setup->requested = e->metrics_mode == METRICS_LIST ? names : NULL;
    setup->requested_count = e->metrics_mode == METRICS_LIST ? e->metric_count : 0;
    int answer = prof->begin(prof->state, setup);
    const char *said = setup->status[0] ? setup->status : NULL;
    if (answer == SWEEP_PROFILER_BAD_METRIC) { /* a name the device's check does not know */
        snprintf(r->err, sizeof r->err, "%s: %s", cli_value(&r->o, "--metrics") ? "--metrics" : "[profile] metrics",
                 said ? said : "unknown metric");
        return usage_error(r->err);
    }
    if (answer == SWEEP_PROFILER_READY && setup->metric_count > 0) {
        r->prof = prof;
        r->ri.profiler_passes = setup->passes;
        snprintf(status, slen, "%s", said ? said : "ok");
    } else if (answer == SWEEP_PROFILER_UNAVAILABLE && setup->metric_count > 0) {
        /* columns kept, left empty; the profile phase still launches each configuration once */
        r->prof = prof;
        r->ri.profiler_passes = 0;
        said = said ? said : "the profiler cannot measure here";
        snprintf(status, slen, "unavailable: %.240s", said);
        fprintf(stderr, "sweep: profiler unavailable: %s\n", said);
    } else {
        setup->metric_count = 0;
        snprintf(status, slen, "off: %.250s", said ? said : "the profiler declined");
    }
    return RUN_GO;
}

/* Asked values that some variants do not have: they run their own, said once
 * (the rows' block_dim, coarse and finish columns hold what ran). */
static void run_note_unheeded(sweep_run *r)
{
    char notes[2048];
    plan_unheeded_notes(&r->e, notes, sizeof notes);
    if (notes[0]) fprintf(stderr, "sweep: note: asked values some variants do not have; they run their own: %s\n", notes);
}

/* The rows already there (--resume) and the index the loop skips them by;
 * room for the plan's rows after them. */
static int run_load_resume(sweep_run *r)
{
    r->mc = (metric_columns){r->setup.metrics, r->prof || r->pool ? r->setup.metric_count : 0};
    r->ri.metrics = r->mc;
    sweep_row *loaded = NULL;
    int schema = SWEEP_SCHEMA_VERSION;
    if (r->o.resume &&
        results_read_csv_schema(r->csv_path, r->mc, &loaded, &r->n_loaded, &schema, r->err, sizeof r->err)) {
        char full[sizeof r->err + 16];
        snprintf(full, sizeof full, "--resume: %s", r->err);
        return usage_error(full);
    }
    if (schema < SWEEP_SCHEMA_VERSION) { /* rows of an older schema: the run's one device ran them */
        char id[sizeof loaded->device];
        run_json_device_id(r->json_path, id, sizeof id);
        rows_fill_device(loaded, r->n_loaded, id);
    }
    size_t cap = r->n_loaded + r->plan.count;
    r->rows = calloc(cap ? cap : 1, sizeof *r->rows);
    if (!r->rows) {
        free(loaded);
        fprintf(stderr, "sweep: out of memory for %zu rows\n", cap);
        return SWEEP_EXIT_FAILED;
    }
    if (r->n_loaded) memcpy(r->rows, loaded, r->n_loaded * sizeof *r->rows);
    free(loaded);
    r->n_rows = r->n_loaded;
    if (r->n_loaded && index_build(&r->ix, r->rows, r->n_loaded)) return run_failed("out of memory");
    for (size_t i = 0; i < r->n_loaded; i++)
        if (r->rows[i].status == ROW_INVALID || r->rows[i].status == ROW_ERROR) r->failures++;
    return RUN_GO;
}

/* The output directory and its files: run.json and results.csv now (the rows
 * so far), results.csv open to append, samples.csv with --samples. */
static int run_create_files(sweep_run *r)
{
    if (make_dirs(r->out_dir, r->err, sizeof r->err)) return run_failed(r->err);
    r->ri.rows = r->n_rows;
    if (run_json_write(r->json_path, &r->ri, r->err, sizeof r->err) ||
        results_write_csv(r->csv_path, r->rows, r->n_rows, r->mc, r->err, sizeof r->err))
        return run_failed(r->err);
    if (!(r->csv = fopen(r->csv_path, "a"))) {
        fprintf(stderr, "sweep: cannot append to %s: %s\n", r->csv_path, strerror(errno));
        return SWEEP_EXIT_FAILED;
    }
    if (!r->o.samples) return RUN_GO;
    /* every timed sample (a resumed run appends its own) */
    char samples_path[4096];
    if (path_join(samples_path, sizeof samples_path, r->out_dir, "samples.csv") ||
        !(r->samples = fopen(samples_path, r->o.resume ? "a" : "w"))) {
        fprintf(stderr, "sweep: cannot append to %s/samples.csv: %s\n", r->out_dir, strerror(errno));
        return SWEEP_EXIT_FAILED;
    }
    if (ftell(r->samples) == 0) fputs(samples_csv_header(), r->samples);
    return RUN_GO;
}

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
    nvtx_pop();
    if (copy > 0) r->ri.copy_bandwidth_GBps = copy;
    else if (!r->o.quiet) fprintf(stderr, "sweep: copy bandwidth not measured: %s\n", msg);
    nvtx_push(r->e.name, NVTX_COLOR_EXPERIMENT);
    progress_begin(&r->pr, stderr, r->o.quiet, r->todo, r->est_total);
    run_ctx *ctx = &r->ctx;
    ctx->dev = r->dev;
    ctx->prof = r->prof;
    ctx->e = &r->e;
    ctx->metric_count = r->mc.count;
    ctx->samples = r->samples;
    ctx->cap_oom = registry_count() * DTYPE_COUNT;
    ctx->oom = calloc(ctx->cap_oom, sizeof *ctx->oom);
    if (!ctx->oom) ctx->cap_oom = 0;
}

/* A measured configuration's row: bandwidths, notes for skips and failures,
 * and recovery of the device after a failure. */
static void run_settle_row(sweep_run *r, sweep_row *row, cfg_outcome out, const char *label)
{
    char note[1200], msg[1024];
    row_derive_bandwidth(row, r->ri.peak_bandwidth_GBps, r->ri.copy_bandwidth_GBps);
    if (out == CFG_NO_MEMORY) {
        snprintf(note, sizeof note, "sweep: SKIPPED %s: %s", label, row->skip_reason ? row->skip_reason : "");
        progress_note(&r->pr, note);
    }
    if (row->status == ROW_INVALID || row->status == ROW_ERROR) {
        r->failures++;
        snprintf(note, sizeof note, "sweep: %s %s: %s", row->status == ROW_INVALID ? "INVALID" : "ERROR", label,
                 row->error ? row->error : "");
        progress_note(&r->pr, note);
        if (out != CFG_FATAL && r->dev->ops->recover(r->dev, msg, sizeof msg) != 0)
            snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "%.511s", msg);
    }
    if (out == CFG_FATAL && !r->ctx.fatal[0]) snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "the device failed");
}

/* One configuration of the plan into its row: skipped (the plan's reason, or
 * an earlier allocation failure), or measured inside its NVTX ranges.
 * 0: the row is done; -1: interrupted (no row). */
static int run_one(sweep_run *r, const sweep_config *cfg, sweep_row *row)
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
    if (r->open_variant != cfg->v) {
        if (r->open_variant) nvtx_pop();
        nvtx_push(cfg->v->name, nvtx_family_color(cfg->v->family));
        r->open_variant = cfg->v;
    }
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
        if (r->dev->ops->validate(r->dev, cfg->v, &cfg->a, config_seed(r->e.seed, &cfg->a), &val) == DEV_OK && val.ok)
            remeasure_config(r->dev, cfg, &r->e.timing, "measure", &cb, &hb, &stop_signal, &c, &h, msg, sizeof msg);
        nvtx_pop();
        r->dev->ops->recover(r->dev, msg, sizeof msg); /* a failure is the real run's to report */
        return;
    }
}

static void run_loop(sweep_run *r)
{
    run_begin_loop(r);
    run_process_warmup(r);
    for (size_t i = 0; i < r->plan.count; i++) {
        const sweep_config *cfg = &r->plan.configs[i];
        if (index_has(&r->ix, cfg)) continue;
        if (stop_signal) {
            r->interrupted = 1;
            break;
        }
        sweep_row *row = &r->rows[r->n_rows];
        if (row_init(row, cfg, r->mc.count)) {
            snprintf(r->ctx.fatal, sizeof r->ctx.fatal, "out of memory");
            break;
        }
        if (run_one(r, cfg, row)) {
            r->interrupted = 1;
            break;
        }
        csv_write_row(r->csv, row, r->mc);
        fflush(r->csv);
        r->n_rows++;
        r->done++;
        if (r->ctx.fatal[0]) break;
    }
    nvtx_pop_all();
    progress_update(&r->pr, r->done, r->est_done, r->failures, NULL);
    progress_end(&r->pr);
    if (stop_signal) r->interrupted = 1;
    r->sig = stop_signal;
    fclose(r->csv);
    r->csv = NULL;
}

/* After the main pass, on its device: the drift check, then the
 * confirmation phase where there are library rows (harness/run/drift.h,
 * harness/run/confirm.h); NVML's end-of-run reading last. Not with --shard (a
 * part's groups may be split: `sweep confirm` the merged run) nor after an
 * interrupt or a fault. */
static void run_after_pass(sweep_run *r)
{
    run_info *ri = &r->ri;
    const char *why = r->interrupted ? "the run was interrupted"
                      : r->ctx.fatal[0] ? "the run stopped early"
                      : r->shard.active ? "a --shard part (run `sweep confirm` on the merged run)"
                                        : NULL;
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
        nvtx_push("confirm", NVTX_COLOR_RUN);
        if (confirm_run(r->dev, &p, &r->e.timing, r->rows, r->n_rows, ri->copy_bandwidth_GBps, &stop_signal,
                        r->o.quiet ? NULL : stderr, &r->confirm, &r->n_confirm, msg, sizeof msg))
            snprintf(ri->confirm_note, sizeof ri->confirm_note, "stopped: %.200s", stop_signal ? "interrupted" : msg);
        nvtx_pop();
        ri->confirm = r->confirm;
        ri->confirm_count = r->n_confirm;
        char path[SWEEP_PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/confirm.csv", r->out_dir);
        if (confirm_write_csv(path, r->confirm, r->n_confirm, r->err, sizeof r->err)) run_failed(r->err);
    }
    if (r->ctx.nvml) nvml_reader_read(r->ctx.nvml, &ri->cond_end);
}

/* The profiler's end and the device's close: at the end of a run, and on
 * every way out before it (run_close). */
static void run_release_device(sweep_run *r)
{
    if (r->prof && r->prof->end) r->prof->end(r->prof->state);
    r->prof = NULL;
    if (r->dev) r->dev->ops->close(r->dev);
    r->dev = NULL;
    nvml_reader_close(r->ctx.nvml);
    r->ctx.nvml = NULL;
    if (r->signals) restore_signals();
    r->signals = 0;
}

/* ---- --devices: a worker per device (harness/run/workers.h) -------------------------------------------- */

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
    r->ri.copy_bandwidth_GBps = copy > 0 ? copy : NAN;
    run_ctx *ctx = &r->ctx;
    ctx->dev = r->dev;
    ctx->prof = r->prof;
    ctx->e = &r->e;
    ctx->metric_count = r->mc.count;
    ctx->cap_oom = registry_count() * DTYPE_COUNT;
    ctx->oom = calloc(ctx->cap_oom, sizeof *ctx->oom);
    if (!ctx->oom) ctx->cap_oom = 0;
    h->device = r->ri.device;
    h->copy_GBps = r->ri.copy_bandwidth_GBps;
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
}

static void parent_label(void *p, size_t idx, char *buf, size_t len)
{
    config_label(&((sweep_run *)p)->plan.configs[idx], buf, len);
}

static const worker_hooks run_hooks = {NULL, worker_open, worker_run, worker_close, parent_row, parent_label};

/* --devices: the ordinals (all: every device the layer counts), one worker
 * forked for each after the plan is built; the run's identity and metric
 * columns from the first one's HELLO. Nothing is written before they are up. */
static int run_start_workers(sweep_run *r, const sweep_profiler *built_in)
{
    int all;
    char msg[1024];
    if (devices_parse_list(r->o.devices, r->ordinals, WORKERS_MAX, &r->n_ordinals, &all, msg, sizeof msg))
        return usage_error(msg); /* checked by cli */
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
    r->ri.copy_bandwidth_GBps = first->copy_GBps;
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
static void run_dispatch(sweep_run *r)
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

/* Derived figures over every row; results.csv, run.json and summary.md
 * replaced whole. 0, or -1 when one could not be written. */
static int run_write_outputs(sweep_run *r)
{
    run_info *ri = &r->ri;
    rows_derive_speedups(r->rows, r->n_rows);
    ri->interrupted = r->interrupted;
    ri->complete = !r->interrupted && !r->ctx.fatal[0];
    if (r->interrupted)
        snprintf(ri->stop_reason, sizeof ri->stop_reason, "interrupted by %s",
                 r->sig == SIGTERM ? "SIGTERM" : "SIGINT");
    else if (r->ctx.fatal[0]) snprintf(ri->stop_reason, sizeof ri->stop_reason, "%s", r->ctx.fatal);
    ri->rows = r->n_rows;
    ri->failures = r->failures;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].status == ROW_SKIPPED) ri->skipped++;
    ri->wall_time_s = timing_now() - r->t0;
    if (r->shard.active) ri->row_positions = r->row_positions = run_row_positions(r);
    run_device one = {ri->device, ri->copy_bandwidth_GBps, r->done, ""};
    if (!ri->devices && ri->have_device) { /* one device, this process: "devices" says the same as --devices */
        ri->devices = &one;
        ri->device_count = 1;
    }
    int failed = 0;
    if (results_write_csv(r->csv_path, r->rows, r->n_rows, r->mc, r->err, sizeof r->err))
        failed = run_failed(r->err);
    if (run_json_write(r->json_path, ri, r->err, sizeof r->err)) failed = run_failed(r->err);
    if (summary_write(r->md_path, r->rows, r->n_rows, ri, r->err, sizeof r->err)) failed = run_failed(r->err);
    if (ri->devices == &one) ri->devices = NULL, ri->device_count = 0;
    return failed ? -1 : 0;
}

/* The files, the summary, what went wrong, the charts; the exit status. */
static int run_finish(sweep_run *r)
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
    if (r->interrupted) {
        fprintf(stderr, "sweep: interrupted; --resume --out %s continues\n", r->out_dir);
        return 128 + (r->sig ? r->sig : SIGINT);
    }
    if (r->failures || r->ctx.fatal[0] || r->ri.worker_faults || write_failed) return SWEEP_EXIT_FAILED;
    return SWEEP_EXIT_OK;
}

/* The one clean-up: whatever the steps took, however far they got. */
static void run_close(sweep_run *r)
{
    run_release_device(r);
    if (r->csv) fclose(r->csv);
    if (r->samples) fclose(r->samples);
    for (size_t i = 0; r->rows && i < r->n_rows; i++) row_free(&r->rows[i]);
    free(r->rows);
    free(r->ix.slots);
    plan_free(&r->plan);
    free(r->positions);
    free(r->row_positions);
    fit_reasons_free(&r->fit_skips);
    free(r->ctx.oom);
    if (r->pool) workers_free(r->pool);
    free(r->pool);
    free(r->devices);
    free(r->row_plan);
    free(r->confirm);
    free(r);
}

int sweep_main(int argc, char **argv, const sweep_profiler *profiler)
{
    /* `sweep compare BASE NEW`: two results directories, no device (harness/compare/compare.h) */
    if (argc > 1 && !strcmp(argv[1], "compare")) return compare_main(argc - 1, argv + 1);
    /* `sweep merge OUT DIR...`: the shards of one plan into one run (harness/results/merge.h) */
    if (argc > 1 && !strcmp(argv[1], "merge")) return merge_main(argc - 1, argv + 1);
    /* `sweep confirm DIR`: the confirmation phase on a finished run (harness/run/confirm_main.h) */
    if (argc > 1 && !strcmp(argv[1], "confirm")) return confirm_main(argc - 1, argv + 1);
    sweep_run *r = calloc(1, sizeof *r);
    if (!r) return run_failed("out of memory");
    r->argc = argc;
    r->argv = argv;
    r->t0 = timing_now();
    int rc = run_read_plan(r);
    if (rc == RUN_GO) rc = run_open_output(r);
    if (rc == RUN_GO) rc = r->o.devices ? run_start_workers(r, profiler) : run_open_device(r);
    if (rc == RUN_GO && !r->o.devices) rc = run_negotiate_profiler(r, profiler);
    if (rc == RUN_GO) rc = run_load_resume(r);
    if (rc == RUN_GO && !r->o.quiet) run_note_unheeded(r);
    if (rc == RUN_GO) rc = run_create_files(r);
    if (rc == RUN_GO) {
        if (r->pool) run_dispatch(r);
        else {
            run_loop(r);
            run_after_pass(r);
        }
        rc = run_finish(r);
    }
    run_close(r);
    return rc;
}
