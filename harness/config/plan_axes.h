/* The plan's axes: one entry per axis setting, named by that setting's entry
 * in the settings table (harness/config/settings.c, the `axis` field). An entry says
 * where the asked values are in `experiment`, which values a variant takes
 * (its accepted set, and what it takes where it lacks the axis), how a value
 * lands in a configuration's named values, where the axis nests in the plan's
 * order, and how the dry run prints the asked values.
 *
 * Plan expansion (plan.c) and the dry run's axes lines (plan_print.c) walk
 * the settings table's axes: adding an axis is one setting entry naming one
 * axis entry here (and the sweep_config field it sets). */
#ifndef HARNESS_PLAN_AXES_H
#define HARNESS_PLAN_AXES_H

#include <stddef.h>

#include "harness/config/plan.h"

typedef struct plan_axis plan_axis;
struct plan_axis {
    size_t asked;                /* offsetof(experiment, ...): a size_list (is_list) or a mask of value indexes */
    int is_list;
    int count;                   /* mask axes: how many values there are */
    const char *(*name)(int);    /* mask axes: a value's name */
    unsigned (*accepted)(const variant *v); /* the variant's accepted set (AXIS_BIT or index bits); NULL: any */
    int collapse;                /* a variant that accepts one value takes only that one */
    size_t absent;               /* the one value of a variant without the axis (accepted set empty) */
    /* The asked values, given the variant's accepted set (plan order); how many. */
    size_t (*wanted)(const plan_axis *x, const experiment *e, unsigned accepted, size_t *out);
    void (*land)(sweep_config *c, size_t value); /* the value into a configuration */
    int nest;                    /* the plan's order: 0 outermost */
    int groups;                  /* part of the validation group (variant, dtype, op, finish/mode, n) */
    /* The dry run: head, the asked values, tail ("\n" ends a line). */
    const char *head, *tail;
    void (*print)(const plan_axis *x, const experiment *e, char *buf, size_t len);
    int per_variant;             /* may be set in [axes:GLOB] sections too */
    int own;                     /* a variant's own axis: its index + 1 (variant_axis); 0: a common axis */
};

extern const plan_axis plan_axis_sizes, plan_axis_block_dims, plan_axis_coarse, plan_axis_dtypes, plan_axis_ops,
    plan_axis_scan_modes, plan_axis_finishes, plan_axis_own2;

#define PLAN_AXES_MAX 8
/* plan_axis.absent of an axis every variant has: an empty accepted set rejects every value. */
#define PLAN_AXIS_NO_ABSENT ((size_t)-1)

/* The settings table's axes in the plan's order (nest); how many. */
size_t plan_axes(const plan_axis *out[PLAN_AXES_MAX]);

/* The values variant v takes on axis x (at most AXES_MAX_VALUES); how many. */
size_t plan_axis_values(const plan_axis *x, const experiment *e, const variant *v, size_t *out);

/* The values asked of v's own axis k: those asked by its name, else the
 * `coarse` list (the alias, or its default). */
const size_list *plan_own_axis_asked(const experiment *e, const variant *v, size_t k);

/* No value asked (an empty list or mask; a policy always asks). */
int plan_axis_empty(const plan_axis *x, const experiment *e);

/* The dry run's axes lines, in the settings table's order, then one line
 * per [axes:GLOB] section. */
void plan_axes_print(FILE *f, const experiment *e);

/* ", "-separated keys of the axes that [axes:GLOB] sections may set. */
void plan_axes_per_variant_keys(char *buf, size_t len);

#endif
