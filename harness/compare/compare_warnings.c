/* compare.h's warnings on the two runs themselves: what makes their times
 * not comparable as they stand. The same run twice (every speed-up 1, which
 * says nothing of the code); two devices, two clocks or two copy bandwidths
 * (the machines differ, and absolute times carry that as if the code had
 * changed: --normalize compares each run against its own machine); and the
 * settings in run.json that differ. One line each. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/compare/compare.h"
#include "harness/core/files.h"
#include "results_io/csv.h"
#include "results_io/run_keys.h"

/* Copy bandwidths further apart than this: the machines differ. */
#define COPY_BANDWIDTH_TOLERANCE 0.02
/* SM clocks further apart than this (run.json, the rows' columns). */
#define CLOCK_TOLERANCE 0.01

static const char *normalize_hint(const compare_result *r)
{
    return r->normalize == CN_NONE ? "; --normalize cub|copy|machine compares each run against its own machine" : "";
}

static json_t *get_path(json_t *o, const char *a, const char *b)
{
    json_t *x = json_object_get(o, a);
    return b ? json_object_get(x, b) : x;
}

/* ---- the same run ------------------------------------------------------------------------- */

static int same_file_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        same = x == y;
        if (x == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static int same_json_string(json_t *a, json_t *b, const char *key)
{
    const char *x = json_string_value(json_object_get(a, key)), *y = json_string_value(json_object_get(b, key));
    return x && y && !strcmp(x, y);
}

/* Two runs side by side on two cards of one host start in the same second:
 * they are the same run only on the same card. */
static int same_card(json_t *a, json_t *b)
{
    json_t *da = json_object_get(a, RK(DEVICE)), *db = json_object_get(b, RK(DEVICE));
    const char *ua = json_string_value(json_object_get(da, RK(UUID))), *ub = json_string_value(json_object_get(db, RK(UUID)));
    if (ua && ub) return !strcmp(ua, ub);
    return json_integer_value(json_object_get(da, RK(ORDINAL))) == json_integer_value(json_object_get(db, RK(ORDINAL)));
}

static void warn_same_run(compare_result *r)
{
    char ra[PATH_MAX], rb[PATH_MAX], ca[SWEEP_PATH_MAX], cb[SWEEP_PATH_MAX], fa[SWEEP_PATH_MAX + 4], fb[SWEEP_PATH_MAX + 4];
    const char *why = NULL;
    json_t *a = r->base.run, *b = r->newer.run;
    if (realpath(r->base.dir, ra) && realpath(r->newer.dir, rb) && !strcmp(ra, rb)) why = "the same directory";
    else if (same_json_string(a, b, RK(DATE)) && same_json_string(a, b, RK(HOST)) &&
             same_json_string(a, b, RK(GIT_SHA)) && same_card(a, b))
        why = "run.json: the same start time, host, commit and card";
    else if (!path_join(ca, sizeof ca, r->base.dir, "results.csv") &&
             !path_join(cb, sizeof cb, r->newer.dir, "results.csv") && !csv_resolve(ca, fa, sizeof fa) &&
             !csv_resolve(cb, fb, sizeof fb) && same_file_bytes(fa, fb)) /* each as stored: .csv or .csv.gz */
        why = "identical results.csv";
    if (!why) return;
    char line[400];
    snprintf(line, sizeof line,
             "BASE and NEW are the same run (%s): every speed-up is 1 by construction, which says nothing about "
             "the code; compare two runs",
             why);
    compare_warn(r, line);
}

/* ---- the machines -------------------------------------------------------------------------- */

static void warn_devices(compare_result *r)
{
    json_t *da = get_path(r->base.run, "device", NULL), *db = get_path(r->newer.run, "device", NULL);
    const char *ua = json_string_value(json_object_get(da, RK(UUID))), *ub = json_string_value(json_object_get(db, RK(UUID)));
    int other_name = strcmp(r->base.device, r->newer.device) != 0, other_uuid = ua && ub && strcmp(ua, ub);
    if (!other_name && !other_uuid) return;
    char line[900];
    if (other_name)
        snprintf(line, sizeof line, "different devices: BASE %s, NEW %s: the times compare the devices as well as "
                 "the code%s", r->base.device, r->newer.device, normalize_hint(r));
    else
        snprintf(line, sizeof line, "different devices: two %s of uuid %s and %s: devices of one model differ by a "
                 "few per cent%s", r->base.device, ua, ub, normalize_hint(r));
    compare_warn(r, line);
}

/* The median over ok rows of the cold phase's mean SM clock (NaN: none). */
static double rows_clock(const compare_run *run)
{
    double *x = malloc((run->rf.count ? run->rf.count : 1) * sizeof *x), m;
    size_t n = 0;
    for (size_t i = 0; x && i < run->rf.count; i++)
        if (run->rf.rows[i].status == ROW_OK && run->rf.rows[i].cold.clock_mean_mhz > 0)
            x[n++] = run->rf.rows[i].cold.clock_mean_mhz;
    m = x ? cs_median(x, n) : NAN;
    free(x);
    return m;
}

static int apart(double a, double b, double tolerance)
{
    return a > 0 && b > 0 && fabs(a / b - 1) > tolerance;
}

/* The first of: the device's clocks, the clock at the run's start
 * (conditions), the rows' measured SM clock. */
static void warn_clocks(compare_result *r)
{
    static const char *const where[][3] = {{"device", "sm_clock_khz", "SM clock (run.json device, kHz)"},
                                           {"device", "mem_clock_khz", "memory clock (run.json device, kHz)"},
                                           {"conditions", "start", "SM clock at the start (run.json conditions, MHz)"}};
    double a = NAN, b = NAN;
    const char *what = NULL;
    for (size_t i = 0; i < 3 && !what; i++) {
        json_t *x = get_path(r->base.run, where[i][0], where[i][1]), *y = get_path(r->newer.run, where[i][0], where[i][1]);
        if (i == 2) x = json_object_get(x, RK(SM_CLOCK_MHZ)), y = json_object_get(y, RK(SM_CLOCK_MHZ));
        a = json_number_value(x), b = json_number_value(y);
        if (json_is_number(x) && json_is_number(y) && apart(a, b, i == 2 ? CLOCK_TOLERANCE : 0)) what = where[i][2];
    }
    if (!what) {
        a = rows_clock(&r->base), b = rows_clock(&r->newer);
        if (apart(a, b, CLOCK_TOLERANCE)) what = "median SM clock of the rows (sm_clock_cold_mean_MHz)";
    }
    if (!what) return;
    char line[600];
    snprintf(line, sizeof line, "different clocks: %s BASE %.0f, NEW %.0f%s", what, a, b, normalize_hint(r));
    compare_warn(r, line);
}

static void warn_copy_bandwidth(compare_result *r)
{
    json_t *x = json_object_get(r->base.run, RK(COPY_BANDWIDTH_GBPS)), *y = json_object_get(r->newer.run, RK(COPY_BANDWIDTH_GBPS));
    double a = json_number_value(x), b = json_number_value(y);
    if (!json_is_number(x) || !json_is_number(y) || !apart(a, b, COPY_BANDWIDTH_TOLERANCE)) return;
    char line[600];
    snprintf(line, sizeof line, "different copy bandwidths: BASE %.1f GB/s, NEW %.1f GB/s (%+.1f %%, more than %.0f %%)%s",
             a, b, (b / a - 1) * 100, COPY_BANDWIDTH_TOLERANCE * 100, normalize_hint(r));
    compare_warn(r, line);
}

/* run.json's copy_timing: "cold" from the build that added it; runs without it timed the copy
 * back to back. */
static const char *copy_timing(const json_t *run)
{
    const char *t = json_string_value(json_object_get(run, RK(COPY_TIMING)));
    return t ? t : "back to back";
}

/* A copy figure timed cold reads 1.4-1.6 % faster than one timed back to back (an H200,
 * experiments/results/h200/scan-path): every % of copy, and --normalize copy, moves by as
 * much between such runs, whatever the card. */
static void warn_copy_timing(compare_result *r)
{
    const char *a = copy_timing(r->base.run), *b = copy_timing(r->newer.run);
    if (!strcmp(a, b)) return;
    char line[600];
    snprintf(line, sizeof line,
             "copy bandwidths timed differently: BASE %s, NEW %s (cold reads 1.4-1.6 %% faster on an H200: "
             "%% of copy and --normalize copy move by as much)",
             a, b);
    compare_warn(r, line);
}

/* ---- settings that differ ------------------------------------------------------------------ */

/* A value in a few words: strings as they are, others as compact JSON, cut. */
static void value_text(json_t *v, char *buf, size_t len)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
    else snprintf(buf, len, "%s", s ? s : "none");
    free(s);
    if (strlen(buf) > 48) strcpy(buf + 45, "...");
}

/* One line per field: an object names the keys that differ, not its whole text. */
static void warn_field(compare_result *r, const char *what, json_t *x, json_t *y)
{
    if (json_equal(x, y) || (!x && !y)) return;
    char line[1024], va[64], vb[64];
    size_t w = (size_t)snprintf(line, sizeof line, "%s differs:", what);
    if (json_is_object(x) && json_is_object(y)) {
        const char *key;
        json_t *v;
        json_t *keys = json_deep_copy(x);
        json_object_update(keys, y);
        json_object_foreach(keys, key, v)
        {
            json_t *kx = json_object_get(x, key), *ky = json_object_get(y, key);
            if (json_equal(kx, ky) || w >= sizeof line - 1) continue;
            value_text(kx, va, sizeof va);
            value_text(ky, vb, sizeof vb);
            w += (size_t)snprintf(line + w, sizeof line - w, " %s BASE %s, NEW %s;", key, va, vb);
        }
        json_decref(keys);
        if (w < sizeof line && line[w - 1] == ';') line[w - 1] = '\0';
    } else {
        value_text(x, va, sizeof va);
        value_text(y, vb, sizeof vb);
        snprintf(line + w, sizeof line - w, " BASE %s, NEW %s", va, vb);
    }
    compare_warn(r, line);
}

void compare_check_runs(compare_result *r)
{
    warn_same_run(r);
    warn_devices(r);
    warn_clocks(r);
    warn_copy_bandwidth(r);
    warn_copy_timing(r);
    static const char *const top[] = {"experiment", "driver_version", "runtime_version", "plan", "timing"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        warn_field(r, top[i], json_object_get(r->base.run, top[i]), json_object_get(r->newer.run, top[i]));
}
