/* tables/README.md (tables_readme.h): a reader of a run whose rows were not
 * committed learns from it what the tables hold and how to get the rows. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/tables_readme.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "harness/core/files.h"
#include "results_io/run_keys.h"

typedef struct readme {
    const tables_table *list;
    const tables_written *w;
    size_t metric_count;
    int rows_dropped;
    json_t *run; /* run.json, or NULL */
} readme;

/* a word as a shell reads it back: quoted unless it is plain. */
static void put_shell_word(FILE *f, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,@%+^") == strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'') fputs("'\\''", f); /* close, an escaped quote, open again */
        else fputc(*s, f);
    fputc('\'', f);
}

static void put_tables(FILE *f, const readme *r)
{
    fputs("| table | rows | one row per | what |\n|---|---:|---|---|\n", f);
    for (int t = 0; t < TABLES_COUNT; t++)
        fprintf(f, "| `%s.gz` | %zu | %s | %s |\n", r->list[t].file, r->w->rows[t], r->list[t].per,
                r->list[t].what);
    fputs("\nAn input is one kind, dtype, op, scan mode and n (`kind,dtype,op,scan_mode,n`, the columns that "
          "lead each table but `skipped.csv`); `zcat winners.csv.gz` gives the CSV. The invalid and error "
          "rows' messages are in `../summary.md`.\n",
          f);
}

/* The command that measured the rows: run.json's argv, or a merged run's shards. */
static void put_command(FILE *f, const readme *r)
{
    json_t *argv = json_object_get(r->run, RK(ARGV)), *sha = json_object_get(r->run, RK(GIT_SHA));
    json_t *shards = json_object_get(r->run, RK(SHARDS));
    if (!json_is_array(argv) || !json_array_size(argv)) {
        fputs("run.json names no command (no `argv`): the experiment in it, run again, measures them.\n", f);
        return;
    }
    int merged = json_is_array(shards) && json_array_size(shards) > 0;
    if (merged)
        fprintf(f, "This run was merged from %zu shards (`shards` in `../run.json`); each ran the experiment "
                   "with `--shard I/N`, and the merge was:\n\n", json_array_size(shards));
    fputs("```sh\nbin/sweep", f);
    for (size_t i = 1; i < json_array_size(argv); i++) { /* argv[0]: how the binary was named */
        fputc(' ', f);
        const char *word = json_string_value(json_array_get(argv, i));
        put_shell_word(f, word ? word : "");
    }
    fprintf(f, "\n```\n\n(`../run.json`'s `argv`, at commit %s; from a checkout, `bazel run //harness:sweep -- "
               "ARGS...`.) A run measures again: its times are not these to the last digit. Then\n\n"
               "```sh\nbin/sweep pack --tables%s DIR\n```\n\nderives these tables from its rows.\n",
            json_is_string(sha) ? json_string_value(sha) : "(unknown)", r->rows_dropped ? " --drop-rows" : "");
}

static int render_readme(FILE *f, void *ctx)
{
    const readme *r = ctx;
    const tables_written *w = r->w;
    json_t *exp = json_object_get(r->run, RK(EXPERIMENT));
    fprintf(f, "# Derived tables of %s\n\n", json_is_string(exp) ? json_string_value(exp) : "this run");
    fprintf(f, "`sweep pack --tables` wrote these from this run's `results.csv`: %zu rows (%zu ok, %zu skipped, "
               "%zu invalid, %zu error), %zu metric columns. ",
            w->results_rows, w->ok, w->skipped, w->invalid, w->error, r->metric_count);
    fputs(r->rows_dropped ? "The rows themselves were removed (`--drop-rows`): too many to commit.\n\n"
                          : "The rows are beside them, `../results.csv.gz`.\n\n",
          f);
    put_tables(f, r);
    fputs("\n## The rows again\n\n", f);
    if (!r->run) fputs("There is no readable `../run.json`: the command that measured the rows is unknown.\n", f);
    else put_command(f, r);
    return ferror(f) ? -1 : 0;
}

int tables_readme_write(const char *dir, const char *tables, const tables_table *list, const tables_written *w,
                        size_t metric_count, int rows_dropped, char *err, size_t errlen)
{
    char json[SWEEP_PATH_MAX], path[SWEEP_PATH_MAX];
    if (path_join(json, sizeof json, dir, "run.json") || path_join(path, sizeof path, tables, "README.md")) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        return -1;
    }
    readme r = {list, w, metric_count, rows_dropped, json_load_file(json, 0, NULL)};
    int rc = write_file_atomic(path, render_readme, &r, err, errlen);
    json_decref(r.run);
    return rc;
}
