/* results.csv rows as plain data (results_io/row.h), read through the one
 * column table. */
#include "results_io/row.h"

#include "results_io/axis_names.h"
#include "results_io/label.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void results_row_columns_find(const csv_table *t, results_row_columns *c)
{
    for (int i = 0; i < RC_COUNT; i++) c->at[i] = csv_column_of(t, (results_col)i);
}

/* A number, trailing blanks allowed; "" is NaN. -1 when it is none. */
static int parse_number(const char *s, double *out)
{
    if (!*s) {
        *out = NAN;
        return 0;
    }
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    if (end == s || *end) return -1;
    *out = v;
    return 0;
}

static int parse_ull(const char *s, unsigned long long *out)
{
    double d;
    if (parse_number(s, &d) || !isfinite(d) || d < 0 || d != floor(d)) return -1;
    *out = (unsigned long long)d;
    return 0;
}

/* An integer cell; "" is -1. */
static int parse_long(const char *s, long *out)
{
    unsigned long long v;
    if (!*s) {
        *out = -1;
        return 0;
    }
    if (parse_ull(s, &v)) return -1;
    *out = (long)v;
    return 0;
}

/* Schema 5's axes cell: "items_per_thread=4" or "a=2;b=8"; "" none. */
static int parse_axes_cell(const char *cell, results_row_config *c)
{
    for (size_t k = 0; k < RESULTS_ROW_AXES && *cell; k++) {
        const char *eq = strchr(cell, '=');
        char *end;
        if (!eq || eq == cell || (size_t)(eq - cell) >= RESULTS_AXIS_NAME_LEN) return -1;
        snprintf(c->axis_name[k], RESULTS_AXIS_NAME_LEN, "%.*s", (int)(eq - cell), cell);
        c->axis[k] = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && *end != ';')) return -1;
        cell = *end ? end + 1 : end;
    }
    return *cell ? -1 : 0;
}

/* The own axes from the axes cell, or from an older file's coarse column
 * (the variant's first own axis, named by results_io/axis_names). */
static int read_axes(const char *cell, int named, results_row_config *c)
{
    for (size_t k = 0; k < RESULTS_ROW_AXES; k++) {
        c->axis_name[k][0] = '\0';
        c->axis[k] = 1;
    }
    if (named) return parse_axes_cell(cell, c);
    const results_axis_name *a = results_axis_of_variant(c->variant);
    if (a) snprintf(c->axis_name[0], RESULTS_AXIS_NAME_LEN, "%s", a->axis);
    return parse_long(cell, &c->axis[0]);
}

static int read_config(const csv_table *t, const results_row_columns *c, char **f, results_row *w, const char *path,
                       char *err, size_t errlen)
{
#define FIELD(id) (c->at[RC_##id] >= 0 ? f[c->at[RC_##id]] : "")
    results_row_config *g = &w->cfg;
    *g = (results_row_config){.variant = FIELD(VARIANT), .alias = FIELD(ALIAS), .family = FIELD(FAMILY),
                              .kind = FIELD(KIND), .dtype = FIELD(DTYPE), .op = FIELD(OP),
                              .finish = FIELD(FINISH), .scan_mode = FIELD(SCAN_MODE)};
    if (!*g->variant) {
        snprintf(err, errlen, "%s:%zu: empty variant", path, w->line);
        return -1;
    }
    if (*FIELD(N) && (parse_ull(FIELD(N), &g->n) || g->n == 0)) {
        snprintf(err, errlen, "%s:%zu: column n: not a positive integer: \"%s\"", path, w->line, FIELD(N));
        return -1;
    }
    int named = c->at[RC_AXES] >= 0;
    const char *own = named ? FIELD(AXES) : FIELD(COARSE);
    if (parse_long(FIELD(BLOCK_DIM), &g->block_dim) || read_axes(own, named, g)) {
        snprintf(err, errlen, "%s:%zu: block_dim or %s: not an integer: \"%s\", \"%s\"", path, w->line,
                 named ? "axes" : "coarse", FIELD(BLOCK_DIM), own);
        return -1;
    }
    w->status = FIELD(STATUS);
    w->skip_reason = FIELD(SKIP_REASON);
    w->error = FIELD(ERROR);
    w->device = FIELD(DEVICE);
    w->clock_events = FIELD(CLOCK_EVENTS);
    w->stop_cold = FIELD(STOP_COLD);
    w->stop_hot = FIELD(STOP_HOT);
#undef FIELD
    (void)t;
    return 0;
}

int results_row_read(const csv_table *t, const results_row_columns *c, size_t i, const unsigned char *strict,
                     results_row *w, const char *path, char *err, size_t errlen)
{
    char **f = t->rows[i];
    w->line = t->lines[i];
    w->metrics = NULL;
    w->metric_count = 0;
    if (read_config(t, c, f, w, path, err, errlen)) return -1;
    for (int k = 0; k < RC_COUNT; k++) {
        w->values[k] = NAN;
        if (!results_cols[k].measure || c->at[k] < 0) continue;
        const char *s = f[c->at[k]];
        if (parse_number(s, &w->values[k]) == 0) continue;
        w->values[k] = NAN; /* "n/a", a status word: not a number */
        if (strict && strict[k]) {
            snprintf(err, errlen, "%s:%zu: column %s: not a number: \"%s\"", path, w->line, t->header[c->at[k]], s);
            return -1;
        }
    }
    return 0;
}

int results_row_read_metrics(const csv_table *t, size_t i, size_t first, size_t count, results_row *w)
{
    w->metric_count = 0;
    w->metrics = malloc((count ? count : 1) * sizeof *w->metrics);
    if (!w->metrics) return -1;
    for (size_t k = 0; k < count; k++) {
        w->metrics[k] = NAN;
        if (first + k < t->widths[i] && parse_number(t->rows[i][first + k], &w->metrics[k])) w->metrics[k] = NAN;
    }
    w->metric_count = count;
    return 0;
}

void results_row_free(results_row *w)
{
    free(w->metrics);
    w->metrics = NULL;
    w->metric_count = 0;
}

long results_row_axis(const results_row_config *c, const char *name)
{
    for (size_t k = 0; k < RESULTS_ROW_AXES; k++)
        if (name ? strcmp(c->axis_name[k], name) == 0 : k == 0) return c->axis[k];
    return -1;
}

size_t results_row_axes_text(const results_row_config *c, const char *sep, char *buf, size_t len)
{
    const char *names[RESULTS_ROW_AXES];
    size_t count = 0;
    for (; count < RESULTS_ROW_AXES && c->axis_name[count][0]; count++) names[count] = c->axis_name[count];
    return results_axes_format(names, c->axis, count, sep, buf, len);
}

void results_row_label(const results_row_config *c, char *buf, size_t len)
{
    char axes[128];
    results_row_axes_text(c, " ", axes, sizeof axes);
    results_label_format(buf, len, c->variant, c->dtype, c->op, c->n, c->block_dim, axes,
                         *c->scan_mode ? c->scan_mode : c->finish);
}

double results_noise_as_read(double noise, int screen)
{
    if (!screen) return noise;
    return (isfinite(noise) && noise > RESULTS_SCREEN_NOISE_FLOOR ? noise : RESULTS_SCREEN_NOISE_FLOOR) *
           RESULTS_SCREEN_NOISE_T;
}

double results_row_noise_pct(const results_row *w, int hot)
{
    const char *stop = hot ? w->stop_hot : w->stop_cold;
    double pct = w->values[hot ? RC_NOISE_HOT_PCT : RC_NOISE_COLD_PCT];
    return 100.0 * results_noise_as_read(pct / 100.0, stop && !strcmp(stop, "screen"));
}
