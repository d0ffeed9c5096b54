#define _POSIX_C_SOURCE 200809L
#include "harness/sweep.h"
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

#include "harness/cli.h"
#include "harness/compare.h"
#include "harness/cpu_baseline.h"
#include "harness/files.h"
#include "harness/fit.h"
#include "harness/nvtx_ranges.h"
#include "harness/plan.h"
#include "harness/progress.h"
#include "harness/results.h"
#include "harness/sweep_device.h"
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
static void keep_signals(void)
{
    if (stop_signal) return;
    struct sigaction cur;
    int replaced = 0;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != on_signal) replaced = 1;
    if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler != on_signal) replaced = 1;
    if (!replaced) return;
    static int noted;
    if (!noted++) fprintf(stderr, "sweep: note: the profiler replaced the SIGINT/SIGTERM handlers; the sweep's are back\n");
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

static void name_bits(unsigned mask, int count, const char *(*name)(int), char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < count; i++)
        if (mask & (1u << i)) {
            if (buf[0]) strncat(buf, ",", len - strlen(buf) - 1);
            strncat(buf, name(i), len - strlen(buf) - 1);
        }
}

static const char *dname(int i) { return dtype_name((dtype_t)i); }
static const char *oname(int i) { return op_name((op_t)i); }
static const char *fname(int i) { return finish_name((finish_t)i); }
static const char *sname(int i) { return scan_mode_name((scan_mode_t)i); }

void sweep_print_list(FILE *f)
{
    fprintf(f, "%zu variants (name, seed alias, family; what it demonstrates; axes):\n\n", registry_count());
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        char bd[64], cf[64], dt[64], op[64], fm[96];
        axis_bits(v->block_dims, bd, sizeof bd);
        axis_bits(v->coarse_factors, cf, sizeof cf);
        name_bits(v->dtypes, DTYPE_COUNT, dname, dt, sizeof dt);
        name_bits(v->ops, OP_COUNT, oname, op, sizeof op);
        if (v->kind == KIND_SCAN) name_bits(v->scan_modes, SCAN_MODE_COUNT, sname, fm, sizeof fm);
        else name_bits(v->finishes, FINISH_COUNT, fname, fm, sizeof fm);
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
    row->validation_error_abs = val.error_abs;
    row->validation_tolerance_abs = val.tolerance_abs;
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
    row->validation_error_abs = val.error_abs;
    row->validation_tolerance_abs = val.tolerance_abs;
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

    double half = e->timing.timeout_s / 2;
    samples_sink sink;
    phase_push("cold", v);
    row->cold_batch = sample_batch_for(launch_ms);
    samples_begin(&sink, ctx, cfg, "cold", &row->cold_batch);
    for (int retry = 0;; retry++) {
        unsigned asked = row->cold_batch;
        st = dev->ops->measure_cold(dev, v, &a, &e->timing, &row->cold_batch, half, &stop_signal, &row->cold, msg,
                                    sizeof msg);
        /* (a smaller batch back: the input copies did not fit; doubling again would not help) */
        if (st != DEV_OK || retry == SAMPLE_SPREAD_RETRIES || row->cold_batch < asked ||
            !timing_too_spread(&row->cold, row->cold_batch))
            break;
        row->cold_batch *= 2;
    }
    samples_end();
    nvtx_pop();
    if (st != DEV_OK) return fail_row(row, st, msg, ctx);
    if (row->cold.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;

    row->hot_batch = sample_batch_for(row->cold.median);
    phase_push("hot", v);
    samples_begin(&sink, ctx, cfg, "hot", &row->hot_batch);
    for (int retry = 0;; retry++) {
        st = dev->ops->measure_hot(dev, v, &a, &e->timing, row->hot_batch, half, &stop_signal, &row->hot, msg,
                                   sizeof msg);
        if (st != DEV_OK || retry == SAMPLE_SPREAD_RETRIES || !timing_too_spread(&row->hot, row->hot_batch)) break;
        row->hot_batch *= 2;
    }
    samples_end();
    nvtx_pop();
    if (st != DEV_OK) return fail_row(row, st, msg, ctx);
    if (row->hot.stop == STOP_INTERRUPTED) return CFG_INTERRUPTED;

    if (ctx->prof && ctx->metric_count) {
        const sweep_profiler *pr = ctx->prof;
        cudaStream_t stream = dev->ops->stream(dev);
        msg[0] = '\0';
        char label[256];
        config_label(cfg, label, sizeof label);
        /* before() and after() stay outside the range, so a tool that selects
         * the "profile" range sees the configuration's launches alone. */
        int r = pr->before ? pr->before(pr->state, v, &a, stream, msg, sizeof msg) : 0;
        if (r == 0) {
            phase_push("profile", v);
            r = pr->profile(pr->state, label, v, &a, stream, row->metrics, msg, sizeof msg);
            nvtx_pop();
            int r2 = pr->after ? pr->after(pr->state, v, &a, stream, msg + strlen(msg), sizeof msg - strlen(msg)) : 0;
            if (r == 0) r = r2;
            keep_signals();
        }
        if (r != 0) {
            char full[800];
            snprintf(full, sizeof full, "profile: %s", msg[0] ? msg : "failed");
            row_set_error(row, full);
        }
    }
    return CFG_DONE;
}

/* ---- the run -------------------------------------------------------------------------------------- */

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

typedef struct csv_sink {
    FILE *f;
    metric_columns mc;
} csv_sink;

/* Charts and report at the end of a run, when gnuplot is here; otherwise one
 * line saying how to draw them later (results brought back from a GPU host). */
static void render_charts(const char *out_dir, int quiet)
{
    char msg[1024];
    if (!plots_gnuplot_available()) {
        fprintf(stderr, "sweep: gnuplot not found: no charts; draw them later with `bazel run //plots:render -- %s`\n",
                out_dir);
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

int sweep_main(int argc, char **argv, const sweep_profiler *profiler)
{
    /* `sweep compare BASE NEW`: two results directories, no device (harness/compare.h) */
    if (argc > 1 && !strcmp(argv[1], "compare")) return compare_main(argc - 1, argv + 1);
    double t0 = timing_now();
    char err[8192];
    sweep_options o;
    if (cli_parse(argc, argv, &o, err, sizeof err)) return usage_error(err);
    if (o.help) {
        cli_usage(stdout);
        return SWEEP_EXIT_OK;
    }
    if (o.list) {
        sweep_print_list(stdout);
        return SWEEP_EXIT_OK;
    }
    int fake = o.fake_device || env_flag("SWEEP_FAKE_DEVICE");

    /* ---- experiment and plan: every usage error is found here, before anything is written */
    static experiment exp;
    experiment *e = &exp;
    char exp_path[SWEEP_PATH_MAX];
    int builtin;
    if (find_experiment(o.experiment, exp_path, sizeof exp_path, &builtin, err, sizeof err)) return usage_error(err);
    if (builtin) experiment_defaults(e);
    else if (experiment_load(exp_path, e, err, sizeof err)) return usage_error(err);
    if (cli_apply(&o, e, err, sizeof err)) return usage_error(err);
    sweep_plan plan;
    if (plan_build(e, &plan, err, sizeof err)) return usage_error(err);
    estimate_model model = estimate_model_default();
    if (o.dry_run) {
        plan_print(stdout, e, &plan, &model);
        plan_free(&plan);
        return SWEEP_EXIT_OK;
    }

    /* ---- the output directory */
    char out_dir[SWEEP_PATH_MAX], csv_path[SWEEP_PATH_MAX], json_path[SWEEP_PATH_MAX], md_path[SWEEP_PATH_MAX];
    char date[32], stamp[32];
    now_strings(date, sizeof date, stamp, sizeof stamp);
    if (o.out) {
        if (resolve_user_path(o.out, out_dir, sizeof out_dir)) return usage_error("--out: path too long");
    } else if (o.resume) {
        if (newest_run_dir(e->name, out_dir, sizeof out_dir)) {
            char base[SWEEP_PATH_MAX];
            user_base_dir(base, sizeof base);
            snprintf(err, sizeof err, "--resume: no results/*-%.63s directory under %s (name one with --out DIR)",
                     e->name, base);
            return usage_error(err);
        }
    } else {
        char rel[512];
        snprintf(rel, sizeof rel, "results/%s-%.63s", stamp, e->name);
        if (resolve_user_path(rel, out_dir, sizeof out_dir)) return usage_error("output path too long");
    }
    if (path_join(csv_path, sizeof csv_path, out_dir, "results.csv") ||
        path_join(json_path, sizeof json_path, out_dir, "run.json") ||
        path_join(md_path, sizeof md_path, out_dir, "summary.md"))
        return usage_error("output path too long");
    if (o.resume) {
        char name[EXPERIMENT_NAME_LEN];
        int schema = 0;
        if (!path_is_dir(out_dir)) {
            snprintf(err, sizeof err, "--resume: %s is not a directory", out_dir);
            return usage_error(err);
        }
        if (!path_exists(json_path) || !path_exists(csv_path)) {
            snprintf(err, sizeof err, "--resume: %s has no run.json and results.csv: not a sweep's output", out_dir);
            return usage_error(err);
        }
        char why[1024];
        if (run_json_read_identity(json_path, name, sizeof name, &schema, why, sizeof why)) {
            snprintf(err, sizeof err, "--resume: %s", why);
            return usage_error(err);
        }
        if (schema != SWEEP_SCHEMA_VERSION) {
            snprintf(err, sizeof err, "--resume: %s has schema version %d; this build writes %d", out_dir, schema,
                     SWEEP_SCHEMA_VERSION);
            return usage_error(err);
        }
        if (strcmp(name, e->name)) {
            snprintf(err, sizeof err, "--resume: %s holds experiment '%.63s', not '%.63s'", out_dir, name, e->name);
            return usage_error(err);
        }
    } else if (path_exists(out_dir)) {
        if (!path_is_dir(out_dir)) {
            snprintf(err, sizeof err, "--out: %s exists and is not a directory", out_dir);
            return usage_error(err);
        }
        if (!o.force && !dir_is_empty(out_dir)) {
            snprintf(err, sizeof err,
                     "output directory %s exists (--force replaces its results, --resume continues the run there)",
                     out_dir);
            return usage_error(err);
        }
    }
    {
        char why[SWEEP_PATH_MAX + 256];
        if (dir_check_writable(out_dir, why, sizeof why)) {
            snprintf(err, sizeof err, "%s: cannot write %s: %s", o.out ? "--out" : "output directory", out_dir, why);
            return usage_error(err);
        }
    }

    /* ---- the device: none is exit 1, still before anything is written */
    sweep_device *dev = fake ? sweep_device_fake() : sweep_device_cuda();
    run_info ri;
    memset(&ri, 0, sizeof ri);
    char msg[1024];
    /* git runs in a child process: before the device holds memory. */
    git_info(ri.git_sha, sizeof ri.git_sha, &ri.git_dirty);
    int opened = dev->ops->open(dev, o.device, &ri.device, msg, sizeof msg);
    if (opened) {
        plan_free(&plan);
        if (opened == -2) return usage_error(msg); /* --device out of range */
        fprintf(stderr, "sweep: %s\n", msg);
        return SWEEP_EXIT_FAILED;
    }
    /* ---- device memory (harness/fit.h): a size that can never fit is bad
     * usage; configurations that do not fit are skipped rows */
    static fit_reasons fit_skips;
    {
        fit_budget fb = {.ordinal = o.device};
        if (dev->ops->memory(dev, &fb.free_bytes, &fb.total_bytes, &fb.held_bytes, msg, sizeof msg) == 0) {
            long marked = plan_fit_memory(&plan, &fb, o.sizes ? "--sizes" : NULL, &fit_skips, err, sizeof err);
            if (marked < 0) {
                dev->ops->close(dev);
                plan_free(&plan);
                fit_reasons_free(&fit_skips);
                return usage_error(err);
            }
            if (marked && !o.quiet)
                fprintf(stderr, "sweep: %ld configuration%s not fit in device %d's memory: skipped\n", marked,
                        marked == 1 ? " does" : "s do", o.device);
        } else if (!o.quiet) {
            fprintf(stderr, "sweep: device memory not checked: %s\n", msg);
        }
    }
    ri.have_device = 1;
    ri.fake_device = fake;
    ri.argc = argc;
    ri.argv = argv;
    snprintf(ri.date, sizeof ri.date, "%s", date);
    if (gethostname(ri.host, sizeof ri.host) != 0) snprintf(ri.host, sizeof ri.host, "unknown");
    ri.host[sizeof ri.host - 1] = '\0';
    snprintf(ri.experiment, sizeof ri.experiment, "%.63s", e->name);
    snprintf(ri.experiment_source, sizeof ri.experiment_source, "%s", builtin ? "built in" : exp_path);
    ri.exp = e;
    ri.peak_bandwidth_GBps = ri.device.peak_bandwidth_GBps;
    ri.copy_bandwidth_GBps = NAN;
    ri.plan_configs = plan.count;
    ri.plan_skipped = plan.skipped;
    model.peak_GBps = ri.device.peak_bandwidth_GBps > 0 ? ri.device.peak_bandwidth_GBps : model.peak_GBps;
    model.l2_bytes = ri.device.l2_bytes ? ri.device.l2_bytes : model.l2_bytes;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0) model.host_threads = cpus > 32 ? 32 : (int)cpus;

    /* ---- the profile phase */
    const sweep_profiler *prof = fake ? dev->ops->builtin_profiler(dev) : profiler;
    static sweep_profiler_setup setup;
    memset(&setup, 0, sizeof setup);
    int profiling = 0;
    if (o.no_cupti) snprintf(ri.profiler_status, sizeof ri.profiler_status, "off: --no-cupti");
    else if (e->metrics_mode == METRICS_NONE)
        snprintf(ri.profiler_status, sizeof ri.profiler_status, "off: the experiment asks for no metrics");
    else if (!prof) snprintf(ri.profiler_status, sizeof ri.profiler_status, "off: no profiler in this build");
    else {
        const char *names[EXPERIMENT_MAX_METRICS];
        for (size_t i = 0; i < e->metric_count; i++) names[i] = e->metrics[i];
        setup.device = &ri.device;
        setup.requested = e->metrics_mode == METRICS_LIST ? names : NULL;
        setup.requested_count = e->metrics_mode == METRICS_LIST ? e->metric_count : 0;
        int answer = prof->begin(prof->state, &setup);
        if (answer == SWEEP_PROFILER_BAD_METRIC) {
            /* an unknown name the device's check found: bad usage, nothing written yet */
            dev->ops->close(dev);
            plan_free(&plan);
            fit_reasons_free(&fit_skips);
            snprintf(err, sizeof err, "%s: %s", o.metrics ? "--metrics" : "[profile] metrics",
                     setup.status[0] ? setup.status : "unknown metric");
            return usage_error(err);
        }
        if (answer == SWEEP_PROFILER_READY && setup.metric_count > 0) {
            profiling = 1;
            ri.profiler_passes = setup.passes;
            snprintf(ri.profiler_status, sizeof ri.profiler_status, "%s", setup.status[0] ? setup.status : "ok");
        } else if (answer == SWEEP_PROFILER_UNAVAILABLE && setup.metric_count > 0) {
            /* columns kept, left empty; the profile phase still launches each configuration once */
            profiling = 1;
            ri.profiler_passes = 0;
            snprintf(ri.profiler_status, sizeof ri.profiler_status, "unavailable: %.240s",
                     setup.status[0] ? setup.status : "the profiler cannot measure here");
            fprintf(stderr, "sweep: profiler unavailable: %s\n",
                    setup.status[0] ? setup.status : "the profiler cannot measure here");
        } else {
            setup.metric_count = 0;
            snprintf(ri.profiler_status, sizeof ri.profiler_status, "off: %.250s",
                     setup.status[0] ? setup.status : "the profiler declined");
        }
    }
    metric_columns mc = {setup.metrics, profiling ? setup.metric_count : 0};
    ri.metrics = mc;

    /* ---- rows: those already there (--resume), then the plan's */
    sweep_row *loaded = NULL;
    size_t n_loaded = 0;
    if (o.resume && results_read_csv(csv_path, mc, &loaded, &n_loaded, err, sizeof err)) {
        if (profiling && prof->end) prof->end(prof->state);
        dev->ops->close(dev);
        plan_free(&plan);
        char full[sizeof err + 16];
        snprintf(full, sizeof full, "--resume: %s", err);
        return usage_error(full);
    }
    size_t cap = n_loaded + plan.count;
    sweep_row *rows = calloc(cap ? cap : 1, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "sweep: out of memory for %zu rows\n", cap);
        return SWEEP_EXIT_FAILED;
    }
    if (n_loaded) memcpy(rows, loaded, n_loaded * sizeof *rows);
    free(loaded);
    size_t n_rows = n_loaded;
    row_index ix = {0};
    if (n_loaded && index_build(&ix, rows, n_loaded)) {
        fprintf(stderr, "sweep: out of memory\n");
        return SWEEP_EXIT_FAILED;
    }

    /* ---- create the outputs */
    if (make_dirs(out_dir, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        return SWEEP_EXIT_FAILED;
    }
    ri.rows = n_rows;
    if (run_json_write(json_path, &ri, err, sizeof err) ||
        results_write_csv(csv_path, rows, n_rows, mc, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        return SWEEP_EXIT_FAILED;
    }
    FILE *csv = fopen(csv_path, "a");
    if (!csv) {
        fprintf(stderr, "sweep: cannot append to %s: %s\n", csv_path, strerror(errno));
        return SWEEP_EXIT_FAILED;
    }
    /* --samples: every timed sample (a resumed run appends its own). */
    FILE *samples = NULL;
    if (o.samples) {
        char samples_path[4096];
        if (path_join(samples_path, sizeof samples_path, out_dir, "samples.csv") ||
            !(samples = fopen(samples_path, o.resume ? "a" : "w"))) {
            fprintf(stderr, "sweep: cannot append to %s/samples.csv: %s\n", out_dir, strerror(errno));
            fclose(csv);
    if (samples) fclose(samples);
            return SWEEP_EXIT_FAILED;
        }
        if (ftell(samples) == 0) fputs(samples_csv_header(), samples);
    }

    /* ---- what is left to do */
    size_t todo = 0;
    double est_total = 0;
    for (size_t i = 0; i < plan.count; i++) {
        if (index_has(&ix, &plan.configs[i])) continue;
        todo++;
        est_total += estimate_config_s(&plan.configs[i], &e->timing, &model);
    }
    if (!o.quiet) {
        char est[32];
        format_duration(est_total, est, sizeof est);
        fprintf(stderr, "sweep: experiment %s, %zu configurations%s (%zu skipped in the plan), about %s -> %s\n",
                e->name, todo, n_loaded ? " left" : "", plan.skipped, est, out_dir);
    }

    install_signals();
    nvtx_push(SWEEP_NVTX_RUN, NVTX_COLOR_RUN);
    nvtx_push(SWEEP_NVTX_COPY_BANDWIDTH, NVTX_COLOR_RUN);
    msg[0] = '\0';
    double copy = dev->ops->copy_bandwidth(dev, msg, sizeof msg);
    nvtx_pop();
    if (copy > 0) ri.copy_bandwidth_GBps = copy;
    else if (!o.quiet) fprintf(stderr, "sweep: copy bandwidth not measured: %s\n", msg);
    nvtx_push(e->name, NVTX_COLOR_EXPERIMENT);

    progress pr;
    progress_begin(&pr, stderr, o.quiet, todo, est_total);
    run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.dev = dev;
    ctx.prof = profiling ? prof : NULL;
    ctx.e = e;
    ctx.metric_count = mc.count;
    ctx.samples = samples;
    ctx.cap_oom = registry_count() * DTYPE_COUNT;
    ctx.oom = calloc(ctx.cap_oom, sizeof *ctx.oom);
    if (!ctx.oom) ctx.cap_oom = 0;
    const variant *open_variant = NULL;
    size_t done = 0, failures = 0;
    double est_done = 0;
    int interrupted = 0;
    for (size_t i = 0; i < n_loaded; i++)
        if (rows[i].status == ROW_INVALID || rows[i].status == ROW_ERROR) failures++;
    for (size_t i = 0; i < plan.count; i++) {
        const sweep_config *cfg = &plan.configs[i];
        if (index_has(&ix, cfg)) continue;
        if (stop_signal) {
            interrupted = 1;
            break;
        }
        sweep_row *row = &rows[n_rows];
        if (row_init(row, cfg, mc.count)) {
            snprintf(ctx.fatal, sizeof ctx.fatal, "out of memory");
            break;
        }
        char label[256];
        config_label(cfg, label, sizeof label);
        size_t oom_n = cfg->skip_reason ? 0 : oom_floor(&ctx, cfg);
        if (cfg->skip_reason) {
            row_set_skip(row, cfg->skip_reason);
        } else if (oom_n) {
            char reason[128], ns[32];
            format_size(oom_n, ns, sizeof ns);
            snprintf(reason, sizeof reason, "out of device memory at n=%s for this variant and dtype", ns);
            row_set_skip(row, reason);
        } else {
            progress_update(&pr, done, est_done, failures, label);
            if (open_variant != cfg->v) {
                if (open_variant) nvtx_pop();
                nvtx_push(cfg->v->name, nvtx_family_color(cfg->v->family));
                open_variant = cfg->v;
            }
            nvtx_push(label, nvtx_family_color(cfg->v->family));
            cfg_outcome out = run_config(&ctx, cfg, row);
            nvtx_pop();
            if (out == CFG_INTERRUPTED) {
                row_free(row); /* a half-measured configuration is not a row */
                interrupted = 1;
                break;
            }
            row_derive_bandwidth(row, ri.peak_bandwidth_GBps, ri.copy_bandwidth_GBps);
            if (out == CFG_NO_MEMORY) {
                char note[1200];
                snprintf(note, sizeof note, "sweep: SKIPPED %s: %s", label, row->skip_reason ? row->skip_reason : "");
                progress_note(&pr, note);
            }
            if (row->status == ROW_INVALID || row->status == ROW_ERROR) {
                failures++;
                char note[1200];
                snprintf(note, sizeof note, "sweep: %s %s: %s", row->status == ROW_INVALID ? "INVALID" : "ERROR",
                         label, row->error ? row->error : "");
                progress_note(&pr, note);
                if (out != CFG_FATAL && dev->ops->recover(dev, msg, sizeof msg) != 0)
                    snprintf(ctx.fatal, sizeof ctx.fatal, "%s", msg);
            }
            if (out == CFG_FATAL && !ctx.fatal[0]) snprintf(ctx.fatal, sizeof ctx.fatal, "the device failed");
            est_done += estimate_config_s(cfg, &e->timing, &model);
        }
        csv_write_row(csv, row, mc);
        fflush(csv);
        n_rows++;
        done++;
        if (ctx.fatal[0]) break;
    }
    nvtx_pop_all();
    progress_update(&pr, done, est_done, failures, NULL);
    progress_end(&pr);
    if (stop_signal) interrupted = 1;
    int sig = stop_signal;
    fclose(csv);

    /* ---- finish: derived figures over every row, files replaced whole */
    rows_derive_speedups(rows, n_rows);
    ri.interrupted = interrupted;
    ri.complete = !interrupted && !ctx.fatal[0];
    if (interrupted) snprintf(ri.stop_reason, sizeof ri.stop_reason, "interrupted by %s", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    else if (ctx.fatal[0]) snprintf(ri.stop_reason, sizeof ri.stop_reason, "%s", ctx.fatal);
    ri.rows = n_rows;
    ri.failures = failures;
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i].status == ROW_SKIPPED) ri.skipped++;
    ri.wall_time_s = timing_now() - t0;
    int write_failed = 0;
    if (results_write_csv(csv_path, rows, n_rows, mc, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        write_failed = 1;
    }
    if (run_json_write(json_path, &ri, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        write_failed = 1;
    }
    if (summary_write(md_path, rows, n_rows, &ri, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        write_failed = 1;
    }
    if (profiling && prof->end) prof->end(prof->state);
    dev->ops->close(dev);
    restore_signals();

    if (!o.quiet) {
        printf("\n");
        summary_print(stdout, rows, n_rows, &ri);
        fflush(stdout);
    }
    fprintf(stderr, "sweep: %zu rows in %s (results.csv, run.json, summary.md)\n", n_rows, out_dir);
    if (ctx.fatal[0])
        fprintf(stderr, "sweep: stopped early: %s\nsweep: the rows so far are kept; --resume --out %s continues "
                        "in a new process\n",
                ctx.fatal, out_dir);
    if (failures) fprintf(stderr, "sweep: %zu configuration%s failed (see the summary and results.csv)\n", failures,
                          failures == 1 ? "" : "s");
    if (!interrupted && n_rows) render_charts(out_dir, o.quiet);

    for (size_t i = 0; i < n_rows; i++) row_free(&rows[i]);
    free(rows);
    free(ix.slots);
    plan_free(&plan);
    fit_reasons_free(&fit_skips);
    free(ctx.oom);
    if (interrupted) {
        fprintf(stderr, "sweep: interrupted; --resume --out %s continues\n", out_dir);
        return 128 + (sig ? sig : SIGINT);
    }
    if (failures || ctx.fatal[0] || write_failed) return SWEEP_EXIT_FAILED;
    return SWEEP_EXIT_OK;
}
