#include "results_io/label.h"

#include <stdio.h>

size_t results_axes_format(const char *const names[], const long values[], size_t count, const char *sep, char *buf,
                           size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (size_t k = 0; k < count; k++) {
        int w = snprintf(buf + used, used < len ? len - used : 0, "%s%s=%ld", k ? sep : "", names[k], values[k]);
        used += w > 0 ? (size_t)w : 0;
    }
    return used;
}

void results_label_format(char *buf, size_t len, const char *variant, const char *dtype, const char *op,
                          unsigned long long n, long block_dim, const char *axes, const char *mode)
{
    snprintf(buf, len, "%s %s %s n=%llu block=%ld%s%s %s", variant, dtype, op, n, block_dim, axes[0] ? " " : "", axes,
             mode);
}
