/* compare.h's --normalize: each row's times divided by a reference measured
 * in the same run, so that two runs are compared relative to their own
 * machine. Machines of one kind differ by 2-4 %, and one machine drifts
 * between processes: absolute times compared across runs carry that as if
 * the code had changed. Both references move with the machine: the library
 * (CUB) runs on it beside the variants, and the copy bandwidth is measured on
 * it at the start of the run. What neither corrects: a change to the library
 * itself (cub), a change to a variant's bytes model (copy). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"
#include "results_io/run_keys.h"

const char *compare_norm_name(compare_norm m)
{
    switch (m) {
    case CN_CUB: return "cub";
    case CN_COPY: return "copy";
    case CN_MACHINE: return "machine";
    case CN_NONE: break;
    }
    return "none";
}

int compare_norm_parse(const char *s, compare_norm *m)
{
    if (!strcmp(s, "cub")) *m = CN_CUB;
    else if (!strcmp(s, "copy")) *m = CN_COPY;
    else if (!strcmp(s, "machine")) *m = CN_MACHINE;
    else return -1;
    return 0;
}

static double copy_bandwidth(const compare_run *run)
{
    json_t *v = json_object_get(run->run, RK(COPY_BANDWIDTH_GBPS));
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ---- machine: time ~ launch + bytes / bandwidth ----------------------------------------------- */

static int is_library(const sweep_row *row)
{
    return row->cfg.v && !strcmp(row->cfg.v->name, row->cfg.v->kind == KIND_SCAN ? SWEEP_CUB_SCAN : SWEEP_CUB_REDUCE);
}

/* The launch term from the library's cold rows, for runs that did not measure
 * it: each row's time less its bytes at the copy bandwidth, the median over
 * the rows where that is most of the time (launch-bound sizes). It is the
 * library's call overhead (two kernels), not one launch: used on both sides
 * when either lacks launch_us, so the two sides mean the same. */
static double launch_from_library(const compare_run *run)
{
    double bw = copy_bandwidth(run), *x = malloc((run->rf.count + 1) * sizeof *x);
    size_t k = 0;
    for (size_t i = 0; x && bw > 0 && i < run->rf.count; i++) {
        const sweep_row *r = &run->rf.rows[i];
        double t = r->cold.median, by = r->plain.values[RC_BYTES_MOVED] / (bw * 1e6);
        if (r->status == ROW_OK && is_library(r) && r->cold.samples && t > 0 && by > 0 && by < t / 2) x[k++] = t - by;
    }
    double l = k >= 3 ? cs_median(x, k) : NAN;
    free(x);
    return l;
}

static double measured_launch_ms(const compare_run *run)
{
    json_t *v = json_object_get(run->run, RK(LAUNCH_US));
    return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) * 1e-3 : NAN;
}

double compare_machine_launch_ms(const compare_run *run, const char **source)
{
    if (run->launch_ms > 0) {
        if (source) *source = run->launch_fitted ? "fitted from the library's rows" : "run.json launch_us";
        return run->launch_ms;
    }
    double l = measured_launch_ms(run);
    if (source) *source = isfinite(l) ? "run.json launch_us" : "fitted from the library's rows";
    return isfinite(l) ? l : launch_from_library(run);
}

double compare_machine_copy_GBps(const compare_run *run) { return copy_bandwidth(run); }

/* Both sides' launch terms, of one definition: measured when both runs
 * measured it, else both fitted from their library rows. */
void compare_norm_machine_terms(compare_result *r)
{
    int measured = isfinite(measured_launch_ms(&r->base)) && isfinite(measured_launch_ms(&r->newer));
    compare_run *side[2] = {&r->base, &r->newer};
    for (int i = 0; i < 2; i++) {
        side[i]->launch_fitted = !measured;
        side[i]->launch_ms = measured ? measured_launch_ms(side[i]) : launch_from_library(side[i]);
    }
}

static int machine_reference(const compare_run *run, const char *side, const sweep_row *row, double ref[2],
                             char *why, size_t len)
{
    double bw = copy_bandwidth(run), l = run->launch_ms;
    if (!(bw > 0) || !(l > 0)) {
        snprintf(why, len, "no reference: %s's run.json has no %s", side,
                 !(bw > 0) ? "copy_bandwidth_GBps" : "launch_us, and its library rows give no launch term");
        return -1;
    }
    if (!(row->plain.values[RC_BYTES_MOVED] > 0)) {
        snprintf(why, len, "no reference: no bytes_moved in %s", side);
        return -1;
    }
    ref[0] = ref[1] = l + row->plain.values[RC_BYTES_MOVED] / (bw * 1e6);
    return 0;
}

void compare_norm_describe(const compare_result *r, char *buf, size_t len)
{
    switch (r->normalize) {
    case CN_MACHINE:
        snprintf(buf, len,
                 "Normalised: --normalize machine. Each time is divided by its own run's machine model, launch + "
                 "bytes_moved / copy bandwidth (BASE %.2f us + bytes / %.1f GB/s, NEW %.2f us + bytes / %.1f GB/s; "
                 "launch term %s); speed-ups, verdicts and counts are of these ratios.",
                 r->base.launch_ms * 1e3, copy_bandwidth(&r->base), r->newer.launch_ms * 1e3,
                 copy_bandwidth(&r->newer),
                 r->base.launch_fitted ? "fitted from each run's library rows (a run without launch_us)"
                                       : "run.json's launch_us");
        break;
    case CN_CUB:
        snprintf(buf, len,
                 "Normalised: --normalize cub. Each time is divided by the fastest ok median of the library (%s, %s) "
                 "at the same kind, dtype, op, scan mode and n in its own run, cold by cold and hot by hot; speed-ups, "
                 "verdicts and counts are of these ratios. The library's rows are the reference (1.0 on both sides): "
                 "listed apart, not judged.",
                 SWEEP_CUB_REDUCE, SWEEP_CUB_SCAN);
        break;
    case CN_COPY:
        snprintf(buf, len,
                 "Normalised: --normalize copy. Each time is divided by the time a device-to-device copy of its "
                 "bytes_moved takes at its own run's measured copy bandwidth (BASE %.1f GB/s, NEW %.1f GB/s); "
                 "speed-ups, verdicts and counts are of these ratios.",
                 copy_bandwidth(&r->base), copy_bandwidth(&r->newer));
        break;
    case CN_NONE:
        snprintf(buf, len,
                 "Not normalised: absolute times. Where the empirical null was fitted, a shift that moves a whole "
                 "size band alike is its centre (the machine's), not a change; --normalize cub|copy|machine "
                 "compares each run relative to its own machine first.");
        break;
    }
}

/* ---- cub: the library's fastest medians, per kind, dtype, op, scan mode, n ----------------- */

static const char *library_of(const sweep_row *row)
{
    return row->cfg.v->kind == KIND_SCAN ? SWEEP_CUB_SCAN : SWEEP_CUB_REDUCE;
}

int compare_norm_is_library(compare_norm m, const sweep_row *row)
{
    return m == CN_CUB && !strcmp(row->cfg.v->name, library_of(row));
}

/* Reductions have no scan mode: every finish of theirs meets the one library row. */
static int same_key(const compare_lib *k, const sweep_row *r)
{
    const sweep_config *a = &r->cfg;
    return k->kind == r->cfg.v->kind && k->dtype == a->dtype && k->op == a->op && k->n == a->n &&
           (k->kind == KIND_REDUCE || k->mode == a->scan_mode);
}

static compare_lib *find_lib(const compare_run *run, const sweep_row *r)
{
    for (size_t i = 0; i < run->nlib; i++)
        if (same_key(&run->lib[i], r)) return &run->lib[i];
    return NULL;
}

static double phase_median(const sweep_row *r, int hot)
{
    const timing_stats *t = hot ? &r->hot : &r->cold;
    return t->samples && t->median > 0 ? t->median : NAN;
}

int compare_norm_prepare(compare_norm m, compare_run *run)
{
    if (m != CN_CUB) return 0;
    run->lib = calloc(run->rf.count ? run->rf.count : 1, sizeof *run->lib);
    if (!run->lib) return -1;
    for (size_t i = 0; i < run->rf.count; i++) {
        const sweep_row *r = &run->rf.rows[i];
        if (r->status != ROW_OK || !compare_norm_is_library(m, r)) continue;
        compare_lib *k = find_lib(run, r);
        if (!k) {
            k = &run->lib[run->nlib++];
            *k = (compare_lib){r->cfg.v->kind, r->cfg.dtype, r->cfg.op, r->cfg.scan_mode, r->cfg.n, {NAN, NAN}};
        }
        for (int h = 0; h < 2; h++) {
            double t = phase_median(r, h);
            if (t > 0 && !(k->ms[h] <= t)) k->ms[h] = t;
        }
    }
    return 0;
}

static void key_text(kind_t kind, dtype_t dtype, op_t op, scan_mode_t mode, size_t n, char *buf, size_t len)
{
    int scan = kind == KIND_SCAN;
    char size[32];
    compare_size_text(n, size, sizeof size);
    snprintf(buf, len, "%s %s%s%s n=%s", dtype_name(dtype), op_name(op), scan ? " " : "",
             scan ? scan_mode_name(mode) : "", size);
}

static int cub_reference(const compare_run *run, const char *side, const sweep_row *row, double ref[2], char *why,
                         size_t len)
{
    const compare_lib *k = find_lib(run, row);
    char key[128];
    const sweep_config *a = &row->cfg;
    key_text(row->cfg.v->kind, a->dtype, a->op, a->scan_mode, a->n, key, sizeof key);
    if (!k) {
        snprintf(why, len, "no reference: no ok %s row at %s in %s", library_of(row), key, side);
        return -1;
    }
    for (int h = 0; h < 2; h++) {
        ref[h] = isnan(phase_median(row, h)) ? NAN : k->ms[h];
        if (!isnan(phase_median(row, h)) && !(k->ms[h] > 0)) {
            snprintf(why, len, "no reference: %s has no %s median at %s in %s", library_of(row), h ? "hot" : "cold",
                     key, side);
            return -1;
        }
    }
    return 0;
}

/* ---- copy: what a copy of the row's bytes takes on that machine ------------------------------ */

static int copy_reference(const compare_run *run, const char *side, const sweep_row *row, double ref[2], char *why,
                          size_t len)
{
    double bw = copy_bandwidth(run);
    if (!(bw > 0)) {
        snprintf(why, len, "no reference: %s's run.json has no copy_bandwidth_GBps", side);
        return -1;
    }
    if (!(row->plain.values[RC_BYTES_MOVED] > 0)) {
        snprintf(why, len, "no reference: no bytes_moved in %s", side);
        return -1;
    }
    /* bytes / (GB/s * 1e9) seconds, in ms */
    ref[0] = ref[1] = row->plain.values[RC_BYTES_MOVED] / (bw * 1e6);
    return 0;
}

int compare_norm_reference(compare_norm m, const compare_run *run, const char *side, const sweep_row *row,
                           double ref[2], char *why, size_t len)
{
    ref[0] = ref[1] = NAN;
    if (m == CN_CUB) return cub_reference(run, side, row, ref, why, len);
    if (m == CN_COPY) return copy_reference(run, side, row, ref, why, len);
    if (m == CN_MACHINE) return machine_reference(run, side, row, ref, why, len);
    ref[0] = ref[1] = 1;
    return 0;
}

/* ---- what normalising does not correct ----------------------------------------------------- */

/* A run over several devices (--devices, a merge): the one copy bandwidth
 * in run.json is one device's, and every row is divided by it. */
static void warn_devices(compare_result *r, const compare_run *run, const char *side)
{
    json_t *devs = json_object_get(run->run, RK(DEVICES)), *d;
    double lo = INFINITY, hi = -INFINITY;
    size_t i;
    json_array_foreach(devs, i, d)
    {
        json_t *v = json_object_get(d, RK(COPY_BANDWIDTH_GBPS));
        if (!json_is_number(v)) continue;
        lo = fmin(lo, json_number_value(v));
        hi = fmax(hi, json_number_value(v));
    }
    if (!(hi > lo)) return;
    char line[600];
    snprintf(line, sizeof line,
             "%s ran on %zu devices whose copy bandwidths span %.1f-%.1f GB/s; --normalize copy divides every row "
             "by run.json's copy_bandwidth_GBps, %.1f GB/s",
             side, json_array_size(devs), lo, hi, copy_bandwidth(run));
    compare_warn(r, line);
}

static int lib_same(const compare_lib *a, const compare_lib *b)
{
    return a->kind == b->kind && a->dtype == b->dtype && a->op == b->op && a->n == b->n &&
           (a->kind == KIND_REDUCE || a->mode == b->mode);
}

/* NEW ÷ BASE of the reference at every key both runs have in both phases. */
static size_t lib_shifts(const compare_result *r, const compare_lib **keys, double *shift[2])
{
    size_t k = 0;
    for (size_t i = 0; i < r->base.nlib; i++)
        for (size_t j = 0; j < r->newer.nlib; j++)
            if (lib_same(&r->base.lib[i], &r->newer.lib[j])) {
                keys[k] = &r->base.lib[i];
                for (int h = 0; h < 2; h++) shift[h][k] = r->newer.lib[j].ms[h] / r->base.lib[i].ms[h];
                k += isfinite(shift[0][k]) && isfinite(shift[1][k]); /* a phase missing: not counted */
                break;
            }
    return k;
}

/* A ratio's change in per cent; no "-0.0". */
static double pct(double ratio) { return fabs(ratio - 1) < 5e-4 ? 0 : (ratio - 1) * 100; }

/* cub: a reference that moved between the runs unlike the library at other
 * sizes (a hiccup of that one row's process, not the machine) moves every
 * row divided by it. Said, with how many rows, so the verdicts there are
 * read with it in mind. */
static void warn_reference_moves(compare_result *r)
{
    const compare_lib **keys = calloc(r->base.nlib + 1, sizeof *keys);
    double *shift[2] = {calloc(r->base.nlib + 1, sizeof (double)), calloc(r->base.nlib + 1, sizeof (double))};
    size_t nk = keys && shift[0] && shift[1] ? lib_shifts(r, keys, shift) : 0;
    double limit = r->threshold >= 0 ? r->threshold : COMPARE_MIN_THRESHOLD;
    for (int h = 0; h < 2 && nk >= 3; h++) {
        double typical = cs_median(shift[h], nk);
        for (size_t k = 0; k < nk; k++) {
            double rel = shift[h][k] / typical;
            if (!(rel > 1 + limit || rel < 1 / (1 + limit))) continue;
            size_t rows = 0;
            for (size_t i = 0; i < r->npairs; i++) rows += same_key(keys[k], r->pairs[i].base);
            char key[128], line[600];
            key_text(keys[k]->kind, keys[k]->dtype, keys[k]->op, keys[k]->mode, keys[k]->n, key, sizeof key);
            snprintf(line, sizeof line,
                     "reference moved unlike the library's other sizes: at %s the %s %s median changed %+.1f %% from "
                     "BASE to NEW, the library's typical change %+.1f %%; the %zu configurations divided by it move "
                     "with it",
                     key, keys[k]->kind == KIND_SCAN ? SWEEP_CUB_SCAN : SWEEP_CUB_REDUCE, h ? "hot" : "cold",
                     pct(shift[h][k]), pct(typical), rows);
            compare_warn(r, line);
        }
    }
    free(keys);
    free(shift[0]);
    free(shift[1]);
}

void compare_norm_warnings(compare_result *r)
{
    if (r->normalize == CN_CUB) warn_reference_moves(r);
    if (r->normalize != CN_COPY && r->normalize != CN_MACHINE) return;
    size_t differ = 0;
    for (size_t i = 0; i < r->npairs; i++) differ += r->pairs[i].base->plain.values[RC_BYTES_MOVED] != r->pairs[i].newer->plain.values[RC_BYTES_MOVED];
    if (differ) {
        char line[300];
        snprintf(line, sizeof line,
                 "bytes_moved differs between BASE and NEW in %zu configuration%s: their copy-normalised figures "
                 "change with the bytes model, not only with the time",
                 differ, differ == 1 ? "" : "s");
        compare_warn(r, line);
    }
    warn_devices(r, &r->base, "BASE");
    warn_devices(r, &r->newer, "NEW");
}
