/* Splitting one plan over several processes (--shard I/N, --shard auto),
 * and the plan's fingerprint that `sweep merge` checks the parts by.
 *
 * Shards are 0-based: --shard 0/4 .. --shard 3/4, the same numbers as MPI
 * and Slurm ranks. The parts are dealt by the --dry-run time model
 * (plan_estimate.c) with its built-in H200 model, never the device's, so
 * every process deals the same hands whatever GPU it landed on: heaviest
 * configuration first (ties: plan order), each to the shard with the least
 * estimated time so far (ties: the lowest index). Skipped configurations
 * cost 0 and are dealt the same way, after every measured one; each lands in
 * exactly one shard. A shard runs its configurations in plan order. */
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

/* Deal the plan into `count` shards: owner[i] is configuration i's shard. */
int shard_deal(const sweep_plan *p, const timing_params *t, unsigned count, unsigned *owner);

/* --devices: "all" (*all = 1, nothing in ordinals) or "0,2,3": distinct
 * ordinals 0..1023, at most max. 0, or -1 and "'x': why". */
int devices_parse_list(const char *text, int *ordinals, size_t max, size_t *n, int *all, char *err, size_t len);

/* The plan's indices, heaviest first by the same model and rule (--devices
 * deals them in this order). order: room for p->count. 0, or -1: no memory. */
int shard_heaviest_first(const sweep_plan *p, const timing_params *t, size_t *order);

/* A piece of work: consecutive plan indices of one input group (the whole
 * group unless the group was split), and its modelled seconds (the built-in
 * model: its configurations, its input's CPU reference, its profile batches). */
typedef struct plan_piece {
    size_t first, count;
    double cost_s;
} plan_piece;

/* The plan cut into pieces for `workers` processes running side by side,
 * heaviest first (ties: plan order): --devices deals them in this order to
 * whichever worker is free. *out malloc'd. 0, or -1: no memory. */
int plan_pieces(const sweep_plan *p, const timing_params *t, unsigned workers, plan_piece **out, size_t *n);

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
