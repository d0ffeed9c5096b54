#include "harness/config/axes.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Copy the next comma-separated item of *p into buf, trimmed; advance *p.
 * Returns 0 at the end of the text, 1 with an item, -1 if the item is too long. */
static int next_item(const char **p, char *buf, size_t len)
{
    const char *s = *p;
    if (!s) return 0;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '\0') {
        *p = NULL;
        return 0;
    }
    const char *end = strchr(s, ',');
    const char *stop = end ? end : s + strlen(s);
    while (stop > s && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\n' || stop[-1] == '\r')) stop--;
    size_t n = (size_t)(stop - s);
    *p = end ? end + 1 : NULL;
    if (n + 1 > len) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return 1;
}

/* Items must be non-empty: "1,,2" and a trailing comma are mistakes. */
static int check_empty_items(const char *text, char *err, size_t errlen)
{
    const char *s = text;
    int seen_item = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        const char *end = strchr(s, ',');
        const char *stop = end ? end : s + strlen(s);
        int blank = 1;
        for (const char *q = s; q < stop; q++)
            if (!isspace((unsigned char)*q)) blank = 0;
        if (blank && (end || seen_item)) return fail(err, errlen, "'%s': empty item in the list", text);
        if (!blank) seen_item = 1;
        if (!end) break;
        s = end + 1;
    }
    if (!seen_item) return fail(err, errlen, "empty list");
    return 0;
}

/* ---- sizes ------------------------------------------------------------------ */

/* One value: digits [K|Ki|M|Mi|G|Gi] or 2^k. No sign, no spaces inside. */
static int parse_value(const char *s, unsigned long long *out, char *err, size_t errlen)
{
    if (s[0] == '-' && isdigit((unsigned char)s[1])) return fail(err, errlen, "'%s' is negative", s);
    if (!isdigit((unsigned char)s[0])) return fail(err, errlen, "'%s' is not a number", s);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE) return fail(err, errlen, "'%s' is too large", s);
    if (end[0] == '^') {
        if (v != 2) return fail(err, errlen, "'%s': only powers of two are written with ^ (2^k)", s);
        const char *k = end + 1;
        if (!isdigit((unsigned char)k[0])) return fail(err, errlen, "'%s': expected an exponent after 2^", s);
        unsigned long e = strtoul(k, &end, 10);
        if (*end) return fail(err, errlen, "'%s': unexpected '%s' after the exponent", s, end);
        if (e > 62) return fail(err, errlen, "'%s' is too large", s);
        *out = 1ull << e;
        return 0;
    }
    unsigned long long mul = 1;
    if (*end) {
        if (!strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "Ki")) mul = 1ull << 10;
        else if (!strcmp(end, "M") || !strcmp(end, "Mi")) mul = 1ull << 20;
        else if (!strcmp(end, "G") || !strcmp(end, "Gi")) mul = 1ull << 30;
        else return fail(err, errlen, "'%s': unknown suffix '%s' (use K, M or G, or 2^k)", s, end);
    }
    if (v > (~0ull) / mul) return fail(err, errlen, "'%s' is too large", s);
    *out = v * mul;
    return 0;
}

static int add_value(size_t *vals, size_t *count, size_t cap, unsigned long long v, const char *item, char *err,
                     size_t errlen)
{
    for (size_t i = 0; i < *count; i++)
        if (vals[i] == v) return 0;
    if (*count >= cap) return fail(err, errlen, "'%s': more than %zu values", item, cap);
    vals[(*count)++] = (size_t)v;
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

typedef int (*value_check)(unsigned long long v, const char *item, const void *ctx, char *err, size_t errlen);

/* Items of values and ranges; each value passes `check`. */
static int parse_value_list(const char *text, value_check check, const void *ctx, size_list *out, char *err,
                            size_t errlen)
{
    out->count = 0;
    if (!text) return fail(err, errlen, "empty list");
    if (check_empty_items(text, err, errlen)) return -1;
    const char *p = text;
    char item[256];
    int r;
    while ((r = next_item(&p, item, sizeof item)) != 0) {
        if (r < 0) return fail(err, errlen, "an item is longer than %zu characters", sizeof item - 1);
        char *dots = strstr(item, "..");
        if (!dots) {
            unsigned long long v;
            if (parse_value(item, &v, err, errlen)) return -1;
            if (check(v, item, ctx, err, errlen)) return -1;
            if (add_value(out->v, &out->count, AXES_MAX_VALUES, v, item, err, errlen)) return -1;
            continue;
        }
        /* FROM..TO[:STEP] */
        char from_s[128], to_s[128], step_s[128] = "x2";
        size_t flen = (size_t)(dots - item);
        if (flen == 0 || flen >= sizeof from_s) return fail(err, errlen, "'%s': a range is FROM..TO[:STEP]", item);
        memcpy(from_s, item, flen);
        from_s[flen] = '\0';
        const char *rest = dots + 2;
        const char *colon = strchr(rest, ':');
        size_t tlen = colon ? (size_t)(colon - rest) : strlen(rest);
        if (tlen == 0 || tlen >= sizeof to_s) return fail(err, errlen, "'%s': a range is FROM..TO[:STEP]", item);
        memcpy(to_s, rest, tlen);
        to_s[tlen] = '\0';
        if (colon) snprintf(step_s, sizeof step_s, "%s", colon + 1);
        unsigned long long from, to, step;
        char sub[256];
        if (parse_value(from_s, &from, sub, sizeof sub) || parse_value(to_s, &to, sub, sizeof sub))
            return fail(err, errlen, "'%s': %s", item, sub);
        if (check(from, from_s, ctx, err, errlen) || check(to, to_s, ctx, err, errlen)) return -1;
        if (from > to) return fail(err, errlen, "'%s': the range runs backwards (%s > %s)", item, from_s, to_s);
        int multiply;
        if (step_s[0] == 'x' || step_s[0] == '*') multiply = 1;
        else if (step_s[0] == '+') multiply = 0;
        else return fail(err, errlen, "'%s': step '%s' must be xK (multiply) or +K (add)", item, step_s);
        if (parse_value(step_s + 1, &step, sub, sizeof sub)) return fail(err, errlen, "'%s': step: %s", item, sub);
        if (multiply ? step < 2 : step < 1)
            return fail(err, errlen, "'%s': step '%s' does not advance", item, step_s);
        for (unsigned long long v = from; v <= to;) {
            if (check(v, item, ctx, err, errlen)) return -1;
            if (add_value(out->v, &out->count, AXES_MAX_VALUES, v, item, err, errlen)) return -1;
            if (multiply) {
                if (v > to / step) break;
                v *= step;
            } else {
                if (v > to - step) break;
                v += step;
            }
        }
    }
    qsort(out->v, out->count, sizeof out->v[0], cmp_size);
    return 0;
}

static int check_n(unsigned long long v, const char *item, const void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    if (v < 1) return fail(err, errlen, "'%s': n must be at least 1", item);
    if (v > VARIANT_MAX_N) return fail(err, errlen, "'%s': n must be at most 2^40", item);
    return 0;
}

int parse_sizes(const char *text, size_list *out, char *err, size_t errlen)
{
    return parse_value_list(text, check_n, NULL, out, err, errlen);
}

int parse_max_input_bytes(const char *text, size_t *out, char *err, size_t errlen)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    size_t b = 0, e = strlen(buf);
    while (b < e && isspace((unsigned char)buf[b])) b++;
    while (e > b && isspace((unsigned char)buf[e - 1])) e--;
    buf[e] = '\0';
    if (!strcmp(buf + b, "none")) {
        *out = 0;
        return 0;
    }
    size_list l;
    char msg[256];
    if (parse_sizes(buf + b, &l, msg, sizeof msg) || l.count != 1 || strstr(buf + b, "..")) {
        snprintf(err, errlen, "'%s': 'none' or one byte count (64G, 2^36), at most 2^40", buf + b);
        return -1;
    }
    *out = l.v[0];
    return 0;
}

typedef struct {
    size_t max;
    const char *what;
} pow2_ctx;

static int check_pow2(unsigned long long v, const char *item, const void *ctx, char *err, size_t errlen)
{
    const pow2_ctx *c = ctx;
    if (v < 1 || (v & (v - 1)) || v > c->max)
        return fail(err, errlen, "'%s': %s must be powers of two from 1 to %zu", item, c->what, c->max);
    return 0;
}

int parse_pow2_list(const char *text, size_t all_from, size_t max, const char *what, size_list *out, char *err,
                    size_t errlen)
{
    pow2_ctx c = {max, what};
    char buf[64];
    if (text) {
        const char *s = text;
        while (isspace((unsigned char)*s)) s++;
        if (!strncmp(s, "all", 3)) {
            const char *t = s + 3;
            while (isspace((unsigned char)*t)) t++;
            if (!*t) {
                snprintf(buf, sizeof buf, "%zu..%zu", all_from, max);
                text = buf;
            }
        }
    }
    return parse_value_list(text, check_pow2, &c, out, err, errlen);
}

/* Block dims and coarse factors: one message per way a value can be wrong. */
#define BLOCK_DIMS_TAKE " (variants take 32..1024, powers of two)"
#define COARSE_TAKE " (variants take 1..64, powers of two)"

static int check_block_dim(unsigned long long v, const char *item, const void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    if (v == 0) return fail(err, errlen, "'%s': a block needs at least one warp (32 threads)" BLOCK_DIMS_TAKE, item);
    if (v > AXES_MAX_BLOCK_DIM)
        return fail(err, errlen, "'%s': above 1024, the most threads a block can have" BLOCK_DIMS_TAKE, item);
    if (v % AXES_MIN_BLOCK_DIM)
        return fail(err, errlen, "'%s': not a multiple of 32, a whole number of warps" BLOCK_DIMS_TAKE, item);
    if (v & (v - 1)) return fail(err, errlen, "'%s': not a power of two" BLOCK_DIMS_TAKE, item);
    return 0;
}

static int check_coarse(unsigned long long v, const char *item, const void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    if (v == 0) return fail(err, errlen, "'%s': a thread takes at least one element" COARSE_TAKE, item);
    if (v > AXES_MAX_COARSE)
        return fail(err, errlen, "'%s': above 64, the largest coarse factor any variant takes" COARSE_TAKE, item);
    if (v & (v - 1)) return fail(err, errlen, "'%s': not a power of two" COARSE_TAKE, item);
    return 0;
}

/* "all" (alone) stands for every value from..to. */
static const char *expand_all(const char *text, size_t from, size_t to, char *buf, size_t len)
{
    if (!text) return text;
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    if (strncmp(s, "all", 3)) return text;
    for (s += 3; isspace((unsigned char)*s); s++) continue;
    if (*s) return text;
    snprintf(buf, len, "%zu..%zu", from, to);
    return buf;
}

int parse_block_dims(const char *text, size_list *out, char *err, size_t errlen)
{
    char buf[64];
    text = expand_all(text, AXES_MIN_BLOCK_DIM, AXES_MAX_BLOCK_DIM, buf, sizeof buf);
    return parse_value_list(text, check_block_dim, NULL, out, err, errlen);
}

int parse_coarse(const char *text, size_list *out, char *err, size_t errlen)
{
    char buf[64];
    text = expand_all(text, 1, AXES_MAX_COARSE, buf, sizeof buf);
    return parse_value_list(text, check_coarse, NULL, out, err, errlen);
}

/* ---- name sets ------------------------------------------------------------------ */

static int parse_name_set(const char *text, const char *what, int count, int (*from_name)(const char *),
                          const char *(*name_of)(int), unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    if (!text) return fail(err, errlen, "empty list");
    if (check_empty_items(text, err, errlen)) return -1;
    const char *p = text;
    char item[64];
    int r;
    while ((r = next_item(&p, item, sizeof item)) != 0) {
        if (r < 0) return fail(err, errlen, "an item is too long");
        if (!strcmp(item, "all")) {
            *mask |= (1u << count) - 1;
            continue;
        }
        int v = from_name(item);
        if (v < 0) {
            char known[128] = "";
            for (int i = 0; i < count; i++) {
                strncat(known, name_of(i), sizeof known - strlen(known) - 1);
                strncat(known, ", ", sizeof known - strlen(known) - 1);
            }
            strncat(known, "all", sizeof known - strlen(known) - 1);
            return fail(err, errlen, "'%s': unknown %s (known: %s)", item, what, known);
        }
        *mask |= 1u << v;
    }
    return 0;
}

const char *dtype_name_i(int i) { return dtype_name((dtype_t)i); }
const char *op_name_i(int i) { return op_name((op_t)i); }
const char *scan_mode_name_i(int i) { return scan_mode_name((scan_mode_t)i); }
const char *finish_name_i(int i) { return finish_name((finish_t)i); }

int parse_dtypes(const char *text, unsigned *mask, char *err, size_t errlen)
{
    return parse_name_set(text, "dtype", DTYPE_COUNT, dtype_from_name, dtype_name_i, mask, err, errlen);
}

int parse_ops(const char *text, unsigned *mask, char *err, size_t errlen)
{
    return parse_name_set(text, "op", OP_COUNT, op_from_name, op_name_i, mask, err, errlen);
}

int parse_scan_modes(const char *text, unsigned *mask, char *err, size_t errlen)
{
    return parse_name_set(text, "scan mode", SCAN_MODE_COUNT, scan_mode_from_name, scan_mode_name_i, mask, err,
                          errlen);
}

int parse_finishes(const char *text, finish_policy *policy, unsigned *mask, char *err, size_t errlen)
{
    char item[64];
    const char *p = text;
    *mask = 0;
    if (text && next_item(&p, item, sizeof item) == 1 && !p) {
        if (!strcmp(item, "first")) {
            *policy = FINISHES_FIRST;
            return 0;
        }
        if (!strcmp(item, "all")) {
            *policy = FINISHES_ALL;
            return 0;
        }
    }
    if (text && (strstr(text, "first") || strstr(text, "all"))) {
        p = text;
        while (next_item(&p, item, sizeof item) == 1)
            if (!strcmp(item, "first") || !strcmp(item, "all"))
                return fail(err, errlen, "'%s' stands alone: not in a list with finish names", item);
    }
    if (parse_name_set(text, "finish (or first, all)", FINISH_COUNT, finish_from_name, finish_name_i, mask, err,
                       errlen))
        return -1;
    *policy = FINISHES_LIST;
    return 0;
}

/* ---- globs ------------------------------------------------------------------------ */

int parse_globs(const char *text, glob_list *out, char *err, size_t errlen)
{
    out->count = 0;
    if (!text) return fail(err, errlen, "empty list");
    if (check_empty_items(text, err, errlen)) return -1;
    const char *p = text;
    char item[AXES_GLOB_LEN];
    int r;
    while ((r = next_item(&p, item, sizeof item)) != 0) {
        if (r < 0) return fail(err, errlen, "a glob is longer than %d characters", AXES_GLOB_LEN - 1);
        const char *body = item[0] == '!' ? item + 1 : item;
        if (!*body) return fail(err, errlen, "'%s': '!' needs a glob after it", item);
        for (const char *c = body; *c; c++)
            if (isspace((unsigned char)*c) || *c == '!')
                return fail(err, errlen, "'%s': globs hold no spaces and '!' only in front", item);
        if (out->count >= AXES_MAX_GLOBS) return fail(err, errlen, "more than %d globs", AXES_MAX_GLOBS);
        snprintf(out->pat[out->count++], AXES_GLOB_LEN, "%s", item);
    }
    return 0;
}

int globs_match(const glob_list *g, const char *name)
{
    int positives = 0, hit = 0;
    for (size_t i = 0; i < g->count; i++) {
        const char *pat = g->pat[i];
        if (pat[0] == '!') {
            if (fnmatch(pat + 1, name, 0) == 0) return 0;
        } else {
            positives++;
            if (fnmatch(pat, name, 0) == 0) hit = 1;
        }
    }
    return positives == 0 || hit;
}

/* ---- scalars ------------------------------------------------------------------------ */

static const char *trim(const char *s, char *buf, size_t len)
{
    while (isspace((unsigned char)*s)) s++;
    snprintf(buf, len, "%s", s);
    size_t n = strlen(buf);
    while (n && isspace((unsigned char)buf[n - 1])) buf[--n] = '\0';
    return buf;
}

int parse_count(const char *text, long min, long max, long *out, char *err, size_t errlen)
{
    char buf[64];
    const char *s = trim(text ? text : "", buf, sizeof buf);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno == ERANGE) return fail(err, errlen, "'%s' is not a whole number", s);
    if (v < min || v > max) return fail(err, errlen, "'%s' is out of range (%ld..%ld)", s, min, max);
    *out = v;
    return 0;
}

int parse_percent(const char *text, double *fraction, char *err, size_t errlen)
{
    char buf[64];
    const char *s = trim(text ? text : "", buf, sizeof buf);
    char *end;
    double v = strtod(s, &end);
    if (end == s) return fail(err, errlen, "'%s' is not a percentage", s);
    while (isspace((unsigned char)*end)) end++;
    if (*end == '%') end++;
    if (*end || !isfinite(v)) return fail(err, errlen, "'%s' is not a percentage (like 0.5 or 0.5%%)", s);
    if (v <= 0 || v > 100) return fail(err, errlen, "'%s' must be above 0 and at most 100 (percent)", s);
    *fraction = v / 100.0;
    return 0;
}

int parse_seconds(const char *text, double *seconds, char *err, size_t errlen)
{
    char buf[64];
    const char *s = trim(text ? text : "", buf, sizeof buf);
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v)) return fail(err, errlen, "'%s' is not a duration", s);
    while (isspace((unsigned char)*end)) end++;
    double mul = 1;
    if (!*end || !strcmp(end, "s")) mul = 1;
    else if (!strcmp(end, "ms")) mul = 1e-3;
    else if (!strcmp(end, "m") || !strcmp(end, "min")) mul = 60;
    else return fail(err, errlen, "'%s': unknown unit '%s' (use s, ms or m)", s, end);
    if (v <= 0) return fail(err, errlen, "'%s' must be positive", s);
    *seconds = v * mul;
    return 0;
}

int parse_u64(const char *text, uint64_t *out, char *err, size_t errlen)
{
    char buf[64];
    const char *s = trim(text ? text : "", buf, sizeof buf);
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)s[0])) return fail(err, errlen, "'%s' is not a non-negative integer", s);
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno == ERANGE) return fail(err, errlen, "'%s' is not a non-negative integer", s);
    *out = v;
    return 0;
}

/* ---- rendering ---------------------------------------------------------------------- */

void format_size(size_t n, char *buf, size_t len)
{
    if (n && !(n & (n - 1))) snprintf(buf, len, "2^%d", __builtin_ctzll((unsigned long long)n));
    else snprintf(buf, len, "%zu", n);
}

void format_size_list(const size_list *l, char *buf, size_t len)
{
    buf[0] = '\0';
    if (l->count == 0) return;
    char a[32], b[32];
    if (l->count >= 3) {
        int geometric = l->v[0] > 0 && l->v[1] % l->v[0] == 0;
        size_t ratio = geometric ? l->v[1] / l->v[0] : 0;
        for (size_t i = 1; geometric && i < l->count; i++)
            if (l->v[i] != l->v[i - 1] * ratio) geometric = 0;
        if (geometric && ratio >= 2) {
            format_size(l->v[0], a, sizeof a);
            format_size(l->v[l->count - 1], b, sizeof b);
            snprintf(buf, len, "%s..%s:x%zu (%zu values)", a, b, ratio, l->count);
            return;
        }
    }
    size_t used = 0;
    for (size_t i = 0; i < l->count && used + 1 < len; i++) {
        format_size(l->v[i], a, sizeof a);
        int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", a);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

void format_mask(unsigned mask, int count, const char *(*name)(int), char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        if (!(mask & (1u << i))) continue;
        if (buf[0]) strncat(buf, ",", len - strlen(buf) - 1);
        strncat(buf, name(i), len - strlen(buf) - 1);
    }
}
