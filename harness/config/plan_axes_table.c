/* The settings table's axes (harness/config/plan_axes.h): the plan's order of
 * them, the dry run's axes lines, the keys [axes:GLOB] sections may set.
 * These walk the settings table, which points at the axes of plan_axes.c:
 * kept apart from that file so that it and settings.c do not call each other. */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/plan_axes.h"

#include <stdlib.h>
#include <string.h>

#include "harness/config/axis_values.h"
#include "harness/config/plan_overrides.h"
#include "harness/config/settings.h"

size_t plan_axes(const plan_axis *out[PLAN_AXES_MAX])
{
    size_t n = 0;
    for (size_t i = 0; i < settings_count() && n < PLAN_AXES_MAX; i++) {
        const plan_axis *x = settings_get(i)->axis;
        if (!x) continue;
        size_t k = n++;
        for (; k && out[k - 1]->nest > x->nest; k--) out[k] = out[k - 1]; /* insertion by nest */
        out[k] = x;
    }
    if (n < PLAN_AXES_MAX) out[n++] = &plan_axis_own2; /* innermost; set by name only */
    return n;
}

/* "axes for reduce_one_launch (experiments/vs-cub.ini:31): block_dims 256,512; coarse 1,2" */
static void print_override(FILE *f, const experiment *e, const axes_override *o, experiment *scratch)
{
    char buf[1024];
    *scratch = *e;
    axes_override_put(scratch, o);
    fprintf(f, "axes for %s (%s:%d):", o->glob, e->source[0] ? e->source : "built in", o->line);
    for (size_t k = 0; k < o->n_keys; k++) {
        if (o->keys[k].setting == OVERRIDE_AXIS_BY_NAME) {
            const override_value *v = &o->keys[k].value;
            buf[0] = '\0';
            for (size_t i = 0; i < v->count && strlen(buf) + 24 < sizeof buf; i++)
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%zu", i ? "," : "", v->list[i]);
            fprintf(f, "%s %s %s", k ? ";" : "", o->keys[k].axis, buf);
            continue;
        }
        const setting *s = settings_get(o->keys[k].setting);
        s->axis->print(s->axis, scratch, buf, sizeof buf);
        fprintf(f, "%s %s %s", k ? ";" : "", s->key, buf);
    }
    fprintf(f, "\n");
}

void plan_axes_print(FILE *f, const experiment *e)
{
    char buf[1024];
    for (size_t i = 0; i < settings_count(); i++) {
        const plan_axis *x = settings_get(i)->axis;
        if (!x) continue;
        x->print(x, e, buf, sizeof buf);
        fprintf(f, "%s%s%s", x->head, buf, x->tail);
    }
    for (size_t i = 0; i < e->n_axis_values; i++) {
        const axis_values *a = &e->axis_values[i];
        buf[0] = '\0';
        for (size_t k = 0; k < a->values.count && strlen(buf) + 24 < sizeof buf; k++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%zu", k ? "," : "", a->values.v[k]);
        fprintf(f, "   %s: %s (%s)\n", a->name, buf, a->origin[0] ? a->origin : "set");
    }
    if (!e->n_overrides) return;
    experiment *scratch = malloc(sizeof *scratch);
    if (!scratch) return;
    for (size_t i = 0; i < e->n_overrides; i++) print_override(f, e, &e->overrides[i], scratch);
    free(scratch);
}

void plan_axes_per_variant_keys(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < settings_count(); i++) {
        const setting *s = settings_get(i);
        if (!s->axis || !s->axis->per_variant) continue;
        if (buf[0]) strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, s->key, len - strlen(buf) - 1);
    }
}

