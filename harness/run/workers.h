/* --devices: one worker process per device, the parent the one writer.
 *
 * Why processes: a CUDA context lost to a sticky error (an illegal address,
 * a hung kernel) is lost for the whole process. One process per device keeps
 * such a fault to one worker; the others and the rows already written go on.
 * The workers are forked after the plan is built and before anything touches
 * CUDA (a CUDA context does not survive fork), so every one opens its own
 * device in its own process.
 *
 * The protocol, over one socketpair per worker; every message is a header
 * {uint32 type, uint32 payload length} and its payload:
 *   worker -> parent  HELLO  worker_hello (the device opened, its copy bandwidth, the metric columns)
 *                     FAIL   text: the device could not be opened; the worker exits
 *                     ROW    uint64 plan index, the sweep_row, its skip reason, error
 *                            (uint32 length + bytes each) and metric values (doubles)
 *                     FATAL  text: the device is lost after the row just sent; the worker exits
 *   parent -> worker  RUN    uint64 plan index: run that configuration, answer with ROW
 *                     STOP   nothing left: exit
 * Rows cross as binary records, not CSV text: the worker is a fork of the
 * parent, so the variant pointers in the row mean the same in both, and the
 * parent writes the line itself (one writer, one format). A worker that dies
 * mid-message leaves a short read, which is an EOF: that row was not
 * finished, its configuration is dealt again.
 *
 * Dealing: the configurations left (not in results.csv already) heaviest
 * first by the --dry-run time model (plan_estimate.c's, as --shard deals),
 * the next one to whichever worker is free. The long ones start first, so the
 * run does not end waiting on one device with the longest configuration.
 *
 * Faults: a worker that ends without being told to (EOF, waitpid says how)
 * is reported on stderr and in run.json (devices[].fault). The configuration
 * it was running is dealt to another worker -- once: a configuration that
 * takes down a second worker is left for --resume, so one poisonous
 * configuration cannot take every device down in turn. With no worker left
 * the run stops; the rows so far are kept and --resume finishes it.
 * SIGINT/SIGTERM to the parent: every worker is sent SIGINT (its
 * configuration in flight is dropped, as in a single-process run), the rows
 * that finished are kept, run.json says interrupted. */
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
    size_t current;  /* the plan index it runs; SIZE_MAX: none */
    size_t ran;      /* rows it sent */
    int stopped;     /* told STOP (or the run is stopping): its end is no fault */
    worker_hello info;
    char fault[512]; /* why it ended early; "" none */
} worker_state;

typedef struct worker_hooks {
    void *ctx;
    /* In the worker: open device `ordinal` and say what it is. 0, or -1 and msg. */
    int (*open)(void *ctx, int ordinal, worker_hello *h, char *msg, size_t len);
    /* In the worker: plan configuration idx into *row (row_init'ed by it).
     * 0: the row is done (fatal set when the device is lost after it);
     * -1: interrupted, no row. */
    int (*run)(void *ctx, size_t idx, sweep_row *row, char *fatal, size_t len);
    /* In the worker, before it exits. */
    void (*close)(void *ctx);
    /* In the parent: a finished row from w (the hook owns row's heap parts). */
    void (*row)(void *ctx, worker_state *w, size_t idx, sweep_row *row);
    /* In the parent: what to say about w's end (stderr), and configuration idx's label. */
    void (*label)(void *ctx, size_t idx, char *buf, size_t len);
} worker_hooks;

typedef struct worker_pool {
    worker_state w[WORKERS_MAX];
    size_t n;
    size_t metric_count; /* of the rows on the wire */
    size_t *order;       /* plan indices to deal, heaviest first */
    size_t n_order, next;
    size_t *again; /* dealt again after a worker died */
    size_t n_again;
    unsigned char *tries; /* per plan index: workers lost on it */
    size_t plan_count;
    size_t faults, left; /* workers lost; configurations left for --resume */
} worker_pool;

/* How many devices the layer reports, asked in a child process so that the
 * parent never initialises CUDA before it forks. -1 and msg on failure. */
int workers_count_devices(sweep_device *dev, char *msg, size_t len);

/* Fork one worker per ordinal and wait for each one's HELLO (a worker whose
 * device does not open is an error: nothing is written yet). 0, or -1 and err. */
int workers_start(worker_pool *p, const int *ordinals, size_t n, size_t plan_count, const worker_hooks *h,
                  volatile sig_atomic_t *stop, char *err, size_t len);

/* Deal the plan indices in order (the pool keeps its own copy), receive every
 * row, until all are done, every worker is gone, or *stop (a signal): then
 * the workers are told to stop and waited for. 0, or -1: no memory. */
int workers_dispatch(worker_pool *p, const size_t *order, size_t n_order, const worker_hooks *h,
                     volatile sig_atomic_t *stop);

/* Stop (SIGKILL) and reap any worker still there; free the queues. */
void workers_free(worker_pool *p);

#endif
