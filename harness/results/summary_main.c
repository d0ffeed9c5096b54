/* `sweep summary DIR`: summary.md again from DIR's run.json (the run, its
 * conditions, drift and the confirmation's rounds and margin), its rows
 * (results.csv or results.csv.gz) and confirm.csv (or .gz) where the run has
 * one; into DIR, or --out OUT. Nothing else in DIR is written. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/summary_main.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/core/exit_codes.h"
#include "harness/core/files.h"
#include "harness/results/drift_report.h"
#include "harness/results/results.h"
#include "harness/results/results_conditions.h"
#include "results_io/closest.h"
#include "results_io/confirm_io.h"
#include "results_io/run_keys.h"

static const char usage_text[] =
    "usage: sweep summary DIR [--out OUT]\n"
    "\n"
    "Writes DIR's summary.md again from the run's own files: run.json, results.csv (or\n"
    "results.csv.gz) and, where the run has one, confirm.csv (or confirm.csv.gz). No device:\n"
    "a run written by an older build gets this build's summary. --out OUT writes OUT/summary.md\n"
    "instead; no other file is written.\n"
    "\n"
    "Exit status: 0 written; 1 summary.md could not be written; 2 bad input (one line naming it,\n"
    "nothing written).\n";

typedef struct job {
    const char *dir, *out;
    char err[SWEEP_PATH_MAX + 512]; /* a path and what went wrong there */
} job;

/* DIR and OUT as the user meant them: relative to where the command was typed. */
static int resolve_paths(job *j)
{
    static char dir[SWEEP_PATH_MAX], out[SWEEP_PATH_MAX];
    if (resolve_results_dir("summary", j->dir, j->out, dir, out, j->err, sizeof j->err)) return -1;
    j->dir = dir;
    j->out = out; /* DIR itself when no --out was given */
    return 0;
}

/* 0 go, 1 --help printed, -1 bad usage (j->err). */
static int parse_args(job *j, int argc, char **argv)
{
    static const char *const flags[] = {"--out", "--help"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 1;
        }
        if (!strcmp(a, "--out")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                snprintf(j->err, sizeof j->err, "--out needs a directory");
                return -1;
            }
            j->out = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            unknown_flag_message(j->err, sizeof j->err, a, flags, 2, "sweep summary --help");
            return -1;
        } else if (!j->dir) j->dir = a;
        else {
            snprintf(j->err, sizeof j->err, "one results directory, not '%s' too", a);
            return -1;
        }
    }
    return resolve_paths(j);
}

/* DIR's run.json, its rows, and its confirm.csv where it has one; then
 * whether OUT can be written. 0, or -1 with j->err. */
static int load(job *j, json_t **run, results_file *rf, confirm_line **lines, size_t *n)
{
    char path[SWEEP_PATH_MAX + 16], why[1024];
    json_error_t je;
    snprintf(path, sizeof path, "%s/run.json", j->dir);
    if (!path_exists(path)) {
        snprintf(j->err, sizeof j->err, "%s: no run.json: not a results directory", j->dir);
        return -1;
    }
    if (!(*run = json_load_file(path, 0, &je))) {
        snprintf(j->err, sizeof j->err, "%s: %s", path, je.text);
        return -1;
    }
    snprintf(path, sizeof path, "%s/results.csv", j->dir);
    if (results_read_csv_any(path, rf, j->err, sizeof j->err)) return -1;
    if (!rf->count) {
        snprintf(j->err, sizeof j->err, "%s: no rows: nothing to summarise", path);
        return -1;
    }
    snprintf(path, sizeof path, "%s/confirm.csv", j->dir);
    if (confirm_read_csv(path, lines, n, j->err, sizeof j->err) < 0) return -1;
    if (!dir_check_writable(j->out, why, sizeof why)) return 0;
    snprintf(j->err, sizeof j->err, "%scannot write %s: %s", j->out == j->dir ? "" : "--out: ", j->out, why);
    return -1;
}

/* A confirmation made after the run (`sweep confirm DIR`) left run.json's
 * "confirm" null: its rounds and margin are in its confirm.json. */
static void confirm_json_params(const char *dir, run_info *ri)
{
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/confirm.json", dir);
    json_t *c = json_load_file(path, 0, NULL);
    const json_t *r = json_object_get(c, "rounds"), *m = json_object_get(c, "margin_pct");
    if (json_is_integer(r)) ri->confirm_rounds = (unsigned)json_integer_value(r);
    if (json_is_number(m)) ri->confirm_margin = json_number_value(m) / 100;
    json_decref(c);
}

static int write_summary(const job *j, const json_t *run, const results_file *rf, const confirm_line *l, size_t n)
{
    run_info ri;
    drift_report d;
    run_json_summary_info(run, &ri);
    run_json_conditions_read(run, &ri, &d); /* NVML, drift, the confirmation's rounds, margin and note */
    ri.confirm = l;                         /* NULL: the run has no confirm.csv */
    ri.confirm_count = n;
    if (l && !json_is_object(json_object_get(run, RK(CONFIRM)))) confirm_json_params(j->dir, &ri);
    char path[SWEEP_PATH_MAX + 16], err[SWEEP_PATH_MAX + 512];
    snprintf(path, sizeof path, "%s/summary.md", j->out);
    if (!make_dirs(j->out, err, sizeof err) && !summary_write(path, rf->rows, rf->count, &ri, err, sizeof err)) {
        fprintf(stderr, "sweep summary: %s (%zu rows, %zu confirm lines)\n", path, rf->count, n);
        return SWEEP_EXIT_OK;
    }
    fprintf(stderr, "sweep summary: %s\n", err);
    return SWEEP_EXIT_FAILED;
}

int summary_main(int argc, char **argv)
{
    job j = {0};
    int pa = parse_args(&j, argc, argv);
    if (pa > 0) return SWEEP_EXIT_OK;
    json_t *run = NULL;
    results_file rf = {0};
    confirm_line *lines = NULL;
    size_t n = 0;
    int rc;
    if (pa < 0 || load(&j, &run, &rf, &lines, &n)) {
        fprintf(stderr, "sweep summary: %s\n", j.err);
        rc = SWEEP_EXIT_USAGE;
    } else rc = write_summary(&j, run, &rf, lines, n);
    free(lines);
    json_decref(run);
    results_file_free(&rf);
    return rc;
}
