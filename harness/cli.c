#define _POSIX_C_SOURCE 200809L
#include "harness/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/files.h"

#define WORKSPACE_NAME "gpu_reduce_scan"

static const char usage_text[] =
    "usage: bazel run //harness:sweep -- [options]\n"
    "       sweep [options]                        (bundle: bin/sweep)\n"
    "       sweep compare BASE NEW [options]       two runs against each other (compare --help)\n"
    "\n"
    "Runs an experiment: each configuration is validated against the CPU reference\n"
    "(fresh random input, poisoned output; see --validate), then timed with CUDA\n"
    "events (cold: L2 flushed before each sample; hot: back-to-back launches), then\n"
    "profiled when a profiler is built in. Rows go to results.csv as they finish;\n"
    "run.json records the run, the device and its measured copy bandwidth.\n"
    "\n"
    "Experiment and plan:\n"
    "  --experiment NAME|FILE  experiments/NAME.ini, or an .ini file (default: default)\n"
    "  --variants GLOBS        comma-separated variant name globs, or exact seed aliases;\n"
    "                          !GLOB excludes: 'reduce_*,!reduce_cub', 'reduce0,scan_*'\n"
    "  --sizes LIST            element counts: 1048576, 2^20, 1M, 2^10..2^30:x4,\n"
    "                          1000..8000:+1000 (ranges step x2 by default)\n"
    "  --block-dims LIST       threads per block, powers of two: 128,256 or 64..1024 or all\n"
    "  --coarse LIST           coarse factors (elements per thread): 1..32\n"
    "  --dtype LIST            f32, f64, i32 or all\n"
    "  --op LIST               sum, max, min or all\n"
    "  --scan-mode LIST        scans: inclusive, exclusive or all\n"
    "  --finish LIST           reductions: first (each variant's first), all, or\n"
    "                          recursive, two_step, atomic, none\n"
    "  --list                  print every variant (name, seed alias, description) and exit\n"
    "  --dry-run               print the plan, its size and an estimated time; run nothing\n"
    "\n"
    "Measurement:\n"
    "  --device N              CUDA device ordinal (default 0)\n"
    "  --min-samples N         at least N samples per measurement (default 10)\n"
    "  --max-samples N         at most N samples per measurement (default 1000)\n"
    "  --max-noise PCT         stop once the median's relative standard error is below\n"
    "                          PCT percent (robust: from the MAD; default 0.5)\n"
    "  --timeout SECONDS       sampling time per configuration once min-samples are in,\n"
    "                          half cold, half hot (default 0.1; 500ms, 2s, 1m)\n"
    "  --validate all|N        validate every configuration (all), or every one up to\n"
    "                          n = N and above it the first per variant and n (default 2^26)\n"
    "  --seed N                base seed of the random inputs\n"
    "  --metrics LIST          the profile phase's metrics, one results.csv column each:\n"
    "                          study keys (warp_efficiency, dram_read_bytes, ...), legacy\n"
    "                          nvprof names or CUPTI names (dram__bytes_read.sum); default\n"
    "                          (the study's set) or none. Unknown names: exit 2, with the\n"
    "                          closest known ones. Each configuration is replayed once per\n"
    "                          pass, after its timing, the L2 flushed and emptied in each pass\n"
    "  --no-cupti              no profiling: no metric columns, no profile phase\n"
    "\n"
    "Output:\n"
    "  --out DIR               output directory (default results/<timestamp>-<experiment>)\n"
    "  --resume                finish an interrupted run in --out DIR (default: the newest\n"
    "                          results/*-<experiment>), skipping the rows already there\n"
    "  --force                 write into an existing output directory, replacing its results\n"
    "  --quiet                 no progress line and no summary table\n"
    "  --samples               also write samples.csv: every timed sample (ms per launch,\n"
    "                          the batch it was averaged over), cold and hot, per configuration\n"
    "  --help                  this text\n"
    "\n"
    "Relative paths are relative to the directory `bazel run` was started from.\n"
    "Exit status: 0 every configuration valid; 1 a validation failure, a CUDA error or\n"
    "no CUDA device; 2 bad usage (nothing is written); 130/143 interrupted by\n"
    "SIGINT/SIGTERM (results.csv holds the finished rows, run.json says interrupted).\n"
    "A failed configuration is a row with the CUDA error text and the run goes on; a\n"
    "sticky error (a lost CUDA context) stops it with the rows kept (exit 1; --resume\n"
    "continues). Configurations that do not fit in device memory are skipped rows; a\n"
    "--sizes value at which nothing fits is bad usage.\n";

void cli_usage(FILE *f) { fputs(usage_text, f); }

typedef struct flag {
    const char *name;
    int takes_value;
    size_t offset; /* of the const char * (value flags) or int (switches) in sweep_options */
} flag;

#define STR(field) offsetof(sweep_options, field)
static const flag flags[] = {
    {"--experiment", 1, STR(experiment)}, {"--variants", 1, STR(variants)},
    {"--sizes", 1, STR(sizes)},           {"--block-dims", 1, STR(block_dims)},
    {"--coarse", 1, STR(coarse)},         {"--dtype", 1, STR(dtypes)},
    {"--op", 1, STR(ops)},                {"--scan-mode", 1, STR(scan_modes)},
    {"--finish", 1, STR(finishes)},       {"--min-samples", 1, STR(min_samples)},
    {"--max-samples", 1, STR(max_samples)}, {"--max-noise", 1, STR(max_noise)},
    {"--timeout", 1, STR(timeout)},       {"--seed", 1, STR(seed)},
    {"--validate", 1, STR(validate)},     {"--metrics", 1, STR(metrics)},
    {"--out", 1, STR(out)},               {"--device", 2, 0},
    {"--list", 0, STR(list)},             {"--dry-run", 0, STR(dry_run)},
    {"--resume", 0, STR(resume)},         {"--force", 0, STR(force)},
    {"--no-cupti", 0, STR(no_cupti)},     {"--quiet", 0, STR(quiet)},
    {"--samples", 0, STR(samples)},
    {"--help", 0, STR(help)},             {"-h", 0, STR(help)},
    {"--fake-device", 0, STR(fake_device)}, /* tests: no CUDA, same NVTX tree (not in --help) */
};
#undef STR

/* Validate one override value with the parser its key uses. */
static int check_value(const char *opt, const char *value, char *err, size_t errlen)
{
    char msg[1024];
    experiment scratch;
    int r = 0;
    long x;
    double d;
    uint64_t u;
    finish_policy fp;
    unsigned mask;
    if (!strcmp(opt, "--variants")) r = parse_globs(value, &scratch.variants, msg, sizeof msg);
    else if (!strcmp(opt, "--sizes")) r = parse_sizes(value, &scratch.sizes, msg, sizeof msg);
    else if (!strcmp(opt, "--block-dims"))
        r = parse_block_dims(value, &scratch.block_dims, msg, sizeof msg);
    else if (!strcmp(opt, "--coarse"))
        r = parse_coarse(value, &scratch.coarse, msg, sizeof msg);
    else if (!strcmp(opt, "--dtype")) r = parse_dtypes(value, &mask, msg, sizeof msg);
    else if (!strcmp(opt, "--op")) r = parse_ops(value, &mask, msg, sizeof msg);
    else if (!strcmp(opt, "--scan-mode")) r = parse_scan_modes(value, &mask, msg, sizeof msg);
    else if (!strcmp(opt, "--finish")) r = parse_finishes(value, &fp, &mask, msg, sizeof msg);
    else if (!strcmp(opt, "--min-samples")) r = parse_count(value, 1, 1000000, &x, msg, sizeof msg);
    else if (!strcmp(opt, "--max-samples")) r = parse_count(value, 1, 100000000, &x, msg, sizeof msg);
    else if (!strcmp(opt, "--max-noise")) r = parse_percent(value, &d, msg, sizeof msg);
    else if (!strcmp(opt, "--timeout")) r = parse_seconds(value, &d, msg, sizeof msg);
    else if (!strcmp(opt, "--seed")) r = parse_u64(value, &u, msg, sizeof msg);
    else if (!strcmp(opt, "--validate")) r = parse_validate(value, &scratch.validate_all_to, msg, sizeof msg);
    else if (!strcmp(opt, "--metrics")) r = parse_metrics(value, &scratch, msg, sizeof msg);
    else if (!strcmp(opt, "--out") || !strcmp(opt, "--experiment")) {
        if (!value[0]) {
            snprintf(msg, sizeof msg, "empty value");
            r = -1;
        }
    }
    if (r) snprintf(err, errlen, "%s: %s", opt, msg);
    return r;
}

int cli_parse(int argc, char **argv, sweep_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && arg[0] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const flag *fl = NULL;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (strlen(flags[k].name) == name_len && !strncmp(flags[k].name, arg, name_len)) fl = &flags[k];
        if (!fl) {
            if (arg[0] == '-') snprintf(err, errlen, "unknown option '%.*s' (see --help)", (int)name_len, arg);
            else snprintf(err, errlen, "unexpected argument '%s' (options start with --; see --help)", arg);
            return -1;
        }
        if (!fl->takes_value) {
            if (eq && name_len < strlen(arg)) {
                snprintf(err, errlen, "%s takes no value (got '%s')", fl->name, arg);
                return -1;
            }
            *(int *)((char *)o + fl->offset) = 1;
            continue;
        }
        const char *value;
        if (eq && name_len < strlen(arg)) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else {
            snprintf(err, errlen, "%s needs a value (see --help)", fl->name);
            return -1;
        }
        if (fl->takes_value == 2) { /* --device */
            long d;
            char msg[256];
            if (parse_count(value, 0, 1023, &d, msg, sizeof msg)) {
                snprintf(err, errlen, "%s: %s", fl->name, msg);
                return -1;
            }
            o->device = (int)d;
            continue;
        }
        if (check_value(fl->name, value, err, errlen)) return -1;
        *(const char **)((char *)o + fl->offset) = value;
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
    char msg[1024];
    long x;
    int r = 0;
    const char *opt = "";
#define APPLY(field, flagname, call)  \
    if (!r && o->field) {             \
        opt = flagname;               \
        r = (call);                   \
    }
    APPLY(variants, "--variants", parse_globs(o->variants, &e->variants, msg, sizeof msg));
    APPLY(sizes, "--sizes", parse_sizes(o->sizes, &e->sizes, msg, sizeof msg));
    APPLY(block_dims, "--block-dims", parse_block_dims(o->block_dims, &e->block_dims, msg, sizeof msg));
    APPLY(coarse, "--coarse", parse_coarse(o->coarse, &e->coarse, msg, sizeof msg));
    APPLY(dtypes, "--dtype", parse_dtypes(o->dtypes, &e->dtypes, msg, sizeof msg));
    APPLY(ops, "--op", parse_ops(o->ops, &e->ops, msg, sizeof msg));
    APPLY(scan_modes, "--scan-mode", parse_scan_modes(o->scan_modes, &e->scan_modes, msg, sizeof msg));
    APPLY(finishes, "--finish", parse_finishes(o->finishes, &e->finish_policy, &e->finishes, msg, sizeof msg));
    APPLY(max_noise, "--max-noise", parse_percent(o->max_noise, &e->timing.max_noise, msg, sizeof msg));
    APPLY(timeout, "--timeout", parse_seconds(o->timeout, &e->timing.timeout_s, msg, sizeof msg));
    APPLY(seed, "--seed", parse_u64(o->seed, &e->seed, msg, sizeof msg));
    APPLY(validate, "--validate", parse_validate(o->validate, &e->validate_all_to, msg, sizeof msg));
    APPLY(metrics, "--metrics", parse_metrics(o->metrics, e, msg, sizeof msg));
#undef APPLY
    if (!r && o->min_samples) {
        opt = "--min-samples";
        if (!(r = parse_count(o->min_samples, 1, 1000000, &x, msg, sizeof msg))) e->timing.min_samples = (unsigned)x;
    }
    if (!r && o->max_samples) {
        opt = "--max-samples";
        if (!(r = parse_count(o->max_samples, 1, 100000000, &x, msg, sizeof msg)))
            e->timing.max_samples = (unsigned)x;
    }
    if (r) {
        snprintf(err, errlen, "%s: %s", opt, msg);
        return -1;
    }
    if (o->variants) snprintf(e->variants_origin, sizeof e->variants_origin, "--variants");
    if (e->timing.max_samples < e->timing.min_samples) {
        snprintf(err, errlen, "%s: min samples (%u) above max samples (%u)",
                 o->max_samples ? "--max-samples" : "--min-samples", e->timing.min_samples, e->timing.max_samples);
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
    char looked[2048] = "";
    for (size_t i = 0; i < nd; i++) {
        if (i) strncat(looked, ", ", sizeof looked - strlen(looked) - 1);
        strncat(looked, dirs[i], sizeof looked - strlen(looked) - 1);
    }
    snprintf(err, errlen, "--experiment: no experiment '%s' (looked for %s in: %s)", arg, file, looked);
    return -1;
}
