/* The sweep's steps before its loop: the command line and the plan, the
 * output directory, the device and its profiler, resumed rows, the files
 * created; and --list. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"
#include "harness/results/pack.h"

#include <errno.h>
#include <dirent.h>
#include <time.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        axis_bits(variant_axis_set(v, 0), cf, sizeof cf); /* "coarse": its own axis's values (tools parse it) */
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
        for (size_t k = 0; k < VARIANT_AXES_MAX && v->axes[k].name; k++) {
            char vals[64];
            axis_bits(v->axes[k].values, vals, sizeof vals);
            fprintf(f, "    axis %s = %s (%s): %s\n", v->axes[k].name, vals, v->axes[k].unit, v->axes[k].meaning);
        }
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
    r->shard = r->o.shard_spec; /* parsed by cli_parse */
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
int run_read_plan(sweep_run *r)
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
    r->model.profile_patched = r->plan.profile_patched;
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
    else if (results_unpack_dir(dir, why, sizeof why)) /* a packed run (sweep pack): plain CSVs to append to */
        snprintf(r->err, sizeof r->err, "--resume: %s", why);
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
int run_open_output(sweep_run *r)
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

/* Device memory (harness/config/plan_fit.h): a size that can never fit is bad usage;
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

/* The kernel's id of this boot: two runs with different ones ran on different
 * machines, or on one machine restarted, whatever their host names say. */
static void read_boot_id(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return;
    if (!fgets(buf, (int)len, f)) buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* What run.json says about the run, and the time model fitted to the device. */
void run_describe(sweep_run *r)
{
    run_info *ri = &r->ri;
    ri->run.have_device = 1;
    ri->fake_device = r->fake;
    ri->argc = r->argc;
    ri->argv = r->argv;
    snprintf(ri->run.date, sizeof ri->run.date, "%s", r->date);
    if (gethostname(ri->host, sizeof ri->host) != 0) snprintf(ri->host, sizeof ri->host, "unknown");
    ri->host[sizeof ri->host - 1] = '\0';
    read_boot_id(ri->boot_id, sizeof ri->boot_id);
    snprintf(ri->run.experiment, sizeof ri->run.experiment, "%.63s", r->e.name);
    snprintf(ri->experiment_source, sizeof ri->experiment_source, "%s", r->builtin ? "built in" : r->exp_path);
    ri->exp = &r->e;
    ri->run.peak_GBps = ri->device.peak_bandwidth_GBps;
    ri->run.copy_GBps = NAN;
    ri->run.launch_us = NAN;
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
int run_open_device(sweep_run *r)
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
int run_negotiate_profiler(sweep_run *r, const sweep_profiler *built_in)
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
void run_note_unheeded(sweep_run *r)
{
    char notes[2048];
    plan_unheeded_notes(&r->e, notes, sizeof notes);
    if (notes[0]) fprintf(stderr, "sweep: note: asked values some variants do not have; they run their own: %s\n", notes);
}

/* The rows already there (--resume) and the index the loop skips them by;
 * room for the plan's rows after them. */
int run_load_resume(sweep_run *r)
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
int run_create_files(sweep_run *r)
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
