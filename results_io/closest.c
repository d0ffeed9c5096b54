/* Did-you-mean (results_io/closest.h). */
#include "results_io/closest.h"

#include <stdio.h>
#include <string.h>

#include "cupti/metrics.h"

void append_closest(char *msg, size_t len, const char *prefix, const char *name, const char *const *candidates,
                    size_t n)
{
    const char *best[3];
    size_t got = metric_suggest(name, candidates, n, best, 3);
    for (size_t i = 0; i < got; i++) {
        size_t used = strlen(msg);
        if (used + 1 >= len) return;
        snprintf(msg + used, len - used, "%s%s%s", i ? ", " : "; closest: ", prefix, best[i]);
    }
}

void unknown_flag_message(char *err, size_t len, const char *typed, const char *const *flags, size_t n,
                          const char *help)
{
    /* compared without their dashes, as the sweep's own flags are */
    const char *names[64];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 64; i++) names[k++] = flags[i] + strspn(flags[i], "-");
    char name[128];
    const char *eq = strchr(typed, '=');
    size_t tl = eq ? (size_t)(eq - typed) : strlen(typed);
    snprintf(name, sizeof name, "%.*s", (int)(tl < sizeof name ? tl : sizeof name - 1), typed);
    snprintf(err, len, "unknown option '%s' (see %s)", typed, help);
    append_closest(err, len, "--", name + strspn(name, "-"), names, k);
}
