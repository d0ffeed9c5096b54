/* The values asked of the variants' own axes, by name (kernels/variant.h,
 * variant_axis): `--axis items_per_thread=4,8` on the command line,
 * `items_per_thread = 4, 8` in [axes] or [axes:GLOB] of an experiment file.
 * Each is parsed once, here, into the experiment; the plan expands the
 * values (plan_axes.c) into configurations, whose kernel_args takes them at the
 * launch boundary.
 *
 * `coarse` (--coarse, the `coarse =` key) is the older name of "the variant's
 * own axis": its list goes to every selected variant's one own axis that no
 * named value covers, and is refused for a variant with two (plan.c). */
#ifndef HARNESS_AXIS_VALUES_H
#define HARNESS_AXIS_VALUES_H

#include <stddef.h>

#include "harness/config/plan.h"

/* Is `name` the name of an own axis some registered variant declares? */
int axis_name_declared(const char *name);

/* Append "; closest: ..." for a mistyped axis name (or, when none is near,
 * " (axes: ...)"): the axis names of the registered variants `keep` keeps
 * (NULL: all of them; the plan passes its selection). */
typedef int (*axis_keep)(const void *ctx, const variant *v);
void axis_name_closest(char *msg, size_t len, const char *name, axis_keep keep, const void *ctx);
/* Those names, ", "-separated. */
void axis_names_text(char *buf, size_t len, axis_keep keep, const void *ctx);

/* Set the values of axis `name` from `list` (powers of two, as --coarse takes
 * them): replaces an earlier value of that name. `origin` says where
 * ("--axis", "experiments/x.ini:7"). 0, or -1 and a message that names the
 * bad axis or value. */
int axis_values_set(experiment *e, const char *name, const char *list, const char *origin, char *err,
                    size_t errlen);

/* Set the values of axis `name` (declared) to `values`, already parsed.
 * 0, or -1 when e already holds EXPERIMENT_MAX_AXIS_VALUES other names. */
int axis_values_put(experiment *e, const char *name, const size_list *values, const char *origin);

/* The same from "NAME=LIST" (the --axis argument). */
int axis_values_assign(experiment *e, const char *text, const char *origin, char *err, size_t errlen);

/* The values asked of axis `name`; NULL when none were. */
const axis_values *axis_values_of(const experiment *e, const char *name);

#endif
