/* --shard: parsing, the launcher's rank, the dealing, the fingerprint (harness/config/shard.h). */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/shard.h"

#include <errno.h>
#include <math.h>
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

static int piece_heavier_first(const void *a, const void *b)
{
    const plan_piece *x = a, *y = b;
    if (x->cost_s != y->cost_s) return x->cost_s > y->cost_s ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The largest piece dealt, as a share of the plan's time per worker: a
 * group above total / (PIECE_SHARE x workers) is split. List scheduling
 * ends every worker within one piece of the others, so with pieces at most
 * half a worker's fair share and the many small groups dealt last (heaviest
 * first) the spread is a fraction of that; each split costs its input's
 * reference and a profile batch again, so the cap is not finer than needed. */
#define PIECE_SHARE 2.0

/* Group g cut into contiguous pieces near `cap` each (one piece when it is
 * not above it), each costed on its own. Returns the pieces written to out
 * (room for g's configurations). */
static size_t split_group(const sweep_plan *p, const plan_group *g, const timing_params *t, const estimate_model *m,
                          unsigned passes, double cap, plan_piece *out)
{
    double whole = estimate_piece_s(p, g->first, g->count, t, m, passes), own = 0;
    size_t live = 0, last_live = g->first;
    for (size_t i = g->first; i < g->first + g->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue;
        own += estimate_config_own_s(c, t, m, passes);
        live++;
        last_live = i;
    }
    if (!(whole > cap) || live < 2) {
        out[0] = (plan_piece){g->first, g->count, whole, 0, 1};
        return 1;
    }
    /* what each piece pays again: its input's reference and a profile batch (a piece of one configuration less its own time) */
    double shared = estimate_piece_s(p, last_live, 1, t, m, passes) - estimate_config_own_s(&p->configs[last_live], t, m, passes);
    double per = cap - shared > cap / 2 ? cap - shared : cap / 2;
    size_t k = (size_t)ceil(own / per);
    if (k > live) k = live;
    size_t n = 0, start = g->first;
    double acc = 0;
    for (size_t i = g->first; i < g->first + g->count && n + 1 < k; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue;
        double w = estimate_config_own_s(c, t, m, passes);
        acc += w;
        /* cut after the configuration whose middle passes the next target; never after the last */
        if (i != last_live && acc - w / 2 >= own * (double)(n + 1) / (double)k) {
            out[n++] = (plan_piece){start, i + 1 - start, 0, 0, 0};
            start = i + 1;
        }
    }
    out[n++] = (plan_piece){start, g->first + g->count - start, 0, 0, 0};
    for (size_t j = 0; j < n; j++) {
        out[j].cost_s = estimate_piece_s(p, out[j].first, out[j].count, t, m, passes);
        out[j].part = (unsigned)j;
        out[j].parts = (unsigned)n;
    }
    return n;
}

int plan_pieces(const sweep_plan *p, const timing_params *t, unsigned workers, plan_piece **out, size_t *n)
{
    /* The built-in model on every process: the pieces must not depend on the device. */
    estimate_model m = estimate_model_default();
    m.profile_patched = p->profile_patched;
    unsigned passes = p->profile_passes;
    plan_group *g;
    size_t groups;
    *out = NULL;
    *n = 0;
    if (plan_groups(p, &g, &groups)) return -1;
    double total = 0;
    for (size_t k = 0; k < groups; k++) total += estimate_piece_s(p, g[k].first, g[k].count, t, &m, passes);
    double cap = workers > 1 ? total / (PIECE_SHARE * workers) : INFINITY;
    /* at most one piece per configuration */
    *out = malloc((p->count ? p->count : 1) * sizeof **out);
    if (!*out) {
        free(g);
        return -1;
    }
    for (size_t k = 0; k < groups; k++) *n += split_group(p, &g[k], t, &m, passes, cap, *out + *n);
    free(g);
    plan_piece *fit = realloc(*out, (*n ? *n : 1) * sizeof **out);
    if (fit) *out = fit;
    qsort(*out, *n, sizeof **out, piece_heavier_first);
    return 0;
}

int shard_deal_loads(const sweep_plan *p, const timing_params *t, unsigned count, unsigned *owner, double *load)
{
    plan_piece *pc;
    size_t n;
    double *mine = load ? load : calloc(count, sizeof *mine);
    if (!mine || plan_pieces(p, t, count, &pc, &n)) {
        if (!load) free(mine);
        return -1;
    }
    for (unsigned s = 0; s < count; s++) mine[s] = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned best = 0;
        for (unsigned s = 1; s < count; s++)
            if (mine[s] < mine[best]) best = s;
        mine[best] += pc[k].cost_s;
        for (size_t i = pc[k].first; i < pc[k].first + pc[k].count; i++) owner[i] = best;
    }
    free(pc);
    if (!load) free(mine);
    return 0;
}

int shard_deal(const sweep_plan *p, const timing_params *t, unsigned count, unsigned *owner)
{
    return shard_deal_loads(p, t, count, owner, NULL);
}

int devices_model(const sweep_plan *p, const timing_params *t, const estimate_model *m, unsigned passes,
                  unsigned workers, devices_modelled *out)
{
    memset(out, 0, sizeof *out);
    if (!workers) workers = 1;
    plan_piece *pc;
    size_t n;
    double *end = calloc(workers, sizeof *end);
    if (!end || plan_pieces(p, t, workers, &pc, &n)) {
        free(end);
        return -1;
    }
    for (unsigned w = 0; w < workers; w++) end[w] = RUN_STARTUP_S;
    estimate_model shared = *m; /* the workers profile side by side on one host */
    shared.host_profilers = workers;
    m = &shared;
    for (size_t k = 0; k < n; k++) {
        unsigned best = 0; /* the worker free first; ties: the lowest */
        for (unsigned w = 1; w < workers; w++)
            if (end[w] < end[best]) best = w;
        end[best] += estimate_piece_s(p, pc[k].first, pc[k].count, t, m, passes);
        out->split += pc[k].parts > 1 && pc[k].part == 0;
        out->groups += pc[k].part == 0;
    }
    out->pieces = n;
    out->first_end = out->wall = end[0];
    for (unsigned w = 0; w < workers; w++) {
        out->wall = end[w] > out->wall ? end[w] : out->wall;
        out->first_end = end[w] < out->first_end ? end[w] : out->first_end;
        out->busy += end[w];
    }
    free(pc);
    free(end);
    return 0;
}

double estimate_rows_s(const sweep_plan *p, const experiment *e, const estimate_model *m)
{
    double total = RUN_STARTUP_S + estimate_references_s(p, m), v, s;
    for (size_t i = 0; i < p->count; i++) {
        if (p->configs[i].skip_reason) continue;
        estimate_config_parts(&p->configs[i], &e->timing, m, &v, &s);
        total += v + s;
    }
    size_t profiled;
    unsigned passes;
    return total + estimate_profile_s(p, e, m, &profiled, &passes, NULL, 0);
}

int shard_estimates(const sweep_plan *whole, const experiment *e, const estimate_model *m, unsigned count,
                    double *est)
{
    size_t n = whole->count ? whole->count : 1;
    unsigned *owner = malloc(n * sizeof *owner);
    size_t *at = calloc((size_t)count + 1, sizeof *at);
    sweep_config *sorted = malloc(n * sizeof *sorted);
    int rc = -1;
    if (!owner || !at || !sorted || shard_deal(whole, &e->timing, count, owner)) goto done;
    /* the parts side by side, each in plan order */
    for (size_t i = 0; i < whole->count; i++) at[owner[i] + 1]++;
    for (unsigned s = 0; s < count; s++) at[s + 1] += at[s];
    size_t *fill = calloc(count ? count : 1, sizeof *fill);
    if (!fill) goto done;
    for (size_t i = 0; i < whole->count; i++) sorted[at[owner[i]] + fill[owner[i]]++] = whole->configs[i];
    free(fill);
    for (unsigned s = 0; s < count; s++) {
        sweep_plan part = *whole;
        part.configs = sorted + at[s];
        part.count = at[s + 1] - at[s];
        est[s] = estimate_rows_s(&part, e, m);
    }
    rc = 0;
done:
    free(owner);
    free(at);
    free(sorted);
    return rc;
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
    if (e->timing.hot_below_l2 != TIMING_DEFAULT_HOT_BELOW_L2) /* the default keeps the fingerprint it had */
        snprintf(line + strlen(line), sizeof line - strlen(line), " hot_below=%u", e->timing.hot_below_l2);
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
