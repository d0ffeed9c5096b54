/* Every relative link of README.md, the pages of docs/, experiments/FINDINGS.md and
 * experiments/JOURNAL.md resolves: the file or directory exists, and a
 * #fragment names a heading of the target page (GitHub's anchors). Links out
 * of the repository (http:, https:, mailto:) are not followed. The README is
 * the front door: it links every page of docs/ and stays within 250 lines. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/sweep_test_util.h"

#define MAX_DOCS 64
#define README_MAX_LINES 250

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The pages of docs/ in the runfiles (the BUILD's glob: every .md there), sorted; their number. */
static int docs_pages(char *pages[], int cap)
{
    DIR *d = opendir(tu_data_file("docs"));
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".md")) continue;
        if (n == cap) fail_msg("more than %d pages in docs/", cap);
        char path[300];
        snprintf(path, sizeof path, "docs/%s", e->d_name);
        pages[n++] = strdup(path);
    }
    closedir(d);
    qsort(pages, (size_t)n, sizeof pages[0], by_name);
    return n;
}

/* README.md, FINDINGS.md, JOURNAL.md and every page of docs/; their number. */
static int all_docs(char *docs[], int cap)
{
    int n = 0;
    docs[n++] = strdup("README.md");
    docs[n++] = strdup("experiments/FINDINGS.md");
    docs[n++] = strdup("experiments/JOURNAL.md");
    return n + docs_pages(docs + n, cap - n);
}

/* Where links resolve: the runfiles carry the docs and the committed results;
 * a link to any other file of the source tree resolves from the tree the
 * runfiles point into (README.md's real path), which data cannot list whole. */
static char runfiles_root[PATH_MAX], source_root[PATH_MAX];

static void find_roots(void)
{
    const char *readme = tu_data_file("README.md");
    snprintf(runfiles_root, sizeof runfiles_root, "%s", readme);
    *strrchr(runfiles_root, '/') = '\0';
    char real[PATH_MAX];
    if (!realpath(readme, real)) fail_msg("cannot resolve %s", readme);
    *strrchr(real, '/') = '\0';
    snprintf(source_root, sizeof source_root, "%s", real);
}

static int exists_under(const char *root, const char *rel)
{
    char path[PATH_MAX * 2];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", root, rel) >= (int)sizeof path) return 0; /* no such path */
    return stat(path, &st) == 0;
}

/* GitHub's anchor of a heading: lower case, spaces to '-', punctuation dropped. */
static void anchor_of(const char *heading, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        unsigned char c = (unsigned char)heading[i];
        if (isalnum(c) || c == '-' || c == '_') out[k++] = (char)tolower(c);
        else if (c == ' ') out[k++] = '-';
    }
    out[k] = '\0';
}

/* Does page (markdown text) have a heading whose anchor is frag? Repeated
 * headings take -1, -2, ... as GitHub numbers them. */
static int has_anchor(const char *page, const char *frag)
{
    char seen[512][128];
    int n_seen = 0, in_code = 0;
    for (const char *line = page; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t len = strcspn(line, "\n");
        if (!strncmp(line, "```", 3)) in_code = !in_code;
        if (in_code || line[0] != '#') continue;
        const char *h = line + strspn(line, "#");
        h += strspn(h, " ");
        char a[128], numbered[140];
        anchor_of(h, len - (size_t)(h - line), a, sizeof a);
        int repeats = 0;
        for (int i = 0; i < n_seen; i++) repeats += !strcmp(seen[i], a);
        if (n_seen < 512) snprintf(seen[n_seen++], sizeof seen[0], "%s", a);
        if (repeats) snprintf(numbered, sizeof numbered, "%s-%d", a, repeats);
        else snprintf(numbered, sizeof numbered, "%s", a);
        if (!strcmp(numbered, frag)) return 1;
    }
    return 0;
}

/* The text with fenced code blocks and HTML comments blanked: links there are not links. */
static void blank_code_and_comments(char *md)
{
    for (char *p = md; *p;) {
        const char *close = !strncmp(p, "<!--", 4) ? "-->" : !strncmp(p, "```", 3) ? "```" : NULL;
        if (!close) {
            p++;
            continue;
        }
        char *e = strstr(p + 3, close);
        char *end = e ? e + strlen(close) : p + strlen(p);
        for (; p < end; p++)
            if (*p != '\n') *p = ' ';
    }
}

/* One link target of doc (in directory dir); returns 0 when it resolves, else prints why. */
static int check_link(const char *doc, const char *dir, const char *page, const char *target)
{
    if (!strncmp(target, "http://", 7) || !strncmp(target, "https://", 8) || !strncmp(target, "mailto:", 7)) return 0;
    char path[PATH_MAX], frag[256] = "";
    snprintf(path, sizeof path, "%s", target);
    char *hash = strchr(path, '#');
    if (hash) {
        snprintf(frag, sizeof frag, "%s", hash + 1);
        *hash = '\0';
    }
    char rel[PATH_MAX * 2];
    if (!*path) snprintf(rel, sizeof rel, "%s", doc);
    else snprintf(rel, sizeof rel, "%s%s%s", dir, *dir ? "/" : "", path);
    const char *root = exists_under(runfiles_root, rel) ? runfiles_root : source_root;
    if (!exists_under(root, rel)) {
        printf("%s: link to %s: no such file or directory (%s)\n", doc, target, rel);
        return 1;
    }
    if (!*frag) return 0;
    char full[PATH_MAX * 3];
    snprintf(full, sizeof full, "%s/%s", root, rel);
    char *target_page = *path ? tu_read_file(full) : NULL;
    int ok = has_anchor(target_page ? target_page : page, frag);
    free(target_page);
    if (!ok) printf("%s: link to %s: %s has no heading #%s\n", doc, target, rel, frag);
    return !ok;
}

static void test_relative_links_resolve(void **state)
{
    (void)state;
    find_roots();
    int links = 0, broken = 0;
    char *docs[MAX_DOCS];
    int n_docs = all_docs(docs, MAX_DOCS);
    for (int d = 0; d < n_docs; d++) {
        char *md = tu_read_file(tu_data_file(docs[d]));
        assert_non_null(md);
        char *page = strdup(md);
        blank_code_and_comments(md);
        char dir[256];
        snprintf(dir, sizeof dir, "%s", docs[d]);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        else dir[0] = '\0';
        for (char *p = strstr(md, "]("); p; p = strstr(p + 2, "](")) {
            char *end = strchr(p + 2, ')');
            if (!end) break;
            char target[1024];
            snprintf(target, sizeof target, "%.*s", (int)(end - p - 2), p + 2);
            links++;
            broken += check_link(docs[d], dir, page, target);
        }
        free(page);
        free(md);
    }
    printf("%d docs, %d links checked, %d broken\n", n_docs, links, broken);
    for (int d = 0; d < n_docs; d++) free(docs[d]);
    assert_true(n_docs >= 14);
    assert_true(links >= 50);
    assert_int_equal(broken, 0);
}

/* Every page of docs/ is linked from the README (its list of pages), so none is
 * found only by chance. */
static void test_readme_links_every_docs_page(void **state)
{
    (void)state;
    char *md = tu_read_file(tu_data_file("README.md"));
    assert_non_null(md);
    blank_code_and_comments(md);
    char *pages[MAX_DOCS];
    int n = docs_pages(pages, MAX_DOCS), missing = 0;
    for (int i = 0; i < n; i++) {
        char link[320], frag[320];
        snprintf(link, sizeof link, "](%s)", pages[i]);
        snprintf(frag, sizeof frag, "](%s#", pages[i]);
        if (!strstr(md, link) && !strstr(md, frag)) {
            printf("README.md does not link %s\n", pages[i]);
            missing++;
        }
        free(pages[i]);
    }
    printf("%d pages of docs/, each linked from the README\n", n);
    assert_true(n >= 12);
    assert_int_equal(missing, 0);
    free(md);
}

/* The README is the front door: a screen or four, the rest in docs/. */
static void test_readme_length(void **state)
{
    (void)state;
    char *md = tu_read_file(tu_data_file("README.md"));
    assert_non_null(md);
    int lines = 0;
    for (const char *p = md; *p; p++) lines += *p == '\n';
    printf("README.md: %d lines\n", lines);
    if (lines > README_MAX_LINES)
        fail_msg("README.md has %d lines, more than %d: move the detail to a page of docs/", lines, README_MAX_LINES);
    free(md);
}

/* The anchor rule on the headings the docs link to. */
static void test_anchor_rule(void **state)
{
    (void)state;
    char a[128];
    const char *h = "7. Claims that survive a second run";
    anchor_of(h, strlen(h), a, sizeof a);
    assert_string_equal(a, "7-claims-that-survive-a-second-run");
    h = "6. Beyond CUB (vs-cub)";
    anchor_of(h, strlen(h), a, sizeof a);
    assert_string_equal(a, "6-beyond-cub-vs-cub");
    assert_true(has_anchor("# Top\n## Notes\n## Notes\n", "notes-1"));
    assert_false(has_anchor("```\n# not a heading\n```\n", "not-a-heading"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anchor_rule),
        cmocka_unit_test(test_relative_links_resolve),
        cmocka_unit_test(test_readme_links_every_docs_page),
        cmocka_unit_test(test_readme_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
