/* Rows: one per configuration, and the figures derived from them. */
#define _POSIX_C_SOURCE 200809L
#include "harness/results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/registry.h"

/* ---- rows ----------------------------------------------------------------------------- */

const char *row_status_name(row_status s)
{
    switch (s) {
    case ROW_OK: return "ok";
    case ROW_INVALID: return "invalid";
    case ROW_ERROR: return "error";
    case ROW_SKIPPED: return "skipped";
    }
    return "?";
}

static void stats_unset(timing_stats *s)
{
    memset(s, 0, sizeof *s);
    s->median = s->min = s->max = s->mean = s->stdev = s->iqr = s->mad = s->noise = NAN;
    s->clock_min_mhz = s->clock_mean_mhz = NAN;
}

int row_init(sweep_row *r, const sweep_config *c, size_t metric_count)
{
    memset(r, 0, sizeof *r);
    r->cfg = *c;
    r->cfg.skip_reason = NULL;
    row_plain_config(c, &r->plain.cfg);
    row_set_status(r, ROW_OK);
    r->validated = -1;
    r->launch_ms = NAN;
    for (size_t i = 0; i < RC_COUNT; i++) r->plain.values[i] = NAN;
    /* A skipped configuration is outside what the variant accepts: no model for it. */
    r->plain.values[RC_BYTES_MOVED] = c->v && c->v->bytes_moved && !c->skip_reason ? config_bytes_moved(c) : NAN;
    stats_unset(&r->cold);
    stats_unset(&r->hot);
    if (metric_count) {
        r->plain.metrics = malloc(metric_count * sizeof *r->plain.metrics);
        if (!r->plain.metrics) return -1;
        r->plain.metric_count = metric_count;
        for (size_t i = 0; i < metric_count; i++) r->plain.metrics[i] = NAN;
    }
    return 0;
}

void row_plain_config(const sweep_config *c, results_row_config *out)
{
    const variant *v = c->v;
    if (!v) {
        memset(out, 0, sizeof *out);
        return;
    }
    int scan = v->kind == KIND_SCAN;
    *out = (results_row_config){.variant = v->name, .alias = v->alias ? v->alias : "",
                                .family = v->family ? v->family : "",
                                .kind = kind_name(v->kind), .dtype = dtype_name(c->dtype), .op = op_name(c->op),
                                .finish = scan ? "" : finish_name(c->finish),
                                .scan_mode = scan ? scan_mode_name(c->scan_mode) : "", .n = c->n,
                                .block_dim = (long)c->block_dim};
    for (size_t k = 0; k < RESULTS_ROW_AXES; k++) {
        const char *name = k < VARIANT_AXES_MAX ? v->axes[k].name : NULL;
        snprintf(out->axis_name[k], RESULTS_AXIS_NAME_LEN, "%s", name ? name : "");
        out->axis[k] = k < VARIANT_AXES_MAX ? (long)c->axis[k] : 1;
    }
}

void row_set_device(sweep_row *r, const device_info *d)
{
    snprintf(r->device, sizeof r->device, "%d:%.200s:%.31s", d->ordinal, d->name, d->pci_bus_id);
}

void row_free(sweep_row *r)
{
    free(r->skip_reason);
    free(r->error);
    free(r->plain.metrics);
    r->skip_reason = r->error = NULL;
    r->plain.metrics = NULL;
    r->plain.metric_count = 0;
}

void row_set_status(sweep_row *r, row_status s)
{
    r->status = s;
    r->plain.status = row_status_name(s);
}

void row_set_error(sweep_row *r, const char *msg)
{
    free(r->error);
    r->error = msg ? strdup(msg) : NULL;
}

void row_set_skip(sweep_row *r, const char *reason)
{
    free(r->skip_reason);
    r->skip_reason = reason ? strdup(reason) : NULL;
    row_set_status(r, ROW_SKIPPED);
}

void row_derive_bandwidth(sweep_row *r, double peak_GBps, double copy_GBps)
{
    r->plain.values[RC_BW_COLD_GBPS] = r->plain.values[RC_BW_HOT_GBPS] = r->plain.values[RC_BW_COLD_PCT_PEAK] = r->plain.values[RC_BW_COLD_PCT_COPY] = NAN;
    if (r->status != ROW_OK || !(r->plain.values[RC_BYTES_MOVED] > 0)) return;
    if (r->cold.samples && r->cold.median > 0) r->plain.values[RC_BW_COLD_GBPS] = r->plain.values[RC_BYTES_MOVED] / (r->cold.median * 1e-3) / 1e9;
    if (row_has_hot(r)) r->plain.values[RC_BW_HOT_GBPS] = r->plain.values[RC_BYTES_MOVED] / (r->hot.median * 1e-3) / 1e9;
    if (peak_GBps > 0) r->plain.values[RC_BW_COLD_PCT_PEAK] = r->plain.values[RC_BW_COLD_GBPS] / peak_GBps * 100.0;
    if (copy_GBps > 0) r->plain.values[RC_BW_COLD_PCT_COPY] = r->plain.values[RC_BW_COLD_GBPS] / copy_GBps * 100.0;
}

typedef struct best_key {
    kind_t kind;
    dtype_t dtype;
    op_t op;
    scan_mode_t mode;
    size_t n;
    double base, cub; /* fastest cold medians, NAN if none */
} best_key;

static int same_key(const best_key *k, const sweep_row *r)
{
    const sweep_config *a = &r->cfg;
    return k->kind == r->cfg.v->kind && k->dtype == a->dtype && k->op == a->op && k->n == a->n &&
           (k->kind == KIND_REDUCE || k->mode == a->scan_mode);
}

int row_timed_ok(const sweep_row *r) { return r->status == ROW_OK && r->cold.samples && r->cold.median > 0; }

int row_has_hot(const sweep_row *r) { return r->hot.samples && r->hot.median > 0; }

double row_phase_noise(const timing_stats *t) { return results_noise_as_read(t->noise, t->stop == STOP_SCREEN); }

void rows_derive_speedups(sweep_row *rows, size_t n)
{
    best_key *keys = NULL;
    size_t nk = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        sweep_row *r = &rows[i];
        r->plain.values[RC_SPEEDUP_VS_BASELINE] = r->plain.values[RC_SPEEDUP_VS_CUB] = NAN;
        if (!r->cfg.v || !row_timed_ok(r)) continue;
        const char *name = r->cfg.v->name;
        int kind_scan = r->cfg.v->kind == KIND_SCAN;
        int is_base = !strcmp(name, kind_scan ? SWEEP_BASELINE_SCAN : SWEEP_BASELINE_REDUCE);
        int is_cub = !strcmp(name, kind_scan ? SWEEP_CUB_SCAN : SWEEP_CUB_REDUCE);
        if (!is_base && !is_cub) continue;
        best_key *k = NULL;
        for (size_t j = 0; j < nk && !k; j++)
            if (same_key(&keys[j], r)) k = &keys[j];
        if (!k) {
            if (nk == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                best_key *bigger = realloc(keys, ncap * sizeof *bigger);
                if (!bigger) {
                    free(keys);
                    return;
                }
                keys = bigger;
                cap = ncap;
            }
            k = &keys[nk++];
            *k = (best_key){r->cfg.v->kind, r->cfg.dtype, r->cfg.op, r->cfg.scan_mode, r->cfg.n, NAN, NAN};
        }
        double t = r->cold.median;
        if (is_base && !(k->base <= t)) k->base = t;
        if (is_cub && !(k->cub <= t)) k->cub = t;
    }
    for (size_t i = 0; i < n; i++) {
        sweep_row *r = &rows[i];
        if (!r->cfg.v || !row_timed_ok(r)) continue;
        for (size_t j = 0; j < nk; j++)
            if (same_key(&keys[j], r)) {
                if (keys[j].base > 0) r->plain.values[RC_SPEEDUP_VS_BASELINE] = keys[j].base / r->cold.median;
                if (keys[j].cub > 0) r->plain.values[RC_SPEEDUP_VS_CUB] = keys[j].cub / r->cold.median;
                break;
            }
    }
    free(keys);
}

