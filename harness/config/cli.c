#define _POSIX_C_SOURCE 200809L
#include "harness/config/cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/config/axes.h"
#include "harness/core/files.h"
#include "harness/config/settings.h"
#include "harness/config/shard.h"
#include "harness/config/axis_values.h"

#define WORKSPACE_NAME "gpu_reduce_scan"

static const char usage_head[] =
    "usage: bazel run //harness:sweep -- [options]\n"
    "       sweep [options]                        (bundle: bin/sweep)\n"
    "       sweep compare BASE NEW [options]       two runs against each other (compare --help)\n"
    "       sweep merge OUT SHARD_DIR...           the shards of one plan into one run (merge --help)\n"
    "       sweep confirm DIR [options]            a finished run's winners against CUB, again (confirm --help)\n"
    "       sweep pack [--tables [--drop-rows]] DIR...  a finished run gzipped (or its tables) to commit (pack --help)\n"
    "       sweep summary DIR [--out OUT]          a run's summary.md again from its files (summary --help)\n"
    "\n"
    "Runs an experiment: each configuration is validated against the CPU reference\n"
    "(fresh random input, poisoned output; see --validate), then timed with CUDA\n"
    "events (cold: L2 flushed before each sample; hot: back-to-back launches), then\n"
    "profiled when a profiler is built in. Rows go to results.csv as they finish;\n"
    "run.json records the run, the device and its measured copy bandwidth. Every timed\n"
    "batch records its SM clock (throttled samples are taken again); after the last\n"
    "row the first configurations are measured again (drift) and, where there are CUB\n"
    "rows, each size's winners are confirmed against CUB in interleaved rounds\n"
    "(confirm.csv, and the first table of summary.md).\n";

static const char usage_tail[] =
    "\n"
    "Relative paths are relative to the directory `bazel run` was started from.\n"
    "Exit status: 0 every configuration valid; 1 a validation failure, a CUDA error or\n"
    "no CUDA device (the message says why: no driver, a driver too old, no GPU); 2 bad\n"
    "usage (nothing is written); 130/143 interrupted by SIGINT/SIGTERM (results.csv\n"
    "holds the finished rows, run.json says interrupted).\n"
    "A failed configuration is a row with the CUDA error text and the run goes on; a\n"
    "sticky error (a lost CUDA context) stops it with the rows kept (exit 1; --resume\n"
    "continues). Configurations that do not fit in device memory are skipped rows; a\n"
    "--sizes value at which nothing fits is bad usage, and so is a plan that runs\n"
    "nothing (every configuration skipped: the message gives the reasons).\n"
    "A variant with one value on an axis (reduce_cub: block dim 256; a variant\n"
    "without coarsening: coarse 1; a one-value reduction: finish none) runs its own\n"
    "when a list asked of several variants lacks it (one note on stderr, and in\n"
    "--dry-run; the row's columns say what ran); asked of it alone (the only variant\n"
    "selected, or its own [axes:GLOB] section) the value is refused: bad usage.\n"
    "Without a GPU, --fake-device runs the whole sweep on synthetic times.\n";

/* The options that are not settings of the experiment (those are in
 * harness/config/settings.c), in --help order; an entry without a name stands for
 * the settings of its section. */
typedef enum { OPT_SWITCH, OPT_TEXT, OPT_DEVICE, OPT_SHARD, OPT_SETTINGS, OPT_DEVICES, OPT_AXIS, OPT_SECONDS } opt_kind;
enum { HELP_PLAN = SETTING_HELP_PLAN, HELP_MEASURE = SETTING_HELP_MEASURE, HELP_OUTPUT, HELP_NONE };

typedef struct cli_option {
    const char *name;
    opt_kind kind;
    size_t offset; /* of the const char * (OPT_TEXT), int (OPT_SWITCH) or double (OPT_SECONDS) in sweep_options */
    int section;   /* where --help lists it; HELP_NONE: not listed */
    const char *metavar, *help;
} cli_option;

#define AT(field) offsetof(sweep_options, field)
static const cli_option options[] = {
    {"--experiment", OPT_TEXT, AT(experiment), HELP_PLAN, "NAME|FILE",
     "experiments/NAME.ini, or an .ini file (default: default)"},
    {NULL, OPT_SETTINGS, 0, HELP_PLAN, NULL, NULL},
    {"--axis", OPT_AXIS, 0, HELP_PLAN, "NAME=LIST",
     "a variant's own axis by name, powers of two; repeat for\n"
     "more: items_per_thread=4,8 (reduce_coarsened, the scans),\n"
     "vectors_in_flight=1,2 (reduce_one_launch), ring_stage_vectors\n"
     "(reduce_bulk_ring); --list shows each variant's axes. A name\n"
     "no selected variant has is bad usage; beats --coarse"},
    {"--list", OPT_SWITCH, AT(list), HELP_PLAN, NULL,
     "print every variant (name, seed alias, description) and exit"},
    {"--dry-run", OPT_SWITCH, AT(dry_run), HELP_PLAN, NULL,
     "print the plan, its size and an estimated time: validation,\n"
     "timing, the profile phase (and the runs its model is fitted\n"
     "to), the drift check and confirmation; run nothing"},
    {"--shard", OPT_SHARD, AT(shard), HELP_PLAN, "I/N|auto",
     "run part I of N of the plan (0-based; parts balanced by the\n"
     "time model), or auto: I and N from Slurm, Open MPI, MPICH or\n"
     "PMIx (the local rank picks --device). `sweep merge` joins them"},
    {"--device", OPT_DEVICE, AT(device), HELP_MEASURE, "N", "CUDA device ordinal (default 0)"},
    {"--devices", OPT_DEVICES, AT(devices), HELP_MEASURE, "all|LIST",
     "one worker process per device (all, or ordinals 0,1,3), the\n"
     "configurations dealt heaviest first to whichever is free"},
    {"--time-limit", OPT_SECONDS, AT(time_limit_s), HELP_MEASURE, "DURATION",
     "start no input the time model (scaled by this run's pace)\n"
     "says would end after DURATION (540, 9m); then stop with\n"
     "every finished row kept, exit 75: --resume continues. For\n"
     "a command's time limit: nothing measured is thrown away"},
    {NULL, OPT_SETTINGS, 0, HELP_MEASURE, NULL, NULL},
    {"--no-cupti", OPT_SWITCH, AT(no_cupti), HELP_MEASURE, NULL, "no profiling: no metric columns, no profile phase"},
    {"--out", OPT_TEXT, AT(out), HELP_OUTPUT, "DIR",
     "output directory (default results/<timestamp>-<experiment>);\n"
     "with --shard, %r in DIR is the shard's index (results/full-%r)"},
    {"--resume", OPT_SWITCH, AT(resume), HELP_OUTPUT, NULL,
     "finish an interrupted run in --out DIR (default: the newest\n"
     "results/*-<experiment>), skipping the rows already there"},
    {"--force", OPT_SWITCH, AT(force), HELP_OUTPUT, NULL,
     "write into an existing output directory, replacing its results"},
    {"--quiet", OPT_SWITCH, AT(quiet), HELP_OUTPUT, NULL, "no progress line and no summary table"},
    {"--samples", OPT_SWITCH, AT(samples), HELP_OUTPUT, NULL,
     "also write samples.csv: every timed sample (ms per launch,\n"
     "the batch it was averaged over), cold and hot, per configuration"},
    {"--help", OPT_SWITCH, AT(help), HELP_OUTPUT, NULL, "this text"},
    {"-h", OPT_SWITCH, AT(help), HELP_NONE, NULL, NULL},
    {"--fake-device", OPT_SWITCH, AT(fake_device), HELP_MEASURE, NULL,
     "no GPU needed: a fake device with synthetic times (no CUDA\n"
     "call) runs the whole sweep, to try it or its outputs; also\n"
     "SWEEP_FAKE_DEVICE=1. run.json says fake_device: true"},
};
#undef AT
#define N_OPTIONS (sizeof options / sizeof options[0])

static void print_section(FILE *f, const char *title, int section)
{
    fprintf(f, "\n%s\n", title);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (options[i].section != section) continue;
        if (options[i].kind == OPT_SETTINGS) settings_print_help(f, (setting_group)section);
        else settings_help_line(f, options[i].name, options[i].metavar, options[i].help);
    }
}

void cli_usage(FILE *f)
{
    fputs(usage_head, f);
    print_section(f, "Experiment and plan:", HELP_PLAN);
    print_section(f, "Measurement:", HELP_MEASURE);
    print_section(f, "Output:", HELP_OUTPUT);
    fputs(usage_tail, f);
}

const char *cli_value(const sweep_options *o, const char *flag)
{
    const setting *s = settings_by_flag(flag, strlen(flag));
    return s ? o->values[settings_index(s)] : NULL;
}

static const cli_option *option_named(const char *arg, size_t len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].name && strlen(options[i].name) == len && !strncmp(options[i].name, arg, len))
            return &options[i];
    return NULL;
}

/* "unknown option '--verbos' (see --help); closest: --quiet": every flag the
 * sweep takes, options and settings, is a candidate. */
static void unknown_option(const char *arg, size_t len, char *err, size_t errlen)
{
    const char *names[N_OPTIONS + SETTINGS_MAX];
    size_t n = 0;
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].name && options[i].name[1] == '-') names[n++] = options[i].name + 2;
    for (size_t i = 0; i < settings_count(); i++)
        if (settings_get(i)->flag) names[n++] = settings_get(i)->flag + 2;
    char typed[128];
    snprintf(typed, sizeof typed, "%.*s", (int)(len < sizeof typed ? len : sizeof typed - 1), arg);
    snprintf(err, errlen, "unknown option '%s' (see --help)", typed);
    append_closest(err, errlen, "--", typed + strspn(typed, "-"), names, n);
}

/* A word where an option belongs; first on the line, perhaps a subcommand mistyped. */
static void unexpected_argument(const char *arg, int first, char *err, size_t errlen)
{
    static const char *const subcommands[] = {"compare", "merge", "confirm", "summary"};
    snprintf(err, errlen, "unexpected argument '%s' (options start with --; see --help)", arg);
    if (first) append_closest(err, errlen, "", arg, subcommands, sizeof subcommands / sizeof subcommands[0]);
}

/* One option that is not a setting, its value (NULL for a switch) checked. */
static int take_option(const cli_option *op, const char *value, sweep_options *o, char *err, size_t errlen)
{
    char *at = (char *)o + op->offset;
    if (op->kind == OPT_SWITCH) {
        *(int *)at = 1;
        return 0;
    }
    if (op->kind == OPT_DEVICE) {
        long d;
        char msg[256];
        if (parse_count(value, 0, 1023, &d, msg, sizeof msg)) {
            snprintf(err, errlen, "%s: %s", op->name, msg);
            return -1;
        }
        *(int *)at = (int)d;
        o->device_given = 1;
        return 0;
    }
    if (op->kind == OPT_DEVICES) {
        char msg[256];
        if (devices_parse_list(value, o->device_ordinals, DEVICES_MAX, &o->n_device_ordinals, &o->devices_all, msg,
                               sizeof msg)) {
            snprintf(err, errlen, "%s: %s", op->name, msg);
            return -1;
        }
    }
    if (op->kind == OPT_AXIS) {
        experiment scratch; /* parsed now, put by cli_apply */
        char msg[1024];
        memset(&scratch, 0, sizeof scratch);
        if (axis_values_assign(&scratch, value, op->name, msg, sizeof msg)) {
            snprintf(err, errlen, "%s: %s", op->name, msg);
            return -1;
        }
        if (o->n_axis_args == EXPERIMENT_MAX_AXIS_VALUES) {
            snprintf(err, errlen, "%s: more than %d given", op->name, EXPERIMENT_MAX_AXIS_VALUES);
            return -1;
        }
        o->axis_args[o->n_axis_args++] = scratch.axis_values[0]; /* parsed once, here */
        return 0;
    }
    if (op->kind == OPT_SECONDS) {
        char msg[256];
        if (parse_seconds(value, (double *)at, msg, sizeof msg)) {
            snprintf(err, errlen, "%s: %s", op->name, msg);
            return -1;
        }
        return 0;
    }
    if (op->kind == OPT_SHARD) {
        char msg[256];
        if (shard_parse(value, &o->shard_spec, msg, sizeof msg)) {
            snprintf(err, errlen, "%s: %s", op->name, msg);
            return -1;
        }
    }
    if (!value[0]) {
        snprintf(err, errlen, "%s: empty value", op->name);
        return -1;
    }
    *(const char **)at = value;
    return 0;
}

/* A setting's value, parsed once, into o->parsed (cli_apply copies it). */
static int take_setting(const setting *s, const char *value, sweep_options *o, char *err, size_t errlen)
{
    char msg[1024];
    if (s->parse(s, value, &o->parsed, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", s->flag, msg);
        return -1;
    }
    o->values[settings_index(s)] = value;
    return 0;
}

int cli_parse(int argc, char **argv, sweep_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && arg[0] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const cli_option *op = option_named(arg, name_len);
        const setting *s = op ? NULL : settings_by_flag(arg, name_len);
        if (!op && !s) {
            if (arg[0] == '-') unknown_option(arg, name_len, err, errlen);
            else unexpected_argument(arg, i == 1, err, errlen);
            return -1;
        }
        const char *name = op ? op->name : s->flag;
        int inline_value = eq && name_len < strlen(arg);
        if (op && op->kind == OPT_SWITCH) {
            if (inline_value) {
                snprintf(err, errlen, "%s takes no value (got '%s')", name, arg);
                return -1;
            }
            take_option(op, NULL, o, err, errlen);
            continue;
        }
        const char *value;
        if (inline_value) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else {
            snprintf(err, errlen, "%s needs a value (see --help)", name);
            return -1;
        }
        if (op ? take_option(op, value, o, err, errlen) : take_setting(s, value, o, err, errlen)) return -1;
    }
    if (o->devices && o->samples) { /* the workers would each need a samples.csv of their own: not built */
        snprintf(err, errlen, "--samples and --devices: not together yet (run --samples on one --device)");
        return -1;
    }
    if (o->devices && o->device_given) {
        snprintf(err, errlen, "--device and --devices: give one (--devices %s lists the devices)", o->devices);
        return -1;
    }
    if (o->resume && o->force) {
        snprintf(err, errlen, "--resume and --force contradict each other: --resume keeps the rows there, --force "
                              "replaces them");
        return -1;
    }
    return 0;
}

int cli_apply(const sweep_options *o, experiment *e, char *err, size_t errlen)
{
    for (size_t i = 0; i < settings_count(); i++) {
        const setting *s = settings_get(i);
        if (!o->values[i]) continue;
        setting_copy(s, &o->parsed, s->flag, e);
        /* The command line beats the file: its [axes:GLOB] values of this axis too. */
        if (s->axis) experiment_drop_override_key(e, i, NULL);
    }
    for (size_t i = 0; i < o->n_axis_args; i++) {
        const axis_values *a = &o->axis_args[i];
        if (axis_values_put(e, a->name, &a->values, "--axis")) {
            snprintf(err, errlen, "--axis: %s: more than %d named axes", a->name, EXPERIMENT_MAX_AXIS_VALUES);
            return -1;
        }
        experiment_drop_override_key(e, OVERRIDE_AXIS_BY_NAME, a->name);
    }
    /* --devices and --shard, for the dry-run's model of them */
    const char *fake = getenv("SWEEP_FAKE_DEVICE");
    e->spread = (run_spread){
        .workers = o->devices && !o->devices_all ? (unsigned)o->n_device_ordinals : 0,
        .workers_all = o->devices && o->devices_all,
        .fake = o->fake_device || (fake && *fake && strcmp(fake, "0") != 0),
        .shard_index = o->shard && !o->shard_spec.is_auto ? o->shard_spec.index : 0,
        .shard_count = o->shard && !o->shard_spec.is_auto ? o->shard_spec.count : 0,
        .shard_auto = o->shard && o->shard_spec.is_auto,
    };
    if (e->timing.max_samples < e->timing.min_samples) {
        snprintf(err, errlen, "%s: min samples (%u) above max samples (%u)",
                 cli_value(o, "--max-samples") ? "--max-samples" : "--min-samples", e->timing.min_samples,
                 e->timing.max_samples);
        return -1;
    }
    return 0;
}

size_t experiment_dirs(char dirs[][4096], size_t max)
{
    size_t k = 0;
    char buf[SWEEP_PATH_MAX], exe[SWEEP_PATH_MAX];
    const char *ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    if (ws && *ws && k < max && !path_join(dirs[k], 4096, ws, "experiments")) k++;
    const char *rf = getenv("RUNFILES_DIR");
    if (rf && *rf && k < max && !path_join(dirs[k], 4096, rf, WORKSPACE_NAME "/experiments")) k++;
    exe_dir(exe, sizeof exe);
    if (exe[0]) {
        /* <exe>.runfiles is beside the binary, named after it: find the binary's name. */
        char self[SWEEP_PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0) {
            self[n] = '\0';
            if (k < max && snprintf(dirs[k], 4096, "%s.runfiles/" WORKSPACE_NAME "/experiments", self) < 4096) k++;
        }
        if (k < max && !path_join(dirs[k], 4096, exe, "experiments")) k++;
        if (k < max && !path_join(dirs[k], 4096, exe, "../experiments")) k++;
    }
    if (getcwd(buf, sizeof buf) && k < max && !path_join(dirs[k], 4096, buf, "experiments")) k++;
    /* Drop repeats. */
    size_t out = 0;
    for (size_t i = 0; i < k; i++) {
        int dup = 0;
        for (size_t j = 0; j < out && !dup; j++) dup = !strcmp(dirs[j], dirs[i]);
        if (!dup && out != i) memcpy(dirs[out], dirs[i], 4096);
        if (!dup) out++;
    }
    return out;
}

/* A directory inside Bazel's output tree (runfiles, bazel-out): a user has
 * not seen it and cannot edit what is there. */
static int inside_bazel(const char *dir)
{
    return strstr(dir, ".runfiles/") || strstr(dir, "/bazel-out/");
}

/* The experiment names (NAME.ini) in dir, sorted; how many (at most cap). */
static size_t experiment_names_in(const char *dir, char names[][EXPERIMENT_NAME_LEN], size_t cap)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *en;
    while ((en = readdir(d)) != NULL && n < cap) {
        size_t l = strlen(en->d_name);
        if (l > 4 && l - 4 < EXPERIMENT_NAME_LEN && !strcmp(en->d_name + l - 4, ".ini") && en->d_name[0] != '.')
            snprintf(names[n++], EXPERIMENT_NAME_LEN, "%.*s", (int)(l - 4), en->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

/* "--experiment: no experiment 'defualt' in /ws/experiments (there: coarsening,
 * default, ...); closest: default": the names from the first directory that has
 * any, and a directory only where the user can see it. */
static void experiment_not_found(const char *arg, char dirs[][4096], size_t nd, char *err, size_t errlen)
{
    char names[64][EXPERIMENT_NAME_LEN];
    size_t n = 0, at = 0;
    for (; at < nd && !n; at++) n = experiment_names_in(dirs[at], names, 64);
    const char *shown = NULL;
    for (size_t i = 0; i < nd && !shown; i++)
        if (!inside_bazel(dirs[i]) && path_is_dir(dirs[i])) shown = dirs[i];
    snprintf(err, errlen, "--experiment: no experiment '%s'", arg);
    if (shown) snprintf(err + strlen(err), errlen - strlen(err), " in %s", shown);
    if (!n) {
        snprintf(err + strlen(err), errlen - strlen(err), " (no experiment files found; name an .ini file)");
        return;
    }
    snprintf(err + strlen(err), errlen - strlen(err), " (experiments:");
    const char *cands[64];
    for (size_t i = 0; i < n; i++) {
        snprintf(err + strlen(err), errlen - strlen(err), "%s %s", i ? "," : "", names[i]);
        cands[i] = names[i];
    }
    snprintf(err + strlen(err), errlen - strlen(err), ")");
    append_closest(err, errlen, "", arg, cands, n);
}

int find_experiment(const char *arg, char *path, size_t len, int *builtin, char *err, size_t errlen)
{
    *builtin = 0;
    path[0] = '\0';
    if (!arg) arg = "default";
    size_t alen = strlen(arg);
    if (strchr(arg, '/') || (alen > 4 && !strcmp(arg + alen - 4, ".ini"))) {
        if (resolve_user_path(arg, path, len)) {
            snprintf(err, errlen, "--experiment: '%s': path too long", arg);
            return -1;
        }
        if (!path_exists(path)) {
            snprintf(err, errlen, "--experiment: '%s': no such file (looked at %s)", arg, path);
            return -1;
        }
        return 0;
    }
    if (!experiment_name_ok(arg)) {
        snprintf(err, errlen, "--experiment: '%s' is neither an experiment name nor an .ini file", arg);
        return -1;
    }
    char dirs[8][4096];
    size_t nd = experiment_dirs(dirs, 8);
    char file[256];
    snprintf(file, sizeof file, "%s.ini", arg);
    for (size_t i = 0; i < nd; i++) {
        char p[SWEEP_PATH_MAX];
        if (path_join(p, sizeof p, dirs[i], file)) continue;
        if (path_exists(p)) {
            snprintf(path, len, "%s", p);
            return 0;
        }
    }
    if (!strcmp(arg, "default")) {
        *builtin = 1;
        return 0;
    }
    experiment_not_found(arg, dirs, nd, err, errlen);
    return -1;
}
