/* docs/nsight.md ("Opening a run in Nsight", once the the page's section of that
 * name) against the ranges the sweep pushes: the sweep runs the page's example
 * configuration (and CUB beside it, so the
 * confirmation runs too) on the fake device with tests/nvtx_injection.c
 * recording every push, and
 *   - every parent > child pair of the the page's range tree is pushed so, and
 *     every pair pushed (CUB's own aside) is in the the page's tree;
 *   - every `--nvtx-include "sweep@A/B/.../"` of the page names ranges pushed
 *     one inside the other, in that order. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/sweep_test_util.h"

#define MAX_PAIRS 64
#define MAX_PATHS 4096

typedef struct pairs {
    char parent[MAX_PAIRS][160], child[MAX_PAIRS][160];
    int n;
} pairs;

static int has_pair(const pairs *p, const char *parent, const char *child)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->parent[i], parent) && !strcmp(p->child[i], child)) return 1;
    return 0;
}

static void add_pair(pairs *p, const char *parent, const char *child)
{
    if (has_pair(p, parent, child)) return;
    if (p->n == MAX_PAIRS) fail_msg("more than %d distinct range pairs", MAX_PAIRS);
    snprintf(p->parent[p->n], sizeof p->parent[0], "%s", parent);
    snprintf(p->child[p->n++], sizeof p->child[0], "%s", child);
}

/* docs/nsight.md, the page on Nsight, whole (malloc'd). */
static char *nsight_section(void)
{
    char *md = tu_read_file(tu_data_file("docs/nsight.md"));
    assert_non_null(md);
    char *start = strstr(md, "# Opening a run in Nsight\n");
    if (!start) fail_msg("docs/nsight.md does not open with \"# Opening a run in Nsight\"");
    char *end = strstr(start + 1, "\n## ");
    char *sec = strndup(start, end ? (size_t)(end - start) : strlen(start));
    free(md);
    return sec;
}

/* The tree: the section's first fenced block; a line's depth is where its name
 * starts (4 columns a level, tree drawing before it), its name runs up to two
 * spaces (a comment follows). Top-level ranges have the parent "". */
static void readme_tree(const char *sec, pairs *out)
{
    const char *block = strstr(sec, "```\n");
    assert_non_null(block);
    block += 4;
    const char *end = strstr(block, "```");
    assert_non_null(end);
    char stack[8][160] = {{0}};
    for (const char *line = block; line < end; line = strchr(line, '\n') + 1) {
        size_t len = strcspn(line, "\n"), col = 0, i = 0;
        /* tree drawing: ASCII spaces and the UTF-8 box characters (3 bytes, 1 column) */
        while (i < len && (line[i] == ' ' || (unsigned char)line[i] >= 0x80)) {
            i += line[i] == ' ' ? 1 : 3;
            col++;
        }
        if (i >= len) continue;
        int depth = (int)(col / 4);
        if (depth >= 8) fail_msg("docs/nsight.md: tree deeper than 8: %.*s", (int)len, line);
        const char *name = line + i, *gap = strstr(name, "  ");
        size_t n = gap && gap < line + len ? (size_t)(gap - name) : len - i;
        snprintf(stack[depth], sizeof stack[0], "%.*s", (int)n, name);
        add_pair(out, depth ? stack[depth - 1] : "", stack[depth]);
    }
}

/* The pairs the sweep pushed, and every path of nested names ("run/default/...") into paths. */
static void recorded_tree(char *text, pairs *out, char **paths, int *n_paths)
{
    char stack[8][512];
    int depth = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[3] = {line, NULL, NULL};
        for (int k = 1; k < 3 && f[k - 1]; k++)
            if ((f[k] = strchr(f[k - 1], '\t'))) *f[k]++ = '\0';
        if (!f[1] || strncmp(f[1], "sweep", 6)) continue; /* other libraries' domains */
        if (!strcmp(f[0], "pop")) {
            assert_true(depth > 0);
            depth--;
            continue;
        }
        char *tab = f[2] ? strchr(f[2], '\t') : NULL;
        if (tab) *tab = '\0'; /* the colour */
        assert_true(f[2] && depth < 8);
        snprintf(stack[depth], sizeof stack[0], "%s", f[2]);
        if (!strstr(f[2], "reduce_cub") && !(depth && strstr(stack[depth - 1], "reduce_cub")))
            add_pair(out, depth ? stack[depth - 1] : "", f[2]);
        depth++;
        char path[sizeof stack + 1] = ""; /* every level's name and its '/' */
        size_t len = 0;
        for (int d = 0; d < depth; d++) len += (size_t)snprintf(path + len, sizeof path - len, "%s/", stack[d]);
        if (*n_paths < MAX_PATHS) paths[(*n_paths)++] = strdup(path);
    }
    assert_int_equal(depth, 0);
}

static char *record_example_run(void)
{
    const char *lib = tu_runfile("tests/libnvtx_injection.so", "libnvtx_injection.so");
    assert_non_null(lib);
    const char *dir = tu_tempdir("readme-nvtx");
    char record[4200], inj[4300], rec[4300], out[4200];
    snprintf(record, sizeof record, "%s/record.txt", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(inj, sizeof inj, "NVTX_INJECTION64_PATH=%s", lib);
    snprintf(rec, sizeof rec, "NVTX_RECORD_FILE=%s", record);
    const char *env[] = {"SWEEP_FAKE_DEVICE=1", inj, rec, NULL};
    /* the the page's ncu example, with CUB beside it so the confirmation runs */
    const char *args[] = {"--variants", "reduce_warp_shuffle,reduce_cub", "--sizes", "2^22", "--block-dims", "256",
                          "--coarse", "1", "--out", out, "--quiet", NULL};
    tu_result r = tu_run(NULL, env, args);
    if (r.status != 0) fail_msg("sweep exit %d: %s", r.status, r.err);
    tu_result_free(&r);
    char *text = tu_read_file(record);
    if (!text) fail_msg("no record at %s: the injection library was not loaded", record);
    return text;
}

static void test_readme_tree_is_the_sweeps(void **state)
{
    (void)state;
    char *sec = nsight_section();
    static pairs doc, run;
    readme_tree(sec, &doc);
    char *text = record_example_run();
    static char *paths[MAX_PATHS];
    int n_paths = 0;
    recorded_tree(text, &run, paths, &n_paths);
    int bad = 0;
    for (int i = 0; i < doc.n; i++)
        if (!has_pair(&run, doc.parent[i], doc.child[i])) {
            printf("the page's tree: '%s' under '%s' is not pushed so\n", doc.child[i], doc.parent[i]);
            bad++;
        }
    for (int i = 0; i < run.n; i++)
        if (!has_pair(&doc, run.parent[i], run.child[i])) {
            printf("the sweep pushes '%s' under '%s': not in the the page's tree\n", run.child[i], run.parent[i]);
            bad++;
        }
    printf("the page's tree: %d parent > child pairs, the sweep's %d\n", doc.n, run.n);
    assert_int_equal(bad, 0);

    /* every --nvtx-include "sweep@PATH" names a pushed path (a bare name: any range of that name) */
    int includes = 0;
    for (const char *p = strstr(sec, "--nvtx-include \"sweep@"); p; p = strstr(p + 1, "--nvtx-include \"sweep@")) {
        const char *q = p + strlen("--nvtx-include \"sweep@");
        char want[1024];
        snprintf(want, sizeof want, "%.*s", (int)strcspn(q, "\""), q);
        int found = 0;
        for (int i = 0; i < n_paths && !found; i++) {
            size_t lp = strlen(paths[i]), lw = strlen(want);
            found = strchr(want, '/') != want + lw - 1 ? !strcmp(paths[i], want)
                                                        : lp >= lw && !strcmp(paths[i] + lp - lw, want) &&
                                                              (lp == lw || paths[i][lp - lw - 1] == '/');
        }
        if (!found) fail_msg("docs/nsight.md: --nvtx-include \"sweep@%s\" names no range the sweep pushes", want);
        includes++;
    }
    assert_true(includes >= 2);
    for (int i = 0; i < n_paths; i++) free(paths[i]);
    free(text);
    free(sec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_tree_is_the_sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
