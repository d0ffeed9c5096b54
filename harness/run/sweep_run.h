/* One run of the sweep, shared by the files that carry it out (not an
 * interface: harness/run/sweep.h is). Who holds what:
 *   sweep.c           sweep_main: the steps in order
 *   sweep_setup.c     command line, plan, output directory, device, profiler,
 *                     resumed rows, the files created; --list
 *   sweep_config.c    one configuration: validate, warm up, time, profile
 *   sweep_loop.c      the single-device loop and the process warm-up
 *   sweep_piece.c     one input's configurations: screen, refine, profile
 *   sweep_dispatch.c  --devices: the workers and the parent that deals to them
 *   sweep_after.c     the phases after the rows (drift, confirmation), the
 *                     output files and the charts
 *   sweep_process.c   signals, exit statuses, the run's identity, clean-up
 * Calls go down this list's dependencies only (sweep_process.c calls none of
 * the others), so no two of these files call each other. */
#ifndef HARNESS_RUN_SWEEP_RUN_H
#define HARNESS_RUN_SWEEP_RUN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/compare/compare.h"
#include "harness/config/cli.h"
#include "harness/config/plan.h"
#include "harness/config/shard.h"
#include "harness/backend/cpu_baseline.h"
#include "harness/core/files.h"
#include "harness/results/merge.h"
#include "harness/results/results.h"
#include "harness/run/confirm.h"
#include "harness/run/confirm_main.h"
#include "harness/run/drift.h"
#include "harness/config/plan_fit.h"
#include "harness/device/nvml_conditions.h"
#include "harness/device/nvtx_ranges.h"
#include "harness/run/progress.h"
#include "harness/run/remeasure.h"
#include "harness/run/sweep.h"
#include "harness/backend/sweep_device.h"
#include "harness/run/workers.h"
#include "kernels/registry.h"
#include "harness/run/time_budget.h"

/* The rows already there (--resume), hashed by their configuration's axes. */
typedef struct row_index {
    size_t *slots; /* row index + 1; 0 = empty */
    size_t cap;
    const sweep_row *rows;
} row_index;

/* How one configuration's measurement ended. */
typedef enum { CFG_DONE = 0, CFG_INTERRUPTED, CFG_FATAL, CFG_NO_MEMORY } cfg_outcome;

/* Where an allocation failed: later configurations of that variant and dtype
 * at that n or above are skipped with the same reason. */
typedef struct oom_mark {
    const variant *v;
    dtype_t dtype;
    size_t n;
} oom_mark;

/* A configuration whose profile phase waits for its batch, and its row. */
typedef struct profile_entry {
    sweep_row *row;
    sweep_config cfg;
    kernel_args a;
} profile_entry;

/* What measuring one configuration needs beyond it (sweep_config.c). */
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
    double validate_s; /* the validate phase's seconds so far (run.json validate_s) */
    stage_times stages; /* where this process's time went (run.json "stages") */
    /* the timing rule of the stage measuring now (sweep_piece.c); NULL: e->timing */
    const timing_params *timing;
    int defer_profile; /* run_config leaves the profile phase to the piece (profile_row) */
    int screening;     /* the screen stage measures now (samples.csv names its phases screen-cold, screen-hot) */
    size_t l2_bytes;   /* the device's: inputs of [timing] hot_below x this are timed cold only */
    /* the profile phase in batches (harness/device/profiler.h, 2b): the single-device loop only */
    int batching;
    unsigned batch_max; /* [profile] batch: at most this many queued (<= SWEEP_PROFILE_QUEUE_MAX) */
    const variant *open_variant; /* whose NVTX range is open (the single-device loop) */
    profile_entry queue[SWEEP_PROFILE_QUEUE_MAX];
    size_t n_queued;
    int queue_full; /* the profiler asked for the batch to run before the next configuration */
} run_ctx;

/* One run of the sweep, from the command line to the last file. sweep_main
 * walks its steps in order; each either lets the run go on (RUN_GO) or ends it
 * with an exit status, and run_close() releases whatever the steps took. */
#define RUN_GO (-1)

typedef struct sweep_run {
    int argc;
    char **argv;
    double t0;
    double checkpoint_t; /* when run.json was last written while the run went on */
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
    int signals, interrupted, sig;
    int time_limited;  /* interrupted by --time-limit, not a signal */
    size_t time_left;  /* configurations it left for --resume */
    time_budget budget; /* --time-limit on one device (run_loop) */
    char err[2 * SWEEP_PATH_MAX + 512]; /* a message naming two paths (the output directory and the one that failed) */
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

/* ---- sweep_process.c ---- */

/* The signal that asked the run to stop (0: none). Timing loops poll it. */
extern volatile sig_atomic_t stop_signal;
void install_signals(void);
void keep_signals(int *noted);
void git_info(char *sha, size_t len, int *dirty);
int usage_error(const char *msg); /* prints it; SWEEP_EXIT_USAGE */
int run_failed(const char *msg);  /* prints it; SWEEP_EXIT_FAILED */
int no_device(const char *msg);   /* prints it and the way to try without a GPU */
void run_release_device(sweep_run *r);
/* Why the phases after the rows (drift check, confirmation) do not run; NULL: they do. */
const char *run_after_refused(const sweep_run *r);
/* r->confirm into run.json's lines and confirm.csv. */
void run_keep_confirm(sweep_run *r);
void run_close(sweep_run *r);

/* ---- sweep_config.c ---- */

uint64_t config_seed(uint64_t base, const sweep_config *c);
int index_build(row_index *ix, const sweep_row *rows, size_t n);
int index_has(const row_index *ix, const sweep_config *c);
size_t oom_floor(const run_ctx *ctx, const sweep_config *cfg);
cfg_outcome run_config(run_ctx *ctx, const sweep_config *cfg, sweep_row *row);
cfg_outcome refine_config(run_ctx *ctx, const sweep_config *cfg, sweep_row *row);
void profile_row(run_ctx *ctx, const sweep_config *cfg, sweep_row *row);
void variant_range_open(run_ctx *ctx, const variant *v); /* the variant's NVTX range, once */
/* The queued profile phases: run them unless `next` (NULL: none) joins their
 * batch; run them now; or give them up, each row's error saying why. */
void profile_queue_settle(run_ctx *ctx, const sweep_config *next);
void profile_queue_run(run_ctx *ctx);
void profile_queue_drop(run_ctx *ctx, const char *why);

/* ---- sweep_setup.c: each step returns RUN_GO or the exit status ---- */

int run_read_plan(sweep_run *r);
int run_open_output(sweep_run *r);
void run_describe(sweep_run *r);
int run_open_device(sweep_run *r);
int run_negotiate_profiler(sweep_run *r, const sweep_profiler *built_in);
void run_note_unheeded(sweep_run *r);
int run_load_resume(sweep_run *r);
int run_create_files(sweep_run *r);

/* ---- sweep_loop.c ---- */

int run_one(sweep_run *r, const sweep_config *cfg, sweep_row *row);
void run_loop(sweep_run *r);

/* ---- sweep_piece.c ---- */

/* Plan configurations idx[0..n) (one input, plan order) screened, refined and
 * profiled into rows[0..n). Returns how many rows are finished: n, or fewer
 * when the device failed (ctx.fatal; the rows up to the failing one). 0 and
 * *interrupted on a signal: no row of the piece is kept. */
size_t run_piece(sweep_run *r, const size_t *idx, size_t n, sweep_row *rows, int *interrupted);

/* ---- sweep_dispatch.c ---- */

int run_start_workers(sweep_run *r, const sweep_profiler *built_in);
void run_dispatch(sweep_run *r);

/* ---- sweep_after.c ---- */

void run_after_pass(sweep_run *r);
void run_checkpoint(sweep_run *r, size_t written); /* run.json so far, at most every 30 s */
int run_finish(sweep_run *r);

#endif
