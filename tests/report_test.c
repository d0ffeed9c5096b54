/* The report's opening and the renderer's output directory, on the committed
 * runs (experiments/results/h200/): the vs-cub report's first lines state the
 * answer read from its confirm.csv; render leaves the results directory it
 * reads untouched, with and without --out; the ladder table appears only
 * where a ladder exists; the experiment files name a question and a known
 * lead chart, and the sweep carries them into run.json and the report. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/config/plan.h"
#include "plots/chart_families.h"
#include "plots/render.h"
#include "results_io/confirm_io.h"
#include "results_io/csv.h"
#include "tests/report_render_util.h"
#include "tests/sweep_test_util.h"

#define RESULTS "experiments/results/h200/"

/* A copy of committed run `name` (every file, charts included) in a fresh directory. */
static const char *copy_run(const char *name, char *dir, size_t len)
{
    char rel[256];
    snprintf(rel, sizeof rel, RESULTS "%s/results.csv", name);
    char src[4096];
    snprintf(src, sizeof src, "%s", tu_data_file(rel));
    *strrchr(src, '/') = '\0';
    snprintf(dir, len, "%s/%s", tu_tempdir(name), name);
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "cp -rL '%s' '%s'", src, dir);
    assert_int_equal(system(cmd), 0);
    return dir;
}

/* ---- a checksum of a directory tree: every path, size and byte --------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static uint64_t tree_sum(const char *dir, uint64_t h, size_t *files)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *names[4096];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < 4096) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        h = fnv(h, names[i], strlen(names[i]) + 1);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            h = tree_sum(p, fnv(h, "/", 1), files);
        } else {
            FILE *f = fopen(p, "rb");
            assert_non_null(f);
            char buf[65536];
            size_t got;
            while ((got = fread(buf, 1, sizeof buf, f)) > 0) h = fnv(h, buf, got);
            fclose(f);
            h = fnv(h, &st.st_size, sizeof st.st_size);
            ++*files;
        }
        free(names[i]);
    }
    return h;
}

/* Run the render binary in cwd with args (NULL-terminated); its exit status. */
static int run_render(const char *cwd, const char *bwd, const char *const *args)
{
    const char *bin = tu_runfile("plots/render", "render");
    assert_non_null(bin);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(cwd)) _exit(126);
        if (bwd) setenv("BUILD_WORKING_DIRECTORY", bwd, 1);
        else unsetenv("BUILD_WORKING_DIRECTORY");
        char *argv[16] = {(char *)bin};
        for (size_t i = 0; args[i] && i < 14; i++) argv[i + 1] = (char *)args[i];
        execv(bin, argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void assert_report_in(const char *dir)
{
    char p[8192];
    const char *want[] = {"report.md", "index.html", "plots-data/commands.sh", "charts"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, want[i]);
        if (!tu_exists(p)) fail_msg("%s: missing", p);
    }
}

/* render RESULTS_DIR and render --out DIR RESULTS_DIR change nothing under RESULTS_DIR. */
static void test_render_leaves_input_untouched(void **state)
{
    (void)state;
    char dir[4096];
    copy_run("harris-ladder", dir, sizeof dir);
    size_t nfiles = 0;
    uint64_t before = tree_sum(dir, 14695981039346656037ull, &nfiles);
    assert_true(nfiles >= 5); /* results.csv, run.json, report.md, index.html, charts/ */

    /* --out elsewhere */
    char out[4096];
    snprintf(out, sizeof out, "%s/elsewhere/report", tu_tempdir("out"));
    const char *a1[] = {"-q", "--no-charts", "--out", out, dir, NULL};
    assert_int_equal(run_render("/", NULL, a1), 0);
    assert_report_in(out);
    size_t n2 = 0;
    assert_true(tree_sum(dir, 14695981039346656037ull, &n2) == before);
    assert_int_equal(n2, nfiles);

    /* no --out: ./harris-ladder-report where the command was typed */
    const char *cwd = tu_tempdir("typed-here");
    const char *a2[] = {"-q", "--no-charts", dir, NULL};
    assert_int_equal(run_render(cwd, NULL, a2), 0);
    char dflt[8192];
    snprintf(dflt, sizeof dflt, "%s/harris-ladder-report", cwd);
    assert_report_in(dflt);
    n2 = 0;
    assert_true(tree_sum(dir, 14695981039346656037ull, &n2) == before);

    /* under `bazel run`: a relative results directory and the default output
     * both resolve against BUILD_WORKING_DIRECTORY, not the runfiles tree */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    *strrchr(parent, '/') = '\0';
    const char *runfiles = tu_tempdir("runfiles");
    const char *a3[] = {"-q", "--no-charts", "harris-ladder", NULL};
    assert_int_equal(run_render(runfiles, parent, a3), 0);
    snprintf(dflt, sizeof dflt, "%s/harris-ladder-report", parent);
    assert_report_in(dflt);
    n2 = 0;
    assert_true(tree_sum(dir, 14695981039346656037ull, &n2) == before);

    /* with the charts too, where gnuplot is found */
    if (plots_gnuplot_available()) {
        const char *a4[] = {"-q", "--out", out, dir, NULL};
        assert_int_equal(run_render("/", NULL, a4), 0);
        n2 = 0;
        assert_true(tree_sum(dir, 14695981039346656037ull, &n2) == before);
        char png[8400];
        snprintf(png, sizeof png, "%s/charts/ladder-reduce-f32-sum.png", out);
        assert_true(tu_exists(png));
    }
    /* a results directory that cannot name an output: exit 2, nothing written */
    const char *a5[] = {"-q", "--no-charts", "/", NULL};
    assert_int_equal(run_render(cwd, NULL, a5), 2);
}

/* ---- the first screen ----------------------------------------------------------------- */

static char last_out[4200]; /* the output directory of the last first_lines() */

/* The first `lines` lines of the report rendered (no charts) from a copy of a committed run. */
static char *first_lines(const char *name, int with_confirm, size_t lines, char **whole)
{
    char run[256], out[4200];
    snprintf(run, sizeof run, RESULTS "%s", name);
    char *md = tu_render_report(run, with_confirm, out, sizeof out);
    char *head = strdup(md);
    char *p = head;
    for (size_t i = 0; i < lines && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (p) *p = '\0';
    if (whole) *whole = md;
    else free(md);
    snprintf(last_out, sizeof last_out, "%s", out);
    return head;
}

/* The line of text holding needle, or NULL. */
static const char *line_with(const char *text, const char *needle, char *buf, size_t len)
{
    const char *at = strstr(text, needle);
    if (!at) return NULL;
    const char *a = at, *b = strchr(at, '\n');
    while (a > text && a[-1] != '\n') a--;
    size_t n = b ? (size_t)(b - a) : strlen(a);
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), a);
    return buf;
}

/* The fastest confirmed candidate per size of one key, cold. */
static const confirm_line *confirmed_best(const confirm_line *l, size_t n, const char *kind, const char *dtype,
                                          size_t size)
{
    const confirm_line *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i].role, "candidate") && !strcmp(l[i].phase, "cold") && !strcmp(l[i].kind, kind) &&
            !strcmp(l[i].dtype, dtype) && l[i].n == size && (!best || l[i].speedup > best->speedup))
            best = &l[i];
    return best;
}

static void speed_str(double s, double lo, double hi, char *buf, size_t len)
{
    int prec = fabs(s - 1) < 0.05 ? 3 : 2;
    snprintf(buf, len, "%.*f× [%.*f, %.*f]", prec, s, prec, lo, prec, hi);
}

/* The vs-cub report opens with the answer: per kind x dtype the winner, its
 * speed-up over CUB with the confirmed interval or a tie, and % of copy. */
static void test_vs_cub_first_screen(void **state)
{
    (void)state;
    /* the answer in 25 lines, how it was measured in the next two */
    char *head = first_lines("vs-cub", 1, 27, NULL);
    printf("%s", head);
    assert_non_null(strstr(head, "## What this run found"));
    assert_non_null(strstr(head, "% of copy"));
    assert_non_null(strstr(head, "95 % interval"));
    confirm_line *l = NULL;
    size_t n = 0;
    char err[512];
    assert_int_equal(confirm_read_csv(tu_data_file(RESULTS "vs-cub/confirm.csv"), &l, &n, err, sizeof err), 0);
    static const char *const kinds[] = {"reduce", "scan"}, *const dtypes[] = {"f32", "f64", "i32"};
    for (size_t k = 0; k < 2; k++)
        for (size_t t = 0; t < 3; t++) {
            char label[64], line[2048], want[128];
            snprintf(label, sizeof label, "| %s %s sum", kinds[k], dtypes[t]);
            if (!line_with(head, label, line, sizeof line)) fail_msg("first screen lacks %s", label);
            /* 2^20: inside a line of the largest speed-ups for every group, so the
             * winner at 2^20 is named, and its speed-up lies in the line's range */
            const confirm_line *b = confirmed_best(l, n, kinds[k], dtypes[t], (size_t)1 << 20);
            assert_non_null(b);
            int found = 0;
            for (const char *p = head; (p = strstr(p, b->variant)); p++) found = 1;
            if (!found) fail_msg("%s %s: the winner at 2^20, %s, is not on the first screen", kinds[k], dtypes[t],
                                 b->variant);
            /* the group's largest confirmed speed-up, with its interval, is stated */
            const confirm_line *top = NULL;
            for (int e = 10; e <= 30; e++) {
                const confirm_line *x = confirmed_best(l, n, kinds[k], dtypes[t], (size_t)1 << e);
                if (x && !strcmp(x->variant, b->variant) && !strcmp(x->verdict, b->verdict) &&
                    (!top || x->speedup > top->speedup))
                    top = x;
            }
            speed_str(top->speedup, top->ci_lo, top->ci_hi, want, sizeof want);
            if (!strstr(head, want)) fail_msg("%s %s: %s (%s at 2^%d) missing", kinds[k], dtypes[t], want,
                                              top->variant, __builtin_ctzll(top->n));
        }
    /* the ties at the top sizes of the reductions, with their % of copy */
    const confirm_line *t30 = confirmed_best(l, n, "reduce", "f32", (size_t)1 << 30);
    assert_string_equal(t30->verdict, "tie");
    char line[2048], want[80];
    snprintf(want, sizeof want, "| 2^30 | %s", t30->variant);
    if (!line_with(head, want, line, sizeof line)) fail_msg("no line for reduce f32 at 2^30 (%s)", t30->variant);
    assert_non_null(strstr(line, "tie "));
    snprintf(want, sizeof want, "%.0f %%", t30->pct_copy);
    if (!strstr(line, want)) fail_msg("%s: lacks %s of copy", line, want);
    /* the answer table ends within the first screen, and says how it was made */
    const char *method = strstr(head, "Confirmed (confirm.csv)");
    assert_non_null(method);
    assert_true(tu_count_lines(head) - tu_count_lines(method) <= 26);
    free(l);
    free(head);
}

/* Without confirm.csv the answer comes from the rows, and says so. */
static void test_rows_answer(void **state)
{
    (void)state;
    char *md = NULL;
    char *head = first_lines("harris-ladder", 0, 25, &md);
    printf("%s", head);
    assert_non_null(strstr(head, "From the rows (no confirmation)"));
    assert_non_null(strstr(head, "| reduce f32 sum | 2^20"));
    /* the winner at 2^20 against reduce_cub, from results.csv itself */
    csv_table t;
    char err[512];
    assert_int_equal(csv_read_file(tu_data_file(RESULTS "harris-ladder/results.csv"), &t, err, sizeof err), 0);
    int cv = csv_column(&t, "variant"), cn = csv_column(&t, "n"), cs = csv_column(&t, "status"),
        ct = csv_column(&t, "time_cold_median_ms");
    double lib = INFINITY, ours = INFINITY;
    const char *who = NULL;
    for (size_t i = 0; i < t.nrows; i++) {
        char **f = t.rows[i];
        if (strcmp(f[cs], "ok") || strtoull(f[cn], NULL, 10) != (1ull << 20)) continue;
        double x = strtod(f[ct], NULL);
        if (!strcmp(f[cv], "reduce_cub")) lib = fmin(lib, x);
        else if (x < ours) ours = x, who = f[cv];
    }
    assert_non_null(who);
    char line[2048], want[80];
    assert_non_null(line_with(head, "| reduce f32 sum | 2^20", line, sizeof line));
    assert_non_null(strstr(line, who));
    double s = lib / ours;
    snprintf(want, sizeof want, "%.*f×", fabs(s - 1) < 0.05 ? 3 : 2, s);
    if (!strstr(line, want)) fail_msg("%s: lacks %s", line, want);
    csv_free(&t);
    /* a ladder: its table is there */
    assert_non_null(strstr(md, "| Kernel | Time(2^22 f32)"));
    free(md);
    free(head);
}

/* Without library rows (harris-ladder less its reduce_cub rows) the answer is
 * the fastest rung's speed-up over the bottom one, reduce0. */
static void test_baseline_answer(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("nolib");
    char cmd[8400], out[4200];
    snprintf(cmd, sizeof cmd, "gzip -dcf '%s'* | grep -v '^reduce_cub,' > '%s/results.csv' && cp -L '%s' '%s/'",
             tu_data_file(RESULTS "harris-ladder/results.csv"), dir, tu_data_file(RESULTS "harris-ladder/run.json"),
             dir);
    assert_int_equal(system(cmd), 0);
    snprintf(out, sizeof out, "%s/report", dir);
    plots_options o = {0};
    o.no_charts = 1;
    o.out_dir = out;
    char msg[2048], path[4400];
    assert_int_equal(plots_render(dir, &o, msg, sizeof msg), 0);
    snprintf(path, sizeof path, "%s/report.md", out);
    char *md = tu_read_file(path);
    assert_non_null(strstr(md, "Speed-up over the baseline, cold (95 % interval)"));
    assert_non_null(strstr(md, "Baseline: reduce_interleaved_divergent."));
    /* the speed-up at 2^24, recomputed from the rows */
    csv_table t;
    char err[512];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    assert_int_equal(csv_read_file(path, &t, err, sizeof err), 0);
    int cv = csv_column(&t, "variant"), cn = csv_column(&t, "n"), cs = csv_column(&t, "status"),
        ct = csv_column(&t, "time_cold_median_ms");
    double base = INFINITY, best = INFINITY;
    for (size_t i = 0; i < t.nrows; i++) {
        char **f = t.rows[i];
        if (strcmp(f[cs], "ok") || strtoull(f[cn], NULL, 10) != (1ull << 24)) continue;
        double x = strtod(f[ct], NULL);
        if (!strcmp(f[cv], "reduce_interleaved_divergent")) base = fmin(base, x);
        best = fmin(best, x);
    }
    csv_free(&t);
    char want[64];
    snprintf(want, sizeof want, "%.2f×", base / best);
    if (!strstr(md, want)) fail_msg("the speed-up over reduce0 at 2^24, %s, is not in the report", want);
    free(md);
}

/* No ladder in vs-cub (no reduce0 rung): no ladder table, the ladder chart in the appendix. */
static void test_no_ladder_table_without_ladder(void **state)
{
    (void)state;
    char *md = NULL;
    char *head = first_lines("vs-cub", 1, 1, &md);
    assert_null(strstr(md, "| Kernel |"));
    assert_null(strstr(md, "Speedup the cumulative speedup"));
    const char *appendix = strstr(md, "## Appendix");
    assert_non_null(appendix);
    const char *ladder = strstr(md, "Reduction ladder at n");
    assert_true(ladder == NULL || ladder > appendix);
    /* the order: the answer, the lead chart, then the long tables */
    const char *found = strstr(md, "## What this run found"), *lead = strstr(md, "## The lead chart"),
               *confirmed = strstr(md, "## Confirmed against the library");
    assert_true(found && lead && confirmed && found < lead && lead < confirmed && confirmed < appendix);
    assert_non_null(strstr(lead, "speed-up over CUB"));
    free(md);
    free(head);
    /* index.html: the answer and the lead chart open, everything after them a click away */
    char path[sizeof last_out + 16];
    snprintf(path, sizeof path, "%s/index.html", last_out);
    char *html = tu_read_file(path);
    assert_non_null(html);
    const char *h_found = strstr(html, "<h2 id=\"found\">"), *h_lead = strstr(html, "<h2 id=\"lead\">"),
               *fold = strstr(html, "<details");
    assert_true(h_found && h_lead && fold && h_found < h_lead && h_lead < fold);
    static const char *const folded[] = {"confirmed", "g0", "run", "failures", "appendix"};
    for (size_t i = 0; i < sizeof folded / sizeof folded[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "<details><summary><h2 id=\"%s\">", folded[i]);
        if (!strstr(html, want)) fail_msg("index.html: %s is not folded", folded[i]);
    }
    assert_int_equal(tu_count(html, "<details"), tu_count(html, "</details>"));
    free(html);
}

/* ---- the experiment files and the sweep ----------------------------------------------- */

static void test_experiment_files_name_question_and_lead(void **state)
{
    (void)state;
    static const char *const names[] = {"coarsening", "default",  "dtypes-ops", "full",  "harris-ladder",
                                        "scan-ladder", "smoke", "sum-16m",    "vs-cub"};
    char err[1024];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "experiments/%s.ini", names[i]);
        experiment e;
        if (experiment_load(tu_data_file(rel), &e, err, sizeof err)) fail_msg("%s", err);
        if (!e.question[0] || !strchr(e.question, '?')) fail_msg("%s: no question", rel);
        if (!plots_chart_family_known(e.lead_chart)) fail_msg("%s: lead_chart '%s'", rel, e.lead_chart);
    }
    experiment e;
    int rc = experiment_parse_string("[experiment]\nname = t\nlead_chart = speedup\n", "t.ini", &e, err, sizeof err);
    assert_int_not_equal(rc, 0);
    printf("%s\n", err);
    assert_non_null(strstr(err, "t.ini:3: lead_chart: 'speedup': not a chart family (known: speedup-vs-cub,"));
}

/* The sweep (fake device) writes the question and lead chart into run.json;
 * its report opens with that question and leads with that chart; an unknown
 * lead chart is exit 2 with one line, before anything is written. */
static void test_sweep_carries_question(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("sweep-question");
    char ini[4200], out[4200], bad[4200];
    snprintf(ini, sizeof ini, "%s/q.ini", dir);
    snprintf(out, sizeof out, "%s/run", dir);
    snprintf(bad, sizeof bad, "%s/bad", dir);
    assert_int_equal(tu_write_file(ini, "[experiment]\nname = q\nquestion = Does the shuffle beat CUB at 2^12?\n"
                                        "lead_chart = time\nvariants = reduce_warp_shuffle, reduce_cub\n"
                                        "[axes]\nsizes = 2^10, 2^12\nblock_dims = 256\n[profile]\nmetrics = none\n"),
                     0);
    const char *env[] = {"SWEEP_FAKE_DEVICE=1", "GNUPLOT=/nonexistent/gnuplot", NULL};
    const char *args[] = {"--experiment", ini, "--out", out, NULL};
    tu_result r = tu_run(dir, env, args);
    if (r.status) fail_msg("sweep: %d\n%s", r.status, r.err);
    tu_result_free(&r);
    char path[4400];
    snprintf(path, sizeof path, "%s/run.json", out);
    json_t *o = tu_load_json(path);
    json_t *info = json_object_get(o, "experiment_info");
    assert_string_equal(json_string_value(json_object_get(info, "question")), "Does the shuffle beat CUB at 2^12?");
    assert_string_equal(json_string_value(json_object_get(info, "lead_chart")), "time");
    assert_string_equal(json_string_value(json_object_get(o, "experiment")), "q");
    json_decref(o);
    plots_options po = {0};
    po.no_charts = 1;
    char rep[4400], msg[2048];
    snprintf(rep, sizeof rep, "%s/report", dir);
    po.out_dir = rep;
    assert_int_equal(plots_render(out, &po, msg, sizeof msg), 0);
    assert_true(snprintf(path, sizeof path, "%s/report.md", rep) < (int)sizeof path);
    char *md = tu_read_file(path);
    assert_non_null(strstr(md, "Question: Does the shuffle beat CUB at 2^12?\n"));
    const char *lead = strstr(md, "## The lead chart");
    assert_non_null(lead);
    assert_non_null(strstr(lead, "Reduction time vs n"));
    free(md);

    assert_int_equal(tu_write_file(ini, "[experiment]\nname = q\nlead_chart = speedups\n"), 0);
    const char *args2[] = {"--experiment", ini, "--out", bad, NULL};
    r = tu_run(dir, env, args2);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "lead_chart: 'speedups': not a chart family"));
    assert_int_equal(tu_count_lines(r.err), 1);
    assert_false(tu_exists(bad));
    tu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_cub_first_screen),
        cmocka_unit_test(test_rows_answer),
        cmocka_unit_test(test_baseline_answer),
        cmocka_unit_test(test_no_ladder_table_without_ladder),
        cmocka_unit_test(test_render_leaves_input_untouched),
        cmocka_unit_test(test_experiment_files_name_question_and_lead),
        cmocka_unit_test(test_sweep_carries_question),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
