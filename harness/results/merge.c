/* `sweep merge` (harness/results/merge.h): read the shards, check they are the whole
 * of one plan, write one results directory. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/merge.h"
#include "plots/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/core/files.h"
#include "harness/results/results.h"
#include "harness/core/exit_codes.h"
#include "results_io/closest.h"
#include "results_io/csv.h"
#include "results_io/run_keys.h"

static const char merge_usage_text[] =
    "usage: sweep merge OUT SHARD_DIR... [--force] [--quiet]\n"
    "\n"
    "Joins the results directories of one plan's shards (sweep --shard I/N or\n"
    "--shard auto) into OUT: results.csv in plan order, run.json listing every\n"
    "shard, summary.md, and the charts when gnuplot is there.\n"
    "\n"
    "  --force   write into OUT even when it is not empty\n"
    "  --quiet   no progress lines from the renderer\n"
    "\n"
    "Exit status: 0 merged; 1 an output could not be written; 2 bad input (a\n"
    "missing or duplicate shard, a shard of another plan or build, an\n"
    "interrupted shard, a configuration in two shards, OUT not empty): one\n"
    "line naming it, and nothing written.\n";

typedef struct merge_shard {
    char dir[SWEEP_PATH_MAX];
    json_t *run; /* run.json */
    results_file rf;
    unsigned index, count;
    size_t plan_total;
    const char *fingerprint;
    json_t *positions; /* plan_positions, or NULL: rows in plan order from 0 (an unsharded run) */
} merge_shard;

typedef struct merge_job {
    int argc;
    char **argv;
    const char *out_arg;
    char out[SWEEP_PATH_MAX];
    int force, quiet, help;
    merge_shard *shards;
    size_t n;
    sweep_row *rows;   /* the whole plan's rows, by plan position */
    size_t *from;      /* per position: shard + 1 (0: none yet) */
    size_t total;
    char err[3 * SWEEP_PATH_MAX];
} merge_job;

/* ---- the command line ---------------------------------------------------------------------- */

static int parse_args(merge_job *j, int argc, char **argv)
{
    j->shards = calloc((size_t)argc, sizeof *j->shards);
    if (!j->shards) return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--force")) j->force = 1;
        else if (!strcmp(a, "--quiet")) j->quiet = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) j->help = 1;
        else if (a[0] == '-' && a[1]) {
            static const char *const flags[] = {"--force", "--quiet", "--help"};
            unknown_flag_message(j->err, sizeof j->err, a, flags, sizeof flags / sizeof flags[0], "merge --help");
            return -1;
        } else if (!j->out_arg) j->out_arg = a;
        else if (resolve_user_path(a, j->shards[j->n++].dir, SWEEP_PATH_MAX)) {
            snprintf(j->err, sizeof j->err, "%s: path too long", a);
            return -1;
        }
    }
    if (!j->help && (!j->out_arg || !j->n)) {
        snprintf(j->err, sizeof j->err, "needs OUT and at least one shard directory (see merge --help)");
        return -1;
    }
    if (j->out_arg && resolve_user_path(j->out_arg, j->out, sizeof j->out)) {
        snprintf(j->err, sizeof j->err, "OUT: path too long");
        return -1;
    }
    return 0;
}

/* OUT: absent, or an empty directory, or --force. */
static int check_out(merge_job *j)
{
    if (!path_exists(j->out)) return 0;
    if (!path_is_dir(j->out)) snprintf(j->err, sizeof j->err, "OUT %s exists and is not a directory", j->out);
    else if (!j->force && !dir_is_empty(j->out))
        snprintf(j->err, sizeof j->err, "OUT %s exists and is not empty (--force writes into it)", j->out);
    else return 0;
    return -1;
}

/* ---- one shard ------------------------------------------------------------------------------- */

/* run.json: this schema, a complete run, its shard and plan. */
static int load_shard_json(merge_shard *s, const char *path, char *err, size_t errlen)
{
    json_error_t je;
    if (!(s->run = json_load_file(path, 0, &je))) {
        snprintf(err, errlen, "%s: not a results directory (run.json: %s)", s->dir, je.text);
        return -1;
    }
    json_t *schema = json_object_get(s->run, RK(SCHEMA_VERSION)), *sh = json_object_get(s->run, RK(SHARD));
    json_t *fp = json_object_get(s->run, RK(PLAN_FINGERPRINT));
    if (json_integer_value(schema) < SWEEP_SCHEMA_OLDEST || json_integer_value(schema) > SWEEP_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: run.json has schema version %lld; this build reads %d..%d", s->dir,
                 (long long)json_integer_value(schema), SWEEP_SCHEMA_OLDEST, SWEEP_SCHEMA_VERSION);
        return -1;
    }
    if (!json_is_true(json_object_get(s->run, RK(COMPLETE)))) {
        const char *why = json_string_value(json_object_get(s->run, RK(STOP_REASON)));
        snprintf(err, errlen, "%s: an interrupted or incomplete shard (run.json complete=false%s%s); --resume "
                              "--out %s finishes it",
                 s->dir, why ? ": " : "", why ? why : "", s->dir);
        return -1;
    }
    if (!json_is_string(fp)) {
        snprintf(err, errlen, "%s: run.json has no plan_fingerprint (a run of an older build)", s->dir);
        return -1;
    }
    s->fingerprint = json_string_value(fp);
    s->index = json_is_object(sh) ? (unsigned)json_integer_value(json_object_get(sh, RK(INDEX))) : 0;
    s->count = json_is_object(sh) ? (unsigned)json_integer_value(json_object_get(sh, RK(COUNT))) : 1;
    json_t *total = json_is_object(sh) ? json_object_get(sh, RK(PLAN_CONFIGURATIONS))
                                       : json_object_get(json_object_get(s->run, RK(PLAN)), "configurations");
    s->plan_total = (size_t)json_integer_value(total);
    s->positions = json_is_object(sh) ? json_object_get(s->run, RK(PLAN_POSITIONS)) : NULL;
    if (json_is_object(sh) && (!s->count || s->index >= s->count || !json_is_array(s->positions))) {
        snprintf(err, errlen, "%s: run.json's shard or plan_positions is malformed", s->dir);
        return -1;
    }
    return 0;
}

/* results.csv: whole, as many rows as positions (of any variant: a row carries its own). */
static int load_shard_rows(merge_shard *s, const char *path, char *err, size_t errlen)
{
    if (results_read_csv_any(path, &s->rf, err, errlen)) return -1;
    if (s->rf.torn) {
        snprintf(err, errlen, "%s: results.csv's last line is cut off: an incomplete shard", s->dir);
        return -1;
    }
    size_t expect = s->positions ? json_array_size(s->positions) : s->plan_total;
    json_int_t counted = json_integer_value(json_object_get(s->run, RK(ROWS)));
    if (s->rf.count != expect || (json_int_t)s->rf.count != counted) {
        snprintf(err, errlen, "%s: results.csv has %zu rows, run.json counts %lld and lists %zu plan positions: "
                              "an incomplete or edited shard",
                 s->dir, s->rf.count, (long long)counted, expect);
        return -1;
    }
    return 0;
}

static int load_shard(merge_shard *s, char *err, size_t errlen)
{
    char json[SWEEP_PATH_MAX + 16], csv[SWEEP_PATH_MAX + 16];
    if (!path_is_dir(s->dir)) {
        snprintf(err, errlen, "%s: no such directory (a missing shard?)", s->dir);
        return -1;
    }
    if (path_join(json, sizeof json, s->dir, "run.json") || path_join(csv, sizeof csv, s->dir, "results.csv")) {
        snprintf(err, errlen, "%s: path too long", s->dir);
        return -1;
    }
    if (!path_exists(json) || !csv_exists(csv)) { /* results.csv, or results.csv.gz (sweep pack) */
        snprintf(err, errlen, "%s: no run.json and results.csv: not a results directory", s->dir);
        return -1;
    }
    if (load_shard_json(s, json, err, errlen) || load_shard_rows(s, csv, err, errlen)) return -1;
    if (s->rf.schema < SWEEP_SCHEMA_VERSION) { /* rows without a device column: the shard's one device */
        char id[sizeof s->rf.rows[0].device];
        run_json_device_id(json, id, sizeof id);
        rows_fill_device(s->rf.rows, s->rf.count, id);
    }
    return 0;
}

/* ---- the shards together ------------------------------------------------------------------- */

static int same_metric_columns(const results_file *a, const results_file *b)
{
    if (a->metric_count != b->metric_count) return 0;
    for (size_t i = 0; i < a->metric_count; i++)
        if (strcmp(a->metrics[i].name, b->metrics[i].name)) return 0;
    return 1;
}

/* One plan, one build, one shard count; each index once, none missing. */
static int check_shard_set(merge_job *j)
{
    const merge_shard *first = &j->shards[0];
    for (size_t i = 1; i < j->n; i++) {
        const merge_shard *s = &j->shards[i];
        if (strcmp(s->fingerprint, first->fingerprint) || s->plan_total != first->plan_total) {
            snprintf(j->err, sizeof j->err, "%s: a shard of another plan or build (plan_fingerprint %s, not %s as in %s)",
                     s->dir, s->fingerprint, first->fingerprint, first->dir);
            return -1;
        }
        if (s->count != first->count || !same_metric_columns(&s->rf, &first->rf)) {
            snprintf(j->err, sizeof j->err, "%s: shard %u of %u, but %s is one of %u%s", s->dir, s->index, s->count,
                     first->dir, first->count, s->count == first->count ? " (its metric columns differ)" : "");
            return -1;
        }
        for (size_t k = 0; k < i; k++)
            if (j->shards[k].index == s->index) {
                snprintf(j->err, sizeof j->err, "%s and %s are both shard %u of %u: a duplicate shard",
                         j->shards[k].dir, s->dir, s->index, s->count);
                return -1;
            }
    }
    for (unsigned want = 0; want < first->count; want++) {
        size_t k = 0;
        while (k < j->n && j->shards[k].index != want) k++;
        if (k == j->n) {
            snprintf(j->err, sizeof j->err, "shard %u of %u is missing (%zu of %u shard directories given)", want,
                     first->count, j->n, first->count);
            return -1;
        }
    }
    return 0;
}

/* Every row to its plan position: none outside the plan, none twice, none missing. */
static int place_rows(merge_job *j)
{
    j->total = j->shards[0].plan_total;
    j->rows = calloc(j->total ? j->total : 1, sizeof *j->rows);
    j->from = calloc(j->total ? j->total : 1, sizeof *j->from);
    if (!j->rows || !j->from) return snprintf(j->err, sizeof j->err, "out of memory"), -1;
    for (size_t i = 0; i < j->n; i++) {
        const merge_shard *s = &j->shards[i];
        for (size_t r = 0; r < s->rf.count; r++) {
            json_int_t p = s->positions ? json_integer_value(json_array_get(s->positions, r)) : (json_int_t)r;
            char label[256];
            results_row_label(&s->rf.rows[r].plain.cfg, label, sizeof label);
            if (p < 0 || (size_t)p >= j->total) {
                snprintf(j->err, sizeof j->err, "%s: row '%s' is not in the plan (position %lld of %zu)", s->dir,
                         label, (long long)p, j->total);
                return -1;
            }
            if (j->from[p]) {
                snprintf(j->err, sizeof j->err, "configuration '%s' is in both %s and %s: a duplicate row", label,
                         j->shards[j->from[p] - 1].dir, s->dir);
                return -1;
            }
            j->rows[p] = s->rf.rows[r];
            j->from[p] = i + 1;
        }
    }
    for (size_t p = 0; p < j->total; p++)
        if (!j->from[p]) {
            snprintf(j->err, sizeof j->err, "configuration %zu of the plan's %zu is in no shard", p, j->total);
            return -1;
        }
    return 0;
}

/* ---- the merged directory -------------------------------------------------------------------- */

/* One entry of run.json's "shards": where it ran and how long it took. */
static json_t *shard_entry(const merge_shard *s)
{
    json_t *e = json_object(), *dev = json_object_get(s->run, RK(DEVICE));
    json_object_set_new(e, RK(DIR), json_string(s->dir));
    json_object_set_new(e, RK(INDEX), json_integer(s->index));
    json_t *sh = json_object_get(s->run, RK(SHARD));
    json_object_set(e, RK(SOURCE), json_is_object(sh) ? json_object_get(sh, RK(SOURCE)) : json_string("none"));
    json_object_set(e, RK(HOST), json_object_get(s->run, RK(HOST)));
    json_object_set_new(e, RK(DEVICE), json_is_object(dev) ? json_pack("{s:O?,s:O?}", "name", json_object_get(dev, RK(NAME)),
                                                                     "ordinal", json_object_get(dev, RK(ORDINAL)))
                                                         : json_null());
    json_object_set(e, RK(WALL_TIME_S), json_object_get(s->run, RK(WALL_TIME_S)));
    json_object_set(e, RK(COPY_BANDWIDTH_GBPS), json_object_get(s->run, RK(COPY_BANDWIDTH_GBPS)));
    json_object_set_new(e, RK(ROWS), json_integer((json_int_t)s->rf.count));
    return e;
}

/* Every shard's "devices" (its own device, or its --devices workers) in one
 * list, so the report shows each GPU's copy bandwidth and share of the rows. */
static void append_devices(json_t *all, const merge_shard *s)
{
    json_t *devs = json_object_get(s->run, RK(DEVICES)), *d;
    size_t i;
    json_array_foreach(devs, i, d) json_array_append_new(all, json_deep_copy(d));
}

/* The first shard's run.json with the merged totals and every shard listed. */
static json_t *merged_run_json(const merge_job *j)
{
    json_t *o = json_deep_copy(j->shards[0].run), *argv = json_array(), *shards = json_array(), *devices = json_array();
    size_t failures = 0, skipped = 0, plan_skipped = 0;
    double wall = 0, validate = 0;
    int validate_known = 1; /* every shard said its validation seconds */
    for (int i = 0; i < j->argc; i++) json_array_append_new(argv, json_string(j->argv[i]));
    for (size_t p = 0; p < j->total; p++) {
        failures += j->rows[p].status == ROW_INVALID || j->rows[p].status == ROW_ERROR;
        skipped += j->rows[p].status == ROW_SKIPPED;
    }
    for (size_t i = 0; i < j->n; i++) {
        const merge_shard *s = &j->shards[i];
        double w = json_number_value(json_object_get(s->run, RK(WALL_TIME_S)));
        wall = w > wall ? w : wall; /* the shards ran side by side */
        json_t *vs = json_object_get(s->run, RK(VALIDATE_S));
        if (json_is_number(vs)) validate += json_number_value(vs); /* total over the shards */
        else validate_known = 0;
        plan_skipped += (size_t)json_integer_value(json_object_get(json_object_get(s->run, RK(PLAN)), "skipped"));
        json_array_append_new(shards, shard_entry(s));
        append_devices(devices, s);
    }
    json_object_set_new(o, RK(ARGV), argv);
    json_object_set_new(o, RK(PLAN), json_pack("{s:I,s:I}", "configurations", (json_int_t)j->total, "skipped",
                                             (json_int_t)plan_skipped));
    json_object_set_new(o, RK(SHARD), json_null());
    json_object_del(o, "plan_positions");
    json_object_set_new(o, RK(SHARDS), shards);
    json_object_set_new(o, RK(DEVICES), devices);
    json_object_set_new(o, RK(ROWS), json_integer((json_int_t)j->total));
    json_object_set_new(o, RK(FAILURES), json_integer((json_int_t)failures));
    json_object_set_new(o, RK(SKIPPED), json_integer((json_int_t)skipped));
    json_object_set_new(o, RK(WALL_TIME_S), json_real(wall));
    json_object_set_new(o, RK(VALIDATE_S), validate_known ? json_real(validate) : json_null());
    return o;
}

static int render_json(FILE *f, void *ctx)
{
    if (json_dumpf(ctx, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) return -1;
    fputc('\n', f);
    return 0;
}

/* The charts and report, as the sweep draws them after a run. */
static void render_charts(const merge_job *j)
{
    char msg[1024];
    if (!plots_gnuplot_available()) {
        fprintf(stderr, "sweep merge: gnuplot not found: no charts; draw them later with `bazel run //plots:render -- "
                        "--out %s %s`\n",
                j->out, j->out);
        return;
    }
    plots_options po;
    memset(&po, 0, sizeof po);
    po.log = j->quiet ? NULL : stderr;
    int rc = plots_render(j->out, &po, msg, sizeof msg);
    if (rc < 0) fprintf(stderr, "sweep merge: charts failed: %s\n", msg);
}

static int write_outputs(merge_job *j)
{
    char csv[SWEEP_PATH_MAX + 16], json[SWEEP_PATH_MAX + 16], md[SWEEP_PATH_MAX + 16];
    if (path_join(csv, sizeof csv, j->out, "results.csv") || path_join(json, sizeof json, j->out, "run.json") ||
        path_join(md, sizeof md, j->out, "summary.md"))
        return snprintf(j->err, sizeof j->err, "OUT: path too long"), -1;
    if (make_dirs(j->out, j->err, sizeof j->err)) return -1;
    /* a shard's rows were compared with the baseline and CUB rows of that shard only */
    rows_derive_speedups(j->rows, j->total);
    const results_file *rf = &j->shards[0].rf;
    metric_columns mc = {rf->metrics, rf->metric_count};
    json_t *o = merged_run_json(j);
    run_info ri;
    run_json_summary_info(j->shards[0].run, &ri); /* the first shard's experiment and device */
    int rc = results_write_csv(csv, j->rows, j->total, mc, j->err, sizeof j->err) ||
             write_file_atomic(json, render_json, o, j->err, sizeof j->err) ||
             summary_write(md, j->rows, j->total, &ri, j->err, sizeof j->err);
    json_decref(o);
    if (rc) return -1;
    fprintf(stderr, "sweep merge: %zu shards, %zu rows in %s (results.csv, run.json, summary.md)\n", j->n, j->total,
            j->out);
    if (j->total) render_charts(j);
    return 0;
}

static void job_free(merge_job *j)
{
    for (size_t i = 0; j->shards && i < j->n; i++) {
        results_file_free(&j->shards[i].rf);
        json_decref(j->shards[i].run);
    }
    free(j->shards);
    free(j->rows); /* its rows belong to the shards' results_file */
    free(j->from);
}

int merge_main(int argc, char **argv)
{
    merge_job j;
    memset(&j, 0, sizeof j);
    j.argc = argc;
    j.argv = argv;
    int rc = SWEEP_EXIT_USAGE;
    if (parse_args(&j, argc, argv)) goto done;
    if (j.help) {
        fputs(merge_usage_text, stdout);
        rc = SWEEP_EXIT_OK;
        goto done;
    }
    if (check_out(&j)) goto done;
    for (size_t i = 0; i < j.n; i++)
        if (load_shard(&j.shards[i], j.err, sizeof j.err)) goto done;
    if (check_shard_set(&j) || place_rows(&j)) goto done;
    rc = write_outputs(&j) ? SWEEP_EXIT_FAILED : SWEEP_EXIT_OK;
done:
    if (rc != SWEEP_EXIT_OK) fprintf(stderr, "sweep merge: %s\n", j.err[0] ? j.err : "out of memory");
    job_free(&j);
    return rc;
}
