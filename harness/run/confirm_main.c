/* `sweep confirm DIR`: the confirmation phase (harness/run/confirm.h) on a
 * finished run -- a merged --shard run, a run made before the phase existed,
 * or a second process's look at the same claims. It reads DIR's results.csv
 * and run.json, measures each size's candidates and the library again on
 * this host's device, and writes confirm.csv, confirm.json (the device and
 * conditions of this measurement) and summary.md into DIR, or --out OUT. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/confirm_main.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "harness/config/axes.h"
#include "harness/run/confirm.h"
#include "harness/core/files.h"
#include "harness/device/nvml_conditions.h"
#include "harness/results/results_conditions.h"
#include "harness/run/drift.h"
#include "harness/run/sweep.h"
#include "results_io/closest.h"

static const char usage_text[] =
    "usage: sweep confirm DIR [--out OUT] [--device N] [--fake-device] [--confirm-rounds N]\n"
    "                         [--confirm-candidates N] [--confirm-within PCT] [--confirm-margin PCT]\n"
    "                         [--min-samples N]\n"
    "                         [--throttle-threshold PCT] [--throttle-recovery-delay SECONDS]\n"
    "\n"
    "Measures again, in interleaved rounds, each size's best configurations of DIR's run\n"
    "(those within --confirm-within of the fastest, at most --confirm-candidates) beside the\n"
    "library row (CUB), and gives every ratio a bootstrap 95 % interval: faster, slower or tie.\n"
    "Writes confirm.csv, confirm.json and summary.md into DIR (or OUT).\n"
    "faster or slower only when the whole interval clears 1 by --confirm-margin.\n"
    "Defaults: 10 rounds, 3 candidates, within 2 %, margin 1 %, DIR's min_samples, throttle 75 %, 0.05 s.\n"
    "--fake-device: the CPU-only fake device layer (synthetic times, no CUDA call), to try it without a GPU.\n"
    "\n"
    "Exit status: 0 done; 1 no device, the device failed or an output could not be written; 2 bad input\n"
    "(one line naming it, nothing written).\n";

typedef struct job {
    const char *dir, *out;
    int device, fake;
    confirm_params p;
    timing_params t;
    char err[SWEEP_PATH_MAX + 512]; /* a path and what went wrong there (jansson: up to 160 bytes) */
} job;

static int usage(const char *msg)
{
    fprintf(stderr, "sweep confirm: %s\n", msg);
    return SWEEP_EXIT_USAGE;
}

static int flag_value(job *j, const char *flag, const char *v)
{
    char e[256];
    long x;
    int rc = 0;
    if (!strcmp(flag, "--confirm-rounds")) {
        rc = parse_count(v, 10, 100, &x, e, sizeof e);
        j->p.rounds = (unsigned)x;
    } else if (!strcmp(flag, "--confirm-candidates")) {
        rc = parse_count(v, 1, 8, &x, e, sizeof e);
        j->p.candidates = (unsigned)x;
    } else if (!strcmp(flag, "--confirm-within")) rc = parse_percent(v, &j->p.within, e, sizeof e);
    else if (!strcmp(flag, "--confirm-margin")) {
        if (!strcmp(v, "0")) j->p.margin = 0;
        else rc = parse_percent(v, &j->p.margin, e, sizeof e);
    }
    else if (!strcmp(flag, "--min-samples")) {
        rc = parse_count(v, 1, 1000000, &x, e, sizeof e);
        j->t.min_samples = (unsigned)x;
    } else if (!strcmp(flag, "--throttle-threshold")) {
        if (!strcmp(v, "0") || !strcmp(v, "off")) j->t.throttle_threshold = 0;
        else rc = parse_percent(v, &j->t.throttle_threshold, e, sizeof e);
    } else if (!strcmp(flag, "--throttle-recovery-delay")) {
        if (!strcmp(v, "0")) j->t.throttle_recovery_s = 0;
        else rc = parse_seconds(v, &j->t.throttle_recovery_s, e, sizeof e);
    } else if (!strcmp(flag, "--device")) {
        rc = parse_count(v, 0, 1023, &x, e, sizeof e);
        j->device = (int)x;
    } else { /* --out: value_flags has no other */
        if (*v) j->out = v;
        else rc = -1, snprintf(e, sizeof e, "empty value");
    }
    if (rc) snprintf(j->err, sizeof j->err, "%s: %s", flag, e);
    return rc ? -1 : 0;
}

static const char *const value_flags[] = {"--out", "--device", "--confirm-rounds", "--confirm-candidates",
                                          "--confirm-within", "--confirm-margin", "--min-samples",
                                          "--throttle-threshold", "--throttle-recovery-delay"};
#define N_VALUE_FLAGS (sizeof value_flags / sizeof value_flags[0])

static int takes_value(const char *a)
{
    for (size_t i = 0; i < N_VALUE_FLAGS; i++)
        if (!strcmp(a, value_flags[i])) return 1;
    return 0;
}

/* "unknown option '--fake-devise' (see sweep confirm --help); closest: --fake-device" */
static void unknown_option(job *j, const char *a)
{
    const char *flags[N_VALUE_FLAGS + 2] = {"--fake-device", "--help"};
    for (size_t i = 0; i < N_VALUE_FLAGS; i++) flags[i + 2] = value_flags[i];
    unknown_flag_message(j->err, sizeof j->err, a, flags, N_VALUE_FLAGS + 2, "sweep confirm --help");
}

/* DIR and OUT as the user meant them: relative to where the command was
 * typed (`bazel run` starts in the runfiles tree). */
static int resolve_paths(job *j)
{
    static char dir[SWEEP_PATH_MAX], out[SWEEP_PATH_MAX];
    if (resolve_results_dir("confirm", j->dir, j->out, dir, out, j->err, sizeof j->err)) return -1;
    j->dir = dir;
    j->out = out; /* DIR itself when no --out was given */
    return 0;
}

/* 0 go, 1 --help printed, -1 bad usage (j->err). */
static int parse_args(job *j, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 1;
        }
        if (!strcmp(a, "--fake-device")) j->fake = 1;
        else if (takes_value(a)) {
            if (i + 1 >= argc) {
                snprintf(j->err, sizeof j->err, "%s needs a value", a);
                return -1;
            }
            if (flag_value(j, a, argv[++i])) return -1;
        } else if (a[0] == '-' && a[1]) {
            unknown_option(j, a);
            return -1;
        } else if (!j->dir) j->dir = a;
        else {
            snprintf(j->err, sizeof j->err, "one results directory, not '%s' too", a);
            return -1;
        }
    }
    return resolve_paths(j);
}

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) { stop_flag = sig; }

static int render_json(FILE *f, void *ctx)
{
    return json_dumpf((json_t *)ctx, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ? -1 : (fputc('\n', f), 0);
}

/* confirm.json: who measured the confirmation, where, under what conditions. */
static int write_confirm_json(const job *j, int argc, char **argv, const device_info *d, const char *nvml,
                              const gpu_conditions *c0, const gpu_conditions *c1, size_t lines, double wall,
                              char *err, size_t errlen)
{
    json_t *o = json_object(), *a = json_array();
    for (int i = 0; i < argc; i++) json_array_append_new(a, json_string(argv[i]));
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_object_set_new(o, "argv", a);
    json_object_set_new(o, "date", json_string(date));
    json_object_set_new(o, "source", json_string(j->dir));
    json_object_set_new(o, "device", json_string(d->name));
    json_object_set_new(o, "pci_bus_id", json_string(d->pci_bus_id));
    json_object_set_new(o, "rounds", json_integer(j->p.rounds));
    json_object_set_new(o, "candidates", json_integer(j->p.candidates));
    json_object_set_new(o, "within_pct", json_real(j->p.within * 100));
    json_object_set_new(o, "margin_pct", json_real(j->p.margin * 100));
    json_object_set_new(o, "min_samples", json_integer(j->t.min_samples));
    json_object_set_new(o, "nvml", json_string(nvml[0] ? nvml : "read"));
    json_object_set_new(o, "conditions_start", gpu_conditions_json(c0));
    json_object_set_new(o, "conditions_end", gpu_conditions_json(c1));
    json_object_set_new(o, "lines", json_integer((json_int_t)lines));
    json_object_set_new(o, "wall_time_s", json_real(wall));
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/confirm.json", j->out);
    int rc = write_file_atomic(path, render_json, o, err, errlen);
    json_decref(o);
    return rc;
}

/* DIR's run.json (the timing rule's samples and budget, the copy bandwidth)
 * and results.csv. 0, or -1 with j->err. */
static int load(job *j, json_t **run, results_file *rf)
{
    char path[SWEEP_PATH_MAX + 16];
    json_error_t je;
    snprintf(path, sizeof path, "%s/run.json", j->dir);
    if (!(*run = json_load_file(path, 0, &je))) {
        snprintf(j->err, sizeof j->err, "%s: %s", path, je.text);
        return -1;
    }
    const json_t *t = json_object_get(*run, "timing");
    const json_t *ms = json_object_get(t, "min_samples"), *to = json_object_get(t, "timeout_s");
    if (!j->t.min_samples) j->t.min_samples = json_is_integer(ms) ? (unsigned)json_integer_value(ms) : 10;
    if (json_is_number(to)) j->t.timeout_s = json_number_value(to);
    snprintf(path, sizeof path, "%s/results.csv", j->dir);
    if (results_read_csv_any(path, rf, j->err, sizeof j->err)) return -1;
    if (!confirm_has_library(rf->rows, rf->count)) {
        snprintf(j->err, sizeof j->err, "%s: no ok library row (reduce_cub, scan_cub): nothing to confirm against",
                 path);
        return -1;
    }
    char why[1024];
    if (!dir_check_writable(j->out, why, sizeof why)) return 0;
    snprintf(j->err, sizeof j->err, "%scannot write %s: %s", j->out == j->dir ? "" : "--out: ", j->out, why);
    return -1;
}

/* summary.md again, now with the confirmed table first. */
static int write_summary(const job *j, const json_t *run, const results_file *rf, const confirm_line *l, size_t n,
                         char *err, size_t errlen)
{
    run_info ri;
    drift_report d;
    run_json_summary_info(run, &ri);
    run_json_conditions_read(run, &ri, &d);
    ri.confirm = l;
    ri.confirm_count = n;
    ri.confirm_rounds = j->p.rounds;
    ri.confirm_margin = j->p.margin;
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/summary.md", j->out);
    return summary_write(path, rf->rows, rf->count, &ri, err, errlen);
}

/* The device did not open: --device out of range is bad usage (2); no device
 * at all says so plainly, with the way to try the command without one (1). */
static int no_device(const char *msg, int opened)
{
    fprintf(stderr, "sweep confirm: %s\n", msg);
    if (opened == -2) return SWEEP_EXIT_USAGE;
    if (!strncmp(msg, "no CUDA device", 14))
        fprintf(stderr, "sweep confirm: to try it without a GPU, add --fake-device (synthetic times, no CUDA call; "
                        "see --help)\n");
    return SWEEP_EXIT_FAILED;
}

int confirm_main(int argc, char **argv)
{
    job j = {.device = 0, .p = {10, 3, 0.02, 0.01}};
    j.t = (timing_params){0, 0, TIMING_DEFAULT_MAX_NOISE, TIMING_DEFAULT_TIMEOUT_S, TIMING_DEFAULT_THROTTLE_THRESHOLD,
                          TIMING_DEFAULT_THROTTLE_RECOVERY_S};
    int pa = parse_args(&j, argc, argv);
    if (pa > 0) return SWEEP_EXIT_OK;
    if (pa < 0) return usage(j.err);
    json_t *run = NULL;
    results_file rf = {0};
    if (load(&j, &run, &rf)) {
        json_decref(run);
        results_file_free(&rf);
        return usage(j.err);
    }
    const char *fe = getenv("SWEEP_FAKE_DEVICE");
    sweep_device *dev = j.fake || (fe && *fe && strcmp(fe, "0")) ? sweep_device_fake() : sweep_device_cuda();
    device_info info;
    char msg[1024] = "", nvml_msg[256] = "";
    int rc = SWEEP_EXIT_OK;
    double t0 = timing_now();
    int opened = dev->ops->open(dev, j.device, &info, msg, sizeof msg);
    if (opened) {
        rc = no_device(msg, opened);
        goto out;
    }
    nvml_reader *nv = nvml_reader_open(info.pci_bus_id, nvml_msg, sizeof nvml_msg);
    gpu_conditions c0 = {0}, c1 = {0};
    nvml_reader_read(nv, &c0);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    const json_t *copy = json_object_get(run, "copy_bandwidth_GBps");
    confirm_line *lines = NULL;
    size_t n = 0;
    fprintf(stderr, "sweep confirm: %s on %s, %u rounds\n", j.dir, info.name, j.p.rounds);
    if (confirm_run(dev, &j.p, &j.t, rf.rows, rf.count, json_is_number(copy) ? json_number_value(copy) : NAN,
                    &stop_flag, stderr, &lines, &n, msg, sizeof msg)) {
        fprintf(stderr, "sweep confirm: stopped: %s\n", stop_flag ? "interrupted" : msg);
        rc = SWEEP_EXIT_FAILED;
    }
    nvml_reader_read(nv, &c1);
    nvml_reader_close(nv);
    dev->ops->close(dev);
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/confirm.csv", j.out);
    if (make_dirs(j.out, j.err, sizeof j.err) || confirm_write_csv(path, lines, n, j.err, sizeof j.err) ||
        write_confirm_json(&j, argc, argv, &info, nvml_msg, &c0, &c1, n, timing_now() - t0, j.err, sizeof j.err) ||
        write_summary(&j, run, &rf, lines, n, j.err, sizeof j.err)) {
        fprintf(stderr, "sweep confirm: %s\n", j.err);
        rc = SWEEP_EXIT_FAILED;
    } else {
        fprintf(stderr, "sweep confirm: %zu lines in %s (confirm.csv, confirm.json, summary.md)\n", n, j.out);
    }
    free(lines);
out:
    json_decref(run);
    results_file_free(&rf);
    return rc;
}
