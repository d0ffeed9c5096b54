/* Results: one row per configuration, and the printers that render them.
 *
 * results.csv -- one row per configuration, raw numbers (empty where not
 * measured), units in the header names. Fixed columns, in this order (plots
 * read them by name):
 *   variant, alias, family, kind, dtype, op, n, block_dim, coarse, finish,
 *   scan_mode, status (ok | invalid | error | skipped), skip_reason, error,
 *   validation_error_abs, validation_tolerance_abs, bytes_moved,
 *   time_cold_{median,min,mean,stdev,iqr}_ms, samples_cold,
 *   time_hot_{median,min,mean,stdev,iqr}_ms, samples_hot,
 *   bw_cold_GBps, bw_hot_GBps, bw_cold_pct_peak, bw_cold_pct_copy,
 *   speedup_vs_baseline, speedup_vs_cub,
 * then noise_cold_pct, noise_hot_pct, stop_cold, stop_hot, cold_batch,
 * hot_batch (launches per timed sample: times are per launch),
 * validated (yes: checked itself; no: timed on the check of the first
 * configuration of its variant, dtype, op, finish/mode and n), device,
 * the measurement conditions: sm_clock_{cold,hot}_{min,mean}_MHz (the SM
 * clock over the kept samples, measured on the device around each batch),
 * throttled_{cold,hot} (samples discarded as throttled and taken again),
 * gpu_temp_C, gpu_power_W, gpu_mem_clock_MHz and clock_events (NVML, read after the hot
 * phase; empty without NVML; the events are NVML's clock-event reasons seen
 * after the cold or the hot phase, idle left out), and
 * one column per profiler metric, `m:<name>[<unit>]`.
 *
 * Bandwidths are the variant's bytes_moved model over the cold (or hot)
 * median, in GB/s (1e9 bytes). Speedups compare cold medians with the fastest
 * configuration of the baseline (reduce_interleaved_divergent = reduce0 for
 * reductions, scan_naive for scans) and of CUB (reduce_cub, scan_cub) at the
 * same n, dtype, op (and scan mode) in the same file; empty when that
 * variant has no valid row there.
 *
 * run.json -- the run's identity, device and totals (see run_info).
 *
 * Where each part lives: rows in results_rows.c; the columns of results.csv,
 * one entry each, in results_columns.c (results_columns.h), their names,
 * order and the measured figures' tags (unit, schema, description) the
 * shared list results_io/columns.def and measures.def; run.json's keys the
 * list results_io/run_keys.def; the CSV writer
 * and reader in results_csv.c (parsing through results_io/csv.c, the reader
 * plots/ uses too); samples.csv in results_samples.c; run.json in
 * results_json.c; summary.md in results_summary.c. */
#ifndef HARNESS_RESULTS_H
#define HARNESS_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/device/device.h"
#include "harness/device/nvml_conditions.h"
#include "harness/config/plan.h"
#include "harness/device/profiler.h"
#include "harness/core/timing.h"
#include "results_io/columns.h"
#include "results_io/csv.h"
#include "results_io/row.h"
#include "results_io/run_info.h"

/* The newest schema, the largest a column of results_io/columns.def is tagged
 * with (4: clock, throttle and NVML columns; 3: device column; 2: cold_batch
 * column). */
#define SWEEP_SCHEMA_VERSION RESULTS_SCHEMA_NEWEST
/* The oldest schema still read (results.csv without the device column: the
 * device is run.json's). It is written back in its own schema on request
 * (csv_write_header_schema), else in this one. */
#define SWEEP_SCHEMA_OLDEST RESULTS_SCHEMA_OLDEST
#define SWEEP_BASELINE_REDUCE "reduce_interleaved_divergent"
#define SWEEP_BASELINE_SCAN "scan_naive"
#define SWEEP_CUB_REDUCE "reduce_cub"
#define SWEEP_CUB_SCAN "scan_cub"

typedef enum { ROW_OK = 0, ROW_INVALID, ROW_ERROR, ROW_SKIPPED } row_status;
const char *row_status_name(row_status s);

/* Where a run's device time went, in seconds, summed over its devices; and
 * how many configurations the timing's two stages measured
 * (harness/run/sweep_piece.c). */
typedef struct stage_times {
    double validate, prepare, warmup, cold, hot, conditions, refine, profile, confirm;
    double profile_queue, profile_run; /* of profile: queueing (a workspace each), the batches' passes */
    sweep_profile_times cupti; /* of profile_run: where it went, in CUPTI and around it */
    size_t screened, refined;
} stage_times;

typedef struct sweep_row {
    /* The row as plain data, the type the renderer and the readers of stored
     * runs share (results_io/row.h): the configuration by names and values,
     * every measured figure that is a number by RC_<ID> (validation, bytes
     * moved, bandwidths, speedups, NVML conditions, timing summaries once
     * written or read: NaN not measured) and the metric columns (metrics,
     * metric_count: owned). row_init fills its configuration from cfg; the
     * CSV writer and summary.md read the configuration and the status from
     * it. Its other texts (skip_reason, error, device, clock_events) are the
     * fields beside it here, not set in it. */
    results_row plain;
    sweep_config cfg; /* the compiled variant and its launch arguments (cfg.skip_reason is not used: see skip_reason) */
    row_status status; /* plain.status as a value: set both with row_set_status */
    int validated;     /* 1: validated itself; 0: timed on its group's validation (see experiment.validate_all_to); -1: not run */
    char *skip_reason; /* heap, NULL unless skipped */
    char *error;       /* heap, NULL when there is nothing to say */
    timing_stats cold, hot; /* samples == 0: not measured */
    unsigned cold_batch, hot_batch; /* launches per sample */
    double launch_ms;               /* the warm-up's timed launch, which sized the batches (in memory only; NaN: none) */
    char device[320]; /* the device that ran it, "ordinal:name:PCI bus id"; "" unknown */
    /* NVML after the timing ("" without NVML): see the file comment. */
    char clock_events[128];
} sweep_row;

/* A row for configuration c with every figure unset; metric_count columns. */
int row_init(sweep_row *r, const sweep_config *c, size_t metric_count);
void row_free(sweep_row *r);
/* The plain configuration of c (results_io/row.h): names from the variant
 * and the axis tables (static text), "" for finish in a scan and scan mode
 * in a reduction, the own axes by the variant's names. */
void row_plain_config(const sweep_config *c, results_row_config *out);
/* status and its text in the plain row (plain.status), together. */
void row_set_status(sweep_row *r, row_status s);
void row_set_error(sweep_row *r, const char *msg);
void row_set_skip(sweep_row *r, const char *reason);
/* r->device from d: "1:NVIDIA H200:0000:1b:00.0" (the bus id empty when unknown). */
void row_set_device(sweep_row *r, const device_info *d);

/* Bandwidths, % of peak and % of the measured copy bandwidth from the medians. */
void row_derive_bandwidth(sweep_row *r, double peak_GBps, double copy_GBps);
/* Is r ok with a cold median? */
int row_timed_ok(const sweep_row *r);
/* Has r a hot median? (None from [timing] hot_below x L2, timing.h.) */
int row_has_hot(const sweep_row *r);
/* A phase's relative noise as a comparison reads it (results_io/row.h
 * results_noise_as_read: widened where the row kept the screen's samples). */
double row_phase_noise(const timing_stats *t);
/* Speedups of every row against the baseline and CUB rows among rows[0..n). */
void rows_derive_speedups(sweep_row *rows, size_t n);

/* ---- results.csv ----------------------------------------------------------------------- */

typedef struct metric_columns {
    const sweep_metric *m;
    size_t count;
} metric_columns;

void csv_write_header(FILE *f, metric_columns mc);
void csv_write_row(FILE *f, const sweep_row *r, metric_columns mc);
/* The same in an older schema's columns (SWEEP_SCHEMA_OLDEST..SWEEP_SCHEMA_VERSION). */
void csv_write_header_schema(FILE *f, metric_columns mc, int schema);
void csv_write_row_schema(FILE *f, const sweep_row *r, metric_columns mc, int schema);
/* Is fixed column i (results_columns[]) in schema's files? */
int results_column_in_schema(size_t i, int schema);
/* Rows without a device (read from an older schema) get id. */
void rows_fill_device(sweep_row *rows, size_t n, const char *id);
/* The whole file, through write_file_atomic. */
int results_write_csv(const char *path, const sweep_row *rows, size_t n, metric_columns mc, char *err,
                      size_t errlen);

/* Read rows back (--resume). The header must be the one csv_write_header
 * writes for mc (or the one an older schema's did: *schema, when not NULL,
 * says which); a torn last line (no newline: the run died mid-write) is
 * dropped. Returns 0 and a malloc'd array, or -1 with a message. */
int results_read_csv(const char *path, metric_columns mc, sweep_row **rows, size_t *count, char *err,
                     size_t errlen);
int results_read_csv_schema(const char *path, metric_columns mc, sweep_row **rows, size_t *count, int *schema,
                            char *err, size_t errlen);

/* The same for a results.csv whose metric columns are not known in advance
 * (compare): the fixed columns must be this build's (the schema), each
 * further column m:<name>[<unit>]. A torn last line (no newline) is dropped
 * and flagged in torn. Rows of variants this build does not know (a run of
 * another build) are read all the same, their variant described by the
 * row's columns (results_variant_read), and counted and named. Returns 0, or -1 with a
 * message naming the file. */
typedef struct results_file {
    sweep_row *rows;
    size_t count;
    sweep_metric *metrics; /* the m: columns, in order */
    size_t metric_count;
    int torn;
    int schema;                  /* the file's: SWEEP_SCHEMA_OLDEST..SWEEP_SCHEMA_VERSION */
    size_t unknown_rows;         /* rows of variants not in this build (read: see results_variant_read) */
    char unknown_variants[512];  /* those variants' names, comma-separated (cut at the size) */
    /* The same rows as plain data, the type the renderer reads too
     * (results_io/row.h: names, own axes by name, tagged figures, metrics);
     * plain[i] is rows[i]. Its strings point into table. */
    results_row *plain;
    csv_table table;
} results_file;
int results_read_csv_any(const char *path, results_file *out, char *err, size_t errlen);
void results_file_free(results_file *f);

/* ---- samples.csv (--samples): every timed sample -------------------------------------- */

/* One measurement's samples: the configuration's config_label and phase. */
typedef struct sample_series {
    char *label;
    int hot; /* 0 cold, 1 hot */
    unsigned batch;
    double *ms;
    size_t n, cap;
    size_t order; /* position in the file */
} sample_series;

typedef struct samples_file {
    sample_series *s; /* sorted by label, phase; one per configuration and phase */
    size_t n, cap;
} samples_file;

/* The header the sweep writes (with its newline). */
const char *samples_csv_header(void);
/* Read samples.csv. Of several series of one configuration and phase (a
 * measurement taken again with twice the batch), the last is kept: the
 * row's. A cut-off last line is an error. 0, or -1 with a message. */
int samples_read_csv(const char *path, samples_file *out, char *err, size_t errlen);
const sample_series *samples_find(const samples_file *f, const char *label, int hot);
void samples_file_free(samples_file *f);

/* ---- run.json ------------------------------------------------------------------------------ */

/* One device of the run (run.json "devices"): a --devices worker's, or the one device. */
typedef struct run_device {
    device_info info;
    double copy_bandwidth_GBps; /* NaN: not measured */
    double launch_us;           /* NaN: not measured */
    size_t configs;             /* configurations whose rows it ran */
    char fault[512];            /* why its worker ended early; "" none */
} run_device;

/* The writer's state of run.json. What its readers take back
 * (results_io/run_info.h: experiment, date, interrupted, device name,
 * bandwidths, notes) is the shared results_run, run; the rest is what only
 * the sweep writes. */
typedef struct run_info {
    results_run run; /* experiment, date (start, ISO 8601 UTC), interrupted, have_device, peak_GBps (NaN: unknown),
                      * copy_GBps (NaN: not measured), notes (values asked that some variants cannot honour,
                      * "; "-separated, "" none: run.json's "notes" read back; see run_info_notes) */
    int argc;
    char **argv;
    char git_sha[64]; /* "unknown" outside a checkout */
    int git_dirty;    /* 0, 1, or -1 unknown */
    char host[256];
    char boot_id[64]; /* /proc/sys/kernel/random/boot_id: which boot of which machine ("" unknown) */
    char experiment_source[4096];
    const experiment *exp; /* for the plan's axes and timing */
    int fake_device;
    device_info device; /* when run.have_device */
    metric_columns metrics;
    int profiler_passes;
    char profiler_status[256];
    size_t plan_configs, plan_skipped;
    int complete;
    char stop_reason[600]; /* why the run stopped early ("" when it did not) */
    size_t rows, failures, skipped;
    double wall_time_s;
    /* Seconds the validate phase took over the run's configurations (this
     * process's; NaN where worker processes measured them: --devices). */
    double validate_s;
    /* Where the run's time went, every device's summed (run.json "stages"). */
    stage_times stages;
    /* --shard (harness/config/shard.h): shard_count 0 = the whole plan ("shard": null) */
    unsigned shard_index, shard_count;
    char shard_source[16];
    size_t plan_total;           /* the whole plan's configurations (plan_configs: this shard's) */
    const size_t *row_positions; /* per row, its index in the whole plan (run.json plan_positions); NULL: none */
    char plan_fingerprint[17];   /* "" unknown */
    const run_device *devices;   /* every device that ran rows (run.json "devices"); NULL: none said */
    size_t device_count;
    size_t worker_faults, left_for_resume; /* --devices: workers lost; configurations not run */
    /* Measurement conditions (NVML) at the start and the end of the run;
     * nvml_status "" when read, else why not ("NVML not available: ..."). */
    char nvml_status[256];
    gpu_conditions cond_start, cond_end;
    /* After the main pass (harness/run/drift.h, harness/run/confirm.h); NULL: not run,
     * and the note says why ("" when not asked for). */
    const struct drift_report *drift;
    char drift_note[256];
    const struct confirm_line *confirm;
    size_t confirm_count;
    unsigned confirm_rounds;
    double confirm_margin; /* fraction */
    char confirm_note[256];
} run_info;

int run_json_write(const char *path, const run_info *ri, char *err, size_t errlen);

/* The run's device as rows name it ("ordinal:name:bus id"), from run.json's
 * "device" (for rows of an older schema); "" when it has none. */
void run_json_device_id(const char *path, char *out, size_t len);

/* What summary_print reads of a run (experiment, interrupted, device name,
 * peak and copy bandwidth), from a loaded run.json object (jansson's json_t). */
struct json_t;
void run_json_summary_info(const struct json_t *run, run_info *ri);

/* The notes of a run: from its experiment (plan_unheeded_notes) when exp is
 * set, else those read back from run.json; "" when none. */
void run_info_notes(const run_info *ri, char *buf, size_t len);

/* What --resume needs from an existing run.json: its experiment and schema. */
int run_json_read_identity(const char *path, char *experiment, size_t len, int *schema_version, char *err,
                           size_t errlen);

/* ---- the summary ------------------------------------------------------------------------------ */

/* Markdown: the best configuration per n (per kind, dtype, op, scan mode),
 * then failures, then skip totals. */
void summary_print(FILE *f, const sweep_row *rows, size_t n, const run_info *ri);
int summary_write(const char *path, const sweep_row *rows, size_t n, const run_info *ri, char *err, size_t errlen);

#endif
