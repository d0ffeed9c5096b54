/* The values asked of the variants' own axes, by name (harness/axis_values.h). */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/axis_values.h"

#include <stdio.h>
#include <string.h>

#include "harness/config/axes.h"
#include "kernels/registry.h"

int axis_name_declared(const char *name)
{
    for (size_t r = 0; r < registry_count(); r++)
        if (variant_axis_index(registry_get(r), name) >= 0) return 1;
    return 0;
}

/* The distinct axis names of the registered variants `keep` keeps (NULL: all). */
static size_t axis_names(axis_keep keep, const void *ctx, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t r = 0; r < registry_count(); r++) {
        const variant *v = registry_get(r);
        if (keep && !keep(ctx, v)) continue;
        for (size_t k = 0; k < VARIANT_AXES_MAX && v->axes[k].name; k++) {
            size_t i = 0;
            while (i < n && strcmp(out[i], v->axes[k].name)) i++;
            if (i == n && n < max) out[n++] = v->axes[k].name;
        }
    }
    return n;
}

void axis_names_text(char *buf, size_t len, axis_keep keep, const void *ctx)
{
    const char *names[64];
    size_t n = axis_names(keep, ctx, names, 64), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
}

void axis_name_closest(char *msg, size_t len, const char *name, axis_keep keep, const void *ctx)
{
    const char *names[64];
    size_t n = axis_names(keep, ctx, names, 64), before = strlen(msg);
    append_closest(msg, len, "", name, names, n);
    if (strlen(msg) > before || !n) return;
    char all[512]; /* nothing near: list them all, they are few */
    axis_names_text(all, sizeof all, keep, ctx);
    snprintf(msg + before, len - before, " (axes: %s)", all);
}

int axis_values_set(experiment *e, const char *name, const char *list, const char *origin, char *err,
                    size_t errlen)
{
    if (!axis_name_declared(name)) {
        snprintf(err, errlen, "'%s': no variant has an axis of that name", name);
        axis_name_closest(err, errlen, name, NULL, NULL);
        return -1;
    }
    size_list values;
    char msg[512];
    if (parse_coarse(list, &values, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", name, msg);
        return -1;
    }
    if (axis_values_put(e, name, &values, origin)) {
        snprintf(err, errlen, "%s: more than %d named axes", name, EXPERIMENT_MAX_AXIS_VALUES);
        return -1;
    }
    return 0;
}

int axis_values_put(experiment *e, const char *name, const size_list *values, const char *origin)
{
    size_t i = 0;
    while (i < e->n_axis_values && strcmp(e->axis_values[i].name, name)) i++;
    if (i == EXPERIMENT_MAX_AXIS_VALUES) return -1;
    axis_values *a = &e->axis_values[i];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->values = *values;
    snprintf(a->origin, sizeof a->origin, "%s", origin ? origin : "");
    if (i == e->n_axis_values) e->n_axis_values++;
    return 0;
}

int axis_values_assign(experiment *e, const char *text, const char *origin, char *err, size_t errlen)
{
    const char *eq = strchr(text, '=');
    size_t len = eq ? (size_t)(eq - text) : 0;
    if (!eq || !len || len >= AXIS_NAME_LEN) {
        snprintf(err, errlen, "'%s': expected NAME=LIST (items_per_thread=4,8)", text);
        return -1;
    }
    char name[AXIS_NAME_LEN];
    memcpy(name, text, len);
    name[len] = '\0';
    return axis_values_set(e, name, eq + 1, origin, err, errlen);
}

const axis_values *axis_values_of(const experiment *e, const char *name)
{
    for (size_t i = 0; i < e->n_axis_values; i++)
        if (!strcmp(e->axis_values[i].name, name)) return &e->axis_values[i];
    return NULL;
}
