/* The columns' names, units and tags (results_io/columns.h), from columns.def. */
#include "results_io/columns.h"

#include <string.h>

#define STORE_IS_VALUE_CUSTOM 0
#define STORE_IS_VALUE_COLD 0
#define STORE_IS_VALUE_HOT 0
#define STORE_IS_VALUE_VALUE 1

const results_col_info results_cols[RC_COUNT] = {
#define RESULTS_COLUMN(id, name, unit) [RC_##id] = {name, unit, "", RESULTS_SCHEMA_OLDEST, 0, 0, 0},
#define RESULTS_COLUMN_SCHEMAS(id, name, unit, added, dropped) [RC_##id] = {name, unit, "", added, dropped, 0, 0},
#define RESULTS_MEASURE(id, name, unit, schema, store, field, description)                                  \
    [RC_##id] = {name, unit, description, schema, 0, 1, STORE_IS_VALUE_##store},
#include "results_io/columns.def"
#undef RESULTS_MEASURE
#undef RESULTS_COLUMN_SCHEMAS
#undef RESULTS_COLUMN
};

int csv_column_of(const csv_table *t, results_col c) { return csv_column(t, results_cols[c].name); }

int results_col_named(const char *name)
{
    for (int i = 0; i < RC_COUNT; i++)
        if (!strcmp(results_cols[i].name, name)) return i;
    return -1;
}
