/* profile_cost: what one configuration costs the profile stage, and where.
 *
 * Demonstrates: the sweep's profile stage (harness/device/profiler_cupti.c)
 * measures each configuration as one CUPTI range in every pass, in batches
 * of up to [profile] batch ranges a session: a third of what `full` costs.
 * Alone on an H200 a range costs about 1.1 ms beyond its kernel, all of it
 * CUPTI's push and pop for the SM's counters, and a pass's start and stop
 * 0.095 s + 0.55 ms a range (experiments/results/h200/range-cost). This times the
 * same calls (cupti/profiler.h, profiler_measure_batch) on small launches,
 * where the kernel is nothing and the cost is all there is, split into the
 * range's push, the launches (host side), the wait for the device and the
 * pop; with the waits after each range and without (one wait a pass), and
 * beside a loop of the same flushes and launches with no profiler.
 *
 * One row per variant x batch x launches a range x waits:
 *   batch      ranges in the session (each range: the L2 flushed and
 *              emptied before it, as the sweep does, then the launcher
 *              called `launches` times)
 *   session_ms enable, configure and disable, a session
 *   pass_ms    a pass's start and stop
 *   push_ms, fn_ms, wait_ms, pop_ms, range_ms   a range, by part
 *   plain_ms   the same flush, wait, launches and wait with no profiler
 *   dram_read_mb, duration_us   the range's mean values, where the metric set
 *              has them (the waits must not move them)
 *
 * --nvtx 1 puts each range's launches inside three NVTX ranges as the sweep
 * does; --allocs N holds N device buffers; CUDA_MODULE_LOADING=EAGER in the
 * environment loads every kernel of the binary first: what a sweep's process
 * has that a fresh one does not. --repeat N measures each batch N times in a
 * row: whether a range costs more as a process's sessions add up.
 *
 * Run: bazel run //tools/profile_cost -- --variants reduce_one_launch --batches 1,64,512
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

#include "cupti/metrics.h"
#include "cupti/profiler.h"
#include "harness/device/l2_flush.h"
#include "kernels/registry.h"

#define MAX_LIST 16

typedef struct options {
    const char *variants[MAX_LIST];
    size_t n_variants;
    size_t batches[MAX_LIST], n_batches;
    size_t launches[MAX_LIST], n_launches;
    size_t n;
    const char *metrics;
    const char *csv;
    int nvtx;          /* --nvtx: each range's launches inside three NVTX ranges, as the sweep's */
    size_t allocs;     /* --allocs: this many 1 MiB device buffers held throughout */
    size_t repeat;     /* --repeat: each batch measured this many times in a row (waits on), a row each */
} options;

typedef struct bench {
    const variant *v;
    kernel_args a;
    unsigned launches;
    int nvtx;
    void *flush;
    size_t flush_bytes;
    cudaStream_t stream;
} bench;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "profile_cost: %s: %s\n", what, why);
    exit(1);
}

static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}

/* ---- what a range holds -------------------------------------------------- */

static int range_fn(void *user, size_t k)
{
    (void)k;
    bench *b = (bench *)user;
    if (b->nvtx) {
        nvtxRangePushA(b->v->name);
        nvtxRangePushA("config");
        nvtxRangePushA("profile");
    }
    int rc = 0;
    for (unsigned i = 0; i < b->launches && !rc; i++) rc = b->v->launch(&b->a, b->stream) != cudaSuccess;
    if (b->nvtx)
        for (int i = 0; i < 3; i++) nvtxRangePop();
    return rc;
}

static int range_restore(void *user, size_t k)
{
    (void)k;
    bench *b = (bench *)user;
    return l2_flush_empty(b->flush, b->flush_bytes, b->stream) != cudaSuccess;
}

/* The same flushes and launches with no profiler: what is left is CUPTI's. */
static double plain_range_s(bench *b, size_t count)
{
    double t0 = now_s();
    for (size_t k = 0; k < count; k++) {
        if (range_restore(b, k)) die("plain loop", "flush failed");
        check_cuda(cudaDeviceSynchronize(), "plain loop");
        if (range_fn(b, k)) die("plain loop", "launch failed");
        check_cuda(cudaDeviceSynchronize(), "plain loop");
    }
    return (now_s() - t0) / (double)count;
}

/* ---- a variant's buffers and axes ---------------------------------------- */

static unsigned lowest_bit_value(unsigned set) { return set ? 1u << __builtin_ctz(set) : 1u; }

static void bench_setup(bench *b, const char *name, size_t n, void *in, void *out)
{
    const variant *v = registry_find(name);
    if (!v || v->runner != RUNNER_DEVICE) die(name, "not a device variant of the registry (sweep --list)");
    kernel_args a;
    memset(&a, 0, sizeof a);
    a.dtype = DTYPE_F32;
    a.op = OP_SUM;
    a.n = n;
    a.block_dim = (v->block_dims & AXIS_BIT(256)) ? 256 : lowest_bit_value(v->block_dims);
    for (int i = 0; i < VARIANT_AXES_MAX; i++) a.axis[i] = v->axes[i].values ? lowest_bit_value(v->axes[i].values) : 1;
    a.finish = (finish_t)__builtin_ctz(v->finishes ? v->finishes : 1u);
    a.scan_mode = SCAN_INCLUSIVE;
    a.in = in;
    a.out = out;
    a.workspace_bytes = v->workspace_size(&a);
    if (a.workspace_bytes) check_cuda(cudaMalloc(&a.workspace, a.workspace_bytes), "workspace");
    if (v->workspace_init) check_cuda(v->workspace_init(&a, b->stream), "workspace_init");
    check_cuda(cudaStreamSynchronize(b->stream), "set-up");
    b->v = v;
    b->a = a;
}

/* ---- one row -------------------------------------------------------------- */

static int column_of(const metric_plan *plan, const char *key)
{
    for (size_t i = 0; i < plan->ncolumns; i++)
        if (!strcmp(plan->columns[i].key, key)) return (int)i;
    return -1;
}

static double column_mean(const double *cols, size_t stride, size_t count, int c, double scale)
{
    if (c < 0) return -1;
    double s = 0;
    for (size_t k = 0; k < count; k++) s += cols[k * stride + (size_t)c];
    return s / (double)count * scale;
}

static void row(FILE *csv, profiler *prof, const metric_plan *plan, bench *b, size_t count, int waits)
{
    size_t nraw = profiler_num_values(prof);
    double *raw = (double *)calloc(count * nraw, sizeof *raw);
    double *cols = (double *)calloc(count * plan->ncolumns, sizeof *cols);
    if (!raw || !cols) die("row", "out of memory");
    profiler_set_range_waits(prof, waits);
    profiler_times t0, t1;
    profiler_get_times(prof, &t0);
    char msg[1024] = "";
    if (profiler_measure_batch(prof, count, range_fn, range_restore, b, raw, msg, sizeof msg) != PROFILER_OK)
        die(b->v->name, msg);
    profiler_get_times(prof, &t1);
    for (size_t k = 0; k < count; k++) metric_plan_eval(plan, raw + k * nraw, cols + k * plan->ncolumns);
    double plain = plain_range_s(b, count);
    double ranges = (double)(t1.n_ranges - t0.n_ranges), passes = (double)(t1.n_passes - t0.n_passes);
    double sessions = (double)(t1.n_sessions - t0.n_sessions);
    double dram = column_mean(cols, plan->ncolumns, count, column_of(plan, "dram_read_bytes"), 1e-6);
    double dur = column_mean(cols, plan->ncolumns, count, column_of(plan, "duration"), 1e-3);
    char line[1024];
    snprintf(line, sizeof line,
             "%s,%zu,%zu,%u,%d,%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f",
             b->v->name, b->a.n, count, b->launches, waits, sessions, passes,
             1e3 * (t1.session - t0.session) / sessions, 1e3 * (t1.passes - t0.passes) / passes,
             1e3 * (t1.restore - t0.restore) / ranges, 1e3 * (t1.push - t0.push) / ranges,
             1e3 * (t1.fn - t0.fn) / ranges, 1e3 * (t1.wait - t0.wait) / ranges, 1e3 * (t1.pop - t0.pop) / ranges,
             1e3 * (t1.ranges - t0.ranges) / ranges, 1e3 * plain, dram, dur);
    printf("%s\n", line);
    if (csv) fprintf(csv, "%s\n", line);
    fflush(stdout);
    free(raw);
    free(cols);
}

/* ---- the command line ------------------------------------------------------ */

/* Bad input: one line naming the value, exit 2, before any CUDA call. */
static void bad_value(const char *what, const char *value)
{
    fprintf(stderr, "profile_cost: %s: '%s' is not a count (a whole number from 1, or 2^K)\n", what, value);
    exit(2);
}

static size_t parse_count(const char *s, const char *what)
{
    char *end = NULL;
    unsigned long long v;
    if (!strncmp(s, "2^", 2)) {
        v = strtoull(s + 2, &end, 10);
        if (end == s + 2 || *end || v > 34) bad_value(what, s);
        return (size_t)1 << v;
    }
    v = strtoull(s, &end, 10);
    if (end == s || *end || v == 0 || !isdigit((unsigned char)s[0])) bad_value(what, s);
    return (size_t)v;
}

static size_t split(char *list, const char **out, const char *what)
{
    size_t n = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (n == MAX_LIST) {
            fprintf(stderr, "profile_cost: %s: more than %d items at '%s'\n", what, MAX_LIST, tok);
            exit(2);
        }
        out[n++] = tok;
    }
    if (!n) bad_value(what, "");
    return n;
}

static void parse_counts(char *list, size_t *out, size_t *n, const char *what)
{
    const char *items[MAX_LIST];
    *n = split(list, items, what);
    for (size_t i = 0; i < *n; i++) out[i] = parse_count(items[i], what);
}

static void usage(int rc, const char *bad)
{
    if (bad) {
        fprintf(stderr, "profile_cost: '%s': unknown option or missing value (see --help)\n", bad);
        exit(rc);
    }
    fprintf(rc ? stderr : stdout,
            "usage: profile_cost [--variants LIST] [--n N] [--batches LIST] [--launches LIST] [--metrics LIST]\n"
            "                    [--csv FILE] [--nvtx 1] [--allocs COUNT] [--repeat COUNT]\n"
            "defaults: --variants reduce_one_launch,reduce_cub,scan_reduce_then_scan,scan_lookahead_bulk --n 2^10\n"
            "          --batches 1,64,256,512 --launches 1 --metrics default (the sweep's metric names)\n");
    exit(rc);
}

static void parse(int argc, char **argv, options *o)
{
    static char variants[] = "reduce_one_launch,reduce_cub,scan_reduce_then_scan,scan_lookahead_bulk";
    static char batches[] = "1,64,256,512", launches[] = "1";
    o->n_variants = split(variants, o->variants, "--variants");
    parse_counts(batches, o->batches, &o->n_batches, "--batches");
    parse_counts(launches, o->launches, &o->n_launches, "--launches");
    o->n = 1024;
    o->metrics = "default";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) usage(0, NULL);
        if (i + 1 >= argc || strncmp(a, "--", 2)) usage(2, a);
        char *v = argv[++i];
        if (!strcmp(a, "--variants")) o->n_variants = split(v, o->variants, "--variants");
        else if (!strcmp(a, "--n")) o->n = parse_count(v, "--n");
        else if (!strcmp(a, "--batches")) parse_counts(v, o->batches, &o->n_batches, "--batches");
        else if (!strcmp(a, "--launches")) parse_counts(v, o->launches, &o->n_launches, "--launches");
        else if (!strcmp(a, "--metrics")) o->metrics = v;
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--nvtx")) o->nvtx = (int)parse_count(v, "--nvtx");
        else if (!strcmp(a, "--allocs")) o->allocs = parse_count(v, "--allocs");
        else if (!strcmp(a, "--repeat")) o->repeat = parse_count(v, "--repeat");
        else usage(2, a);
    }
    for (size_t i = 0; i < o->n_variants; i++) {
        const variant *v = registry_find(o->variants[i]);
        if (!v || v->runner != RUNNER_DEVICE) {
            fprintf(stderr, "profile_cost: --variants: '%s' is not a device variant (sweep --list)\n", o->variants[i]);
            exit(2);
        }
    }
    char msg[1024] = "";
    metric_plan *plan = metric_plan_parse(o->metrics, msg, sizeof msg);
    if (!plan) {
        fprintf(stderr, "profile_cost: --metrics: '%s': %s\n", o->metrics, msg);
        exit(2);
    }
    metric_plan_free(plan);
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    parse(argc, argv, &o);
    char msg[1024] = "";
    metric_plan *plan = metric_plan_parse(o.metrics, msg, sizeof msg);
    if (!plan) die("--metrics", msg);
    profiler *prof = NULL;
    int passes = 0;
    if (profiler_open(0, plan->raw, plan->nraw, &prof, &passes, msg, sizeof msg) != PROFILER_OK) die("CUPTI", msg);

    bench b;
    memset(&b, 0, sizeof b);
    check_cuda(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking), "stream");
    int dev = 0, l2 = 0;
    check_cuda(cudaGetDevice(&dev), "device");
    check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "L2 size");
    b.flush_bytes = (2 * (size_t)l2 + 127) / 128 * 128;
    check_cuda(l2_flush_alloc(&b.flush, b.flush_bytes), "flush buffer");
    void *in = NULL, *out = NULL;
    check_cuda(cudaMalloc(&in, o.n * sizeof(double)), "input");
    check_cuda(cudaMalloc(&out, o.n * sizeof(double)), "output");
    check_cuda(cudaMemset(in, 0x3c, o.n * sizeof(double)), "input"); /* f32 0.0115 each: finite sums */
    b.nvtx = o.nvtx;
    for (size_t i = 0; i < o.allocs; i++) { /* held to the end, as a sweep's many buffers are */
        void *held = NULL;
        check_cuda(cudaMalloc(&held, (size_t)1 << 20), "--allocs");
    }

    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) die(o.csv, "cannot write");
    const char *head = "variant,n,batch,launches,waits,sessions,passes,session_ms,pass_ms,restore_ms,push_ms,fn_ms,"
                       "wait_ms,pop_ms,range_ms,plain_ms,dram_read_mb,duration_us";
    printf("# metrics %s: %d pass%s, chip %s\n%s\n", o.metrics, passes, passes == 1 ? "" : "es",
           profiler_chip(prof), head);
    if (csv) fprintf(csv, "%s\n", head);
    for (size_t vi = 0; vi < o.n_variants; vi++) {
        bench_setup(&b, o.variants[vi], o.n, in, out);
        b.launches = 1;
        row(NULL, prof, plan, &b, 8, 1); /* warm: the module loaded, CUPTI's first session paid */
        for (size_t li = 0; li < o.n_launches; li++)
            for (size_t bi = 0; bi < o.n_batches; bi++)
                for (int waits = 1; waits >= 0; waits--) {
                    b.launches = (unsigned)o.launches[li];
                    for (size_t r = 0; r < (o.repeat && waits ? o.repeat : 1); r++)
                        row(csv, prof, plan, &b, o.batches[bi], waits);
                }
        if (b.a.workspace) cudaFree(b.a.workspace);
    }
    if (csv) fclose(csv);
    profiler_close(prof);
    metric_plan_free(plan);
    return 0;
}
