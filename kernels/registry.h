/* The table of every variant. Adding a variant: write kernels/<name>.cu, which
 * defines `const variant <name>_variant`, and add one line VARIANT(<name>) to
 * kernels/variants.def. Nothing else changes. */
#ifndef KERNELS_REGISTRY_H
#define KERNELS_REGISTRY_H

#include "kernels/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t registry_count(void);
const variant *registry_get(size_t i);
const variant *registry_find(const char *name_or_alias);

/* The values variant v accepts on its own axis k (AXIS_BIT set); AXIS_NONE
 * (1 only) where it declares fewer than k + 1 axes. */
unsigned variant_axis_set(const variant *v, size_t k);
/* The index of v's own axis called `name`; -1 if it has none by that name. */
int variant_axis_index(const variant *v, const char *name);

/* The variant's own axis checks: 0 and NULL reason when accepted, else -1 and a
 * static reason string. Used by the sweep's plan, the tests and validation. */
int variant_accepts(const variant *v, const kernel_args *a, const char **reason);

#ifdef __cplusplus
}
#endif

#endif
