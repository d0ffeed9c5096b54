#define _POSIX_C_SOURCE 200809L
#include "tests/compare_runs.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/config/plan.h"

results_file seed;
static char err[8192];

int load_seed(void **state)
{
    (void)state;
    const char *csv = tu_runfile(SEED_DIR "/results.csv", "results.csv");
    if (!csv || results_read_csv_any(csv, &seed, err, sizeof err)) {
        fprintf(stderr, "seed data: %s\n", csv ? err : "experiments/results/h200/default/results.csv not found");
        return -1;
    }
    return 0;
}

int free_seed(void **state)
{
    (void)state;
    results_file_free(&seed);
    return 0;
}

/* ---- synthetic runs ------------------------------------------------------------------ */

static uint64_t rng_state;
static double uniform(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }

/* A phase re-measured: `samples` draws around median * factor with the row's
 * own relative spread; the row's figures recomputed from them (timing.h). */
static void remeasure(FILE *f, const sweep_row *r, const char *phase, timing_stats *t, unsigned batch, double factor)
{
    size_t n = t->samples;
    double spread = t->stdev / t->median, med = t->median * factor;
    double *x = malloc(n * sizeof *x);
    char label[256];
    config_label(&r->cfg, label, sizeof label);
    for (size_t i = 0; i < n; i++) {
        x[i] = med * (1 + spread * gauss());
        fprintf(f, "%s,%zu,\"%s\",%s,%u,%zu,%.9g\n", r->cfg.v->name, r->cfg.n, label, phase, batch, i, x[i]);
    }
    timing_stop stop = t->stop;
    timing_stats_compute(x, n, t);
    t->stop = stop;
    free(x);
}

/* The seed's run.json, rows counted anew, the copy bandwidth scaled, a start
 * time of its own (each synthetic run is a run of its own, not the seed). */
static void write_run_json(const char *dir, size_t n, double copy)
{
    static unsigned runs;
    char date[32];
    snprintf(date, sizeof date, "2026-01-01T%02u:%02u:%02uZ", runs / 3600 % 24, runs / 60 % 60, runs % 60);
    runs++;
    json_t *run = tu_load_json(tu_runfile(SEED_DIR "/run.json", "run.json"));
    json_object_set_new(run, "rows", json_integer((json_int_t)n));
    json_object_set_new(run, "date", json_string(date));
    double bw = json_number_value(json_object_get(run, "copy_bandwidth_GBps"));
    if (copy != 1) json_object_set_new(run, "copy_bandwidth_GBps", isnan(copy) ? json_null() : json_real(bw * copy));
    assert_int_equal(json_dump_file(run, tu_path(dir, "run.json"), JSON_INDENT(2)), 0);
    json_decref(run);
}

void make_run_shifted(const char *dir, const sweep_row *rows, size_t n, run_kind kind, uint64_t s,
                      const run_shift *shift)
{
    sweep_row *w = calloc(n, sizeof *w);
    memcpy(w, rows, n * sizeof *w);
    rng_state = s * 0x9E3779B97F4A7C15ull + 1;
    FILE *f = kind == SAMPLES ? fopen(tu_path(dir, "samples.csv"), "w") : NULL;
    if (f) fputs(samples_csv_header(), f);
    for (size_t i = 0; i < n; i++) {
        double k = shift->machine * (shift->variant && !strcmp(w[i].cfg.v->name, shift->variant) ? shift->factor : 1.0);
        timing_stats *t[2] = {&w[i].cold, &w[i].hot};
        for (int h = 0; h < 2 && w[i].status == ROW_OK; h++) {
            if (f && s) remeasure(f, &w[i], h ? "hot" : "cold", t[h], h ? w[i].hot_batch : w[i].cold_batch, k);
            else {
                double move = s ? 1 + t[h]->noise * gauss() : 1.0;
                t[h]->median *= k * move, t[h]->min *= k * move, t[h]->mean *= k * move;
            }
        }
    }
    if (f) fclose(f);
    metric_columns mc = {seed.metrics, seed.metric_count};
    assert_int_equal(results_write_csv(tu_path(dir, "results.csv"), w, n, mc, err, sizeof err), 0);
    write_run_json(dir, n, shift->copy);
    free(w); /* the rows' heap fields are the seed's */
}

void make_run(const char *dir, const sweep_row *rows, size_t n, run_kind kind, uint64_t s, const char *slow,
              double factor)
{
    run_shift same_machine = {1.0, slow, factor, 1.0};
    make_run_shifted(dir, rows, n, kind, s, &same_machine);
}

size_t ok_rows(const sweep_row *rows, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += rows[i].status == ROW_OK;
    return k;
}

tally read_verdicts(const char *json_path, const char *slow, int check)
{
    tally t = {0};
    json_t *o = tu_load_json(json_path), *row;
    size_t i;
    json_array_foreach(json_object_get(o, "rows"), i, row)
    {
        const char *v = json_string_value(json_object_get(row, "variant"));
        int is_slow = slow && !strcmp(v, slow), faster = 0, slower = 0;
        for (int h = 0; h < 2; h++) {
            json_t *ph = json_object_get(row, h ? "hot" : "cold");
            const char *verdict = json_string_value(json_object_get(ph, "verdict"));
            if (check) {
                if (strcmp(verdict, is_slow ? "slower" : "same"))
                    fail_msg("%s %s: %s", json_string_value(json_object_get(row, "configuration")), h ? "hot" : "cold",
                             verdict);
                assert_string_equal(json_string_value(json_object_get(ph, "method")), "empirical null");
            }
            faster |= !strcmp(verdict, "faster");
            slower |= !strcmp(verdict, "slower");
        }
        t.rows++;
        t.slow_variant_rows += is_slow;
        t.faster += faster;
        t.slower += slower;
        t.same += !faster && !slower;
    }
    json_decref(o);
    return t;
}

tu_result run_compare(const char *base, const char *newer, const char *a1, const char *a2, const char *a3)
{
    const char *args[] = {"compare", base, newer, a1, a2, a3, NULL};
    static const char *const env[] = {"BUILD_WORKING_DIRECTORY=", NULL};
    return tu_run(NULL, env, args);
}

void expect_bad(const char *base, const char *newer, const char *arg, const char *names, const char *out_dir)
{
    const char *dir = tu_tempdir("cmp-bad-out");
    char *csv = tu_path(dir, "c.csv"), *json = tu_path(dir, "c.json");
    const char *args[] = {"compare", base, newer, "--csv", csv, "--json", json, arg, arg ? "--x" : NULL, NULL};
    if (arg && strchr(arg, ' ')) { /* "--option value" */
        static char opt[64];
        snprintf(opt, sizeof opt, "%s", arg);
        *strchr(opt, ' ') = '\0';
        args[7] = opt;
        args[8] = strchr(arg, ' ') + 1;
    }
    tu_result r = tu_run(NULL, NULL, args);
    assert_int_equal(r.status, 2);
    assert_int_equal(tu_count_lines(r.err), 1);
    if (!strstr(r.err, names)) fail_msg("expected '%s' in: %s", names, r.err);
    assert_string_equal(r.out, "");
    assert_false(tu_exists(csv));
    assert_false(tu_exists(json));
    assert_false(tu_exists(tu_path(out_dir, "compare")));
    tu_result_free(&r);
}

/* ---- committed runs, copied ------------------------------------------------------------ */

char *copy_committed_run(const char *rel_dir, const char *parent, const char *name)
{
    static const char *const files[] = {"results.csv", "run.json", "samples.csv", "summary.md"};
    char *dest = tu_path(parent, name), rel[512];
    assert_int_equal(mkdir(dest, 0755), 0);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(rel, sizeof rel, "%s/%s", rel_dir, files[i]);
        const char *from = tu_runfile(rel, rel);
        char gz[600], from_gz[4200];
        snprintf(gz, sizeof gz, "%s.gz", files[i]);
        snprintf(from_gz, sizeof from_gz, "%s.gz", from ? from : "");
        if (from && tu_exists(from)) tu_copy_file(from, tu_path(dest, files[i]));
        else if (from && tu_exists(from_gz)) tu_copy_file(from_gz, tu_path(dest, gz)); /* packed (sweep pack): as it is */
        else assert_true(i >= 2); /* results.csv and run.json: every run has them */
    }
    return dest;
}

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t tree_add(uint64_t h, const char *dir, const char *rel, size_t *files)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    assert_non_null(d);
    /* readdir's order is the file system's: sum the entries' hashes, order-free */
    uint64_t sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        assert_int_equal(stat(full, &st), 0);
        uint64_t eh = fnv(0xcbf29ce484222325ull, sub, strlen(sub));
        if (S_ISDIR(st.st_mode)) eh = tree_add(eh, dir, sub, files);
        else {
            char *text = tu_read_file(full);
            assert_non_null(text);
            eh = fnv(eh, text, (size_t)st.st_size);
            eh = fnv(eh, &st.st_mtime, sizeof st.st_mtime);
            free(text);
            ++*files;
        }
        sum += eh;
    }
    closedir(d);
    return fnv(h, &sum, sizeof sum);
}

uint64_t tree_checksum(const char *dir, size_t *files)
{
    *files = 0;
    return tree_add(0xcbf29ce484222325ull, dir, "", files);
}
