/* Hardware metric names for the profiler: the study's metric table and default set,
 * metric-list parsing, name suggestions and derived values. Plain C with no
 * CUPTI dependency, so all of it runs (and is tested) without a GPU.
 *
 * Three kinds of names are accepted wherever a metric list is read:
 *   - a study key from the metric table ("warp_efficiency", "l2_hit_rate"),
 *   - a legacy nvprof name ("gld_efficiency"): the first table entry carrying it,
 *   - a CUPTI (Perfworks) metric name ("dram__bytes_read.sum"), checked here
 *     for syntax only; whether the chip knows it is the profiler's business. */
#ifndef CUPTI_METRICS_H
#define CUPTI_METRICS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define METRIC_NAME_MAX 128 /* longest name + 1 */
#define METRIC_PLAN_MAX 64  /* columns in one plan; CUPTI names at most twice that */

typedef enum metric_kind {
    METRIC_RAW,      /* the CUPTI value as is */
    METRIC_PER_LANE, /* CUPTI value / 32: threads per warp instruction as a fraction */
    METRIC_QUOTIENT, /* value of `name` / value of `denominator` (NAN when that is 0) */
} metric_kind;

typedef struct metric_def {
    const char *key;         /* column name: short, snake_case, unique in the table */
    const char *term;        /* the study's term for it */
    const char *name;        /* CUPTI metric (the numerator of a quotient) */
    const char *denominator; /* CUPTI metric, METRIC_QUOTIENT only; NULL otherwise */
    const char *unit;        /* for the CSV header; never contains a comma */
    const char *nvprof;      /* legacy nvprof name, "" where there was none */
    metric_kind kind;
    /* Collected by patching the kernel's SASS (CUPTI's smsp__sass_* metrics):
     * such metrics share a pass of their own, and the patched kernel runs
     * slower (on the H200 a third pass at 2^30 took about 13x the kernel).
     * Not in the default set; asked for by key or with "all". */
    int instrumented;
} metric_def;

/* Every metric the study names, in column order. The default set is the
 * entries that are not instrumented: hardware counters only, 2 passes on
 * sm_90 (3 with the instrumented ones). */
extern const metric_def metric_table[];
extern const size_t metric_table_count;

/* The default set's keys, in table order, into out (at most cap); the count. */
size_t metric_default_keys(const char **out, size_t cap);

/* The table entry with this key, or NULL. */
const metric_def *metric_find_key(const char *key);
/* The first table entry with this legacy nvprof name, or NULL. */
const metric_def *metric_find_nvprof(const char *nvprof);

/* CUPTI metric-name syntax: [A-Za-z0-9_.] only, a unit prefix ("dram__..."),
 * no leading, trailing or doubled '.', shorter than METRIC_NAME_MAX.
 * 0 when well formed; otherwise -1 and the reason in msg. */
int metric_name_check(const char *name, char *msg, size_t msglen);

/* Split a comma-separated list: items trimmed of white space, empty items
 * dropped, repeats dropped (first occurrence kept, order preserved). Writes at
 * most `cap` names. 0 on success (possibly with *count == 0); -1 with a message
 * when an item is too long or there are more than `cap` distinct items. */
int metric_list_split(const char *list, char (*names)[METRIC_NAME_MAX], size_t cap,
                      size_t *count, char *msg, size_t msglen);

/* Levenshtein distance (insert, delete, substitute: 1 each); names longer
 * than 255 characters are compared on their first 255. */
size_t metric_edit_distance(const char *a, const char *b);

/* Up to k candidates closest to `name`, best first: edit distance at most
 * max(3, strlen(name) / 2), or containing `name` (4 characters or more) as a
 * substring. Ties keep candidate order; repeated candidates count once.
 * Returns how many were written to out. */
size_t metric_suggest(const char *name, const char *const *candidates, size_t n,
                      const char **out, size_t k);

/* Append ", closest: a, b, c" (or " (no close match)") to msg, for `name`
 * against the candidates. */
void metric_append_suggestions(char *msg, size_t msglen, const char *name,
                               const char *const *candidates, size_t n);

/* Every name the metric table knows (keys, nvprof names, CUPTI names), each
 * once: the candidates for suggestions when no chip's list is at hand. Returns
 * the count written (at most cap); the strings are static. */
size_t metric_table_candidates(const char **out, size_t cap);

/* A derived value from raw CUPTI values (den is used by METRIC_QUOTIENT only). */
double metric_derive(metric_kind kind, double num, double den);

/* ---- a plan: the columns asked for and the CUPTI metrics that feed them ---- */

typedef struct metric_column {
    char key[METRIC_NAME_MAX]; /* column name: the table key, or the CUPTI name */
    const char *unit;          /* "" for CUPTI names outside the table */
    const metric_def *def;     /* NULL for CUPTI names outside the table */
    metric_kind kind;
    size_t num, den;           /* indices into raw[]; den only for METRIC_QUOTIENT */
} metric_column;

/* Heap-allocated (raw[] points into raw_text[]): never copy one by value. */
typedef struct metric_plan {
    size_t ncolumns;
    metric_column columns[METRIC_PLAN_MAX];
    size_t nraw;
    const char *raw[2 * METRIC_PLAN_MAX]; /* distinct CUPTI names: give these to profiler_open */
    char raw_text[2 * METRIC_PLAN_MAX][METRIC_NAME_MAX];
} metric_plan;

/* A plan for these names (keys, nvprof names or CUPTI names; see the top of
 * this file; "default" stands for the default set's keys, "all" for every
 * table entry's). A CUPTI name that is the `name` of a METRIC_RAW table entry gets
 * that entry's unit. Repeated columns are dropped. NULL with a message (naming
 * the closest known names for an unknown one) on error. */
metric_plan *metric_plan_new(const char *const *names, size_t count, char *msg, size_t msglen);
/* metric_plan_new on a comma-separated list (from --metrics or an experiment file). */
metric_plan *metric_plan_parse(const char *list, char *msg, size_t msglen);
/* The default set (metric_default_keys). */
metric_plan *metric_plan_default(void);
/* Column values from the raw CUPTI values (raw[i] for plan->raw[i]). */
void metric_plan_eval(const metric_plan *plan, const double *raw, double *columns);
void metric_plan_free(metric_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
