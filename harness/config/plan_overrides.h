/* The values of [axes:GLOB] keys (harness/config/plan.h, axes_override):
 * taken once from the experiment a key's text was parsed into, when the
 * file is read; put over a copy of the experiment for a variant the section
 * matches (the plan) or for the dry run's line of the section. */
#ifndef HARNESS_PLAN_OVERRIDES_H
#define HARNESS_PLAN_OVERRIDES_H

#include <stddef.h>

#include "harness/config/plan.h"

/* The value that axis setting `index` (OVERRIDE_AXIS_BY_NAME: the own
 * axis `name`) holds in e, into *out. 0, or -1 and a message when a list
 * has more than OVERRIDE_LIST_MAX values. */
int override_value_take(const experiment *e, size_t index, const char *name, override_value *out, char *err,
                        size_t errlen);

/* Put the value back into e's field of that setting (or named axis). */
void override_value_put(experiment *e, size_t index, const char *name, const override_value *v);

/* Every key of o put into e. */
void axes_override_put(experiment *e, const axes_override *o);

#endif
