/* [axes:GLOB] key values (harness/config/plan_overrides.h). A key's value
 * lives where its plan axis keeps the asked values (plan_axes.h, `asked`):
 * a size_list or a mask; a setting whose own field is not that (finishes:
 * the policy beside the mask) keeps it there too. */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/plan_overrides.h"

#include <string.h>

#include "harness/config/axis_values.h"
#include "harness/config/plan_axes.h"
#include "harness/config/settings.h"

#define AT(e, off, type) ((type *)((char *)(e) + (off)))

static int list_take(const size_list *l, override_value *out, char *err, size_t errlen)
{
    if (l->count > OVERRIDE_LIST_MAX) {
        snprintf(err, errlen, "more than %d values", OVERRIDE_LIST_MAX);
        return -1;
    }
    memcpy(out->list, l->v, l->count * sizeof *l->v);
    out->count = l->count;
    return 0;
}

static void list_put(size_list *l, const override_value *v)
{
    memcpy(l->v, v->list, v->count * sizeof *v->list);
    l->count = v->count;
}

int override_value_take(const experiment *e, size_t index, const char *name, override_value *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (index == OVERRIDE_AXIS_BY_NAME) {
        const axis_values *a = axis_values_of(e, name);
        return a ? list_take(&a->values, out, err, errlen) : 0;
    }
    const setting *s = settings_get(index);
    const plan_axis *x = s->axis;
    if (x->is_list) return list_take(AT(e, x->asked, const size_list), out, err, errlen);
    out->mask = *AT(e, x->asked, const unsigned);
    if (s->field != x->asked) out->policy = *AT(e, s->field, const finish_policy);
    return 0;
}

void override_value_put(experiment *e, size_t index, const char *name, const override_value *v)
{
    if (index == OVERRIDE_AXIS_BY_NAME) {
        size_list l;
        list_put(&l, v);
        axis_values_put(e, name, &l, NULL);
        return;
    }
    const setting *s = settings_get(index);
    const plan_axis *x = s->axis;
    if (x->is_list) {
        list_put(AT(e, x->asked, size_list), v);
        return;
    }
    *AT(e, x->asked, unsigned) = v->mask;
    if (s->field != x->asked) *AT(e, s->field, finish_policy) = v->policy;
}

void axes_override_put(experiment *e, const axes_override *o)
{
    for (size_t k = 0; k < o->n_keys; k++) override_value_put(e, o->keys[k].setting, o->keys[k].axis, &o->keys[k].value);
}
