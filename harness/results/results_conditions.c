/* See results_conditions.h. */
#include "harness/results/results_conditions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/drift_report.h"
#include "results_io/confirm_io.h"
#include "results_io/run_keys.h"

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *gpu_conditions_json(const gpu_conditions *g)
{
    if (!g->ok) return json_null();
    json_t *c = json_object();
    char names[160];
    json_object_set_new(c, RK(TEMPERATURE_C), num_or_null(g->temperature_c));
    json_object_set_new(c, RK(POWER_W), num_or_null(g->power_w));
    json_object_set_new(c, RK(SM_CLOCK_MHZ), num_or_null(g->sm_clock_mhz));
    json_object_set_new(c, RK(MEM_CLOCK_MHZ), num_or_null(g->mem_clock_mhz));
    json_object_set_new(c, RK(CLOCK_EVENTS), json_string(gpu_clock_event_names(g->clock_event_reasons, names, sizeof names)));
    return c;
}

static void json_drift(json_t *o, const run_info *ri)
{
    const drift_report *d = ri->drift;
    if (!d) {
        json_object_set_new(o, RK(DRIFT), ri->drift_note[0] ? json_string(ri->drift_note) : json_null());
        return;
    }
    json_t *j = json_object();
    json_object_set_new(j, RK(CONFIGURATIONS), json_integer((json_int_t)d->configs));
    json_object_set_new(j, RK(COLD_RATIO), num_or_null(d->cold_ratio));
    json_object_set_new(j, RK(COLD_MIN), num_or_null(d->cold_min));
    json_object_set_new(j, RK(COLD_MAX), num_or_null(d->cold_max));
    json_object_set_new(j, RK(HOT_RATIO), num_or_null(d->hot_ratio));
    json_object_set_new(j, RK(HOT_MIN), num_or_null(d->hot_min));
    json_object_set_new(j, RK(HOT_MAX), num_or_null(d->hot_max));
    json_object_set_new(j, RK(SM_CLOCK_START_MHZ), num_or_null(d->clock_start_mhz));
    json_object_set_new(j, RK(SM_CLOCK_END_MHZ), num_or_null(d->clock_end_mhz));
    json_object_set_new(j, RK(THROTTLED_END), json_integer(d->throttled_end));
    json_object_set_new(j, RK(ELAPSED_S), json_real(d->elapsed_s));
    json_t *items = json_array();
    for (size_t i = 0; i < d->n_items; i++) {
        const drift_item *it = &d->items[i];
        json_t *x = json_object();
        json_object_set_new(x, RK(CONFIG), json_string(it->label));
        json_object_set_new(x, RK(COLD_MS), json_pack("[o, o]", num_or_null(it->cold0), num_or_null(it->cold1)));
        json_object_set_new(x, RK(HOT_MS), json_pack("[o, o]", num_or_null(it->hot0), num_or_null(it->hot1)));
        json_object_set_new(x, RK(SM_CLOCK_MHZ), json_pack("[o, o]", num_or_null(it->clock0), num_or_null(it->clock1)));
        json_array_append_new(items, x);
    }
    json_object_set_new(j, RK(ITEMS), items);
    json_object_set_new(j, RK(WHAT), json_string("the first configurations measured again at the end of the run: "
                                               "end / start median per configuration, the median over them"));
    json_object_set_new(o, RK(DRIFT), j);
}

static void json_confirm(json_t *o, const run_info *ri)
{
    if (!ri->confirm && !ri->confirm_note[0]) {
        json_object_set_new(o, RK(CONFIRM), json_null());
        return;
    }
    json_t *j = json_object();
    size_t verdicts[3] = {0};
    static const char *const names[3] = {"faster", "slower", "tie"};
    for (size_t i = 0; i < ri->confirm_count; i++)
        for (int k = 0; k < 3; k++) verdicts[k] += !strcmp(ri->confirm[i].verdict, names[k]);
    json_object_set_new(j, RK(ROUNDS), json_integer(ri->confirm_rounds));
    json_object_set_new(j, RK(MARGIN_PCT), json_real(ri->confirm_margin * 100));
    json_object_set_new(j, RK(FILE), json_string("confirm.csv"));
    json_object_set_new(j, RK(LINES), json_integer((json_int_t)ri->confirm_count));
    for (int k = 0; k < 3; k++) json_object_set_new(j, names[k], json_integer((json_int_t)verdicts[k]));
    json_object_set_new(j, RK(NOTE), ri->confirm_note[0] ? json_string(ri->confirm_note) : json_null());
    json_object_set_new(j, RK(INTERVAL), json_string("percentile bootstrap (10000 resamples) over rounds of the "
                                                   "geometric mean of library / candidate per round, 95 %"));
    json_object_set_new(o, RK(CONFIRM), j);
}

void run_json_conditions(json_t *o, const run_info *ri)
{
    json_t *c = json_object();
    json_object_set_new(c, RK(NVML), json_string(ri->nvml_status[0] ? ri->nvml_status : "read"));
    json_object_set_new(c, RK(START), gpu_conditions_json(&ri->cond_start));
    json_object_set_new(c, RK(END), gpu_conditions_json(&ri->cond_end));
    if (ri->exp) {
        json_object_set_new(c, RK(THROTTLE_THRESHOLD_PCT), json_real(ri->exp->timing.throttle_threshold * 100));
        json_object_set_new(c, RK(THROTTLE_RECOVERY_S), json_real(ri->exp->timing.throttle_recovery_s));
    }
    json_object_set_new(c, RK(DEFAULT_SM_CLOCK_MHZ),
                        ri->run.have_device ? json_real(ri->device.sm_clock_khz / 1e3) : json_null());
    json_object_set_new(o, RK(CONDITIONS), c);
    json_drift(o, ri);
    json_confirm(o, ri);
}

static double get_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void run_json_conditions_read(const json_t *run, run_info *ri, drift_report *d)
{
    memset(d, 0, sizeof *d);
    const json_t *cond = json_object_get(run, RK(CONDITIONS));
    double def_mhz = get_num(cond, RK(DEFAULT_SM_CLOCK_MHZ));
    if (isfinite(def_mhz)) ri->device.sm_clock_khz = (int)(def_mhz * 1000 + 0.5);
    const json_t *conf = json_object_get(run, RK(CONFIRM));
    if (json_is_object(conf)) {
        ri->confirm_rounds = (unsigned)get_num(conf, RK(ROUNDS));
        double m = get_num(conf, RK(MARGIN_PCT));
        ri->confirm_margin = isfinite(m) ? m / 100 : 0;
        const json_t *note = json_object_get(conf, RK(NOTE));
        if (json_is_string(note)) snprintf(ri->confirm_note, sizeof ri->confirm_note, "%s", json_string_value(note));
    }
    const json_t *nv = cond ? json_object_get(cond, RK(NVML)) : NULL;
    if (json_is_string(nv) && strcmp(json_string_value(nv), "read"))
        snprintf(ri->nvml_status, sizeof ri->nvml_status, "%s", json_string_value(nv));
    const json_t *j = json_object_get(run, RK(DRIFT));
    if (json_is_string(j)) snprintf(ri->drift_note, sizeof ri->drift_note, "%s", json_string_value(j));
    if (!json_is_object(j)) return;
    d->ran = 1;
    d->configs = (size_t)get_num(j, RK(CONFIGURATIONS));
    d->cold_ratio = get_num(j, RK(COLD_RATIO));
    d->cold_min = get_num(j, RK(COLD_MIN));
    d->cold_max = get_num(j, RK(COLD_MAX));
    d->hot_ratio = get_num(j, RK(HOT_RATIO));
    d->hot_min = get_num(j, RK(HOT_MIN));
    d->hot_max = get_num(j, RK(HOT_MAX));
    d->clock_start_mhz = get_num(j, RK(SM_CLOCK_START_MHZ));
    d->clock_end_mhz = get_num(j, RK(SM_CLOCK_END_MHZ));
    d->throttled_end = (unsigned)get_num(j, RK(THROTTLED_END));
    ri->drift = d;
}

/* ---- summary.md ---------------------------------------------------------------------------------- */

/* "reduce_one_launch 256x4" from a configuration label. */
static void short_config(const confirm_line *l, char *buf, size_t len)
{
    char dims[64];
    if (!confirm_label_dims(l->config, "x", dims, sizeof dims)) snprintf(buf, len, "%s %s", l->variant, dims);
    else snprintf(buf, len, "%s", l->variant);
}

/* The candidate of the highest estimate at `at`'s table, n and phase. */
static const confirm_line *best_at(const confirm_line *l, size_t n, const confirm_line *at, const char *phase)
{
    const confirm_line *best = NULL;
    for (size_t k = 0; k < n; k++) {
        const confirm_line *x = &l[k];
        if (strcmp(x->role, "candidate") || strcmp(x->phase, phase) || x->n != at->n || confirm_table_cmp(x, at))
            continue;
        if (!best || x->speedup > best->speedup) best = x;
    }
    return best;
}

static void cell(FILE *f, const confirm_line *x)
{
    char cfg[128];
    if (!x) {
        fputs(" | |", f);
        return;
    }
    short_config(x, cfg, sizeof cfg);
    fprintf(f, " %s | %s %.3f× [%.3f, %.3f] |", cfg, x->verdict, x->speedup, x->ci_lo, x->ci_hi);
}

/* One table: its heading, then a row per size in ascending n. rows[0..k) are
 * library cold lines of that table (confirm_table_rows' order). */
static void confirmed_table(FILE *f, const confirm_line *l, size_t n, const confirm_line *const *rows, size_t k)
{
    const confirm_line *t = rows[0];
    fprintf(f, "\n### %s %s %s%s%s\n\n| n | cold: ours | cold vs library | hot: ours | hot vs library |\n"
               "|---:|---|---|---|---|\n",
            t->kind, t->dtype, t->op, t->scan_mode[0] ? " " : "", t->scan_mode);
    for (size_t j = 0; j < k; j++) {
        char size[32];
        confirm_format_n(rows[j]->n, size, sizeof size);
        fprintf(f, "| %s |", size);
        cell(f, best_at(l, n, rows[j], "cold"));
        cell(f, best_at(l, n, rows[j], "hot"));
        fputc('\n', f);
    }
}

/* Whether some size was confirmed cold only: a library line with no hot twin. */
static int any_cold_only(const confirm_line *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(l[i].role, "library") || strcmp(l[i].phase, "cold")) continue;
        size_t k = 0;
        while (k < n && (strcmp(l[k].role, "library") || strcmp(l[k].phase, "hot") || l[k].n != l[i].n ||
                         confirm_table_cmp(&l[k], &l[i])))
            k++;
        if (k == n) return 1;
    }
    return 0;
}

void summary_confirmed(FILE *f, const run_info *ri)
{
    if (!ri || (!ri->confirm && !ri->confirm_note[0])) return;
    fprintf(f, "## Confirmed against the library\n\n");
    if (ri->confirm_note[0]) fprintf(f, "Confirmation %s.\n\n", ri->confirm_note);
    if (!ri->confirm_count) return;
    fprintf(f, "Each size's best configurations and the library measured again in %u interleaved rounds; "
               "library time / ours, geometric mean over the rounds, bootstrap 95 %% interval. *faster* or "
               "*slower* only when the whole interval clears 1.00 by %.3g %%, else *tie* (confirm.csv has every "
               "candidate)%s.\n",
            ri->confirm_rounds, ri->confirm_margin * 100,
            any_cold_only(ri->confirm, ri->confirm_count)
                ? "; no hot cells where the inputs were timed cold only ([timing] hot_below)"
                : "");
    /* Tables and sizes in a one-device run's order, whatever order --devices' workers wrote the lines in. */
    const confirm_line **rows = malloc(ri->confirm_count * sizeof *rows);
    size_t k = rows ? confirm_table_rows(ri->confirm, ri->confirm_count, rows) : 0;
    for (size_t i = 0, end; i < k; i = end) {
        for (end = i + 1; end < k && !confirm_table_cmp(rows[end], rows[i]); end++) continue;
        confirmed_table(f, ri->confirm, ri->confirm_count, rows + i, end - i);
    }
    free(rows);
    fputc('\n', f);
}

static void minmax(double x, double *lo, double *hi)
{
    if (!isfinite(x)) return;
    if (!(x >= *lo)) *lo = x;
    if (!(x <= *hi)) *hi = x;
}

double drift_size(const drift_report *d)
{
    if (!d->ran) return NAN;
    double a = fabs(d->cold_ratio - 1), b = fabs(d->hot_ratio - 1);
    return isfinite(b) && b > a ? b : a; /* no hot ratio where every one was timed cold only */
}

/* The speed-ups over CUB in the best-per-n tables smaller than the drift. */
static size_t within_drift(const sweep_row *rows, size_t n, double drift, size_t *total)
{
    size_t k = 0;
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(rows[i].plain.values[RC_SPEEDUP_VS_CUB]) || rows[i].status != ROW_OK) continue;
        (*total)++;
        k += fabs(rows[i].plain.values[RC_SPEEDUP_VS_CUB] - 1) < drift;
    }
    return k;
}

void summary_conditions(FILE *f, const sweep_row *rows, size_t n, const run_info *ri)
{
    if (!ri) return;
    double clo = NAN, chi = NAN, tlo = NAN, thi = NAN, plo = NAN, phi = NAN;
    unsigned long throttled = 0;
    size_t rows_throttled = 0;
    for (size_t i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        minmax(r->cold.clock_min_mhz, &clo, &chi);
        minmax(r->hot.clock_min_mhz, &clo, &chi);
        minmax(r->plain.values[RC_GPU_TEMP_C], &tlo, &thi);
        minmax(r->plain.values[RC_GPU_POWER_W], &plo, &phi);
        unsigned t = (r->cold.samples ? r->cold.throttled : 0) + (r->hot.samples ? r->hot.throttled : 0);
        throttled += t;
        rows_throttled += t > 0;
    }
    if (!isfinite(clo) && !ri->nvml_status[0] && !isfinite(tlo) && !ri->drift && !ri->drift_note[0]) return;
    fprintf(f, "\n## Measurement conditions\n\n");
    if (isfinite(clo))
        fprintf(f, "- SM clock over the timed batches: %.0f-%.0f MHz (default %.0f); %lu sample%s discarded as "
                   "throttled and taken again, in %zu row%s.\n",
                clo, chi, ri->run.have_device ? ri->device.sm_clock_khz / 1e3 : NAN, throttled, throttled == 1 ? "" : "s",
                rows_throttled, rows_throttled == 1 ? "" : "s");
    if (ri->nvml_status[0]) fprintf(f, "- %s: no temperature, power or clock events recorded.\n", ri->nvml_status);
    else if (isfinite(tlo))
        fprintf(f, "- NVML after each row: %.0f-%.0f °C, %.0f-%.0f W.\n", tlo, thi, plo, phi);
    const drift_report *d = ri->drift;
    if (!d) {
        if (ri->drift_note[0]) fprintf(f, "- Drift check %s.\n", ri->drift_note);
        return;
    }
    char hot[96] = ""; /* none where every one was timed cold only */
    if (isfinite(d->hot_ratio))
        snprintf(hot, sizeof hot, " and ×%.4f hot (%.4f-%.4f)", d->hot_ratio, d->hot_min, d->hot_max);
    fprintf(f, "- Drift: the first %zu configurations measured again at the end ran ×%.4f cold (%.4f-%.4f)%s of "
               "their first time; SM clock %.0f MHz then, %.0f MHz at the end.\n",
            d->configs, d->cold_ratio, d->cold_min, d->cold_max, hot, d->clock_start_mhz, d->clock_end_mhz);
    size_t total, small = within_drift(rows, n, drift_size(d), &total);
    if (small)
        fprintf(f, "- The drift (%.2f %%) is larger than %zu of the %zu speed-ups over CUB in results.csv: rows "
                   "measured at different times that differ by less than that are ties%s.\n",
                100 * drift_size(d), small, total,
                ri->confirm_count ? "; the confirmed table, measured interleaved, is the comparison to trust" : "");
}
