/* Experiments and plans.
 *
 * Where each part lives: the settings of an experiment and the built-in
 * default, harness/config/settings.c (one table entry per setting); experiment
 * files, experiment_file.c; the plan's axes (how each axis setting expands,
 * lands in a configuration and prints), plan_axes.c, reached through the
 * settings table; plan expansion and selection, plan.c; the time model,
 * plan_estimate.c; the dry-run printer, plan_print.c.
 *
 * An experiment is a value: which variants, which axis values, how to time,
 * which metrics. It comes from the built-in default or an .ini file
 * (experiments/NAME.ini), then command-line overrides replace single fields.
 * A plan is the experiment expanded against the registry: one configuration
 * per combination, in a fixed order (variant, dtype, op, finish or scan mode,
 * n, block dim, coarse factor). Combinations a variant rejects stay in the plan
 * as skipped configurations with the variant's reason (NVBench's state.skip);
 * axes a variant does not have collapse to its one value instead of
 * multiplying (coarse factor 1 for a variant without one, CUB's nominal block
 * dim, FINISH_NONE for a technique that ends in one value by itself).
 *
 * Experiment file format (every key optional; a missing key keeps the
 * built-in default's value; unknown sections or keys, duplicate keys and bad
 * values are errors reported as file:line):
 *
 *   [experiment]  name, description, question, lead_chart, variants, families, seed,
 *                 validate, cpu_baseline
 *   [axes]        sizes, block_dims, coarse, dtypes, ops, scan_modes, finishes
 *   [timing]      min_samples, max_samples, max_noise, timeout, throttle_threshold,
 *                 throttle_recovery, drift_check, screen, refine_within, hot_below
 *   [profile]     metrics   (default | none | comma-separated metric names)
 *   [confirm]     rounds, candidates, within
 *   [axes:GLOB]   block_dims, coarse, scan_modes, finishes for the variants
 *                 GLOB matches (the first such section that matches wins;
 *                 a command-line flag of that axis replaces these too)
 *
 * Long lists may continue on indented lines. See experiments/default.ini. */
#ifndef HARNESS_PLAN_H
#define HARNESS_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/config/axes.h"
#include "harness/core/timing.h"
#include "kernels/variant.h"

#define EXPERIMENT_NAME_LEN 64
#define EXPERIMENT_MAX_METRICS 64
#define EXPERIMENT_METRIC_LEN 128

typedef enum { PLAN_ORDER_VARIANT, PLAN_ORDER_SIZE } plan_order;

typedef enum {
    METRICS_DEFAULT = 0, /* the profiler's default set */
    METRICS_NONE,        /* no profiling */
    METRICS_LIST,        /* the names listed */
} metrics_mode;

/* An [axes:GLOB] section: the per-variant axis keys it sets, each parsed
 * once when the file is read (by the same settings-table entry as in [axes],
 * or as a named own axis) into its value; the plan and the dry run put those
 * values over a copy of the experiment for the variants GLOB matches
 * (harness/config/plan_overrides.h). */
#define EXPERIMENT_MAX_OVERRIDES 16
#define OVERRIDE_MAX_KEYS 4
#define OVERRIDE_VALUE_LEN 256 /* the longest value text a key may have */
#define OVERRIDE_LIST_MAX 32   /* values of a list key: powers of two, so at most 32 below 2^32 */
#define OVERRIDE_GLOB_LEN 40   /* inih keeps section names under 50 characters */
#define OVERRIDE_AXIS_BY_NAME ((size_t)-1)
typedef struct override_value {
    size_t list[OVERRIDE_LIST_MAX]; /* block_dims, coarse, a named own axis: the values, ascending */
    size_t count;
    unsigned mask;        /* scan_modes, finishes: the values' bits */
    finish_policy policy; /* finishes: first, all or the mask's list */
} override_value;
typedef struct axes_override {
    char glob[OVERRIDE_GLOB_LEN];
    int line; /* of the section header, in e->source */
    size_t n_keys;
    struct {
        size_t setting; /* settings_index() of the [axes] entry, or OVERRIDE_AXIS_BY_NAME */
        char axis[32];  /* OVERRIDE_AXIS_BY_NAME: the own axis's name (harness/axis_values.h) */
        int line;
        override_value value;
    } keys[OVERRIDE_MAX_KEYS];
} axes_override;

/* The values asked of one own axis of the variants, by its name
 * (harness/axis_values.h). */
#define EXPERIMENT_MAX_AXIS_VALUES 8
#define AXIS_NAME_LEN 32
typedef struct axis_values {
    char name[AXIS_NAME_LEN];
    size_list values;
    char origin[96]; /* "--axis", "experiments/x.ini:7" */
} axis_values;

/* How the command line spreads the run over processes: --devices and
 * --shard as cli_apply read them (an experiment file cannot set them). The
 * dry-run models them (plan_print); nothing else reads them. */
typedef struct run_spread {
    unsigned workers;  /* --devices LIST: the devices listed; 0: one device, in this process */
    int workers_all;   /* --devices all: as many as the device layer counts */
    int fake;          /* the fake device layer: SWEEP_FAKE_DEVICES counts its devices */
    unsigned shard_index, shard_count; /* --shard I/N; count 0: no --shard */
    int shard_auto;    /* --shard auto: I and N are the launcher's */
} run_spread;

typedef struct experiment {
    char name[EXPERIMENT_NAME_LEN];
    char description[256];
    /* What the experiment asks and the chart family its report leads with
     * (plots_chart_families: speedup-vs-cub, ladder, ...); "" when not set:
     * the renderer then falls back to its rule (plots/answer.h). */
    char question[512];
    char lead_chart[32];
    char source[4096]; /* the file it was read from; "" for the built-in default */
    glob_list variants; /* name globs or exact aliases; empty = every variant */
    glob_list families; /* family globs; empty = every family */
    /* Where variants / families were set ("experiments/x.ini:4", "--variants";
     * "" for the default), so a glob that matches nothing is reported there. */
    char variants_origin[4200], families_origin[4200];
    size_list sizes;
    size_list block_dims;
    /* Own axes: the values asked by name, and `coarse`, the list of every
     * variant's one own axis that no name covers (the older spelling);
     * coarse_origin: where it was set, "" for the built-in default. */
    axis_values axis_values[EXPERIMENT_MAX_AXIS_VALUES];
    size_t n_axis_values;
    size_list coarse;
    char coarse_origin[4200];
    unsigned dtypes, ops, scan_modes; /* bitmasks of dtype_t, op_t, scan_mode_t */
    finish_policy finish_policy;
    unsigned finishes; /* FINISHES_LIST: bitmask of finish_t */
    timing_params timing;
    uint64_t seed; /* base seed of the random inputs */
    /* Validation: 0 = every configuration; else every configuration with
     * n <= validate_all_to, and above it the first configuration of each
     * (variant, dtype, op, finish or scan mode, n) -- the others of that group
     * are timed on its evidence, and validate themselves if it failed. */
    size_t validate_all_to;
    /* [axes] max_input_bytes: configurations whose input (n elements of its
     * dtype) is larger are skipped, so one sizes list can stop each dtype at
     * its own n (2^34 f32, 2^33 f64 = 64 GiB); 0: no cap. */
    size_t max_input_bytes;
    /* Also time the one-thread CPU loop (harness/backend/cpu_baseline.h) for every
     * dtype, op and n of the plan's reductions: a `cpu_serial` row each. */
    int cpu_baseline;
    /* The plan's order: each input's (dtype, op, kind, scan mode, n)
     * configurations together, every variant at one size before the next size
     * (PLAN_ORDER_SIZE, the default: one CPU reference per input, fuller
     * profile batches, every variant timed in the same stretch of the run), or
     * each variant's together (PLAN_ORDER_VARIANT). Within an input the
     * variant order stays. */
    plan_order order;
    metrics_mode metrics_mode;
    char metrics[EXPERIMENT_MAX_METRICS][EXPERIMENT_METRIC_LEN];
    size_t metric_count;
    /* Configurations a CUPTI session profiles together, at most (1..512,
     * SWEEP_PROFILE_QUEUE_MAX): a pass's start and stop are shared by them,
     * while each range's push and pop cost grows with them (settings.c says
     * what chose the default). */
    unsigned profile_batch;
    /* After the main pass (harness/run/drift.h, harness/run/confirm.h): the first
     * drift_check configurations measured again (0: none); and, where the
     * plan has library rows, the confirmation phase: confirm_rounds
     * interleaved rounds (0: none) of at most confirm_candidates of ours
     * within confirm_within (a fraction) of the fastest, and the library. */
    unsigned drift_check;
    unsigned confirm_rounds, confirm_candidates;
    double confirm_within, confirm_margin;
    /* [axes:GLOB] sections, in file order; none: every variant takes [axes]. */
    axes_override overrides[EXPERIMENT_MAX_OVERRIDES];
    size_t n_overrides;
    run_spread spread; /* the command line's --devices and --shard (the dry-run models them) */
} experiment;

/* The built-in default experiment (the same as experiments/default.ini):
 * each setting's fallback value (harness/config/settings.c). */
void experiment_defaults(experiment *e);

/* Read an experiment file over the defaults. The name defaults to the file's
 * base name without .ini. Returns 0, or -1 with "path:line: message". */
int experiment_load(const char *path, experiment *e, char *err, size_t errlen);

/* The same from text in memory; `display_path` names it in messages. */
int experiment_parse_string(const char *text, const char *display_path, experiment *e, char *err, size_t errlen);

/* The same from `len` bytes that need not end in NUL (what the fuzz target
 * feeds). The bytes must be UTF-8 text without control characters (else
 * "path:line: binary data ..."), at most EXPERIMENT_FILE_MAX of them, and set
 * at least one key (an empty file is an error: "path: empty experiment file"). */
#define EXPERIMENT_FILE_MAX (256 * 1024)
int experiment_parse_buffer(const char *data, size_t len, const char *display_path, experiment *e, char *err,
                            size_t errlen);

/* The validate key: "all" (0) or one size. */
int parse_validate(const char *text, size_t *all_to, char *err, size_t errlen);
/* Above this n every configuration validates itself, whatever `validate` says. */
#define VALIDATE_EACH_ABOVE ((size_t)0x7fffffff)

/* The metrics key and --metrics: "default", "none", or a comma-separated list
 * of study keys (warp_efficiency), legacy nvprof names (gld_efficiency) or
 * CUPTI names (dram__bytes_read.sum). An unknown name is an error naming the
 * closest known ones (cupti/metrics.h); the chip-level check comes later. */
int parse_metrics(const char *text, experiment *e, char *err, size_t errlen);

/* An experiment name is [A-Za-z0-9_.-]+ (it names directories and NVTX ranges). */
int experiment_name_ok(const char *name);

/* One configuration: a variant and its named axis values (no buffers; the
 * launch's kernel_args is filled from it by config_kernel_args). */
typedef struct sweep_config {
    const variant *v;
    dtype_t dtype;
    op_t op;
    size_t n;
    unsigned block_dim;
    unsigned axis[VARIANT_AXES_MAX]; /* the variant's own axes, in its order; 1 where none */
    finish_t finish;                 /* reductions */
    scan_mode_t scan_mode;           /* scans */
    const char *skip_reason; /* NULL: run it; else why it is skipped (static text) */
    int validate;            /* 1: validated itself; 0: its group's first configuration vouches for it */
    unsigned peers;          /* run configurations of its variant at its input, itself included (0: skipped):
                                how many of them the refine stage takes (plan_estimate.c) */
} sweep_config;

/* The kernel_args of c's launch: its values, no buffers (the caller sets
 * in, out and workspace). Only where a kernel is launched or its launch checked. */
void config_kernel_args(const sweep_config *c, kernel_args *a);

/* c's bytes moved by the variant's model (c->v->bytes_moved must be set). */
double config_bytes_moved(const sweep_config *c);

/* The workspace bytes c->v asks for c's launch; 0 when it needs none. */
size_t config_workspace_size(const sweep_config *c);

typedef struct sweep_plan {
    sweep_config *configs;
    size_t count;    /* every configuration, skipped ones included */
    size_t skipped;
    size_t variants; /* distinct variants */
    /* The model's profiler passes for the experiment's metrics (0: none;
     * estimate_profile_passes): what --shard and --devices weigh the pieces
     * by, the same on every process whatever its device. */
    unsigned profile_passes;
    int profile_patched; /* estimate_profile_patched */
    unsigned profile_batch; /* the experiment's: the model's batches */
    /* the device memory the model's batches are cut for (their workspace cap,
     * harness/device/profiler.h): the study's H200, on every process alike */
    size_t model_memory_bytes;
} sweep_plan;

/* Expand e against the registry. Fails (-1, message) when a variant or family
 * glob matches no registered variant, when nothing at all is selected, or
 * when a variant named exactly (no wildcard) is asked for a dtype/op pair it
 * cannot do while neither the dtype nor the op axis is `all` ("--variants:
 * reduce_atomic_global does not do f32 max: <its limits>"); through a glob or
 * with `all`, such configurations are skipped rows with that reason. */
int plan_build(const experiment *e, sweep_plan *p, char *err, size_t errlen);

/* Settings a variant cannot honour. Where a variant has one value on an axis
 * (reduce_cub: block dim 256; a variant without a coarse factor: 1; a
 * one-value reduction: finish none) and the experiment asks for others:
 * asked of that variant alone (it is the only one selected that has the
 * axis, or an [axes:GLOB] that matches it alone sets the axis), plan_build refuses it
 * ("block_dims: reduce_cub runs at block dim 256 only, not 512 ..."); asked
 * of several (a list for every variant), the variant runs its own value and
 * this names each case in buf ("reduce_cub block dim 256 (asked 512); ..."),
 * "" when there is none. A plan in which every configuration is skipped, or
 * none exists, is refused too, with the skip reasons. */
void plan_unheeded_notes(const experiment *e, char *buf, size_t len);
void plan_free(sweep_plan *p);

/* The experiment as variant v sees it: e itself, or (the first [axes:GLOB]
 * that matches v applied) *scratch. */
const experiment *experiment_for_variant(const experiment *e, const variant *v, experiment *scratch);

/* Drop the key of axis setting index `setting` (OVERRIDE_AXIS_BY_NAME: of
 * the own axis `name`) from every [axes:GLOB] section (a command-line flag
 * replaces them); a section left empty goes. */
void experiment_drop_override_key(experiment *e, size_t setting, const char *name);

/* Does the experiment select variant v (variants and families globs)? */
int experiment_selects(const experiment *e, const variant *v);

/* The variant's own axes with their values, "name=value" joined by sep
 * ("items_per_thread=4", "a=2;b=4"); "" where it has none. The one format of
 * the axes for results.csv's axes column, summary.md and config_label.
 * Returns the length the whole text needs (as snprintf). */
size_t config_axes_text(const sweep_config *c, const char *sep, char *buf, size_t len);

/* "reduce_one_launch f32 sum n=1048576 block=256 vectors_in_flight=4 none"
 * ("reduce_cub f32 sum n=1024 block=256 none" where the variant has no own
 * axis): the configuration's name in progress lines, NVTX ranges, confirm.csv,
 * samples.csv and messages. Runs of results.csv schema 4 and before wrote
 * "coarse=<first own axis>" for every variant (results_label_migrate reads them). */
void config_label(const sweep_config *c, char *buf, size_t len);

/* The axes that identify a configuration's row (resume matches on them). */
int config_same_axes(const sweep_config *x, const sweep_config *y);

/* Whether c may share a profile batch with `first` (harness/device/profiler.h):
 * both launched on the device with the same input and output buffers, that
 * is the same kind, dtype and n (the input's seed is the dtype's and n's);
 * variant, op, finish and scan mode may differ. The sweep batches by it and
 * the time model counts batches by it. */
int config_batch_with(const sweep_config *first, const sweep_config *c);

/* Whether a and b read the same input: kind, dtype, n, op and (scans) scan
 * mode -- one CPU reference, one set of buffers (so also config_batch_with). */
int config_same_input(const sweep_config *a, const sweep_config *b);

/* Whether c's hot phase is timed: its input is under hot_below_l2 times
 * l2_bytes (timing_params; either 0: always). Every stage asks it: the
 * screen, the refine, and through the rows, the drift check and the
 * confirmation. */
int config_times_hot(const sweep_config *c, unsigned hot_below_l2, size_t l2_bytes);

/* The plan's input groups: maximal runs of consecutive configurations of one
 * input (config_same_input), skipped ones included. The unit of work of
 * --devices and --shard: a group is measured by one process, which keeps its
 * CPU reference and profiles it in one CUPTI session a batch. With order =
 * size a group is every variant at that input; with order = variant, one
 * variant's. */
typedef struct plan_group {
    size_t first, count; /* plan indices first .. first + count - 1 */
} plan_group;
/* *out (malloc'd, one per group, plan order) and *n. 0, or -1: no memory. */
int plan_groups(const sweep_plan *p, plan_group **out, size_t *n);

/* ---- the time a plan takes ------------------------------------------------------
 * A model, not a measurement: kernels at a third of peak bandwidth, the L2
 * flush, launch and synchronisation overheads, min_samples x 1.5 samples per
 * measurement (capped by the timeout), and validation's host work (filling,
 * copying, the CPU reference over the machine's cores). */
typedef struct estimate_model {
    double peak_GBps;   /* device memory bandwidth */
    size_t l2_bytes;
    int host_threads;   /* cores the CPU reference uses */
    int no_profile;     /* --no-cupti: no profile phase, whatever the metrics */
    unsigned profile_passes; /* the profiler's passes once it is set up: estimate_config_s
                                then includes each configuration's profile phase; 0: not */
    int profile_patched;     /* one of them runs SASS-patched kernels (estimate_profile_patched) */
    unsigned host_profilers; /* processes profiling at once on the host (--devices N: N); 0 or 1: alone */
} estimate_model;

/* The H200's memory as CUDA reports it (run.json global_mem_bytes): what the
 * model's profile batches are cut for, the same on every process (sweep_plan). */
#define PLAN_MODEL_MEMORY_BYTES ((size_t)150109880320ULL)
/* An H200 (the study's device) on a 16-core host; used when no device is open. */
estimate_model estimate_model_default(void);
/* A variant's launches' bytes over their time, as a fraction of an H200's
 * peak (plan_speed.c, from committed runs); PLAN_SPEED_UNKNOWN where it has
 * no committed rows. plan_speed_variant(i): the i-th listed name, NULL past
 * the end (tests: every name is a registered variant). */
#define PLAN_SPEED_UNKNOWN (1.0 / 3.0)
double plan_variant_speed(const variant *v);
const char *plan_speed_variant(size_t i);

double estimate_config_s(const sweep_config *c, const timing_params *t, const estimate_model *m);
/* The same in its two parts: validation's host and device work, and timing. */
void estimate_config_parts(const sweep_config *c, const timing_params *t, const estimate_model *m, double *validate_s,
                           double *measure_s);
/* The plan's timing in its two stages (estimate_config_parts' measure, summed):
 * every configuration's screen, and the refine stage's expected configurations
 * (*refined, fractional) and their time. With no screen, *screen_s is the
 * full-rule timing and the rest 0. */
void estimate_timing_stages(const sweep_plan *p, const timing_params *t, const estimate_model *m, double *screen_s,
                            double *refine_s, double *refined);
/* Validation's CPU references: one per input the plan's checks share
 * (harness/check/check.c keeps the last), in plan order; estimate_plan_s
 * includes it, estimate_config_s does not. */
double estimate_references_s(const sweep_plan *p, const estimate_model *m);
/* The run's fixed start-up: context, copy bandwidth, buffers. */
#define RUN_STARTUP_S 3.0
/* Whole plan, skipped configurations cost nothing; plus the run's fixed start-up. */
double estimate_plan_s(const sweep_plan *p, const timing_params *t, const estimate_model *m);

/* After the rows: the drift check (the first e->drift_check configurations
 * measured again) and, where the plan has library rows, the confirmation
 * (per kind, dtype, op, mode and n with one: up to e->confirm_candidates + 1
 * entrants, e->confirm_rounds rounds of a cold and a hot measurement of
 * min_samples each). Seconds, each part on its own. */
/* The profile phase: how many configurations it replays, in how many passes
 * each (the profiler's own count is known only once the device is open:
 * this is the model's), and the time; 0 where metrics are off (none,
 * --no-cupti). The model's constants and the runs that chose them are in
 * plan_estimate.c; `how` gets one line naming them. */
double estimate_profile_s(const sweep_plan *p, const experiment *e, const estimate_model *m, size_t *configs,
                          unsigned *passes, char *how, size_t howlen);

void estimate_after_rows(const sweep_plan *p, const experiment *e, const estimate_model *m, double *drift_s,
                         double *confirm_s, size_t *confirm_sizes);

/* The profiler's passes the model counts for e's metrics (the rule of
 * estimate_profile_s): 0 with metrics none, 2 for the default set, one per
 * 8.5 hardware metrics of a list and one more where it holds SASS-patched
 * ones (cupti/metrics.h). */
unsigned estimate_profile_passes(const experiment *e);
/* Whether e's metrics include SASS-patched ones: their pass runs slow kernels. */
int estimate_profile_patched(const experiment *e);
/* One input's CPU reference (kind, dtype, n, op, scan mode of c), what
 * estimate_references_s counts once per input. */
double estimate_reference_s(const sweep_config *c, const estimate_model *m);
/* A configuration's own time in a piece of work: estimate_config_s without
 * any share of a profile batch (m->profile_passes is not read), plus, with
 * `passes`, its own ranges of the profile phase. */
double estimate_config_own_s(const sweep_config *c, const timing_params *t, const estimate_model *m, unsigned passes);
/* Plan indices first .. first + count - 1 measured by one process on its
 * own: each configuration's own time, its input's reference once per run of
 * one input (where any validates), and with `passes` the profile batches as
 * the sweep opens them (at most 64 configurations on the same buffers) --
 * what a piece of --devices or --shard costs, its start-up aside. */
double estimate_piece_s(const sweep_plan *p, size_t first, size_t count, const timing_params *t,
                        const estimate_model *m, unsigned passes);

/* "1 h 02 min", "3 min 12 s", "42 s", "0.4 s" */
void format_duration(double s, char *buf, size_t len);

/* The dry-run rendering: axes, one line per variant (configurations, skipped,
 * estimated time), skip reasons, totals and the estimate. */
void plan_print(FILE *f, const experiment *e, const sweep_plan *p, const estimate_model *m);

#endif
