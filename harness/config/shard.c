/* --shard: parsing, the launcher's rank, the dealing, the fingerprint (harness/config/shard.h). */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole decimal number in [0, max]; -1 when it is not one. */
static long parse_uint(const char *s, size_t len, long max)
{
    if (!len || len > 9) return -1;
    long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = x * 10 + (s[i] - '0');
    }
    return x <= max ? x : -1;
}

int shard_parse(const char *text, shard_spec *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->local_rank = -1;
    s->active = 1;
    if (!strcmp(text, "auto")) {
        s->is_auto = 1;
        return 0;
    }
    const char *slash = strchr(text, '/');
    long i = slash ? parse_uint(text, (size_t)(slash - text), SHARD_MAX) : -1;
    long n = slash ? parse_uint(slash + 1, strlen(slash + 1), SHARD_MAX) : -1;
    if (i < 0 || n < 1) {
        snprintf(err, errlen, "'%s': I/N (shard I of N, 0-based: 0/4 .. 3/4; N at most %d) or auto", text,
                 SHARD_MAX);
        return -1;
    }
    if (i >= n) {
        snprintf(err, errlen, "'%s': the index is 0-based: 0 .. %ld for %ld shards", text, n - 1, n);
        return -1;
    }
    s->index = (unsigned)i;
    s->count = (unsigned)n;
    snprintf(s->source, sizeof s->source, "cli");
    return 0;
}

/* One launcher's variables: the rank and size must both be there and agree;
 * the local rank is optional. 1 used, 0 not this launcher, -1 error. */
static int try_launcher(shard_spec *s, const char *source, const char *rank_var, const char *size_var,
                        const char *local_var, char *err, size_t errlen)
{
    const char *rank = getenv(rank_var), *size = size_var ? getenv(size_var) : NULL;
    if (!rank) return 0;
    if (!size) {
        snprintf(err, errlen, "auto: %s is set but not the size (%s)", rank_var, size_var ? size_var : "none known");
        return -1;
    }
    long r = parse_uint(rank, strlen(rank), SHARD_MAX), n = parse_uint(size, strlen(size), SHARD_MAX);
    if (r < 0 || n < 1 || r >= n) {
        snprintf(err, errlen, "auto: %s=%s and %s=%s are not a rank and a size", rank_var, rank, size_var, size);
        return -1;
    }
    const char *local = local_var ? getenv(local_var) : NULL;
    long l = local ? parse_uint(local, strlen(local), 1 << 20) : -1;
    s->index = (unsigned)r;
    s->count = (unsigned)n;
    s->local_rank = (int)l;
    snprintf(s->source, sizeof s->source, "%s", source);
    return 1;
}

int shard_from_env(shard_spec *s, char *err, size_t errlen)
{
    /* A process that mpirun started inside a Slurm job inherits the job
     * step's SLURM_PROCID (the same on every rank of a node): when Open MPI's
     * own variables are there, they are the ones that tell ranks apart. */
    int r = 0;
    if (!getenv("OMPI_COMM_WORLD_RANK"))
        r = try_launcher(s, "slurm", "SLURM_PROCID", getenv("SLURM_NTASKS") ? "SLURM_NTASKS" : "SLURM_NPROCS",
                         "SLURM_LOCALID", err, errlen);
    if (!r)
        r = try_launcher(s, "ompi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", err,
                         errlen);
    if (!r) r = try_launcher(s, "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", err, errlen);
    if (!r) r = try_launcher(s, "pmix", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", err, errlen);
    if (r == 1) return 0;
    if (r == 0)
        snprintf(err, errlen, "auto: no launcher found (looked for SLURM_PROCID/SLURM_NTASKS, "
                              "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE, PMIX_RANK/PMIX_SIZE); "
                              "give --shard I/N");
    return -1;
}

/* ---- the dealing ------------------------------------------------------------------------- */

typedef struct weighted {
    double cost;
    size_t at;
} weighted;

/* Heaviest first; equal costs in plan order (qsort is not stable). */
static int heavier_first(const void *a, const void *b)
{
    const weighted *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

int shard_deal(const sweep_plan *p, const timing_params *t, unsigned count, unsigned *owner)
{
    /* The built-in model on every process: the hands must not depend on the device. */
    estimate_model m = estimate_model_default();
    weighted *w = malloc((p->count ? p->count : 1) * sizeof *w);
    double *load = calloc(count, sizeof *load);
    if (!w || !load) {
        free(w);
        free(load);
        return -1;
    }
    for (size_t i = 0; i < p->count; i++) w[i] = (weighted){estimate_config_s(&p->configs[i], t, &m), i};
    qsort(w, p->count, sizeof *w, heavier_first);
    for (size_t k = 0; k < p->count; k++) {
        unsigned best = 0;
        for (unsigned s = 1; s < count; s++)
            if (load[s] < load[best]) best = s;
        load[best] += w[k].cost;
        owner[w[k].at] = best;
    }
    free(w);
    free(load);
    return 0;
}

int shard_heaviest_first(const sweep_plan *p, const timing_params *t, size_t *order)
{
    estimate_model m = estimate_model_default();
    weighted *w = malloc((p->count ? p->count : 1) * sizeof *w);
    if (!w) return -1;
    for (size_t i = 0; i < p->count; i++) w[i] = (weighted){estimate_config_s(&p->configs[i], t, &m), i};
    qsort(w, p->count, sizeof *w, heavier_first);
    for (size_t k = 0; k < p->count; k++) order[k] = w[k].at;
    free(w);
    return 0;
}

static int piece_heavier_first(const void *a, const void *b)
{
    const plan_piece *x = a, *y = b;
    if (x->cost_s != y->cost_s) return x->cost_s > y->cost_s ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

int plan_pieces(const sweep_plan *p, const timing_params *t, unsigned workers, plan_piece **out, size_t *n)
{
    (void)workers;
    estimate_model m = estimate_model_default();
    plan_group *g;
    if (plan_groups(p, &g, n)) return -1;
    *out = malloc((*n ? *n : 1) * sizeof **out);
    if (!*out) {
        free(g);
        return -1;
    }
    for (size_t k = 0; k < *n; k++) {
        double cost = 0;
        for (size_t i = g[k].first; i < g[k].first + g[k].count; i++) cost += estimate_config_s(&p->configs[i], t, &m);
        (*out)[k] = (plan_piece){g[k].first, g[k].count, cost};
    }
    free(g);
    qsort(*out, *n, sizeof **out, piece_heavier_first);
    return 0;
}

int shard_select(sweep_plan *p, const timing_params *t, const shard_spec *s, size_t **positions)
{
    unsigned *owner = malloc((p->count ? p->count : 1) * sizeof *owner);
    size_t *pos = malloc((p->count ? p->count : 1) * sizeof *pos);
    if (!owner || !pos || shard_deal(p, t, s->count, owner)) {
        free(owner);
        free(pos);
        return -1;
    }
    size_t kept = 0, skipped = 0, variants = 0;
    for (size_t i = 0; i < p->count; i++) {
        if (owner[i] != s->index) continue;
        /* distinct variants: with order = size a variant's configurations are not together */
        size_t j = 0;
        while (j < kept && p->configs[j].v != p->configs[i].v) j++;
        variants += j == kept;
        if (p->configs[i].skip_reason) skipped++;
        pos[kept] = i;
        p->configs[kept++] = p->configs[i];
    }
    free(owner);
    p->count = kept;
    p->skipped = skipped;
    p->variants = variants;
    *positions = pos;
    return 0;
}

/* ---- the fingerprint ------------------------------------------------------------------------ */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * FNV_PRIME;
    return (h ^ '\n') * FNV_PRIME; /* a separator: "ab","c" and "a","bc" differ */
}

uint64_t plan_hash(const sweep_plan *p, const experiment *e)
{
    uint64_t h = FNV_OFFSET;
    char line[512];
    snprintf(line, sizeof line, "seed=%llu min=%u max=%u noise=%.17g timeout=%.17g metrics=%d",
             (unsigned long long)e->seed, e->timing.min_samples, e->timing.max_samples, e->timing.max_noise,
             e->timing.timeout_s, (int)e->metrics_mode);
    if (e->timing.screen_samples) /* a plan without a screen keeps the fingerprint it had */
        snprintf(line + strlen(line), sizeof line - strlen(line), " screen=%u refine=%.17g", e->timing.screen_samples,
                 e->timing.refine_within);
    h = fnv(h, line);
    for (size_t i = 0; i < e->metric_count; i++) h = fnv(h, e->metrics[i]);
    for (size_t i = 0; i < p->count; i++) {
        config_label(&p->configs[i], line, sizeof line);
        h = fnv(h, line);
        h = fnv(h, p->configs[i].skip_reason ? p->configs[i].skip_reason : "");
    }
    return h;
}

void plan_fingerprint(uint64_t plan_hash, const char *git_sha, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)fnv(plan_hash, git_sha ? git_sha : "unknown"));
}

/* ---- --devices LIST ------------------------------------------------------------------------- */

int devices_parse_list(const char *text, int *ordinals, size_t max, size_t *n, int *all, char *err, size_t len)
{
    *n = 0;
    *all = !strcmp(text, "all");
    if (*all) return 0;
    const char *p = text;
    while (*p) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 0 || d > 1023 || (*end && *end != ',')) {
            snprintf(err, len, "'%s': expected all or device ordinals 0..1023, comma-separated (0,1,3)", text);
            return -1;
        }
        for (size_t i = 0; i < *n; i++)
            if (ordinals[i] == (int)d) {
                snprintf(err, len, "'%s': device %ld is listed twice", text, d);
                return -1;
            }
        if (*n == max) {
            snprintf(err, len, "'%s': at most %zu devices", text, max);
            return -1;
        }
        ordinals[(*n)++] = (int)d;
        p = *end ? end + 1 : end;
        if (*end && !*p) {
            snprintf(err, len, "'%s': a trailing comma", text);
            return -1;
        }
    }
    if (!*n) snprintf(err, len, "'%s': no device", text);
    return *n ? 0 : -1;
}
