/* The own axis of each variant that has one, by variant name, for readers
 * that have no compiled variant (the renderer, old results): its name and
 * unit as the variant's kernel file declares them (kernels/variant.h,
 * variant_axis). Results of schema 4 and before call this value `coarse`
 * whatever it counts; this table says what it was. tests/axis_names_test
 * checks it against the registry, so the two cannot drift apart. */
#ifndef RESULTS_IO_AXIS_NAMES_H
#define RESULTS_IO_AXIS_NAMES_H

#include <stddef.h>

typedef struct results_axis_name {
    const char *variant; /* reduce_coarsened */
    const char *axis;    /* items_per_thread */
    const char *unit;    /* elements per thread */
} results_axis_name;

/* The entry of variant `name`; NULL when it has no own axis (or is unknown). */
const results_axis_name *results_axis_of_variant(const char *name);

/* The table, for checks: how many entries; the i-th. */
size_t results_axis_name_count(void);
const results_axis_name *results_axis_name_get(size_t i);

/* A configuration label of results.csv schema 4 and before ("reduce_cub f32
 * sum n=1024 block=256 coarse=1 none") in today's form: coarse= becomes the
 * variant's first own axis by name, or goes where the variant has none
 * ("reduce_cub f32 sum n=1024 block=256 none"). A label without " coarse="
 * is copied as it is. Truncates to len as snprintf. */
void results_label_migrate(const char *label, char *out, size_t len);

#endif
