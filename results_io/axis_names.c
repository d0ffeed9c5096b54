/* The variants' own axes by variant name (results_io/axis_names.h). */
#include "results_io/axis_names.h"

#include <stdio.h>
#include <string.h>

#define ITEMS "items_per_thread", "elements per thread"
static const results_axis_name table[] = {
    {"reduce_coarsened", ITEMS},
    {"reduce_one_launch", "vectors_in_flight", "16-byte vectors per thread"},
    {"reduce_bulk_ring", "ring_stage_vectors", "16-byte vectors per thread per stage"},
    {"reduce_cluster", ITEMS},
    {"scan_coarsened", ITEMS},
    {"scan_hierarchical", ITEMS},
    {"scan_decoupled_lookback", ITEMS},
    {"scan_reduce_then_scan", ITEMS},
    {"scan_lookback_vectorized", ITEMS},
    {"scan_cluster_lookback", ITEMS},
    {"scan_lookahead_bulk", ITEMS},
};
#undef ITEMS

size_t results_axis_name_count(void) { return sizeof table / sizeof table[0]; }

const results_axis_name *results_axis_name_get(size_t i) { return i < results_axis_name_count() ? &table[i] : NULL; }

const results_axis_name *results_axis_of_variant(const char *name)
{
    for (size_t i = 0; i < results_axis_name_count(); i++)
        if (!strcmp(table[i].variant, name)) return &table[i];
    return NULL;
}

void results_label_migrate(const char *label, char *out, size_t len)
{
    const char *c = strstr(label, " coarse=");
    if (!c) {
        snprintf(out, len, "%s", label);
        return;
    }
    char variant[64];
    snprintf(variant, sizeof variant, "%.*s", (int)strcspn(label, " "), label);
    const results_axis_name *a = results_axis_of_variant(variant);
    const char *value = c + strlen(" coarse="), *rest = value + strcspn(value, " ");
    if (a) snprintf(out, len, "%.*s %s=%.*s%s", (int)(c - label), label, a->axis, (int)(rest - value), value, rest);
    else snprintf(out, len, "%.*s%s", (int)(c - label), label, rest);
}
