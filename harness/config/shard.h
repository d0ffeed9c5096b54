/* Splitting one plan over several processes (--shard I/N, --shard auto,
 * --devices), and the plan's fingerprint that `sweep merge` checks the parts by.
 *
 * Shards are 0-based: --shard 0/4 .. --shard 3/4, the same numbers as MPI
 * and Slurm ranks. The unit of work is the input group (plan.h:
 * plan_groups): one process measures a group's configurations with one CPU
 * reference and full profile batches. plan_pieces cuts the plan into pieces,
 * a group each, except that a group heavier than its share (the plan's time
 * / (2 x workers)) is cut into contiguous pieces of near-equal time, each
 * paying its reference and profile batches again. The pieces are costed by
 * the --dry-run time model (plan_estimate.c) with its built-in H200 model and
 * the experiment's profile passes, never the device's, so every process deals
 * the same hands whatever GPU it landed on: heaviest piece first (ties: plan
 * order), each to the shard with the least estimated time so far (ties: the
 * lowest index). Pieces of skipped configurations only cost 0 and are dealt
 * the same way, after every measured one; each configuration lands in exactly
 * one shard. A shard runs its configurations in plan order. */
#ifndef HARNESS_SHARD_H
#define HARNESS_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "harness/config/plan.h"

#define SHARD_MAX 65536
#define DEVICES_MAX 64 /* --devices: workers on one host */

typedef struct shard_spec {
    int active;          /* --shard given */
    int is_auto;         /* --shard auto: index and count come from the launcher */
    unsigned index, count;
    int local_rank;      /* the launcher's rank on this host; -1: none said */
    char source[16];     /* "cli", "slurm", "ompi", "pmi", "pmix" */
} shard_spec;

/* "I/N" (0 <= I < N <= SHARD_MAX) or "auto". 0, or -1 and "'x': why". */
int shard_parse(const char *text, shard_spec *s, char *err, size_t errlen);

/* --shard auto: the rank and size from Slurm, else Open MPI, else MPICH/PMI,
 * else PMIx. 0, or -1 and a message naming what was looked for. */
int shard_from_env(shard_spec *s, char *err, size_t errlen);

/* Deal the plan into `count` shards: owner[i] is configuration i's shard;
 * load (room for count, or NULL): each shard's pieces' modelled seconds. */
int shard_deal(const sweep_plan *p, const timing_params *t, unsigned count, unsigned *owner);
int shard_deal_loads(const sweep_plan *p, const timing_params *t, unsigned count, unsigned *owner, double *load);

/* --devices: "all" (*all = 1, nothing in ordinals) or "0,2,3": distinct
 * ordinals 0..1023, at most max. 0, or -1 and "'x': why". */
int devices_parse_list(const char *text, int *ordinals, size_t max, size_t *n, int *all, char *err, size_t len);


/* A piece of work: consecutive plan indices of one input group (the whole
 * group unless the group was split), and its modelled seconds (the built-in
 * model, estimate_piece_s: its configurations, its input's CPU reference,
 * its profile batches at p->profile_passes). part / parts: its place among
 * its group's pieces (0 / 1: the whole group). */
typedef struct plan_piece {
    size_t first, count;
    double cost_s;
    unsigned part, parts;
} plan_piece;

/* The plan cut into pieces for `workers` processes running side by side,
 * heaviest first (ties: plan order): --devices deals them in this order to
 * whichever worker is free. A group above the plan's time / (2 x workers) is
 * split (none with one worker). *out malloc'd. 0, or -1: no memory. */
int plan_pieces(const sweep_plan *p, const timing_params *t, unsigned workers, plan_piece **out, size_t *n);

/* The dry-run's --devices: plan_pieces for `workers`, dealt heaviest first
 * to the worker free first (ties: the lowest), each worker starting after
 * RUN_STARTUP_S, each piece lasting estimate_piece_s under m at `passes`. */
typedef struct devices_modelled {
    double wall;      /* the last worker's end: the rows' wall time */
    double first_end; /* the first worker's end */
    double busy;      /* every worker's time, start-ups included */
    size_t pieces, groups, split; /* pieces dealt; input groups; of them split */
} devices_modelled;
int devices_model(const sweep_plan *p, const timing_params *t, const estimate_model *m, unsigned passes,
                  unsigned workers, devices_modelled *out);

/* The rows of p measured by one process in plan order, as the dry-run models
 * them: its start-up, every configuration, the references, the profile phase
 * (estimate_profile_s); the drift check and confirmation aside. */
double estimate_rows_s(const sweep_plan *p, const experiment *e, const estimate_model *m);

/* --shard count: every part's estimate_rows_s (est: room for count), the
 * whole plan dealt as each process deals it. 0, or -1: no memory. */
int shard_estimates(const sweep_plan *whole, const experiment *e, const estimate_model *m, unsigned count,
                    double *est);

/* Keep shard s's configurations of p (plan order). positions (malloc'd, one
 * per kept configuration) get their indices in the whole plan. */
int shard_select(sweep_plan *p, const timing_params *t, const shard_spec *s, size_t **positions);

/* ---- the plan's fingerprint: FNV-1a 64 ----------------------------------------------
 * Over every configuration's label and skip reason in plan order, the
 * experiment's seed, timing rule and metric list (rows measured under another
 * rule do not belong together either), then the binary's version (its git
 * sha, known only once the run has looked it up: hence two steps). */
uint64_t plan_hash(const sweep_plan *p, const experiment *e);
void plan_fingerprint(uint64_t plan_hash, const char *git_sha, char out[17]);

#endif
