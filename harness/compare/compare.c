/* compare.h: reading two results directories, matching their rows, judging
 * each configuration, and the correction across configurations. The command
 * line is harness/compare/compare_main.c; the outputs compare_report.c,
 * compare_summary.c and compare_export.c. */
#define _POSIX_C_SOURCE 200809L
#include "harness/compare/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/core/files.h"
#include "harness/config/plan.h"
#include "harness/core/exit_codes.h"
#include "results_io/csv.h"
#include "results_io/run_keys.h"

/* ---- one results directory ------------------------------------------------------- */

static int load_run_json(const char *path, compare_run *run, char *err, size_t errlen)
{
    json_error_t je;
    run->run = json_load_file(path, 0, &je);
    if (!run->run) {
        snprintf(err, errlen, "%s:%d: not a run.json: %s", path, je.line, je.text);
        return -1;
    }
    json_t *v = json_object_get(run->run, RK(SCHEMA_VERSION));
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "%s: no schema_version", path);
        return -1;
    }
    if (json_integer_value(v) < SWEEP_SCHEMA_OLDEST || json_integer_value(v) > SWEEP_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: schema version %lld; this build reads %d..%d", path,
                 (long long)json_integer_value(v), SWEEP_SCHEMA_OLDEST, SWEEP_SCHEMA_VERSION);
        return -1;
    }
    const char *name = json_string_value(json_object_get(json_object_get(run->run, RK(DEVICE)), "name"));
    run->device = name ? name : "unknown";
    return 0;
}

/* results.csv: this build's schema, whole (no cut-off line, no fewer rows
 * than a complete run.json counts), at least one row. */
static int load_results(const char *path, compare_run *run, char *err, size_t errlen)
{
    if (results_read_csv_any(path, &run->rf, err, errlen)) return -1;
    json_t *rows = json_object_get(run->run, RK(ROWS));
    if (run->rf.torn) {
        snprintf(err, errlen, "%s: its last line is cut off (no newline): truncated", path);
        return -1;
    }
    if (run->rf.unknown_rows)
        fprintf(stderr, "sweep compare: note: %s: %zu rows of variants this build does not know (%s): compared as read\n",
                path, run->rf.unknown_rows, run->rf.unknown_variants);
    if (json_is_true(json_object_get(run->run, RK(COMPLETE))) && json_is_integer(rows) &&
        (json_int_t)run->rf.count < json_integer_value(rows)) {
        snprintf(err, errlen, "%s: %zu rows, but run.json counts %lld: truncated", path, run->rf.count,
                 (long long)json_integer_value(rows));
        return -1;
    }
    if (!run->rf.count) {
        snprintf(err, errlen, "%s: no rows", path);
        return -1;
    }
    return 0;
}

int compare_load_run(const char *dir, compare_run *run, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    snprintf(run->dir, sizeof run->dir, "%s", dir);
    char csv[SWEEP_PATH_MAX], json[SWEEP_PATH_MAX], samples[SWEEP_PATH_MAX];
    if (path_join(csv, sizeof csv, dir, "results.csv") || path_join(json, sizeof json, dir, "run.json") ||
        path_join(samples, sizeof samples, dir, "samples.csv")) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        return -1;
    }
    if (!path_is_dir(dir)) {
        snprintf(err, errlen, "%s: %s", dir, path_exists(dir) ? "not a directory" : "no such directory");
        return -1;
    }
    if (!csv_exists(csv) || !path_exists(json)) { /* results.csv, or results.csv.gz (sweep pack) */
        snprintf(err, errlen, "%s: not a results directory (no %s)", dir, csv_exists(csv) ? "run.json" : "results.csv");
        return -1;
    }
    if (load_run_json(json, run, err, errlen) || load_results(csv, run, err, errlen)) return -1;
    if (csv_exists(samples)) {
        if (samples_read_csv(samples, &run->samples, err, errlen)) return -1;
        run->has_samples = 1;
    }
    return 0;
}

void compare_run_free(compare_run *run)
{
    free(run->lib);
    run->lib = NULL;
    results_file_free(&run->rf);
    samples_file_free(&run->samples);
    if (run->run) json_decref(run->run);
    run->run = NULL;
}

/* ---- matching ---------------------------------------------------------------------------- */

typedef struct keyed {
    char label[256];
    const sweep_row *row;
    int used;
} keyed;

static int keyed_cmp(const void *p, const void *q) { return strcmp(((const keyed *)p)->label, ((const keyed *)q)->label); }

static keyed *index_rows(const results_file *rf)
{
    keyed *k = calloc(rf->count ? rf->count : 1, sizeof *k);
    if (!k) return NULL;
    for (size_t i = 0; i < rf->count; i++) {
        results_row_label(&rf->rows[i].plain.cfg, k[i].label, sizeof k[i].label);
        k[i].row = &rf->rows[i];
    }
    qsort(k, rf->count, sizeof *k, keyed_cmp);
    return k;
}

/* The metric columns both runs have, by name. */
static int common_metrics(compare_result *r)
{
    const results_file *a = &r->base.rf, *b = &r->newer.rf;
    r->metrics = calloc(a->metric_count ? a->metric_count : 1, sizeof *r->metrics);
    if (!r->metrics) return -1;
    for (size_t i = 0; i < a->metric_count; i++)
        for (size_t j = 0; j < b->metric_count; j++)
            if (!strcmp(a->metrics[i].name, b->metrics[j].name)) {
                r->metrics[r->nmetrics++] = (compare_metric){&a->metrics[i], i, j};
                break;
            }
    return 0;
}

/* A phase of a row as compare_judge reads it, its times divided by ref (the
 * --normalize reference; 1: as measured). Divided, not multiplied by 1/ref:
 * the reference row itself comes out exactly 1. Its samples, when divided,
 * go to *buf (the caller frees it). The noise is relative: it stays. */
static int side_of(const compare_run *run, const sweep_row *row, const char *label, int hot, double ref,
                   compare_side *s, double **buf)
{
    const timing_stats *t = hot ? &row->hot : &row->cold;
    *s = (compare_side){t->samples ? t->median / ref : NAN, t->stdev / ref, row_phase_noise(t), t->samples, NULL, 0};
    const sample_series *ss = run->has_samples ? samples_find(&run->samples, label, hot) : NULL;
    if (!ss) return 0;
    s->ms = ss->ms;
    s->n_ms = ss->n;
    if (ref == 1) return 0;
    *buf = malloc((ss->n ? ss->n : 1) * sizeof **buf);
    if (!*buf) return -1;
    for (size_t i = 0; i < ss->n; i++) (*buf)[i] = ss->ms[i] / ref;
    s->ms = *buf;
    return 0;
}

static double ref_or_1(double ref) { return isnan(ref) ? 1 : ref; }

static int metric_changes(compare_result *r, compare_pair *p)
{
    p->metric_change = malloc((r->nmetrics ? r->nmetrics : 1) * sizeof *p->metric_change);
    if (!p->metric_change) return -1;
    for (size_t i = 0; i < r->nmetrics; i++) {
        double x = p->base->plain.metrics[r->metrics[i].base_col], y = p->newer->plain.metrics[r->metrics[i].new_col];
        p->metric_change[i] = isfinite(x) && isfinite(y) && x != 0 ? y / x - 1 : (x == 0 && y == 0 ? 0 : NAN);
    }
    return 0;
}

static int judge_pair(compare_result *r, compare_pair *p)
{
    for (int hot = 0; hot < 2; hot++) {
        compare_side b, n;
        double *bbuf = NULL, *nbuf = NULL;
        int ok = !side_of(&r->base, p->base, p->label, hot, ref_or_1(p->ref_base[hot]), &b, &bbuf) &&
                 !side_of(&r->newer, p->newer, p->label, hot, ref_or_1(p->ref_new[hot]), &n, &nbuf);
        if (ok) compare_judge(&b, &n, r->threshold, hot ? &p->hot : &p->cold);
        free(bbuf);
        free(nbuf);
        if (!ok) return -1;
    }
    return metric_changes(r, p);
}

/* --normalize cub's reference rows: their times divided by the reference
 * (1.0 for the fastest) on each side, shown and not judged. */
static void reference_phase(const compare_pair *p, int hot, compare_phase *o)
{
    const timing_stats *b = hot ? &p->base->hot : &p->base->cold, *n = hot ? &p->newer->hot : &p->newer->cold;
    memset(o, 0, sizeof *o);
    o->base_ms = b->samples ? b->median / p->ref_base[hot] : NAN;
    o->new_ms = n->samples ? n->median / p->ref_new[hot] : NAN;
    o->speedup = o->base_ms / o->new_ms;
    o->change = o->new_ms / o->base_ms - 1;
    o->lo = o->hi = o->p = o->threshold = o->noise = NAN;
    o->base_n = b->samples;
    o->new_n = n->samples;
    o->method = CM_NONE;
    o->verdict = CV_NA;
}

/* why: a side has no --normalize reference; NULL: on one side only, or not ok. */
static int add_apart(compare_result *r, const sweep_row *b, const sweep_row *n, const char *label, const char *why)
{
    compare_apart *bigger = realloc(r->apart, (r->napart + 1) * sizeof *bigger);
    if (!bigger) return -1;
    r->apart = bigger;
    compare_apart *a = &r->apart[r->napart++];
    a->base = b;
    a->newer = n;
    snprintf(a->label, sizeof a->label, "%s", label);
    a->no_reference = why != NULL;
    if (why) snprintf(a->reason, sizeof a->reason, "%s", why);
    else if (!b || !n) snprintf(a->reason, sizeof a->reason, "only in %s", b ? "BASE" : "NEW");
    else
        snprintf(a->reason, sizeof a->reason, "not ok on %s",
                 b->status == ROW_OK ? "NEW" : n->status == ROW_OK ? "BASE" : "either side");
    return 0;
}

/* A configuration ok on both sides: judged; with --normalize cub, the
 * library's own rows are the reference (shown, not judged); a side without
 * a reference puts it apart, with the reason. */
static int add_pair(compare_result *r, const sweep_row *b, const sweep_row *n, const char *label)
{
    compare_pair p = {.base = b, .newer = n, .ref_base = {NAN, NAN}, .ref_new = {NAN, NAN}};
    char why[320];
    if (r->normalize != CN_NONE &&
        (compare_norm_reference(r->normalize, &r->base, "BASE", b, p.ref_base, why, sizeof why) ||
         compare_norm_reference(r->normalize, &r->newer, "NEW", n, p.ref_new, why, sizeof why)))
        return add_apart(r, b, n, label, why);
    snprintf(p.label, sizeof p.label, "%s", label);
    if (!compare_norm_is_library(r->normalize, b)) {
        r->pairs[r->npairs] = p;
        return judge_pair(r, &r->pairs[r->npairs++]);
    }
    compare_pair *q = &r->refs[r->nrefs++];
    *q = p;
    reference_phase(q, 0, &q->cold);
    reference_phase(q, 1, &q->hot);
    return metric_changes(r, q);
}

/* Pairs in BASE's order; NEW's rows not in BASE at the end of the apart list. */
static int match_rows(compare_result *r, keyed *kn, size_t nn, size_t *common)
{
    const results_file *a = &r->base.rf;
    r->pairs = calloc(a->count, sizeof *r->pairs);
    r->refs = calloc(a->count, sizeof *r->refs);
    if (!r->pairs || !r->refs) return -1;
    for (size_t i = 0; i < a->count; i++) {
        keyed probe;
        results_row_label(&a->rows[i].plain.cfg, probe.label, sizeof probe.label);
        keyed *hit = bsearch(&probe, kn, nn, sizeof *kn, keyed_cmp);
        const sweep_row *b = &a->rows[i], *n = hit ? hit->row : NULL;
        if (hit) {
            hit->used = 1;
            ++*common;
        }
        if (!n || b->status != ROW_OK || n->status != ROW_OK) {
            if (add_apart(r, b, n, probe.label, NULL)) return -1;
        } else if (add_pair(r, b, n, probe.label)) return -1;
    }
    for (size_t i = 0; i < nn; i++)
        if (!kn[i].used && add_apart(r, NULL, kn[i].row, kn[i].label, NULL)) return -1;
    return 0;
}

/* Nothing judged: say why, naming the first configuration without a reference. */
static void nothing_judged(const compare_result *r, size_t common, char *err, size_t errlen)
{
    const compare_apart *why = NULL;
    for (size_t i = 0; i < r->napart && !why; i++)
        if (r->apart[i].no_reference) why = &r->apart[i];
    if (common && why)
        snprintf(err, errlen, "%s and %s: no configuration ok in both has a --normalize %s reference (%s: %s)",
                 r->base.dir, r->newer.dir, compare_norm_name(r->normalize), why->label, why->reason);
    else if (common && r->nrefs)
        snprintf(err, errlen, "%s and %s have only the library's rows in common: with --normalize cub they are the "
                 "reference, and nothing is left to judge", r->base.dir, r->newer.dir);
    else
        snprintf(err, errlen, "%s and %s have no configuration in common%s", r->base.dir, r->newer.dir,
                 common ? " that is ok in both" : "");
}

/* The verdicts, corrected: Benjamini-Hochberg over the p of every judged
 * phase of every pair (the library's reference rows are not tests), then
 * compare_decide with each one's outcome. */
static int correct_verdicts(compare_result *r)
{
    double *p = malloc((2 * r->npairs + 1) * sizeof *p);
    int *reject = malloc((2 * r->npairs + 1) * sizeof *reject);
    if (!p || !reject) {
        free(p);
        free(reject);
        return -1;
    }
    for (size_t i = 0; i < 2 * r->npairs; i++) {
        const compare_phase *ph = i % 2 ? &r->pairs[i / 2].hot : &r->pairs[i / 2].cold;
        p[i] = ph->verdict == CV_NA ? NAN : ph->p;
    }
    r->fdr_q = COMPARE_FDR_Q;
    r->nrejected = cs_bh_reject(p, 2 * r->npairs, r->fdr_q, reject, &r->ntests);
    for (size_t i = 0; i < 2 * r->npairs; i++)
        compare_decide(i % 2 ? &r->pairs[i / 2].hot : &r->pairs[i / 2].cold, reject[i]);
    free(p);
    free(reject);
    return 0;
}

int compare_build(compare_result *r, char *err, size_t errlen)
{
    compare_check_runs(r);
    keyed *kn = index_rows(&r->newer.rf);
    size_t common = 0;
    if (r->normalize == CN_MACHINE) compare_norm_machine_terms(r);
    if (!kn || common_metrics(r) || compare_norm_prepare(r->normalize, &r->base) ||
        compare_norm_prepare(r->normalize, &r->newer) || match_rows(r, kn, r->newer.rf.count, &common)) {
        free(kn);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    free(kn);
    if (!common || !r->npairs) {
        nothing_judged(r, common, err, errlen);
        return -1;
    }
    if (compare_null_fit(r) || correct_verdicts(r)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    compare_norm_warnings(r);
    return 0;
}

void compare_result_free(compare_result *r)
{
    for (size_t i = 0; i < r->npairs; i++) free(r->pairs[i].metric_change);
    for (size_t i = 0; i < r->nrefs; i++) free(r->refs[i].metric_change);
    free(r->pairs);
    free(r->refs);
    free(r->apart);
    free(r->metrics);
    compare_null_free(r);
    for (size_t i = 0; i < r->nwarnings; i++) free(r->warnings[i]);
    free(r->warnings);
    compare_run_free(&r->base);
    compare_run_free(&r->newer);
    memset(r, 0, sizeof *r);
}

