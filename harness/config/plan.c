/* Plans: an experiment expanded against the registry (harness/config/plan.h):
 * which variants it selects, and one configuration per combination of
 * their axes, in a fixed order. */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/plan.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/reference/cpu_variant.h"
#include "harness/config/plan_axes.h"
#include "harness/config/plan_overrides.h"
#include "harness/config/settings.h"
#include "harness/config/axis_values.h"
#include "kernels/registry.h"

/* ---- selection -------------------------------------------------------------------------- */

/* The names a variant answers to: its name and each alias ("reduce0, reduce_v0,
 * sum_reduce (seed 003)" gives reduce0, reduce_v0, sum_reduce). */
static size_t variant_names(const variant *v, char names[][AXES_GLOB_LEN], size_t max)
{
    size_t k = 0;
    snprintf(names[k++], AXES_GLOB_LEN, "%s", v->name);
    const char *p = v->alias;
    while (p && *p && k < max) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        size_t len = strcspn(p, ", ");
        if (len >= AXES_GLOB_LEN) len = AXES_GLOB_LEN - 1;
        memcpy(names[k], p, len);
        names[k][len] = '\0';
        k++;
        p += len;
        if (*p == ' ') p += strcspn(p, ","); /* skip "(seed 003)" up to the next comma */
    }
    return k;
}

/* names[0] is the variant's name, the rest its aliases. A pattern with
 * wildcards matches names only ("reduce_*" must not pick scan_reduce_then_scan
 * through its alias reduce_then_scan); an exact word matches aliases too
 * ("reduce0"). */
static int glob_hits(const char *pat, char names[][AXES_GLOB_LEN], size_t n)
{
    if (strpbrk(pat, "*?[")) n = n ? 1 : 0;
    for (size_t i = 0; i < n; i++)
        if (fnmatch(pat, names[i], 0) == 0) return 1;
    return 0;
}

static int list_selects(const glob_list *g, char names[][AXES_GLOB_LEN], size_t n)
{
    int positives = 0, hit = 0;
    for (size_t i = 0; i < g->count; i++) {
        const char *pat = g->pat[i];
        if (pat[0] == '!') {
            if (glob_hits(pat + 1, names, n)) return 0;
        } else {
            positives++;
            if (glob_hits(pat, names, n)) hit = 1;
        }
    }
    return positives == 0 || hit;
}

int experiment_selects(const experiment *e, const variant *v)
{
    char names[16][AXES_GLOB_LEN];
    size_t n = variant_names(v, names, 16);
    if (!list_selects(&e->variants, names, n)) return 0;
    char fam[1][AXES_GLOB_LEN];
    snprintf(fam[0], AXES_GLOB_LEN, "%s", v->family);
    return list_selects(&e->families, fam, 1);
}

/* "; closest: reduce_cub" after a pattern that matched nothing: the
 * registry's names and aliases (which = 0) or families (which = 1). */
static void append_closest_variant(char *err, size_t errlen, const char *pat, int which)
{
    size_t cap = registry_count() * 16, n = 0;
    char(*names)[AXES_GLOB_LEN] = malloc(cap * sizeof *names);
    const char **cands = malloc(cap * sizeof *cands);
    if (names && cands) {
        for (size_t r = 0; r < registry_count(); r++) {
            const variant *v = registry_get(r);
            if (which) snprintf(names[n++], AXES_GLOB_LEN, "%s", v->family);
            else n += variant_names(v, names + n, 16);
        }
        for (size_t i = 0; i < n; i++) cands[i] = names[i];
        append_closest(err, errlen, "", pat, cands, n);
    }
    free(names);
    free(cands);
}

/* ---- per-variant axes: [axes:GLOB] sections -------------------------------------------- */

static const axes_override *override_for(const experiment *e, const variant *v)
{
    if (!e->n_overrides) return NULL;
    char names[16][AXES_GLOB_LEN];
    size_t n = variant_names(v, names, 16);
    for (size_t i = 0; i < e->n_overrides; i++) /* the first that matches wins */
        if (glob_hits(e->overrides[i].glob, names, n)) return &e->overrides[i];
    return NULL;
}

const experiment *experiment_for_variant(const experiment *e, const variant *v, experiment *scratch)
{
    const axes_override *o = override_for(e, v);
    if (!o) return e;
    *scratch = *e;
    axes_override_put(scratch, o); /* values parsed when the file was read */
    return scratch;
}

void experiment_drop_override_key(experiment *e, size_t setting, const char *name)
{
    size_t kept = 0;
    for (size_t i = 0; i < e->n_overrides; i++) {
        axes_override *o = &e->overrides[i];
        size_t k2 = 0;
        for (size_t k = 0; k < o->n_keys; k++)
            if (o->keys[k].setting != setting || (name && strcmp(o->keys[k].axis, name)))
                o->keys[k2++] = o->keys[k];
        o->n_keys = k2;
        if (o->n_keys) {
            if (kept != i) e->overrides[kept] = *o;
            kept++;
        }
    }
    e->n_overrides = kept;
}

/* Every [axes:GLOB] must match a variant of the registry: a typo is an error. */
static int check_overrides_match(const experiment *e, char *err, size_t errlen)
{
    for (size_t i = 0; i < e->n_overrides; i++) {
        const axes_override *o = &e->overrides[i];
        int hit = 0;
        for (size_t r = 0; r < registry_count() && !hit; r++) {
            char names[16][AXES_GLOB_LEN];
            size_t n = variant_names(registry_get(r), names, 16);
            hit = glob_hits(o->glob, names, n);
        }
        if (hit) continue;
        snprintf(err, errlen, "%s:%d: [axes:%s]: '%s' matches no variant name or alias (see --list)",
                 e->source[0] ? e->source : "experiment", o->line, o->glob, o->glob);
        if (!strpbrk(o->glob, "*?[")) append_closest_variant(err, errlen, o->glob, 0);
        return -1;
    }
    return 0;
}

/* ---- plans -------------------------------------------------------------------------------- */

static int push_config(sweep_plan *p, size_t *cap, const sweep_config *c)
{
    if (p->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        sweep_config *bigger = realloc(p->configs, ncap * sizeof *bigger);
        if (!bigger) return -1;
        p->configs = bigger;
        *cap = ncap;
    }
    p->configs[p->count++] = *c;
    if (c->skip_reason) p->skipped++;
    return 0;
}

/* A variant named exactly (not through a wildcard) with a dtype and op that
 * were both narrowed (neither axis is every value) is asked for that pair on
 * purpose: if it cannot do it, that is a usage error naming the pair and the
 * variant's limits. Through a glob, or with `all` on an axis, such
 * configurations are skipped rows with the same reason instead. */
static int check_named_pairs(const experiment *e, char *err, size_t errlen)
{
    const unsigned all_dtypes = (1u << DTYPE_COUNT) - 1, all_ops = (1u << OP_COUNT) - 1;
    if ((e->dtypes & all_dtypes) == all_dtypes || (e->ops & all_ops) == all_ops) return 0;
    for (size_t i = 0; i < e->variants.count; i++) {
        const char *pat = e->variants.pat[i];
        if (pat[0] == '!' || strpbrk(pat, "*?[")) continue;
        for (size_t r = 0; r < registry_count(); r++) {
            const variant *v = registry_get(r);
            char names[16][AXES_GLOB_LEN];
            size_t n = variant_names(v, names, 16);
            if (!glob_hits(pat, names, n) || !experiment_selects(e, v)) continue;
            for (int d = 0; d < DTYPE_COUNT; d++) {
                if (!(e->dtypes & (1u << d))) continue;
                for (int o = 0; o < OP_COUNT; o++) {
                    if (!(e->ops & (1u << o))) continue;
                    if ((v->dtypes & (1u << d)) && (v->ops & (1u << o)) && !(v->excluded_pairs & PAIR_BIT(d, o)))
                        continue;
                    const char *origin = e->variants_origin;
                    char named[2 * AXES_GLOB_LEN + 8];
                    if (strcmp(pat, v->name)) snprintf(named, sizeof named, "%s (%s)", pat, v->name);
                    else snprintf(named, sizeof named, "%s", v->name);
                    snprintf(err, errlen, "%s%s%s: %s does not do %s %s: %s", origin[0] == '-' ? "" : origin,
                             origin[0] && origin[0] != '-' ? ": " : "", origin[0] == '-' ? origin : "variants",
                             named, dtype_name((dtype_t)d), op_name((op_t)o),
                             v->limits ? v->limits : "not among its dtypes and ops (see --list)");
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* Every glob must match something: a typo is an error, not an empty plan. */
static int check_globs_match(const experiment *e, char *err, size_t errlen)
{
    for (int which = 0; which < 2; which++) {
        const glob_list *g = which ? &e->families : &e->variants;
        for (size_t i = 0; i < g->count; i++) {
            const char *pat = g->pat[i][0] == '!' ? g->pat[i] + 1 : g->pat[i];
            int hit = 0;
            for (size_t r = 0; r < registry_count() && !hit; r++) {
                const variant *v = registry_get(r);
                char names[16][AXES_GLOB_LEN];
                size_t n = 1;
                if (which) snprintf(names[0], AXES_GLOB_LEN, "%s", v->family);
                else n = variant_names(v, names, 16);
                hit = glob_hits(pat, names, n);
            }
            if (hit) continue;
            const char *origin = which ? e->families_origin : e->variants_origin;
            const char *what = which ? "variant family" : "variant name or alias";
            if (origin[0] == '-') /* the command line names itself */
                snprintf(err, errlen, "%s: '%s' matches no %s (see --list)", origin, pat, what);
            else
                snprintf(err, errlen, "%s%s%s: '%s' matches no %s (see --list)", origin, origin[0] ? ": " : "",
                         which ? "families" : "variants", pat, what);
            if (!strpbrk(pat, "*?[")) append_closest_variant(err, errlen, pat, which); /* a typo, not a glob */
            return -1;
        }
    }
    return 0;
}

/* ---- expansion: the settings table's axes (harness/config/plan_axes.h) --------------------------- */

/* One variant's values of every axis, in the plan's order, and the position
 * of the configuration being built: an odometer over them. */
typedef struct axis_walk {
    const plan_axis *axis[PLAN_AXES_MAX];
    size_t n;
    size_t values[PLAN_AXES_MAX][AXES_MAX_VALUES];
    size_t count[PLAN_AXES_MAX], at[PLAN_AXES_MAX];
} axis_walk;

/* The configuration at the walk's position; skipped with the variant's reason if it rejects it. */
static sweep_config config_at(const variant *v, const axis_walk *w)
{
    sweep_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.v = v;
    for (size_t k = 0; k < w->n; k++) w->axis[k]->land(&cfg, w->values[k][w->at[k]]);
    const char *why = NULL;
    kernel_args a;
    config_kernel_args(&cfg, &a);
    if (variant_accepts(v, &a, &why) != 0) cfg.skip_reason = why ? why : "not accepted by this variant";
    return cfg;
}

/* Step to the next position (0: there is none); *new_group when an axis of
 * the validation group took another value. */
static int walk_next(axis_walk *w, int *new_group)
{
    for (size_t k = w->n; k-- > 0;) {
        if (++w->at[k] < w->count[k]) {
            *new_group = 0;
            for (size_t j = k; j < w->n; j++) *new_group |= w->axis[j]->groups && (j == k || w->count[j] > 1);
            return 1;
        }
        w->at[k] = 0;
    }
    return 0;
}

/* Every configuration of one variant, in plan order (e: as the variant sees
 * it, its [axes:GLOB] applied). Above validate_all_to
 * only the first runnable configuration of a validation group (the same
 * values of every axis but block dims and coarse factors) validates. */
static int expand_walk(const experiment *e, const variant *v, sweep_plan *p, size_t *cap)
{
    axis_walk w;
    w.n = plan_axes(w.axis);
    for (size_t k = 0; k < w.n; k++) {
        w.count[k] = plan_axis_values(w.axis[k], e, v, w.values[k]);
        w.at[k] = 0;
        if (!w.count[k]) return 0;
    }
    int group_has_validator = 0, new_group = 0;
    do {
        if (new_group) group_has_validator = 0;
        sweep_config cfg = config_at(v, &w);
        if (!cfg.skip_reason && e->max_input_bytes && cfg.n * dtype_size(cfg.dtype) > e->max_input_bytes)
            cfg.skip_reason = "input larger than the experiment's max_input_bytes";
        if (!cfg.skip_reason) {
            /* From 2^31 every configuration validates itself: a 32-bit index
             * overflows at block dims and coarse factors of its own. */
            cfg.validate = !e->validate_all_to || cfg.n <= e->validate_all_to || !group_has_validator ||
                           cfg.n > VALIDATE_EACH_ABOVE;
            group_has_validator = 1;
        }
        if (push_config(p, cap, &cfg)) return -1;
    } while (walk_next(&w, &new_group));
    return 0;
}

/* The same, e as the variant sees it. */
static int expand_variant(const experiment *e, const variant *v, sweep_plan *p, size_t *cap)
{
    experiment *scratch = NULL;
    if (e->n_overrides) {
        if (!(scratch = malloc(sizeof *scratch))) return -1;
        e = experiment_for_variant(e, v, scratch);
    }
    int rc = expand_walk(e, v, p, cap);
    free(scratch);
    return rc;
}

/* Does the plan's first `planned` configurations run a reduction at c's dtype, op and n? */
static int plan_reduces_at(const sweep_plan *p, size_t planned, const sweep_config *c)
{
    for (size_t k = 0; k < planned; k++) {
        const sweep_config *x = &p->configs[k];
        if (x->v->kind == KIND_REDUCE && !x->skip_reason && x->dtype == c->dtype && x->op == c->op &&
            x->n == c->n)
            return 1;
    }
    return 0;
}

/* One cpu_serial row per dtype, op and n for which the plan has a reduction:
 * the CPU variant expanded over the same axes (it has one block dim, coarse
 * factor and finish), kept where a reduction runs. */
static int add_cpu_baseline(const experiment *e, sweep_plan *p, size_t *cap)
{
    sweep_plan cpu;
    size_t cpu_cap = 0, planned = p->count;
    memset(&cpu, 0, sizeof cpu);
    int rc = expand_variant(e, &cpu_serial_variant, &cpu, &cpu_cap), added = 0;
    for (size_t i = 0; i < cpu.count && !rc; i++) {
        if (!plan_reduces_at(p, planned, &cpu.configs[i])) continue;
        rc = push_config(p, cap, &cpu.configs[i]);
        added = 1;
    }
    if (added) p->variants++;
    plan_free(&cpu);
    return rc;
}

/* ---- settings a variant cannot honour ------------------------------------------------------- */

static int one_value(unsigned mask) { return mask && !(mask & (mask - 1)); }

static int list_has(const size_list *l, size_t x)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->v[i] == x) return 1;
    return 0;
}

static void list_text(const size_list *l, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < l->count && strlen(buf) + 16 < len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%zu", i ? "," : "", l->v[i]);
}

/* An axis on which variant v has one value, which ev (e as v sees it) did
 * not ask for: v runs its own value instead. Fills the axis's words, what
 * was asked, what runs; 0 when the axis does not say so. */
typedef struct unheeded {
    const char *what, *key; /* "block dim", "block_dims" */
    char asked[96], runs[32];
} unheeded;

static int axis_unheeded(const experiment *ev, const variant *v, int axis, unheeded *u)
{
    if (axis == 0 && one_value(v->block_dims) && !list_has(&ev->block_dims, v->block_dims)) {
        *u = (unheeded){"block dim", "block_dims", "", ""};
        list_text(&ev->block_dims, u->asked, sizeof u->asked);
        snprintf(u->runs, sizeof u->runs, "%u", v->block_dims);
        return 1;
    }
    const size_list *own = plan_own_axis_asked(ev, v, 0);
    if (axis == 1 && one_value(variant_axis_set(v, 0)) && !list_has(own, variant_axis_set(v, 0))) {
        *u = (unheeded){"coarse factor", "coarse", "", ""}; /* a variant without an own axis: 1 */
        list_text(own, u->asked, sizeof u->asked);
        snprintf(u->runs, sizeof u->runs, "%u", variant_axis_set(v, 0));
        return 1;
    }
    if (axis == 2 && v->kind == KIND_REDUCE && one_value(v->finishes) && ev->finish_policy == FINISHES_LIST &&
        !(ev->finishes & v->finishes)) {
        *u = (unheeded){"finish", "finishes", "", ""};
        format_mask(ev->finishes, FINISH_COUNT, finish_name_i, u->asked, sizeof u->asked);
        snprintf(u->runs, sizeof u->runs, "%s", finish_name((finish_t)__builtin_ctz(v->finishes)));
        return 1;
    }
    return 0;
}

/* The variants selected that have the axis: every one, or the reductions for finishes. */
static size_t selected_with_axis(const experiment *e, const char *key)
{
    size_t n = 0;
    for (size_t r = 0; r < registry_count(); r++) {
        const variant *v = registry_get(r);
        n += experiment_selects(e, v) && (strcmp(key, "finishes") || v->kind == KIND_REDUCE);
    }
    return n;
}

/* Was the axis's value set for v alone: an [axes:GLOB] section that matches
 * v only sets it (where: "file:line: [axes:GLOB] key"), or v is the only
 * variant selected that has the axis (where: its --flag)? 0 when not. */
static int asked_of_variant_alone(const experiment *e, const variant *v, const char *key, char *where, size_t len)
{
    const axes_override *o = override_for(e, v);
    int sets = 0;
    for (size_t k = 0; o && k < o->n_keys; k++) /* a named own axis is not a setting */
        sets |= o->keys[k].setting != OVERRIDE_AXIS_BY_NAME && !strcmp(settings_get(o->keys[k].setting)->key, key);
    if (sets) {
        size_t matches = 0;
        for (size_t r = 0; r < registry_count(); r++) {
            char names[16][AXES_GLOB_LEN];
            matches += glob_hits(o->glob, names, variant_names(registry_get(r), names, 16));
        }
        snprintf(where, len, "%s:%d: [axes:%s] %s", e->source[0] ? e->source : "experiment", o->line, o->glob, key);
        return matches == 1 || selected_with_axis(e, key) == 1;
    }
    const setting *st = settings_by_key("axes", key);
    snprintf(where, len, "%s", st && st->flag ? st->flag : key);
    return selected_with_axis(e, key) == 1;
}

/* Walk the selected variants' unheeded axes: refuse (-1 and a message) the
 * first asked of that variant alone; with notes, list the others there
 * ("reduce_cub block dim 256 (asked 512)"). */
static int check_unheeded(const experiment *e, char *notes, size_t nlen, char *err, size_t errlen)
{
    experiment *scratch = malloc(sizeof *scratch);
    if (!scratch) return 0;
    if (notes) notes[0] = '\0';
    int rc = 0;
    for (size_t r = 0; r < registry_count() && !rc; r++) {
        const variant *v = registry_get(r);
        if (!experiment_selects(e, v)) continue;
        const experiment *ev = experiment_for_variant(e, v, scratch);
        for (int axis = 0; axis < 3 && !rc; axis++) {
            unheeded u;
            if (!axis_unheeded(ev, v, axis, &u)) continue;
            char where[sizeof e->source + AXES_GLOB_LEN + 512]; /* file:line: [axes:glob] key */
            if (asked_of_variant_alone(e, v, u.key, where, sizeof where)) {
                snprintf(err, errlen, "%s: %s runs at %s %s only, not %s (leave it out for this variant, or ask for %s)",
                         where, v->name, u.what, u.runs, u.asked, u.runs);
                rc = -1;
            } else if (notes && strlen(notes) + 128 < nlen) {
                snprintf(notes + strlen(notes), nlen - strlen(notes), "%s%s %s %s (asked %s)", notes[0] ? "; " : "",
                         v->name, u.what, u.runs, u.asked);
            }
        }
    }
    free(scratch);
    return rc;
}

void plan_unheeded_notes(const experiment *e, char *buf, size_t len)
{
    char err[512];
    check_unheeded(e, buf, len, err, sizeof err);
}

/* ---- the own axes, by name ------------------------------------------------------------------- */

static int selects(const void *e, const variant *v) { return experiment_selects((const experiment *)e, v); }

/* Every axis asked by name belongs to a selected variant. (`coarse` is each
 * variant's first own axis; a second one takes its names only.) */
static int check_axis_names(const experiment *e, char *err, size_t errlen)
{
    for (size_t i = 0; i < e->n_axis_values; i++) {
        const axis_values *a = &e->axis_values[i];
        int hit = 0;
        for (size_t r = 0; r < registry_count() && !hit; r++)
            hit = experiment_selects(e, registry_get(r)) && variant_axis_index(registry_get(r), a->name) >= 0;
        if (hit) continue;
        snprintf(err, errlen, "%s: '%s': no selected variant has this axis", a->origin[0] ? a->origin : "axes",
                 a->name);
        axis_name_closest(err, errlen, a->name, selects, e);
        return -1;
    }
    return 0;
}

/* A plan that runs nothing is bad usage: say why (the skip reasons, at most two). */
static int check_runs_something(const sweep_plan *p, char *err, size_t errlen)
{
    if (p->count > p->skipped) return 0;
    if (!p->count) {
        snprintf(err, errlen, "the plan is empty: the selected variants have no configuration on these axes");
        return -1;
    }
    const sweep_config *first = &p->configs[0], *other = NULL;
    for (size_t i = 1; i < p->count && !other; i++)
        if (strcmp(p->configs[i].skip_reason, first->skip_reason)) other = &p->configs[i];
    snprintf(err, errlen, "the plan runs nothing: all %zu configurations are skipped (%s: %s%s%s%s%s)", p->count,
             first->v->name, first->skip_reason, other ? "; " : "", other ? other->v->name : "", other ? ": " : "",
             other ? other->skip_reason : "");
    return -1;
}

static int plan_error(sweep_plan *p, const char *msg, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", msg);
    plan_free(p);
    return -1;
}

/* ---- order = size --------------------------------------------------------------------------- */

/* The input a configuration reads and the reference it is checked against:
 * dtype, op, kind, scan mode, n (outermost first). Ties keep plan order. */
static int by_input(const sweep_config *x, const sweep_config *y)
{
#define BY(f)                                                                                                          \
    if (x->f != y->f) return x->f < y->f ? -1 : 1
    BY(dtype);
    BY(op);
    BY(v->kind);
    if (x->v->kind == KIND_SCAN) BY(scan_mode);
    BY(n);
#undef BY
    return 0;
}

/* A stable merge sort by input: the plan as expanded is already in each
 * variant's order, and within an input that order (variants in registry
 * order, each one's configurations as its walk made them, so a validation
 * group's first configuration stays first) must not move. -1: no memory. */
static int sort_by_input(sweep_plan *p)
{
    size_t n = p->count;
    sweep_config *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) return -1;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = by_input(&p->configs[j], &p->configs[i]) < 0 ? p->configs[j++] : p->configs[i++];
            while (i < mid) tmp[k++] = p->configs[i++];
            while (j < hi) tmp[k++] = p->configs[j++];
        }
        memcpy(p->configs, tmp, n * sizeof *tmp);
    }
    free(tmp);
    return 0;
}

/* Each run configuration's peers: its variant's run configurations at its input. */
typedef struct peer_key {
    uintptr_t v;
    int dtype, op, scan;
    size_t n, idx;
} peer_key;

static int peer_cmp(const void *pa, const void *pb)
{
    const peer_key *a = pa, *b = pb;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (a->scan != b->scan) return a->scan < b->scan ? -1 : 1;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    return 0;
}

static int count_peers(sweep_plan *p)
{
    peer_key *k = malloc((p->count ? p->count : 1) * sizeof *k);
    if (!k) return -1;
    size_t m = 0;
    for (size_t i = 0; i < p->count; i++) {
        sweep_config *c = &p->configs[i];
        c->peers = 0;
        if (c->skip_reason) continue;
        k[m++] = (peer_key){(uintptr_t)c->v, (int)c->dtype, (int)c->op,
                            c->v->kind == KIND_SCAN ? (int)c->scan_mode : -1, c->n, i};
    }
    qsort(k, m, sizeof *k, peer_cmp);
    for (size_t lo = 0, hi; lo < m; lo = hi) {
        for (hi = lo + 1; hi < m && !peer_cmp(&k[lo], &k[hi]); hi++) continue;
        for (size_t j = lo; j < hi; j++) p->configs[k[j].idx].peers = (unsigned)(hi - lo);
    }
    free(k);
    return 0;
}

int plan_build(const experiment *e, sweep_plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (check_globs_match(e, err, errlen) || check_overrides_match(e, err, errlen)) return -1;
    const plan_axis *axes[PLAN_AXES_MAX];
    for (size_t k = 0, n = plan_axes(axes); k < n; k++)
        if (plan_axis_empty(axes[k], e)) {
            snprintf(err, errlen, "an axis has no values");
            return -1;
        }
    if (check_named_pairs(e, err, errlen) || check_axis_names(e, err, errlen) ||
        check_unheeded(e, NULL, 0, err, errlen))
        return -1;
    size_t cap = 0;
    for (size_t r = 0; r < registry_count(); r++) {
        const variant *v = registry_get(r);
        if (!experiment_selects(e, v)) continue;
        p->variants++;
        if (expand_variant(e, v, p, &cap)) return plan_error(p, "out of memory expanding the plan", err, errlen);
    }
    if (!p->variants) return plan_error(p, "no variant is selected by both variants and families", err, errlen);
    if (e->cpu_baseline && add_cpu_baseline(e, p, &cap))
        return plan_error(p, "out of memory expanding the plan", err, errlen);
    if (check_runs_something(p, err, errlen)) {
        plan_free(p);
        return -1;
    }
    if (e->order == PLAN_ORDER_SIZE && sort_by_input(p))
        return plan_error(p, "out of memory ordering the plan", err, errlen);
    if (count_peers(p)) return plan_error(p, "out of memory counting the plan's peers", err, errlen);
    p->profile_passes = estimate_profile_passes(e);
    p->profile_patched = estimate_profile_patched(e);
    p->profile_batch = e->profile_batch;
    p->model_memory_bytes = PLAN_MODEL_MEMORY_BYTES;
    return 0;
}

void plan_free(sweep_plan *p)
{
    free(p->configs);
    memset(p, 0, sizeof *p);
}
