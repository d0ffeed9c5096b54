/* compare.h: what every part of a comparison adds to or reads from its
 * result, kept apart so that the parts call down into it, never into each
 * other in a circle. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"

void compare_warn(compare_result *r, const char *line)
{
    char **bigger = realloc(r->warnings, (r->nwarnings + 1) * sizeof *bigger);
    if (!bigger) return;
    r->warnings = bigger;
    r->warnings[r->nwarnings] = strdup(line);
    if (r->warnings[r->nwarnings]) r->nwarnings++;
}

size_t compare_regressions(const compare_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->npairs; i++) n += r->pairs[i].cold.verdict == CV_SLOWER || r->pairs[i].hot.verdict == CV_SLOWER;
    return n;
}

size_t compare_variant_changes(const compare_result *r)
{
    size_t n = 0;
    for (size_t g = 0; g < r->nvgroups; g++)
        for (int h = 0; h < 2; h++) n += r->vgroups[g].ph[h].verdict == CV_SLOWER || r->vgroups[g].ph[h].verdict == CV_FASTER;
    return n;
}

size_t compare_variant_regressions(const compare_result *r)
{
    size_t n = 0;
    for (size_t g = 0; g < r->nvgroups; g++) n += r->vgroups[g].ph[0].verdict == CV_SLOWER || r->vgroups[g].ph[1].verdict == CV_SLOWER;
    return n;
}

void compare_size_text(size_t n, char *buf, size_t len)
{
    if (n && !(n & (n - 1))) {
        int k = 0;
        while ((size_t)1 << k != n) k++;
        snprintf(buf, len, "2^%d", k);
    } else snprintf(buf, len, "%zu", n);
}
