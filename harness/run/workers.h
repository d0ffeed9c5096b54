/* --devices: one worker process per device, the parent the one writer.
 *
 * Why processes: a CUDA context lost to a sticky error (an illegal address,
 * a hung kernel) is lost for the whole process. One process per device keeps
 * such a fault to one worker; the others and the rows already written go on.
 * The workers are forked after the plan is built and before anything touches
 * CUDA (a CUDA context does not survive fork), so every one opens its own
 * device in its own process.
 *
 * The unit of work is a piece: consecutive configurations of one input
 * (shard.h plan_pieces), so a worker draws the input and computes its CPU
 * reference once, screens, refines and profiles the piece in batches on its
 * buffers (harness/run/sweep_piece.c), as the single-device loop does.
 *
 * The protocol, over one socketpair per worker; every message is a header
 * {uint32 type, uint32 payload length} and its payload:
 *   worker -> parent  HELLO  worker_hello (the device opened, its copy bandwidth, the metric columns)
 *                     FAIL   text: the device could not be opened; the worker exits
 *                     ROW    uint64 plan index, the sweep_row, its skip reason, error
 *                            (uint32 length + bytes each) and metric values (doubles)
 *                     DONE   stage_times: the piece's rows are all sent; where its time went
 *                     FATAL  text: the device is lost after the rows just sent; the worker exits
 *                     LINES  uint64 job, uint64 count, the confirm_lines, stage_times, a note (text)
 *   parent -> worker  RUN     uint64 count, the piece's plan indices: answer with its ROWs and DONE
 *                     CONFIRM uint64 job, uint64 count, the rows (uint32 length + a ROW's
 *                             payload each): the confirmation of one input, answered by LINES
 *                     STOP    nothing left: exit
 * Rows cross as binary records, not CSV text: the worker is a fork of the
 * parent, so the variant pointers in the row mean the same in both, and the
 * parent writes the line itself (one writer, one format). A worker that dies
 * mid-message leaves a short read, which is an EOF.
 *
 * Dealing: the pieces not in results.csv already, heaviest first by the
 * --dry-run time model, the next one to whichever worker is free; after the
 * rows, each input's confirmation (CUB and its candidates in one process)
 * the same way.
 *
 * Faults: a worker that ends without being told to (EOF, waitpid says how)
 * is reported on stderr and in run.json (devices[].fault). The rows of its
 * piece it had not sent are dealt to another worker -- once: a configuration
 * in the pieces of two lost workers is left for --resume, so one poisonous
 * configuration cannot take every device down in turn. With no worker left
 * the run stops; the rows so far are kept and --resume finishes it.
 * SIGINT/SIGTERM to the parent: every worker is sent SIGINT (its piece in
 * flight is dropped, as in a single-process run), the rows that finished are
 * kept, run.json says interrupted. */
#ifndef HARNESS_WORKERS_H
#define HARNESS_WORKERS_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "harness/device/device.h"
#include "harness/device/profiler.h"
#include "harness/results/results.h"
#include "harness/config/shard.h"
#include "harness/backend/sweep_device.h"
#include "harness/run/confirm.h"
#include "harness/run/time_budget.h"

#define WORKERS_MAX DEVICES_MAX

/* What a worker says once its device is open. */
typedef struct worker_hello {
    device_info device;
    double copy_GBps; /* NaN: not measured */
    double launch_us; /* NaN: not measured */
    int profiler_passes;
    int profiler_on; /* metric columns come from a profiler that began */
    char profiler_status[256];
    size_t metric_count;
    sweep_metric metrics[SWEEP_MAX_METRICS];
} worker_hello;

/* The parent's view of one worker. */
typedef struct worker_state {
    int ordinal;
    pid_t pid;
    int fd;          /* -1 once closed */
    int hello;       /* its HELLO came */
    size_t *cur;     /* its piece's plan indices not yet sent back */
    size_t n_cur;
    long job;        /* the confirmation job it runs; -1: none */
    int busy;        /* a piece or a confirmation in flight */
    size_t ran;      /* rows it sent */
    int stopped;     /* told STOP (or the run is stopping): its end is no fault */
    worker_hello info;
    stage_times stages; /* its latest report */
    char fault[512]; /* why it ended early; "" none */
    double dealt_t, cur_est; /* when its piece was dealt, the model's seconds for it (0: a piece dealt again) */
} worker_state;

/* A piece to deal: plan indices, in plan order. */
typedef struct worker_job {
    size_t *idx;
    size_t n;
    double est_s; /* the time model's seconds for it (--time-limit) */
} worker_job;

/* One input's confirmation: its rows (the library's and ours). */
typedef struct worker_confirm_job {
    const sweep_row **rows;
    size_t n;
} worker_confirm_job;

typedef struct worker_hooks {
    void *ctx;
    /* In the worker: open device `ordinal` and say what it is. 0, or -1 and msg. */
    int (*open)(void *ctx, int ordinal, worker_hello *h, char *msg, size_t len);
    /* In the worker: plan configurations idx[0..n) into rows[0..n) (row_init'ed
     * by it). The rows finished (a prefix: fewer with fatal set when the
     * device is lost), or -1: interrupted, no row. */
    long (*run)(void *ctx, const size_t *idx, size_t n, sweep_row *rows, char *fatal, size_t len);
    /* In the worker: one input's confirmation; *lines malloc'd. 0, or -1
     * and note (empty note: nothing can be said back). */
    int (*confirm)(void *ctx, const sweep_row *rows, size_t n, confirm_line **lines, size_t *count, char *note,
                   size_t len);
    /* In the worker: where its time went so far (sent with DONE and LINES). */
    void (*stages)(void *ctx, stage_times *out);
    /* In the worker, before it exits. */
    void (*close)(void *ctx);
    /* In the parent: a finished row from w (the hook owns row's heap parts). */
    void (*row)(void *ctx, worker_state *w, size_t idx, sweep_row *row);
    /* In the parent: confirmation job `job`'s lines and note. */
    void (*lines)(void *ctx, size_t job, const confirm_line *l, size_t n, const char *note);
    /* In the parent: configuration idx's label. */
    void (*label)(void *ctx, size_t idx, char *buf, size_t len);
} worker_hooks;

typedef struct worker_pool {
    worker_state w[WORKERS_MAX];
    size_t n;
    size_t metric_count; /* of the rows on the wire */
    const worker_job *jobs; /* the pieces, heaviest first (the caller's) */
    size_t n_jobs, next;    /* every piece before next is dealt */
    unsigned char *dealt;   /* per piece: dealt (--time-limit may deal a lighter one first) */
    time_budget budget;     /* the caller's --time-limit; limit 0: none */
    size_t time_left;       /* configurations not dealt because of it (in left too) */
    worker_job *again; /* pieces made of what lost workers left */
    size_t n_again, cap_again;
    unsigned char *tries; /* per plan index: workers lost on it */
    size_t plan_count;
    const worker_confirm_job *cjobs;
    size_t n_cjobs, cnext, confirm_lost;
    int stopping;          /* a signal: every worker told to stop */
    size_t faults, left;   /* workers lost; configurations left for --resume */
} worker_pool;

/* How many devices the layer reports, asked in a child process so that the
 * parent never initialises CUDA before it forks. -1 and msg on failure. */
int workers_count_devices(sweep_device *dev, char *msg, size_t len);

/* Fork one worker per ordinal and wait for each one's HELLO (a worker whose
 * device does not open is an error: nothing is written yet). 0, or -1 and err. */
int workers_start(worker_pool *p, const int *ordinals, size_t n, size_t plan_count, const worker_hooks *h,
                  volatile sig_atomic_t *stop, char *err, size_t len);

/* Deal the pieces in order, receive every row, until all are done, every
 * worker is gone, or *stop (a signal: the workers are told to stop). With a
 * time limit in p->budget, a piece is dealt only where it fits (the first
 * that does, in order); what none could take is left (p->time_left). The
 * workers stay for the next phase. 0, or -1: no memory. */
int workers_dispatch(worker_pool *p, const worker_job *jobs, size_t n_jobs, const worker_hooks *h,
                     volatile sig_atomic_t *stop);

/* Deal the confirmation jobs the same way; jobs not done count in p->confirm_lost. */
void workers_confirm(worker_pool *p, const worker_confirm_job *jobs, size_t n, const worker_hooks *h,
                     volatile sig_atomic_t *stop);

/* Tell every worker to stop and wait for them. */
void workers_stop(worker_pool *p, const worker_hooks *h, volatile sig_atomic_t *stop);

/* Stop (SIGKILL) and reap any worker still there; free the queues. */
void workers_free(worker_pool *p);

#endif
