/* The memory's limit in counters: the fastest of ours and the library side by
 * side in DRAM bytes read per element and DRAM throughput as a share of peak
 * (plots/answer.h, answer_counters). A speed-up inside the margin is a tie;
 * these two columns say whether it is a tie of equal work at an equally full
 * memory (the same bytes, both near the same share of peak) or a difference
 * in what each kernel reads. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plots/answer.h"

/* From 2^24 elements of 4 bytes (64 MB) the input no longer fits an H100's or
 * H200's L2 (50, 60 MB): the sizes where DRAM, not the launch, sets the time. */
#define COUNTERS_MIN_N (1ull << 24)

static int has_counters(const row *w) { return isfinite(w->m[PM_DRAM_READ]) || isfinite(w->m[PM_DRAM_PCT]); }

/* The fastest ok row at n with either counter, among the library's series
 * (library 1) or ours (library 0); NULL when none. */
static const row *fastest_counted(const results *r, const group *g, unsigned long long n, int library)
{
    const row *best = NULL;
    for (size_t i = 0; i < g->ns; i++) {
        if (!r->vars[g->s[i].var].is_cub != !library) continue;
        for (size_t k = 0; k < r->nrows; k++) {
            const row *w = &r->rows[k];
            if (!w->ok || w->var != g->s[i].var || w->base.cfg.n != n || !has_counters(w)) continue;
            if (strcmp(w->base.cfg.kind, g->kind) || strcmp(w->base.cfg.dtype, g->dtype) ||
                strcmp(w->base.cfg.op, g->op))
                continue;
            if (!best || w->t_cold < best->t_cold) best = w;
        }
    }
    return best;
}

static void per_element(const row *w, char *buf, size_t len)
{
    if (isfinite(w->m[PM_DRAM_READ]) && w->base.cfg.n) snprintf(buf, len, "%.3f", w->m[PM_DRAM_READ] / w->base.cfg.n);
    else snprintf(buf, len, "–");
}

static void pct_peak(const row *w, char *buf, size_t len)
{
    if (isfinite(w->m[PM_DRAM_PCT])) snprintf(buf, len, "%.1f", w->m[PM_DRAM_PCT]);
    else snprintf(buf, len, "–");
}

/* One row per n of group g from COUNTERS_MIN_N where both sides have counters;
 * the table's header goes out before the first. Returns the rows written. */
static size_t group_counters(doc *d, const group *g, size_t written)
{
    static const char *const head[] = {"Kind", "n", "Fastest of ours", "Ours: DRAM bytes read / element",
                                       "Ours: DRAM % of peak", "Library: DRAM bytes read / element",
                                       "Library: DRAM % of peak", "Library time / ours, cold"};
    const results *r = d->ctx->r;
    char label[96];
    snprintf(label, sizeof label, "%s %s %s", g->kind, g->dtype, g->op);
    size_t rows = 0;
    for (size_t i = 0; i < g->ns; i++)
        for (size_t j = 0; j < g->s[i].npts; j++) {
            unsigned long long n = g->s[i].pts[j].n;
            int first_at_n = 1; /* each n once: from the first series that measured it */
            for (size_t a = 0; a < i && first_at_n; a++) first_at_n = series_at(&g->s[a], n) == NULL;
            if (n < COUNTERS_MIN_N || !first_at_n) continue;
            const row *ours = fastest_counted(r, g, n, 0), *lib = fastest_counted(r, g, n, 1);
            if (!ours || !lib) continue;
            if (!written && !rows) doc_table(d, 8, head, "lllrrrrr");
            char nb[32], who[128], ob[32], op[32], lb[32], lp[32], ratio[32];
            format_n(n, nb, sizeof nb);
            snprintf(who, sizeof who, "%s %ld×%ld", ours->base.cfg.variant, ours->base.cfg.block_dim,
                     ours->base.cfg.axis[0] > 0 ? ours->base.cfg.axis[0] : 1);
            per_element(ours, ob, sizeof ob), pct_peak(ours, op, sizeof op);
            per_element(lib, lb, sizeof lb), pct_peak(lib, lp, sizeof lp);
            snprintf(ratio, sizeof ratio, "%.4f×", lib->t_cold / ours->t_cold);
            const char *cells[] = {label, nb, who, ob, op, lb, lp, ratio};
            doc_row(d, 8, cells, "lllrrrrr");
            rows++;
        }
    return rows;
}

void answer_counters(doc *d)
{
    const results *r = d->ctx->r;
    if (r->metric_col[PM_DRAM_READ] < 0 && r->metric_col[PM_DRAM_PCT] < 0) return;
    size_t written = 0, heading = 0;
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const group *g = &r->groups[gi];
        int lib = 0;
        for (size_t i = 0; i < g->ns; i++) lib |= r->vars[g->s[i].var].is_cub != 0;
        if (!lib) continue;
        if (!heading) {
            doc_h(d, 3, "At the memory's limit: DRAM counters, ours and the library", "counters");
            heading = 1;
        }
        written += group_counters(d, g, written);
    }
    if (!heading) return;
    if (!written) {
        doc_p(d, "note", "No size from 2^24 up has DRAM counters for both ours and the library.");
        return;
    }
    doc_table_end(d);
    doc_p(d, NULL, "From the profile phase: dram__bytes_read.sum over n, and "
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed, for the fastest configuration (cold median) "
                   "of ours and of the library at each n from 2^24 that has them (– where the run did not measure "
                   "that counter). Equal bytes per element and the same share of peak on both sides: the two read "
                   "the same data at the same fullness of the memory, and a speed-up inside the margin there is a "
                   "tie at the memory's limit, not a difference in work.");
}
