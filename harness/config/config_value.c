/* A configuration as a value: its text, its identity, and the launch
 * boundary, where its named values become the kernel_args a launcher reads. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "harness/config/plan.h"
#include "harness/core/timing.h"
#include "kernels/registry.h"
#include "results_io/label.h"

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
    const char *names[VARIANT_AXES_MAX];
    long values[VARIANT_AXES_MAX];
    size_t count = 0;
    for (; count < VARIANT_AXES_MAX && c->v->axes[count].name; count++) {
        names[count] = c->v->axes[count].name;
        values[count] = (long)c->axis[count];
    }
    return results_axes_format(names, values, count, sep, buf, len);
}

void config_label(const sweep_config *c, char *buf, size_t len)
{
    char axes[128];
    config_axes_text(c, " ", axes, sizeof axes);
    results_label_format(buf, len, c->v->name, dtype_name(c->dtype), op_name(c->op), c->n, (long)c->block_dim, axes,
                         c->v->kind == KIND_SCAN ? scan_mode_name(c->scan_mode) : finish_name(c->finish));
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

int config_same_input(const sweep_config *a, const sweep_config *b)
{
    return a->dtype == b->dtype && a->n == b->n && a->op == b->op && a->v->kind == b->v->kind &&
           (a->v->kind == KIND_REDUCE || a->scan_mode == b->scan_mode);
}

int config_times_hot(const sweep_config *c, unsigned hot_below_l2, size_t l2_bytes)
{
    return !hot_below_l2 || !l2_bytes || (double)c->n * (double)dtype_size(c->dtype) < (double)hot_below_l2 * (double)l2_bytes;
}

int plan_groups(const sweep_plan *p, plan_group **out, size_t *n)
{
    *n = 0;
    *out = malloc((p->count ? p->count : 1) * sizeof **out);
    if (!*out) return -1;
    for (size_t i = 0; i < p->count; i++) {
        if (*n && config_same_input(&p->configs[(*out)[*n - 1].first], &p->configs[i])) (*out)[*n - 1].count++;
        else (*out)[(*n)++] = (plan_group){i, 1};
    }
    return 0;
}

int config_batch_with(const sweep_config *first, const sweep_config *c)
{
    if (first->v->runner == RUNNER_HOST || c->v->runner == RUNNER_HOST) return 0;
    return first->v->kind == c->v->kind && first->dtype == c->dtype && first->n == c->n;
}
