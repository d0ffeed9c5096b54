/* See confirm.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/confirm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/confirm_stats.h"
#include "harness/core/files.h"
#include "harness/run/remeasure.h"

static int is_library(const variant *v)
{
    return !strcmp(v->name, SWEEP_CUB_REDUCE) || !strcmp(v->name, SWEEP_CUB_SCAN);
}

/* Timed on the device: cold, and hot below [timing] hot_below x L2 (row_has_hot). */
static int timed(const sweep_row *r) { return row_timed_ok(r) && r->cfg.v->runner != RUNNER_HOST; }

int confirm_has_library(const sweep_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (timed(&rows[i]) && is_library(rows[i].cfg.v)) return 1;
    return 0;
}

static int same_group(const sweep_row *a, const sweep_row *b)
{
    const sweep_config *x = &a->cfg, *y = &b->cfg;
    if (a->cfg.v->kind != b->cfg.v->kind || x->dtype != y->dtype || x->op != y->op || x->n != y->n) return 0;
    return a->cfg.v->kind != KIND_SCAN || x->scan_mode == y->scan_mode;
}

/* One entrant of a group: its row, its per-round medians. */
typedef struct entrant {
    const sweep_row *row;
    double score; /* min over phases of its median / the fastest's */
    double cold[CONFIRM_MAX_ROUNDS], hot[CONFIRM_MAX_ROUNDS];
    unsigned cold_batch, hot_batch;
} entrant;

#define MAX_ENTRANTS 16

static int by_score(const void *p, const void *q)
{
    double a = ((const entrant *)p)->score, b = ((const entrant *)q)->score;
    return a < b ? -1 : a > b;
}

/* A row's score: its better phase's median over the group's fastest there
 * (a variant's hot winner may be another configuration than its cold one). */
static double score(const sweep_row *r, double fast_cold, double fast_hot)
{
    double c = r->cold.median / fast_cold, h = row_has_hot(r) ? r->hot.median / fast_hot : INFINITY;
    return c < h ? c : h;
}

/* The group of rows[g]: e[0] the library's best (by cold median), then the
 * candidates, closest first. Returns how many (0: no library row or no candidate). */
static size_t pick(const sweep_row *rows, size_t n, size_t g, const confirm_params *p, entrant *e)
{
    const sweep_row *lib = NULL;
    double fast_cold = INFINITY, fast_hot = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        if (!timed(r) || !same_group(r, &rows[g])) continue;
        if (is_library(r->cfg.v)) {
            if (!lib || r->cold.median < lib->cold.median) lib = r;
        } else {
            if (r->cold.median < fast_cold) fast_cold = r->cold.median;
            if (row_has_hot(r) && r->hot.median < fast_hot) fast_hot = r->hot.median;
        }
    }
    if (!lib || !isfinite(fast_cold)) return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        if (!timed(r) || !same_group(r, &rows[g]) || is_library(r->cfg.v)) continue;
        double s = score(r, fast_cold, fast_hot);
        if (s > 1 + p->within) continue;
        size_t k = 1;
        while (k <= m && e[k].row->cfg.v != r->cfg.v) k++;
        if (k <= m) {
            if (s < e[k].score) e[k] = (entrant){.row = r, .score = s};
        } else if (m + 1 < MAX_ENTRANTS) {
            e[++m] = (entrant){.row = r, .score = s};
        }
    }
    if (!m) return 0;
    qsort(e + 1, m, sizeof *e, by_score);
    if (m > p->candidates) m = p->candidates;
    e[0] = (entrant){.row = lib, .score = 0};
    return 1 + m;
}

static void line_for(const entrant *en, const entrant *lib, unsigned rounds, int hot, double copy_GBps,
                     double margin, uint64_t seed, confirm_line *l)
{
    const sweep_row *r = en->row;
    memset(l, 0, sizeof *l);
    snprintf(l->kind, sizeof l->kind, "%s", kind_name(r->cfg.v->kind));
    snprintf(l->dtype, sizeof l->dtype, "%s", dtype_name(r->cfg.dtype));
    snprintf(l->op, sizeof l->op, "%s", op_name(r->cfg.op));
    if (r->cfg.v->kind == KIND_SCAN) snprintf(l->scan_mode, sizeof l->scan_mode, "%s", scan_mode_name(r->cfg.scan_mode));
    l->n = r->cfg.n;
    snprintf(l->phase, sizeof l->phase, "%s", hot ? "hot" : "cold");
    snprintf(l->variant, sizeof l->variant, "%s", r->cfg.v->name);
    config_label(&r->cfg, l->config, sizeof l->config);
    snprintf(l->role, sizeof l->role, "%s", en == lib ? "library" : "candidate");
    l->rounds = rounds;
    const double *x = hot ? en->hot : en->cold, *ref = hot ? lib->hot : lib->cold;
    l->median_ms = confirm_median(x, rounds);
    double gbps = r->plain.values[RC_BYTES_MOVED] / (l->median_ms * 1e-3) / 1e9;
    l->pct_copy = copy_GBps > 0 && isfinite(gbps) ? 100.0 * gbps / copy_GBps : NAN;
    if (en == lib) {
        l->speedup = l->ci_lo = l->ci_hi = 1.0;
        snprintf(l->verdict, sizeof l->verdict, "reference");
        return;
    }
    confirm_ratio_interval(ref, x, rounds, CONFIRM_BOOTSTRAP_RESAMPLES, seed, &l->speedup, &l->ci_lo, &l->ci_hi);
    snprintf(l->verdict, sizeof l->verdict, "%s", confirm_verdict(l->ci_lo, l->ci_hi, margin));
}

/* Whether every entrant's row has a hot phase: the rounds time it then. */
static int group_hot(const entrant *e, size_t m)
{
    for (size_t i = 0; i < m; i++)
        if (!row_has_hot(e[i].row)) return 0;
    return 1;
}

/* The rounds of one group, hot as well where group_hot; 0, or -1 with msg. */
static int measure_group(sweep_device *dev, const timing_params *t, entrant *e, size_t m, unsigned rounds,
                         volatile sig_atomic_t *stop, char *msg, size_t len)
{
    int hot = group_hot(e, m);
    for (size_t i = 0; i < m; i++) {
        e[i].cold_batch = e[i].row->cold_batch;
        e[i].hot_batch = e[i].row->hot_batch;
    }
    for (unsigned r = 0; r < rounds; r++)
        for (size_t j = 0; j < m; j++) {
            if (*stop) return -1;
            entrant *en = &e[r % 2 ? m - 1 - j : j]; /* A B L, then L B A: neither side always goes first */
            timing_stats c, h;
            if (remeasure_config(dev, &en->row->cfg, t, "confirm", &en->cold_batch, hot ? &en->hot_batch : NULL, stop, &c, &h,
                                 msg, len) != DEV_OK)
                return -1;
            en->cold[r] = c.median;
            en->hot[r] = h.median;
        }
    return 0;
}

static int append(confirm_line **lines, size_t *count, size_t *cap, const confirm_line *l)
{
    if (*count == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        confirm_line *bigger = realloc(*lines, c * sizeof *bigger);
        if (!bigger) return -1;
        *lines = bigger;
        *cap = c;
    }
    (*lines)[(*count)++] = *l;
    return 0;
}

static void log_group(FILE *log, const confirm_line *l, size_t m)
{
    char n[32];
    confirm_format_n(l[0].n, n, sizeof n);
    for (size_t i = 0; i < m; i++) {
        if (!strcmp(l[i].role, "library")) continue;
        fprintf(log, "sweep: confirm %s %s %s n=%s %-4s %s: %.3fx [%.3f, %.3f] %s\n", l[i].kind, l[i].dtype, l[i].op,
                n, l[i].phase, l[i].config, l[i].speedup, l[i].ci_lo, l[i].ci_hi, l[i].verdict);
    }
}

int confirm_run(sweep_device *dev, const confirm_params *p, const timing_params *t, const sweep_row *rows, size_t n,
                double copy_GBps, volatile sig_atomic_t *stop, FILE *log, confirm_line **lines, size_t *count,
                char *msg, size_t len)
{
    size_t cap = 0;
    unsigned rounds = p->rounds < CONFIRM_MAX_ROUNDS ? p->rounds : CONFIRM_MAX_ROUNDS;
    timing_params tr = *t;
    tr.max_samples = tr.min_samples;
    *lines = NULL;
    *count = 0;
    entrant *e = calloc(MAX_ENTRANTS, sizeof *e);
    if (!e) return -1;
    int rc = 0;
    for (size_t g = 0; g < n && !rc; g++) {
        size_t k = 0;
        while (k < g && !(timed(&rows[k]) && same_group(&rows[k], &rows[g]))) k++;
        if (k < g || !timed(&rows[g])) continue; /* each group once, at its first timed row */
        size_t m = pick(rows, n, g, p, e);
        if (m < 2) continue;
        if (measure_group(dev, &tr, e, m, rounds, stop, msg, len)) {
            rc = -1;
            break;
        }
        size_t first = *count;
        for (int hot = 0; hot < 1 + group_hot(e, m) && !rc; hot++)
            for (size_t i = 0; i < m && !rc; i++) {
                confirm_line l;
                line_for(&e[i], &e[0], rounds, hot, copy_GBps, p->margin, 0x5eedull ^ (e[0].row->cfg.n * 31 + i), &l);
                rc = append(lines, count, &cap, &l);
            }
        if (log && !rc) log_group(log, *lines + first, *count - first);
    }
    free(e);
    return rc;
}

static int render(FILE *f, void *ctx)
{
    const struct { const confirm_line *l; size_t n; } *c = ctx;
    confirm_write_header(f);
    for (size_t i = 0; i < c->n; i++) confirm_write_line(f, &c->l[i]);
    return 0;
}

int confirm_write_csv(const char *path, const confirm_line *l, size_t n, char *err, size_t errlen)
{
    struct { const confirm_line *l; size_t n; } c = {l, n};
    return write_file_atomic(path, render, &c, err, errlen);
}
