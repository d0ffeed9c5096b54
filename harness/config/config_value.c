/* A configuration as a value: its text, its identity, and the launch
 * boundary, where its named values become the kernel_args a launcher reads. */
#include <stdio.h>
#include <string.h>

#include "harness/config/plan.h"
#include "kernels/registry.h"

void config_kernel_args(const sweep_config *c, kernel_args *a)
{
    memset(a, 0, sizeof *a);
    a->dtype = c->dtype;
    a->op = c->op;
    a->n = c->n;
    a->block_dim = c->block_dim;
    memcpy(a->axis, c->axis, sizeof a->axis);
    a->finish = c->finish;
    a->scan_mode = c->scan_mode;
}

/* The variant's traffic model reads the launch's arguments, so it is asked
 * through the same boundary. */
double config_bytes_moved(const sweep_config *c)
{
    kernel_args a;
    config_kernel_args(c, &a);
    return c->v->bytes_moved(&a);
}

/* The workspace the variant asks for c's launch (0 when it needs none). */
size_t config_workspace_size(const sweep_config *c)
{
    if (!c->v->workspace_size) return 0;
    kernel_args a;
    config_kernel_args(c, &a);
    return c->v->workspace_size(&a);
}

size_t config_axes_text(const sweep_config *c, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (size_t k = 0; k < VARIANT_AXES_MAX && c->v->axes[k].name; k++) {
        int w = snprintf(buf + used, used < len ? len - used : 0, "%s%s=%u", k ? sep : "", c->v->axes[k].name,
                         c->axis[k]);
        used += w > 0 ? (size_t)w : 0;
    }
    return used;
}

void config_label(const sweep_config *c, char *buf, size_t len)
{
    char axes[128];
    config_axes_text(c, " ", axes, sizeof axes);
    snprintf(buf, len, "%s %s %s n=%zu block=%u%s%s %s", c->v->name, dtype_name(c->dtype), op_name(c->op), c->n,
             c->block_dim, axes[0] ? " " : "", axes, c->v->kind == KIND_SCAN ? scan_mode_name(c->scan_mode)
                                                                               : finish_name(c->finish));
}

int config_same_axes(const sweep_config *x, const sweep_config *y)
{
    if (x->v != y->v) return 0;
    if (x->dtype != y->dtype || x->op != y->op || x->n != y->n || x->block_dim != y->block_dim ||
        memcmp(x->axis, y->axis, sizeof x->axis))
        return 0;
    if (x->v->kind == KIND_SCAN) return x->scan_mode == y->scan_mode;
    return x->finish == y->finish;
}
