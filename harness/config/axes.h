/* The values of a sweep's axes as text: one parser per kind of value, shared
 * by experiment files (plan.c) and the command line (cli.c), so both accept
 * exactly the same spellings and report a bad value the same way.
 *
 * Every parser returns 0 on success, or -1 and a message in err that quotes
 * the offending item ("'2^41': n must be at most 2^40"); the caller prefixes
 * where it came from ("experiments/x.ini:12: sizes: " or "--sizes: "). */
#ifndef HARNESS_AXES_H
#define HARNESS_AXES_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/variant.h"
#include "results_io/closest.h" /* append_closest: did-you-mean for these names */

#define AXES_MAX_VALUES 512 /* sizes in one experiment */
#define AXES_MAX_GLOBS 64
#define AXES_GLOB_LEN 128

/* Element counts, ascending, without duplicates. */
typedef struct size_list {
    size_t v[AXES_MAX_VALUES];
    size_t count;
} size_list;

/* Name globs (fnmatch patterns); a leading '!' excludes. */
typedef struct glob_list {
    char pat[AXES_MAX_GLOBS][AXES_GLOB_LEN];
    size_t count;
} glob_list;

/* Reductions: which finishes to run. */
typedef enum {
    FINISHES_FIRST = 0, /* each variant's first accepted finish (lowest bit) */
    FINISHES_ALL,       /* every finish the variant accepts */
    FINISHES_LIST,      /* the finishes in the mask */
} finish_policy;

/* Sizes: comma-separated items, each a value or a range.
 *   value: 1048576 | 2^20 | 1K 1M 1G (binary: 2^10, 2^20, 2^30; Ki/Mi/Gi too)
 *   range: FROM..TO[:STEP], STEP = xK (multiply, default x2) or +K (add)
 * Every n must lie in [1, 2^40] (VARIANT_MAX_N); a variant may take less (its max_n). */
int parse_sizes(const char *text, size_list *out, char *err, size_t errlen);

/* One byte count with the sizes' spellings (64G, 2^36), or "none" (0). */
int parse_max_input_bytes(const char *text, size_t *out, char *err, size_t errlen);

/* Powers of two within [1, max] (block dims: max 1024; coarse factors), as a
 * list or ranges like sizes; "all" is every power of two from `all_from` to max.
 * Returned as a size_list (ascending). */
int parse_pow2_list(const char *text, size_t all_from, size_t max, const char *what, size_list *out, char *err,
                    size_t errlen);

/* Block dims: powers of two from 32 (a whole warp) to 1024 (the most threads
 * a block can have), as a list or ranges, or "all". Each way a value can be
 * wrong has its own message: "'96': not a power of two (variants take
 * 32..1024, powers of two)", "'16': not a multiple of 32 ...", "'2048':
 * above 1024 ...". */
#define AXES_MIN_BLOCK_DIM 32
#define AXES_MAX_BLOCK_DIM 1024
int parse_block_dims(const char *text, size_list *out, char *err, size_t errlen);

/* Coarse factors: powers of two from 1 to AXES_MAX_COARSE, the largest any
 * registered variant takes (tests/sweep_bad_input_test checks the registry
 * against it), or "all". */
#define AXES_MAX_COARSE 64
int parse_coarse(const char *text, size_list *out, char *err, size_t errlen);

/* Name sets: comma-separated names, or "all". Masks have bit (1 << enum value). */
int parse_dtypes(const char *text, unsigned *mask, char *err, size_t errlen);
int parse_ops(const char *text, unsigned *mask, char *err, size_t errlen);
int parse_scan_modes(const char *text, unsigned *mask, char *err, size_t errlen);
/* "first", "all", or a list of finish names (none, recursive, two_step, atomic). */
int parse_finishes(const char *text, finish_policy *policy, unsigned *mask, char *err, size_t errlen);

/* Comma-separated fnmatch globs; "!GLOB" excludes. Syntax only: whether a glob
 * matches any variant is the plan's check. */
int parse_globs(const char *text, glob_list *out, char *err, size_t errlen);
/* Does `name` pass the list? (Matches some positive glob, or there is none, and
 * no negative glob.) An empty list passes everything. */
int globs_match(const glob_list *g, const char *name);

/* An integer in [min, max]. */
int parse_count(const char *text, long min, long max, long *out, char *err, size_t errlen);
/* A percentage, "0.5" or "0.5%", in (0, 100]; returned as a fraction (0.005). */
int parse_percent(const char *text, double *fraction, char *err, size_t errlen);
/* A duration: "2", "2s", "500ms", "1m"; returned in seconds, > 0. */
int parse_seconds(const char *text, double *seconds, char *err, size_t errlen);
/* An unsigned 64-bit integer (decimal or 0x hex). */
int parse_u64(const char *text, uint64_t *out, char *err, size_t errlen);

/* Render a size for people and range names: 2^20 when a power of two, else decimal. */
void format_size(size_t n, char *buf, size_t len);
/* Render a size list compactly: "2^10..2^30:x4 (11 values)" when it is a
 * geometric series, else the values. */
void format_size_list(const size_list *l, char *buf, size_t len);

/* Render a mask of name-set values, comma-separated ("f32,f64"), with one of
 * the name functions below (an enum value as int to its name). */
void format_mask(unsigned mask, int count, const char *(*name)(int), char *buf, size_t len);
const char *dtype_name_i(int i);
const char *op_name_i(int i);
const char *scan_mode_name_i(int i);
const char *finish_name_i(int i);

#endif
