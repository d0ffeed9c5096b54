/* Every kernel file is in the registry: a .cu file under kernels/ that
 * defines a variant (`const variant NAME_variant`) must have its
 * VARIANT(NAME) line in kernels/variants.def, or the sweep never sees it and
 * `--variants NAME` says it matches nothing. The rule, not a list of names,
 * tells variants from helpers: headers are .cuh, and a .cu file that defines
 * no variant is a helper. A failure names the file. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "kernels/registry.h"
#include "tests/sweep_test_util.h"

/* The names a VARIANT(...) line of variants.def registers, in order. */
static size_t def_names(const char *def, char names[][128], size_t cap)
{
    size_t n = 0;
    for (const char *p = def; (p = strstr(p, "VARIANT(")) && n < cap; p++) {
        if (p > def && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        const char *q = p + 8;
        size_t len = strcspn(q, ")");
        if (len && len < 128 && q[len] == ')') snprintf(names[n++], 128, "%.*s", (int)len, q);
    }
    return n;
}

/* The variants a source file defines: NAME of each `const variant NAME_variant`. */
static size_t file_variants(const char *text, char names[][128], size_t cap)
{
    static const char key[] = "const variant ";
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, key)) && n < cap; p++) {
        const char *q = p + strlen(key);
        size_t len = 0;
        while (isalnum((unsigned char)q[len]) || q[len] == '_') len++;
        const char *r = q + len;
        while (*r == ' ') r++;
        if (*r != '=' || len <= 8 || strncmp(q + len - 8, "_variant", 8)) continue; /* a declaration, not this */
        snprintf(names[n++], 128, "%.*s", (int)(len - 8), q);
    }
    return n;
}

/* Check every .cu file of dir against def: 0, or -1 with the first problem
 * (naming the file) in msg. *variants gets how many variant files there are. */
static int check_kernel_dir(const char *dir, const char *def, size_t *variants, char *msg, size_t len)
{
    char listed[256][128], defined[8][128];
    size_t nl = def_names(def, listed, 256);
    *variants = 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(msg, len, "%s: cannot list", dir);
        return -1;
    }
    struct dirent *en;
    int rc = 0;
    while (!rc && (en = readdir(d)) != NULL) {
        size_t l = strlen(en->d_name);
        if (l < 4 || strcmp(en->d_name + l - 3, ".cu")) continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, en->d_name);
        char *text = tu_read_file(path);
        if (!text) {
            snprintf(msg, len, "kernels/%s: cannot read", en->d_name);
            rc = -1;
            break;
        }
        size_t nd = file_variants(text, defined, 8);
        free(text);
        *variants += nd > 0;
        for (size_t k = 0; k < nd && !rc; k++) {
            int found = 0;
            for (size_t j = 0; j < nl && !found; j++) found = !strcmp(listed[j], defined[k]);
            if (found) continue;
            snprintf(msg, len,
                     "kernels/%s defines %s_variant, but kernels/variants.def has no VARIANT(%s) line: "
                     "the sweep, the tests and the plots do not see it",
                     en->d_name, defined[k], defined[k]);
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

static const char *kernels_dir(char *buf, size_t len)
{
    const char *def = tu_data_file("kernels/variants.def");
    snprintf(buf, len, "%s", def);
    *strrchr(buf, '/') = '\0';
    return buf;
}

/* The committed kernels: every variant file registered, and the registry as long as variants.def. */
static void test_every_kernel_file_registered(void **state)
{
    (void)state;
    char dir[4096], msg[1024];
    kernels_dir(dir, sizeof dir);
    char *def = tu_read_file(tu_data_file("kernels/variants.def"));
    assert_non_null(def);
    size_t files;
    if (check_kernel_dir(dir, def, &files, msg, sizeof msg)) fail_msg("%s", msg);
    char listed[256][128];
    size_t nl = def_names(def, listed, 256);
    assert_int_equal(nl, registry_count());
    assert_int_equal(files, registry_count()); /* one file per variant */
    for (size_t i = 0; i < nl; i++) {
        const variant *v = registry_find(listed[i]);
        if (!v || strcmp(v->name, listed[i])) fail_msg("VARIANT(%s): no variant named %s", listed[i], listed[i]);
    }
    free(def);
}

/* The check itself: a new kernel file without its line is named; a helper
 * .cu that defines no variant, and a header, are not variants. */
static void test_missing_line_names_the_file(void **state)
{
    (void)state;
    char src[4096], msg[1024];
    kernels_dir(src, sizeof src);
    const char *dir = tu_tempdir("kernels");
    char *def = tu_read_file(tu_data_file("kernels/variants.def"));
    assert_non_null(def);
    char path[4400];
    snprintf(path, sizeof path, "%s/reduce_cub.cu", src);
    char *cub = tu_read_file(path);
    assert_non_null(cub);
    snprintf(path, sizeof path, "%s/reduce_cub.cu", dir);
    assert_int_equal(tu_write_file(path, cub), 0);
    snprintf(path, sizeof path, "%s/bulk_helper.cu", dir);
    assert_int_equal(tu_write_file(path, "extern const variant reduce_cub_variant;\n__device__ int helper;\n"), 0);
    snprintf(path, sizeof path, "%s/reduce_new.cuh", dir);
    assert_int_equal(tu_write_file(path, "extern \"C\" const variant reduce_new_variant = REDUCE_VARIANT();\n"), 0);
    size_t files;
    if (check_kernel_dir(dir, def, &files, msg, sizeof msg)) fail_msg("%s", msg);
    assert_int_equal(files, 1);
    snprintf(path, sizeof path, "%s/reduce_new.cu", dir);
    assert_int_equal(tu_write_file(path, "extern \"C\" const variant reduce_new_variant = REDUCE_VARIANT(\n"
                                         "    .name = \"reduce_new\", .family = \"atomic\");\n"),
                     0);
    assert_int_equal(check_kernel_dir(dir, def, &files, msg, sizeof msg), -1);
    assert_string_equal(msg, "kernels/reduce_new.cu defines reduce_new_variant, but kernels/variants.def has no "
                             "VARIANT(reduce_new) line: the sweep, the tests and the plots do not see it");
    free(cub);
    free(def);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kernel_file_registered),
        cmocka_unit_test(test_missing_line_names_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
