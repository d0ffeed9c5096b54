/* compare.h: reading two results directories, matching their rows, judging
 * each configuration, and the `compare` command line. */
#define _POSIX_C_SOURCE 200809L
#include "harness/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/files.h"
#include "harness/plan.h"
#include "harness/sweep.h"

/* ---- one results directory ------------------------------------------------------- */

static int load_run_json(const char *path, compare_run *run, char *err, size_t errlen)
{
    json_error_t je;
    run->run = json_load_file(path, 0, &je);
    if (!run->run) {
        snprintf(err, errlen, "%s:%d: not a run.json: %s", path, je.line, je.text);
        return -1;
    }
    json_t *v = json_object_get(run->run, "schema_version");
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "%s: no schema_version", path);
        return -1;
    }
    if (json_integer_value(v) < SWEEP_SCHEMA_OLDEST || json_integer_value(v) > SWEEP_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: schema version %lld; this build reads %d..%d", path,
                 (long long)json_integer_value(v), SWEEP_SCHEMA_OLDEST, SWEEP_SCHEMA_VERSION);
        return -1;
    }
    const char *name = json_string_value(json_object_get(json_object_get(run->run, "device"), "name"));
    run->device = name ? name : "unknown";
    return 0;
}

/* results.csv: this build's schema, whole (no cut-off line, no fewer rows
 * than a complete run.json counts), at least one row. */
static int load_results(const char *path, compare_run *run, char *err, size_t errlen)
{
    if (results_read_csv_any(path, &run->rf, err, errlen)) return -1;
    json_t *rows = json_object_get(run->run, "rows");
    if (run->rf.torn) {
        snprintf(err, errlen, "%s: its last line is cut off (no newline): truncated", path);
        return -1;
    }
    if (run->rf.unknown_rows)
        fprintf(stderr, "sweep compare: warning: %s: %zu rows of variants this build does not know (%s): not compared\n",
                path, run->rf.unknown_rows, run->rf.unknown_variants);
    if (json_is_true(json_object_get(run->run, "complete")) && json_is_integer(rows) &&
        (json_int_t)(run->rf.count + run->rf.unknown_rows) < json_integer_value(rows)) {
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
    if (!path_exists(csv) || !path_exists(json)) {
        snprintf(err, errlen, "%s: not a results directory (no %s)", dir, path_exists(csv) ? "run.json" : "results.csv");
        return -1;
    }
    if (load_run_json(json, run, err, errlen) || load_results(csv, run, err, errlen)) return -1;
    if (path_exists(samples)) {
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

/* ---- run.json differences ------------------------------------------------------------- */

void compare_warn(compare_result *r, const char *line)
{
    char **bigger = realloc(r->warnings, (r->nwarnings + 1) * sizeof *bigger);
    if (!bigger) return;
    r->warnings = bigger;
    r->warnings[r->nwarnings] = strdup(line);
    if (r->warnings[r->nwarnings]) r->nwarnings++;
}

static void warn(compare_result *r, const char *fmt, const char *what, json_t *a, json_t *b)
{
    char *sa = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("none");
    char *sb = b ? json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("none");
    char line[1024];
    snprintf(line, sizeof line, fmt, what, sa ? sa : "?", sb ? sb : "?");
    free(sa);
    free(sb);
    compare_warn(r, line);
}

/* One warning per field that differs: what makes timings comparable. */
static void compare_identity(compare_result *r)
{
    static const char *const top[] = {"experiment", "driver_version", "runtime_version", "plan", "timing"};
    static const char *const dev[] = {"name", "sm", "sm_clock_khz", "mem_clock_khz", "mem_bus_bits", "l2_bytes"};
    json_t *a = r->base.run, *b = r->newer.run;
    const char *fmt = "%s differs: BASE %s, NEW %s";
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        json_t *x = json_object_get(a, top[i]), *y = json_object_get(b, top[i]);
        if (!json_equal(x, y) && (x || y)) warn(r, fmt, top[i], x, y);
    }
    json_t *da = json_object_get(a, "device"), *db = json_object_get(b, "device");
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
        json_t *x = json_object_get(da, dev[i]), *y = json_object_get(db, dev[i]);
        char what[64];
        snprintf(what, sizeof what, "device %s", dev[i]);
        if (!json_equal(x, y) && (x || y)) warn(r, fmt, what, x, y);
    }
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
        config_label(&rf->rows[i].cfg, k[i].label, sizeof k[i].label);
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
    *s = (compare_side){t->samples ? t->median / ref : NAN, t->stdev / ref, t->noise, t->samples, NULL, 0};
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
        double x = p->base->metrics[r->metrics[i].base_col], y = p->newer->metrics[r->metrics[i].new_col];
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
        config_label(&a->rows[i].cfg, probe.label, sizeof probe.label);
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

int compare_build(compare_result *r, char *err, size_t errlen)
{
    compare_identity(r);
    keyed *kn = index_rows(&r->newer.rf);
    size_t common = 0;
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
    for (size_t i = 0; i < r->nwarnings; i++) free(r->warnings[i]);
    free(r->warnings);
    compare_run_free(&r->base);
    compare_run_free(&r->newer);
    memset(r, 0, sizeof *r);
}

size_t compare_regressions(const compare_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->npairs; i++) n += r->pairs[i].cold.verdict == CV_SLOWER || r->pairs[i].hot.verdict == CV_SLOWER;
    return n;
}

/* ---- the command line ------------------------------------------------------------------- */

static const char compare_usage_text[] =
    "usage: bazel run //harness:sweep -- compare BASE NEW [options]\n"
    "       sweep compare BASE NEW [options]\n"
    "\n"
    "Compares two results directories of the sweep, configuration by configuration\n"
    "(variant, dtype, op, n, block dim, coarse factor, finish or scan mode): the\n"
    "speed-up of NEW (BASE median / NEW median, cold and hot) with a 95 % interval\n"
    "and a verdict. With both runs' samples.csv (sweep --samples): Mann-Whitney U and\n"
    "a bootstrap of the ratio; without, each row's noise (the median's standard error).\n"
    "faster / slower: significant (p < 0.01 or the interval excludes 1) and beyond\n"
    "the threshold; otherwise same.\n"
    "\n"
    "  --threshold PCT       smallest change that counts (default: the larger of the\n"
    "                        two rows' noise figures, at least 2)\n"
    "  --normalize cub|copy  before comparing, divide each row's times by a reference\n"
    "                        measured in its own run, so that a faster or slower\n"
    "                        machine does not read as a change of the code:\n"
    "                        cub: the fastest ok " SWEEP_CUB_REDUCE " / " SWEEP_CUB_SCAN " median at the\n"
    "                        same kind, dtype, op, scan mode and n, cold by cold and\n"
    "                        hot by hot (the library's rows: the reference, 1.0,\n"
    "                        not judged); copy: the time a copy of the row's\n"
    "                        bytes_moved takes at run.json's copy_bandwidth_GBps.\n"
    "                        Rows without one are listed apart, with the reason.\n"
    "  --out DIR             compare.md, compare.csv, compare.html and the charts\n"
    "                        (default NEW/compare)\n"
    "  --csv FILE            the table as CSV, also here\n"
    "  --json FILE           everything as JSON\n"
    "  --fail-on-regression  exit 1 when any configuration is slower\n"
    "  --help                this text\n"
    "\n"
    "Exit status: 0; 1 regression (with --fail-on-regression) or an output failed;\n"
    "2 bad input (nothing written).\n";

typedef struct compare_options {
    const char *base, *newer, *out, *csv, *json;
    double threshold; /* fraction; -1: default */
    compare_norm normalize;
    int fail_on_regression, help;
} compare_options;

static int compare_usage_error(const char *msg)
{
    fprintf(stderr, "sweep compare: %s\n", msg);
    return SWEEP_EXIT_USAGE;
}

static int parse_options(int argc, char **argv, compare_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->threshold = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = !strcmp(a, "--out") ? &o->out : !strcmp(a, "--csv") ? &o->csv
                           : !strcmp(a, "--json") ? &o->json : NULL;
        if (val || !strcmp(a, "--threshold") || !strcmp(a, "--normalize")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                snprintf(err, errlen, "%s: needs a value", a);
                return -1;
            }
            const char *v = argv[++i];
            if (val) *val = v;
            else if (!strcmp(a, "--normalize")) {
                if (compare_norm_parse(v, &o->normalize)) {
                    snprintf(err, errlen, "--normalize: '%s' is not cub or copy", v);
                    return -1;
                }
            } else {
                char *end;
                double t = strtod(v, &end);
                if (*end || !(t >= 0 && t < 1000)) {
                    snprintf(err, errlen, "--threshold: '%s' is not a percentage in [0, 1000)", v);
                    return -1;
                }
                o->threshold = t / 100;
            }
        } else if (!strcmp(a, "--fail-on-regression")) o->fail_on_regression = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) o->help = 1;
        else if (a[0] == '-' && a[1]) {
            snprintf(err, errlen, "unknown option '%s' (see compare --help)", a);
            return -1;
        } else if (!o->base) o->base = a;
        else if (!o->newer) o->newer = a;
        else {
            snprintf(err, errlen, "'%s': only two results directories, BASE and NEW", a);
            return -1;
        }
    }
    if (!o->help && !o->newer) {
        snprintf(err, errlen, "needs two results directories: compare BASE NEW");
        return -1;
    }
    return 0;
}

/* Can FILE be written (its directory exists and takes files; it is no directory)? */
static int file_writable(const char *opt, const char *path, char *err, size_t errlen)
{
    char dir[SWEEP_PATH_MAX], why[SWEEP_PATH_MAX + 256];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
    if (path_is_dir(path)) snprintf(err, errlen, "%s: %s is a directory", opt, path);
    else if (!path_is_dir(dir)) snprintf(err, errlen, "%s: %s: no such directory", opt, dir);
    else if (dir_check_writable(dir, why, sizeof why)) snprintf(err, errlen, "%s: cannot write %s: %s", opt, path, why);
    else return 0;
    return -1;
}

/* Every output path, resolved and checked before anything is written. */
static int resolve_outputs(compare_options *o, char *out, char *csv, char *json, const char *new_dir, char *err,
                           size_t errlen)
{
    char why[SWEEP_PATH_MAX + 256];
    if (o->out ? resolve_user_path(o->out, out, SWEEP_PATH_MAX) : path_join(out, SWEEP_PATH_MAX, new_dir, "compare")) {
        snprintf(err, errlen, "--out: path too long");
        return -1;
    }
    if (path_exists(out) && !path_is_dir(out)) {
        snprintf(err, errlen, "--out: %s exists and is not a directory", out);
        return -1;
    }
    if (dir_check_writable(out, why, sizeof why)) {
        snprintf(err, errlen, "--out: cannot write %s: %s", out, why);
        return -1;
    }
    csv[0] = json[0] = '\0';
    if (o->csv && (resolve_user_path(o->csv, csv, SWEEP_PATH_MAX) || file_writable("--csv", csv, err, errlen))) return -1;
    if (o->json && (resolve_user_path(o->json, json, SWEEP_PATH_MAX) || file_writable("--json", json, err, errlen)))
        return -1;
    return 0;
}

static int write_outputs(const compare_result *r, const char *out, const char *csv, const char *json)
{
    char err[SWEEP_PATH_MAX + 512];
    int failed = 0;
    if (make_dirs(out, err, sizeof err) || compare_write_dir(out, r, stderr, err, sizeof err)) failed = 1;
    else if (csv[0] && compare_write_csv(csv, r, err, sizeof err)) failed = 1;
    else if (json[0] && compare_write_json(json, r, err, sizeof err)) failed = 1;
    if (failed) fprintf(stderr, "sweep compare: %s\n", err);
    else fprintf(stderr, "sweep compare: %s/compare.md, compare.csv, compare.html%s%s%s%s\n", out, csv[0] ? ", " : "",
                 csv, json[0] ? ", " : "", json);
    return failed;
}

/* One line: the verdicts per configuration (a phase slower: slower; else a
 * phase faster: faster), of the normalised figures when normalised. */
static void print_counts(const compare_result *r)
{
    size_t slower = 0, faster = 0;
    for (size_t i = 0; i < r->npairs; i++) {
        const compare_pair *p = &r->pairs[i];
        int s = p->cold.verdict == CV_SLOWER || p->hot.verdict == CV_SLOWER;
        slower += s;
        faster += !s && (p->cold.verdict == CV_FASTER || p->hot.verdict == CV_FASTER);
    }
    char norm[64] = "not normalised";
    if (r->normalize != CN_NONE) snprintf(norm, sizeof norm, "normalised by %s", compare_norm_name(r->normalize));
    fprintf(stderr,
            "sweep compare: %zu configurations judged, %s: %zu slower, %zu faster, %zu same (slower: in a phase); "
            "%zu reference rows and %zu not compared listed apart\n",
            r->npairs, norm, slower, faster, r->npairs - slower - faster, r->nrefs, r->napart);
}

int compare_main(int argc, char **argv)
{
    static char err[2 * SWEEP_PATH_MAX + 1024];
    compare_options o;
    if (parse_options(argc, argv, &o, err, sizeof err)) return compare_usage_error(err);
    if (o.help) {
        fputs(compare_usage_text, stdout);
        return SWEEP_EXIT_OK;
    }
    static compare_result r;
    memset(&r, 0, sizeof r);
    r.threshold = o.threshold;
    r.normalize = o.normalize;
    static char base[SWEEP_PATH_MAX], newer[SWEEP_PATH_MAX], out[SWEEP_PATH_MAX], csv[SWEEP_PATH_MAX],
        json[SWEEP_PATH_MAX];
    if (resolve_user_path(o.base, base, sizeof base) || resolve_user_path(o.newer, newer, sizeof newer))
        return compare_usage_error("BASE or NEW: path too long");
    int rc = SWEEP_EXIT_USAGE;
    if (compare_load_run(base, &r.base, err, sizeof err) || compare_load_run(newer, &r.newer, err, sizeof err) ||
        resolve_outputs(&o, out, csv, json, newer, err, sizeof err) || compare_build(&r, err, sizeof err)) {
        fprintf(stderr, "sweep compare: %s\n", err);
        goto done;
    }
    for (size_t i = 0; i < r.nwarnings; i++) fprintf(stderr, "sweep compare: warning: %s\n", r.warnings[i]);
    compare_print_md(stdout, &r, NULL);
    fflush(stdout);
    rc = write_outputs(&r, out, csv, json) ? SWEEP_EXIT_FAILED : SWEEP_EXIT_OK;
    print_counts(&r);
    size_t slower = compare_regressions(&r);
    if (rc == SWEEP_EXIT_OK && o.fail_on_regression && slower) {
        fprintf(stderr, "sweep compare: %zu configuration%s slower (--fail-on-regression)\n", slower,
                slower == 1 ? " is" : "s are");
        rc = SWEEP_EXIT_FAILED;
    }
done:
    compare_result_free(&r);
    return rc;
}
