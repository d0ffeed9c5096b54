#include "kernels/registry.h"

#include <string.h>

#define VARIANT(name) extern const variant name##_variant;
#include "kernels/variants.def"
#undef VARIANT

static const variant *const table[] = {
#define VARIANT(name) &name##_variant,
#include "kernels/variants.def"
#undef VARIANT
};

size_t registry_count(void) { return sizeof table / sizeof table[0]; }

const variant *registry_get(size_t i) { return i < registry_count() ? table[i] : NULL; }

/* An alias string lists several names separated by ", "; a name matches one
 * of them up to its first space ("reduce0" matches "reduce0, sum_reduce (seed 003)"). */
static int alias_matches(const char *aliases, const char *name)
{
    size_t len = strlen(name);
    const char *p = aliases;
    while (p && *p) {
        if (strncmp(p, name, len) == 0 && (p[len] == '\0' || p[len] == ',' || p[len] == ' '))
            return 1;
        p = strchr(p, ',');
        if (p)
            while (*p == ',' || *p == ' ') p++;
    }
    return 0;
}

const variant *registry_find(const char *name)
{
    for (size_t i = 0; i < registry_count(); i++)
        if (strcmp(table[i]->name, name) == 0) return table[i];
    for (size_t i = 0; i < registry_count(); i++)
        if (table[i]->alias && alias_matches(table[i]->alias, name)) return table[i];
    return NULL;
}

static int is_pow2(unsigned x) { return x && !(x & (x - 1)); }

unsigned variant_axis_set(const variant *v, size_t k)
{
    return k < VARIANT_AXES_MAX && v->axes[k].name ? v->axes[k].values : AXIS_NONE;
}

int variant_axis_index(const variant *v, const char *name)
{
    for (int k = 0; k < VARIANT_AXES_MAX && v->axes[k].name; k++)
        if (strcmp(v->axes[k].name, name) == 0) return k;
    return -1;
}

int variant_accepts(const variant *v, const kernel_args *a, const char **reason)
{
#define REJECT(msg) do { if (reason) *reason = (msg); return -1; } while (0)
    if (reason) *reason = NULL;
    if ((unsigned)a->dtype >= DTYPE_COUNT || !(v->dtypes & (1u << a->dtype)))
        REJECT(v->limits ? v->limits : "dtype not supported by this variant");
    if ((unsigned)a->op >= OP_COUNT || !(v->ops & (1u << a->op)))
        REJECT(v->limits ? v->limits : "op not supported by this variant");
    if (v->excluded_pairs & PAIR_BIT(a->dtype, a->op))
        REJECT(v->limits ? v->limits : "dtype/op pair not supported by this variant");
    if (a->n == 0) REJECT("n must be at least 1");
    if (a->n > VARIANT_MAX_N) REJECT("n must be at most 2^40");
    if (v->max_n && a->n > v->max_n)
        REJECT("n above this variant's max_n (its limits say why: sweep --list)");
    if (!is_pow2(a->block_dim) || a->block_dim > 1024 || !(v->block_dims & a->block_dim))
        REJECT("block dim not accepted by this variant");
    for (size_t k = 0; k < VARIANT_AXES_MAX; k++)
        if (!is_pow2(a->axis[k]) || a->axis[k] > (1u << 30) || !(variant_axis_set(v, k) & a->axis[k]))
            REJECT(v->axes[k].name ? "axis value not accepted by this variant (its axes: sweep --list)"
                                   : "a variant without this axis takes 1 only");
    if (v->kind == KIND_REDUCE) {
        if ((unsigned)a->finish >= FINISH_COUNT || !(v->finishes & (1u << a->finish)))
            REJECT("finish not accepted by this variant");
    } else {
        if ((unsigned)a->scan_mode >= SCAN_MODE_COUNT || !(v->scan_modes & (1u << a->scan_mode)))
            REJECT("scan mode not accepted by this variant");
    }
    return 0;
#undef REJECT
}
