/* The fixed columns' names and units (results_io/columns.h), from columns.def. */
#include "results_io/columns.h"

const results_col_info results_cols[RC_COUNT] = {
#define RESULTS_COLUMN(id, name, unit) [RC_##id] = {name, unit},
#include "results_io/columns.def"
#undef RESULTS_COLUMN
};

int csv_column_of(const csv_table *t, results_col c) { return csv_column(t, results_cols[c].name); }
