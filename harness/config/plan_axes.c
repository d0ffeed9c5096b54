/* The plan's axes (harness/config/plan_axes.h): one entry per axis setting. */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/plan_axes.h"

#include <stdlib.h>
#include <string.h>

#include "harness/config/axis_values.h"
#include "harness/config/settings.h"
#include "kernels/registry.h"

#define ASKED(x, e, type) ((const type *)((const char *)(e) + (x)->asked))

/* ---- the asked values ---------------------------------------------------------------- */

static size_t mask_values(unsigned mask, int count, size_t *out)
{
    size_t k = 0;
    for (int i = 0; i < count; i++)
        if (mask & (1u << i)) out[k++] = (size_t)i;
    return k;
}

static size_t wanted_list(const plan_axis *x, const experiment *e, unsigned accepted, size_t *out)
{
    (void)accepted;
    const size_list *l = ASKED(x, e, size_list);
    memcpy(out, l->v, l->count * sizeof *out);
    return l->count;
}

static size_t wanted_mask(const plan_axis *x, const experiment *e, unsigned accepted, size_t *out)
{
    (void)accepted;
    return mask_values(*ASKED(x, e, unsigned), x->count, out);
}

/* first: the variant's first accepted finish; all: every accepted one; else the list's. */
static size_t wanted_finishes(const plan_axis *x, const experiment *e, unsigned accepted, size_t *out)
{
    if (e->finish_policy == FINISHES_FIRST) {
        out[0] = (size_t)__builtin_ctz(accepted);
        return 1;
    }
    return mask_values(e->finish_policy == FINISHES_ALL ? accepted : e->finishes, x->count, out);
}

static int single_bit(unsigned mask) { return mask && !(mask & (mask - 1)); }

const size_list *plan_own_axis_asked(const experiment *e, const variant *v, size_t k)
{
    const axis_values *named = k < VARIANT_AXES_MAX && v->axes[k].name ? axis_values_of(e, v->axes[k].name) : NULL;
    return named ? &named->values : &e->coarse;
}

/* A variant's own axis k: its one value, or the values asked of it by name;
 * else the first takes `coarse` and the second every value it accepts. */
static size_t own_axis_values(const plan_axis *x, const experiment *e, const variant *v, size_t *out)
{
    const size_t k = (size_t)x->own - 1;
    unsigned accepted = variant_axis_set(v, k);
    if (single_bit(accepted)) {
        out[0] = accepted;
        return 1;
    }
    if (k > 0 && !axis_values_of(e, v->axes[k].name)) {
        size_t count = 0;
        for (unsigned bit = 1; bit; bit <<= 1)
            if (accepted & bit) out[count++] = bit;
        return count;
    }
    const size_list *l = plan_own_axis_asked(e, v, k);
    memcpy(out, l->v, l->count * sizeof *out);
    return l->count;
}

size_t plan_axis_values(const plan_axis *x, const experiment *e, const variant *v, size_t *out)
{
    if (x->own) return own_axis_values(x, e, v, out);
    unsigned accepted = x->accepted ? x->accepted(v) : 0;
    if (x->accepted && !accepted && x->absent != PLAN_AXIS_NO_ABSENT) {
        out[0] = x->absent; /* a variant without the axis: its one value */
        return 1;
    }
    if (x->collapse && single_bit(accepted)) {
        out[0] = x->is_list ? accepted : (size_t)__builtin_ctz(accepted); /* bit k is 2^k */
        return 1;
    }
    return x->wanted(x, e, accepted, out);
}

int plan_axis_empty(const plan_axis *x, const experiment *e)
{
    if (x->wanted == wanted_finishes) return 0;
    return x->is_list ? !ASKED(x, e, size_list)->count : !*ASKED(x, e, unsigned);
}

/* ---- the variant's accepted sets, and where a value lands ------------------------------- */

static unsigned acc_dtypes(const variant *v) { return v->dtypes; }
static unsigned acc_ops(const variant *v) { return v->ops; }
static unsigned acc_scan_modes(const variant *v) { return v->scan_modes; }
static unsigned acc_finishes(const variant *v) { return v->finishes; }
static unsigned acc_block_dims(const variant *v) { return v->block_dims; }

static void land_n(sweep_config *a, size_t x) { a->n = x; }
static void land_block_dim(sweep_config *a, size_t x) { a->block_dim = (unsigned)x; }
static void land_own1(sweep_config *a, size_t x) { a->axis[0] = (unsigned)x; }
static void land_own2(sweep_config *a, size_t x) { a->axis[1] = (unsigned)x; }
static void land_dtype(sweep_config *a, size_t x) { a->dtype = (dtype_t)x; }
static void land_op(sweep_config *a, size_t x) { a->op = (op_t)x; }
static void land_scan_mode(sweep_config *a, size_t x) { a->scan_mode = (scan_mode_t)x; }
static void land_finish(sweep_config *a, size_t x) { a->finish = (finish_t)x; }

/* ---- the dry run's text ------------------------------------------------------------------- */

static void print_sizes(const plan_axis *x, const experiment *e, char *buf, size_t len)
{
    format_size_list(ASKED(x, e, size_list), buf, len);
}

/* "64,128,256": block dims and coarse factors read best as plain numbers. */
static void print_plain(const plan_axis *x, const experiment *e, char *buf, size_t len)
{
    const size_list *l = ASKED(x, e, size_list);
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->count && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%zu", i ? "," : "", l->v[i]);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

static void print_mask(const plan_axis *x, const experiment *e, char *buf, size_t len)
{
    format_mask(*ASKED(x, e, unsigned), x->count, x->name, buf, len);
}

static void print_finishes(const plan_axis *x, const experiment *e, char *buf, size_t len)
{
    if (e->finish_policy == FINISHES_FIRST) snprintf(buf, len, "first (each variant's first)");
    else if (e->finish_policy == FINISHES_ALL) snprintf(buf, len, "all");
    else format_mask(e->finishes, x->count, x->name, buf, len);
}

/* ---- the axes ------------------------------------------------------------------------------ */

#define AT(f) offsetof(experiment, f)
#define NO_ABSENT PLAN_AXIS_NO_ABSENT

/* asked, is_list, count, name, accepted, collapse, absent, wanted, land, nest, groups, head, tail, print,
 * per_variant */
const plan_axis plan_axis_dtypes = {AT(dtypes), 0, DTYPE_COUNT, dtype_name_i, acc_dtypes, 0, NO_ABSENT,
                                    wanted_mask, land_dtype, 0, 1, "dtypes: ", "", print_mask};
const plan_axis plan_axis_ops = {AT(ops), 0, OP_COUNT, op_name_i, acc_ops, 0, NO_ABSENT,
                                 wanted_mask, land_op, 1, 1, "   ops: ", "", print_mask};
/* Reductions have no scan mode (inclusive), scans no finish (none). */
const plan_axis plan_axis_scan_modes = {AT(scan_modes), 0, SCAN_MODE_COUNT, scan_mode_name_i, acc_scan_modes, 0,
                                        SCAN_INCLUSIVE, wanted_mask, land_scan_mode, 2, 1, "   scan modes: ", "",
                                        print_mask, 1};
const plan_axis plan_axis_finishes = {AT(finishes), 0, FINISH_COUNT, finish_name_i, acc_finishes, 1, FINISH_NONE,
                                      wanted_finishes, land_finish, 3, 1, "   finishes: ", "\n", print_finishes, 1};
const plan_axis plan_axis_sizes = {AT(sizes), 1, 0, NULL, NULL, 0, NO_ABSENT,
                                   wanted_list, land_n, 4, 1, "sizes:     ", "\n", print_sizes};
/* Block dims and the variants' own axes: a variant with one value takes it;
 * the configurations of a group differ in these and share its validation.
 * `coarse` stands for each variant's first own axis (its values by name win,
 * plan_own_axis_asked); the second has no setting of its own, only names, and
 * unnamed runs every value it accepts (own_axis_values). */
const plan_axis plan_axis_block_dims = {AT(block_dims), 1, 0, NULL, acc_block_dims, 1, NO_ABSENT,
                                       wanted_list, land_block_dim, 5, 0, "block dims: ", "", print_plain, 1};
const plan_axis plan_axis_coarse = {AT(coarse), 1, 0, NULL, NULL, 1, NO_ABSENT, wanted_list, land_own1, 6, 0,
                                    "   coarse: ", " (each variant's own axis, unless set by name)\n", print_plain,
                                    1, 1};
const plan_axis plan_axis_own2 = {AT(coarse), 1, 0, NULL, NULL, 1, NO_ABSENT, wanted_list, land_own2, 7, 0,
                                  "", "", print_plain, 0, 2};

