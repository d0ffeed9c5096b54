/* The figures of the docs (README.md, the pages of docs/, experiments/FINDINGS.md,
 * experiments/JOURNAL.md) against the committed results.
 *
 * The checks live beside this test, one file per doc: the .checks files of tests/figures/.
 * Each names its doc ("doc: README.md"), then quotes the doc and checks the
 * figures of each quote:
 *   > TEXT
 *   EXPERIMENT; col=value; col=value ... : col[*K]=printed; col[*K]=printed
 * TEXT is the doc's own text, as a reader sees it (a line break there reads as
 * a space), and appears in the doc exactly once; every printed number of the
 * check lines under it is a whole token of TEXT. A check line names the
 * results.csv row (the selector columns must match exactly one row) and the
 * columns behind each printed number. EXPERIMENT is a results directory under
 * experiments/results/h200/ ("vs-cub"), or one of another device or host
 * ("h100/vs-cub", "h200x2/vs-cub"), or a CSV file of one ("h200/vs-cub/confirm.csv": the
 * confirmed ratios). Also:
 *   min:col / max:col   over all the selected rows (the fastest of a sweep);
 *   rows=N              how many rows the selectors match;
 *   RUN/run.json : path=printed      a run.json number ("drift.cold_ratio",
 *                                    "drift.items.0.cold_ms.1");
 *   TERM / TERM : ratio[*K]=printed  one value over another, where a TERM is
 *                                    "EXPERIMENT; sel...; col" or "RUN/run.json; path".
 * This test checks that each printed number is the value (times K) rounded to
 * the printed decimals, and that its quote is in the doc, so a figure changed
 * or removed in the text, or a change to the CSVs or their format, fails it.
 * Lines starting with '#' are comments; "not from a run: N N ..." lists the
 * numbers of the README's Results section and of docs/results.md that are not
 * from a run (every other number there must be checked). The docs hold no
 * check comments of their own. It also re-renders one committed results
 * directory with the current renderer. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>

#include "results_io/csv.h"
#include "plots/render.h"
#include "tests/sweep_test_util.h"

#define RESULTS "experiments/results/h200/"
#define RESULTS_ROOT "experiments/results/"

/* A doc without its comments: what a reader sees. */
static char *visible_text(const char *md)
{
    char *out = malloc(strlen(md) + 1);
    size_t k = 0;
    for (const char *p = md; *p;) {
        if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p, "-->");
            if (!e) break;
            p = e + 3;
            continue;
        }
        out[k++] = *p++;
    }
    out[k] = '\0';
    return out;
}

/* A printed number is a whole token of the visible text (not part of a longer number). */
static int appears(const char *text, const char *num)
{
    size_t n = strlen(num);
    for (const char *p = strstr(text, num); p; p = strstr(p + 1, num)) {
        char before = p == text ? ' ' : p[-1], after = p[n];
        int digitish_b = (before >= '0' && before <= '9') || before == '.';
        int digitish_a = (after >= '0' && after <= '9') || (after == '.' && p[n + 1] >= '0' && p[n + 1] <= '9');
        if (!digitish_b && !digitish_a) return 1;
    }
    return 0;
}

/* Runs of white space (line breaks included) as one space, in place. */
static char *squeeze_spaces(char *s)
{
    size_t k = 0;
    for (size_t i = 0; s[i]; i++) {
        int space = s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r';
        if (space && (k == 0 || s[k - 1] == ' ')) continue;
        s[k++] = space ? ' ' : s[i];
    }
    while (k && s[k - 1] == ' ') k--;
    s[k] = '\0';
    return s;
}

static int occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

typedef struct loaded {
    char name[96];
    csv_table t;
    json_t *json; /* a run.json instead of a CSV */
} loaded;

#define MAX_RESULTS 160

static loaded *source_for(loaded *cache, size_t *n_cache, const char *exp)
{
    for (size_t i = 0; i < *n_cache; i++)
        if (!strcmp(cache[i].name, exp)) return &cache[i];
    char rel[256], err[512];
    if (strstr(exp, ".csv") || strstr(exp, ".json")) snprintf(rel, sizeof rel, RESULTS_ROOT "%s", exp);
    else if (exp[0] == 'h' && exp[1] >= '0' && exp[1] <= '9' && strchr(exp, '/')) /* h100/..., h200x2/... */
        snprintf(rel, sizeof rel, RESULTS_ROOT "%s/results.csv", exp);
    else snprintf(rel, sizeof rel, RESULTS "%s/results.csv", exp);
    if (*n_cache == MAX_RESULTS) fail_msg("the docs cite more than %d results files", MAX_RESULTS);
    loaded *l = &cache[(*n_cache)++];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", exp);
    if (strstr(exp, ".json")) l->json = tu_load_json(tu_data_file(rel));
    else if (csv_read_file(tu_data_file(rel), &l->t, err, sizeof err)) fail_msg("%s", err);
    return l;
}

/* A number in run.json by a dotted path ("drift.items.0.cold_ms.1"). */
static double json_number(json_t *root, const char *exp, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = root;
    char *save = NULL;
    for (char *key = strtok_r(buf, ".", &save); key && v; key = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, strtoul(key, NULL, 10)) : json_object_get(v, key);
    if (!json_is_number(v)) fail_msg("%s: no number at '%s'", exp, path);
    return json_number_value(v);
}

typedef struct selection {
    csv_table *t;
    size_t rows[4096]; /* the matching rows */
    size_t n;
} selection;

/* The rows of t whose columns equal the selectors "col=value" in sel[0..n_sel). */
static void select_rows(const char *exp, csv_table *t, char **sel, int n_sel, selection *out)
{
    int cols[8];
    char *val[8];
    if (n_sel > 8) fail_msg("%s: more than 8 selectors", exp);
    for (int i = 0; i < n_sel; i++) {
        char *eq = strchr(sel[i], '=');
        if (!eq) fail_msg("%s: bad selector '%s' (want col=value)", exp, sel[i]);
        *eq = '\0';
        val[i] = eq + 1;
        if ((cols[i] = csv_column(t, sel[i])) < 0) fail_msg("%s: no column '%s'", exp, sel[i]);
    }
    out->t = t;
    out->n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        int ok = 1;
        for (int i = 0; i < n_sel && ok; i++) ok = !strcmp(t->rows[r][cols[i]], val[i]);
        if (!ok) continue;
        if (out->n < sizeof out->rows / sizeof out->rows[0]) out->rows[out->n] = r;
        out->n++; /* counted past the array for rows=N; column_value refuses that many */
    }
}

/* COL of the selected row, or "min:COL" / "max:COL" over the selected rows. */
static double column_value(const char *exp, const selection *s, const char *what)
{
    int agg = !strncmp(what, "min:", 4) ? -1 : !strncmp(what, "max:", 4) ? 1 : 0;
    const char *col = agg ? what + 4 : what;
    int c = csv_column(s->t, col);
    if (c < 0) fail_msg("%s: no column '%s'", exp, col);
    if (!agg && s->n != 1) fail_msg("%s: %zu rows match the selector of a check of %s (want 1)", exp, s->n, col);
    if (s->n == 0) fail_msg("%s: no row matches the selector of a check of %s", exp, what);
    if (s->n > sizeof s->rows / sizeof s->rows[0]) fail_msg("%s: %zu rows for %s: narrow the selector", exp, s->n, what);
    double best = atof(s->t->rows[s->rows[0]][c]);
    for (size_t i = 1; i < s->n; i++) {
        double v = atof(s->t->rows[s->rows[i]][c]);
        if ((agg < 0 && v < best) || (agg > 0 && v > best)) best = v;
    }
    return best;
}

/* One term "EXP; sel=v; ...; WHAT": WHAT is a column (min:/max: allowed), or
 * a dotted path where EXP is a run.json. */
static double term_value(char *term, loaded *cache, size_t *n_cache)
{
    char *items[10];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(term, ";", &save); tok && n < 10; tok = strtok_r(NULL, ";", &save)) {
        while (*tok == ' ') tok++;
        for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';) *--e = '\0';
        items[n++] = tok;
    }
    if (n < 2) fail_msg("ratio term without a column: %s", term);
    loaded *l = source_for(cache, n_cache, items[0]);
    if (l->json) return json_number(l->json, items[0], items[n - 1]);
    static selection s;
    select_rows(items[0], &l->t, items + 1, n - 2, &s);
    return column_value(items[0], &s, items[n - 1]);
}

/* The printed number is the value (times k) at the printed decimals, and the reader sees it. */
static void check_printed(const char *doc, const char *visible, const char *exp, const char *what, double value,
                          const char *printed)
{
    const char *dot = strchr(printed, '.');
    int decimals = dot ? (int)strlen(dot + 1) : 0;
    char want[64];
    snprintf(want, sizeof want, "%.*f", decimals, value);
    if (strcmp(want, printed)) fail_msg("%s %s: %s says %s, the results give %s (%.9g)", exp, what, doc, printed, want, value);
    if (!appears(visible, printed))
        fail_msg("%s %s=%s is checked but not in its quote of %s: \"%s\"", exp, what, printed, doc, visible);
}

/* Splits "NAME[*K]=PRINTED" in place. */
static const char *split_value(char *tok, double *k)
{
    while (*tok == ' ') tok++;
    char *eq = strchr(tok, '=');
    if (!eq) fail_msg("bad value '%s'", tok);
    *eq = '\0';
    *k = 1;
    char *star = strchr(tok, '*');
    if (star) {
        *star = '\0';
        *k = atof(star + 1);
    }
    return eq + 1;
}

/* "TERM / TERM : ratio[*K]=printed": one value over another. */
static int check_ratio(const char *doc, char *line, char *values, const char *visible, loaded *cache, size_t *n_cache)
{
    char *slash = strstr(line, " / ");
    *slash = '\0';
    char label[160];
    snprintf(label, sizeof label, "%s", line);
    double num = term_value(line, cache, n_cache), den = term_value(slash + 3, cache, n_cache);
    int checked = 0;
    char *save = NULL;
    for (char *tok = strtok_r(values, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        double k;
        const char *printed = split_value(tok, &k);
        if (strcmp(tok + strspn(tok, " "), "ratio")) fail_msg("a ratio line takes ratio=..., not '%s'", tok);
        check_printed(doc, visible, label, "ratio", num / den * k, printed);
        checked++;
    }
    return checked;
}

/* One check line; returns the number of values checked. */
static int check_line(const char *doc, char *line, const char *visible, loaded *cache, size_t *n_cache)
{
    char *colon = strstr(line, " : ");
    if (!colon) fail_msg("check line without ' : ': %s", line);
    *colon = '\0';
    char *values = colon + 3;
    if (strstr(line, " / ")) return check_ratio(doc, line, values, visible, cache, n_cache);
    char *save = NULL;
    char *exp = strtok_r(line, ";", &save);
    loaded *l = source_for(cache, n_cache, exp);
    char *sel[8];
    int n_sel = 0;
    for (char *tok; (tok = strtok_r(NULL, ";", &save));) {
        while (*tok == ' ') tok++;
        if (!strchr(tok, '=') || n_sel == 8) fail_msg("bad selector '%s'", tok);
        sel[n_sel++] = tok;
    }
    static selection s;
    if (!l->json) select_rows(exp, &l->t, sel, n_sel, &s);
    int checked = 0;
    char *save2 = NULL;
    for (char *tok = strtok_r(values, ";", &save2); tok; tok = strtok_r(NULL, ";", &save2)) {
        double k;
        const char *printed = split_value(tok, &k);
        tok += strspn(tok, " ");
        double v = l->json ? json_number(l->json, exp, tok) : !strcmp(tok, "rows") ? (double)s.n : column_value(exp, &s, tok);
        check_printed(doc, visible, exp, tok, v * k, printed);
        checked++;
    }
    return checked;
}

static void free_sources(loaded *cache, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (cache[i].json) json_decref(cache[i].json);
        else csv_free(&cache[i].t);
    }
}

#define FIGURES "tests/figures"

/* What one checks file checked. */
typedef struct figures {
    char checks[128]; /* tests/figures/NAME.checks */
    char doc[128];    /* the doc it quotes */
    int quotes, values;
    size_t n_results; /* the results files read */
    char *printed;    /* every printed value, " v1 v2 ... " */
    char *exempt;     /* "not from a run: ...", " n1 n2 ... " */
} figures;

static void append_token(char **list, const char *tok, size_t n)
{
    size_t len = strlen(*list);
    *list = realloc(*list, len + n + 2);
    memcpy(*list + len, tok, n);
    (*list)[len + n] = ' ';
    (*list)[len + n + 1] = '\0';
}

/* The printed values of one check line (" : " onwards), into f->printed. */
static void note_printed(figures *f, const char *line)
{
    const char *colon = strstr(line, " : ");
    if (!colon) return;
    for (const char *eq = strchr(colon, '='); eq; eq = strchr(eq + 1, '=')) {
        size_t n = strcspn(eq + 1, ";\n");
        while (n && eq[n] == ' ') n--;
        append_token(&f->printed, eq + 1, n);
    }
}

/* One checks file: every quote is in its doc once, and every check line's
 * figures are in its quote and match the results. */
static void check_figures(const char *name, figures *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->checks, sizeof f->checks, FIGURES "/%s", name);
    f->printed = strdup(" ");
    f->exempt = strdup(" ");
    char *text = tu_read_file(tu_data_file(f->checks));
    assert_non_null(text);
    loaded cache[MAX_RESULTS];
    size_t n_cache = 0;
    char *seen = NULL, *quote = NULL;
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (line[0] == '#' || !line[strspn(line, " ")]) continue;
        if (!strncmp(line, "doc: ", 5)) {
            snprintf(f->doc, sizeof f->doc, "%s", line + 5);
            char *md = tu_read_file(tu_data_file(f->doc));
            if (!md) fail_msg("%s: cannot read %s", f->checks, f->doc);
            if (strstr(md, "<!-- checked by")) fail_msg("%s holds a check comment: checks live in %s", f->doc, f->checks);
            seen = squeeze_spaces(visible_text(md));
            free(md);
        } else if (!strncmp(line, "not from a run: ", 16)) {
            for (char *p = line + 16; *p;) {
                size_t n = strcspn(p, " ");
                if (n) append_token(&f->exempt, p, n);
                p += n + strspn(p + n, " ");
            }
        } else if (!strncmp(line, "> ", 2)) {
            if (!seen) fail_msg("%s: a quote before the doc: line", f->checks);
            free(quote);
            quote = squeeze_spaces(strdup(line + 2));
            int n = occurrences(seen, quote);
            if (n == 0) fail_msg("%s: %s no longer says \"%s\" (a figure changed or removed?)", f->checks, f->doc, quote);
            if (n > 1) fail_msg("%s: \"%s\" is %d times in %s: quote more of it", f->checks, quote, n, f->doc);
            f->quotes++;
        } else {
            if (!quote) fail_msg("%s:%d: a check line without a quote above it", f->checks, lineno);
            note_printed(f, line);
            f->values += check_line(f->doc, line, quote, cache, &n_cache);
        }
    }
    if (!f->doc[0]) fail_msg("%s: no doc: line", f->checks);
    f->n_results = n_cache;
    free_sources(cache, n_cache);
    free(quote);
    free(seen);
    free(text);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every checks file under tests/figures, checked; their number into *n. */
static figures *check_all_figures(int *n)
{
    static figures all[32];
    static int n_all = -1;
    if (n_all < 0) {
        DIR *d = opendir(tu_data_file(FIGURES));
        assert_non_null(d);
        char *names[32];
        int k = 0;
        for (struct dirent *e; (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len > 7 && !strcmp(e->d_name + len - 7, ".checks")) {
                if (k == 32) fail_msg("more than 32 checks files");
                names[k++] = strdup(e->d_name);
            }
        }
        closedir(d);
        qsort(names, (size_t)k, sizeof names[0], by_name);
        for (int i = 0; i < k; i++) {
            check_figures(names[i], &all[i]);
            printf("%s: %s, %d quotes, %d numbers checked against %zu results files\n", all[i].checks, all[i].doc,
                   all[i].quotes, all[i].values, all[i].n_results);
            free(names[i]);
        }
        n_all = k;
    }
    *n = n_all;
    return all;
}

static const figures *figures_of(const char *doc)
{
    int n;
    figures *all = check_all_figures(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(all[i].doc, doc)) return &all[i];
    fail_msg("no checks file under " FIGURES " names %s", doc);
    return NULL;
}

static void test_findings_match_csvs(void **state)
{
    (void)state;
    const figures *f = figures_of("experiments/FINDINGS.md");
    assert_true(f->quotes >= 100);
    assert_int_equal(f->values, 410);
    /* the five study experiments, the default runs, vs-cub on each device (results, confirm.csv),
     * ncu's times (two files), four drift runs, the runs' run.json files, big-n (results, confirm.csv)
     * and cluster, the cut-short default run's run.json (the sweep's validation share), and the
     * three same-code default runs' run.json (their launch term), and the h200x4 runs' run.json (the
     * default screened, by the full rule, over 2 and 4 cards, the profile stage at 2^10),
     * and the two-pass build's (the default over 1 and 2 cards, the ranges at 2^30, with
     * the old build's there), and the two-card vs-cub run to 2^34 (results, confirm.csv, run.json and
     * three of its ncu tables), and the scan's data path alone (scan_path on each part, two pairs
     * of the copy figure's run.json), and the full run over four cards (its three processes' run.json
     * and its confirm.csv), and the f64 scan's one call at 2^20 in five ncu runs, and the full run of
     * the build with --time-limit (its three processes' run.json, two of its shards' beside it), and the
     * H100 vs-cub run to 2^33 in place of the older one (run.json, confirm.csv, two ncu tables), and
     * two shards of full alone on an H200 (h200/hot-below's table), and what bounds a kernel's
     * copy (scan_path's copies on each part, the best drawn-tile scan), and the
     * H100 run's f64 ncu table, and the round traced by phase (its timings and phases), and
     * the named round barriers in the harness (the f32 builds' results, two f64 confirm.csv, the H100's f64 confirm.csv), and each SM's rate on each part (two summaries
     * and the scan's timings beside them), and the scans again on the build that ships, on each part
     * (results, confirm.csv and run.json of the H200's, its f32 ncu table; the H100's confirm.csv and run.json),
     * and their f64 scans with the third ring stage (the same of the H200's, its f64 ncu table; the H100's
     * confirm.csv and run.json), and the small sizes' scans on the build that ships (the H200's confirm.csv),
     * and the build that ships on four H200s at once (its run.json and confirm.csv), and three rounds
     * ahead on the H100 (two processes of each build, their confirm.csv), and the large inputs' ring
     * on a second H100 (two processes of the build that ships, their confirm.csv) */
    assert_int_equal(f->n_results, 99);
}

/* FINDINGS is the conclusions, each with its figure; the record is the journal. */
static void test_findings_length(void **state)
{
    (void)state;
    char *md = tu_read_file(tu_data_file("experiments/FINDINGS.md"));
    assert_non_null(md);
    int lines = 0;
    for (const char *p = md; *p; p++) lines += *p == '\n';
    printf("FINDINGS.md: %d lines\n", lines);
    if (lines > 300) fail_msg("experiments/FINDINGS.md has %d lines, more than 300: move the record to JOURNAL.md", lines);
    free(md);
}

/* The journal keeps every table the findings page had before the split, with its checks. */
static void test_journal_matches_csvs(void **state)
{
    (void)state;
    const figures *f = figures_of("experiments/JOURNAL.md");
    assert_int_equal(f->values, 820);
    /* each of the five study experiments backs some of it, the default runs with and without metrics,
     * the vs-cub run on each device, 83 beyond-cub step runs, the cluster run and big-n's confirm.csv */
    /* and vs-cub's confirm.csv on each device, ncu's times (two files), and the run.json files of the
     * sweep's cost (§8: cluster, big-n, the cut-short default run), and the two-card vs-cub run to
     * 2^34 (results, confirm.csv, run.json, two of its ncu tables) with big-n's run.json beside it */
    assert_int_equal(f->n_results, 106);
}

/* The README's results and the docs/ pages: every figure they state is checked the same way. */
static void test_readme_and_docs_match_csvs(void **state)
{
    (void)state;
    int n, values = 0;
    figures *all = check_all_figures(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(all[i].doc, "README.md") || !strncmp(all[i].doc, "docs/", 5)) values += all[i].values;
    printf("README.md and docs/: %d numbers checked\n", values);
    assert_true(figures_of("README.md")->values >= 100);
    assert_true(values >= 171);
    /* every checks file, and every number, in all: the 1248 the docs held in comments before the
     * checks moved out, and docs/results.md's three ranges that the README's table had covered */
    int total = 0;
    for (int i = 0; i < n; i++) total += all[i].values;
    printf("all docs: %d numbers checked\n", total);
    assert_true(total >= 1251);
}

/* Text without code spans and link targets: the prose and tables a reader sees. */
static void blank_code_and_links(char *text)
{
    for (char *p = text; *p; p++) {
        char *e = NULL;
        if (*p == '`') e = strchr(p + 1, '`');
        else if (p[0] == ']' && p[1] == '(') e = strchr(p + 2, ')');
        if (!e) continue;
        memset(p, ' ', (size_t)(e - p + 1));
        p = e;
    }
}

/* Every number of sec (not an exponent of 2^k, not part of a name) is a
 * checked value of f or listed there as not from a run. */
static void all_numbers_checked(const figures *f, char *sec, const char *where)
{
    blank_code_and_links(sec);
    int numbers = 0, missing = 0;
    for (char *p = sec; *p; p++) {
        if (!(*p >= '0' && *p <= '9')) continue;
        char prev = p == sec ? ' ' : p[-1];
        size_t n = strspn(p, "0123456789.");
        while (n > 1 && p[n - 1] == '.') n--;
        char next = p[n];
        int name = (prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z') || prev == '_' || prev == '^' ||
                   (unsigned char)prev == 0xa7 /* § */ || next == '^' || (next >= 'a' && next <= 'z') || next == '_';
        if (prev == '-' && p - sec > 1 && p[-2] >= 'a' && p[-2] <= 'z') name = 1; /* confirm-2, d1-2 */
        if (p - sec > 5 && !strncmp(p - 5, "seed", 4) && (prev == ' ' || prev == '\n')) name = 1; /* seed 003 */
        if (!name) {
            char tok[32], key[40];
            snprintf(tok, sizeof tok, "%.*s", (int)(n < 31 ? n : 31), p);
            snprintf(key, sizeof key, " %s ", tok);
            numbers++;
            if (!strstr(f->printed, key) && !strstr(f->exempt, key)) {
                printf("%s: %s is neither checked nor listed as not from a run in %s\n", where, tok, f->checks);
                missing++;
            }
        }
        p += n - 1;
    }
    printf("%s: %d numbers, each checked or listed as not from a run\n", where, numbers);
    assert_int_equal(missing, 0);
}

/* Every number of the README's Results section and of docs/results.md is
 * checked or listed as not from a run. */
static void test_results_all_checked(void **state)
{
    (void)state;
    char *md = tu_read_file(tu_data_file("README.md"));
    assert_non_null(md);
    char *visible = visible_text(md);
    char *sec = strstr(visible, "\n## Results\n");
    assert_non_null(sec);
    char *end = strstr(sec + 1, "\n## ");
    if (end) *end = '\0';
    all_numbers_checked(figures_of("README.md"), sec, "README Results");
    free(visible);
    free(md);
    md = tu_read_file(tu_data_file("docs/results.md"));
    assert_non_null(md);
    visible = visible_text(md);
    all_numbers_checked(figures_of("docs/results.md"), visible, "docs/results.md");
    free(visible);
    free(md);
}

/* docs/sweep.md quotes --dry-run's "axes for V (experiments/F.ini:L): block_dims B; coarse C":
 * line L of F is V's section, and its keys hold B and C. */
static void test_sweep_doc_axes_line_matches_file(void **state)
{
    (void)state;
    char *md = tu_read_file(tu_data_file("docs/sweep.md"));
    assert_non_null(md);
    const char *p = strstr(md, "axes for ");
    assert_non_null(p);
    char variant[64], file[128], blocks[64], coarse[64];
    int line = 0;
    char flat[512];
    size_t k = 0;
    for (const char *q = p; *q && *q != '`' && k + 1 < sizeof flat; q++) flat[k++] = *q == '\n' ? ' ' : *q;
    flat[k] = '\0';
    assert_int_equal(sscanf(flat, "axes for %63s (%127[^:]:%d): block_dims %63[^;]; coarse %63s", variant, file, &line,
                            blocks, coarse),
                     5);
    char *ini = tu_read_file(tu_data_file(file));
    assert_non_null(ini);
    const char *l = ini;
    for (int i = 1; i < line && l; i++) l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
    assert_non_null(l);
    char want[96];
    snprintf(want, sizeof want, "[axes:%s]\n", variant);
    if (strncmp(l, want, strlen(want))) fail_msg("docs/sweep.md: %s:%d is not %s", file, line, want);
    /* the section's keys, spaces removed, up to the next section */
    char keys[1024];
    k = 0;
    for (const char *q = l + strlen(want); *q && *q != '[' && k + 1 < sizeof keys; q++)
        if (*q != ' ') keys[k++] = *q;
    keys[k] = '\0';
    char b[96], c[96];
    snprintf(b, sizeof b, "block_dims=%s\n", blocks);
    snprintf(c, sizeof c, "coarse=%s\n", coarse);
    if (!strstr(keys, b) || !strstr(keys, c)) fail_msg("docs/sweep.md: %s's section in %s does not set %s and %s", variant, file, b, c);
    free(ini);
    free(md);
}

/* The smallest committed results directory, copied and drawn again. */
static void test_rerender_committed_results(void **state)
{
    (void)state;
    const char *src = tu_data_file(RESULTS "sum-16m/results.csv");
    const char *dir = tu_tempdir("rerender");
    char cmd[8192];
    char srcdir[4096];
    snprintf(srcdir, sizeof srcdir, "%s", src);
    *strrchr(srcdir, '/') = '\0';
    assert_true(snprintf(cmd, sizeof cmd, "cp -L '%s'/results.csv* '%s/run.json' '%s/'", srcdir, srcdir, dir) <
                (int)sizeof cmd);
    assert_int_equal(system(cmd), 0);
    plots_options o = {0};
    o.link_charts = 1;
    char msg[1024];
    int rc = plots_render(dir, &o, msg, sizeof msg);
    printf("render: %s\n", msg);
    assert_true(rc == 0 || rc == 1); /* 1: no gnuplot here, the report is still written */
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *report = tu_read_file(path);
    assert_non_null(report);
    /* every variant of the CSV reaches the report */
    const char *variants[] = {"cpu_serial", "reduce_atomic_global", "reduce_atomic_shared", "reduce_interleaved_divergent",
                              "reduce_sequential_addressing", "reduce_first_add", "reduce_unroll_last_warp",
                              "reduce_warp_shuffle", "reduce_cub"};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        if (!strstr(report, variants[i])) fail_msg("report.md does not mention %s", variants[i]);
    if (rc == 0) {
        /* the committed charts are the ones drawn now */
        snprintf(cmd, sizeof cmd, "cd '%s/charts' && for f in *.png; do test -e '%s/charts/'\"$f\" || exit 1; done",
                 srcdir, dir);
        assert_int_equal(system(cmd), 0);
    }
    free(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_findings_match_csvs),
        cmocka_unit_test(test_findings_length),
        cmocka_unit_test(test_journal_matches_csvs),
        cmocka_unit_test(test_readme_and_docs_match_csvs),
        cmocka_unit_test(test_results_all_checked),
        cmocka_unit_test(test_sweep_doc_axes_line_matches_file),
        cmocka_unit_test(test_rerender_committed_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
