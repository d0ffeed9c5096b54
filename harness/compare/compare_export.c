/* compare.h's tables for other programs: compare.csv (--csv) and the JSON
 * document (--json). */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "harness/compare/compare.h"
#include "harness/core/files.h"
#include "kernels/variant.h"

/* ---- CSV -------------------------------------------------------------------------------------- */

static void csv_config(FILE *f, const sweep_row *w)
{
    const results_row_config *c = &w->plain.cfg;
    char axes[128];
    results_row_axes_text(c, ";", axes, sizeof axes); /* as results.csv's axes column */
    fprintf(f, "%s,%s,%s,%llu,%ld,%s,%s,%s", c->variant, c->dtype, c->op, c->n, c->block_dim, axes, c->finish,
            c->scan_mode);
}

static void csv_num(FILE *f, double x, double scale)
{
    fputc(',', f);
    if (isfinite(x)) fprintf(f, "%.6g", x * scale);
}

/* A text field, quoted (a reason has commas). */
static void csv_str(FILE *f, const char *s)
{
    fputs(",\"", f);
    for (; *s; s++) fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
    fputc('"', f);
}

/* ref: the divisors (cold, hot; NaN: not normalised) */
static void csv_phase(FILE *f, const compare_phase *ph, double ref_base, double ref_new)
{
    csv_num(f, ph->base_ms, 1);
    csv_num(f, ph->new_ms, 1);
    csv_num(f, ref_base, 1);
    csv_num(f, ref_new, 1);
    csv_num(f, ph->speedup, 1);
    csv_num(f, ph->adj > 0 ? ph->adj : NAN, 1); /* the figure judged; ci_low / ci_high are its interval */
    csv_num(f, ph->lo, 1);
    csv_num(f, ph->hi, 1);
    csv_num(f, ph->p, 1);
    csv_num(f, ph->change, 100);
    csv_num(f, ph->threshold, 100);
    fprintf(f, ",%s,%s", compare_method_name(ph->method), compare_verdict_name(ph->verdict));
}

/* Judged pairs (compared "yes") and, with --normalize cub, the reference rows ("reference"). */
static void csv_pair(FILE *f, const compare_result *r, const compare_pair *p, const char *compared)
{
    csv_config(f, p->base);
    fprintf(f, ",\"%s\",\"%s\",%s,%s,ok,ok,", r->base.device, r->newer.device, compare_norm_name(r->normalize),
            compared);
    csv_phase(f, &p->cold, p->ref_base[0], p->ref_new[0]);
    csv_phase(f, &p->hot, p->ref_base[1], p->ref_new[1]);
    for (size_t m = 0; m < r->nmetrics; m++) csv_num(f, p->metric_change[m], 100);
    fputc('\n', f);
}

static void csv_apart(FILE *f, const compare_result *r, const compare_apart *a)
{
    csv_config(f, a->base ? a->base : a->newer);
    fprintf(f, ",\"%s\",\"%s\",%s,%s,%s,%s", r->base.device, r->newer.device, compare_norm_name(r->normalize),
            !a->base ? "only_new" : !a->newer ? "only_base" : a->no_reference ? "no_reference" : "not_ok",
            a->base ? row_status_name(a->base->status) : "", a->newer ? row_status_name(a->newer->status) : "");
    csv_str(f, a->reason);
    for (int h = 0; h < 2; h++) fputs(",,,,,,,,,,,,n/a,n/a", f); /* eleven empty, method, verdict */
    for (size_t m = 0; m < r->nmetrics; m++) fputc(',', f);
    fputc('\n', f);
}

static int render_csv(FILE *f, void *ctx)
{
    const compare_result *r = ctx;
    fputs("variant,dtype,op,n,block_dim,axes,finish,scan_mode,device_base,device_new,normalize,compared,"
          "status_base,status_new,reason",
          f);
    for (int h = 0; h < 2; h++)
        fprintf(f, ",%1$s_base_ms,%1$s_new_ms,%1$s_base_ref_ms,%1$s_new_ref_ms,%1$s_speedup,%1$s_speedup_to_machine,"
                   "%1$s_ci_low,%1$s_ci_high,"
                   "%1$s_p,%1$s_change_pct,%1$s_threshold_pct,%1$s_method,%1$s_verdict",
                h ? "hot" : "cold");
    for (size_t i = 0; i < r->nmetrics; i++) fprintf(f, ",\"m:%s[%s]_change_pct\"", r->metrics[i].m->name, r->metrics[i].m->unit);
    fputc('\n', f);
    for (size_t i = 0; i < r->npairs; i++) csv_pair(f, r, &r->pairs[i], "yes");
    for (size_t i = 0; i < r->nrefs; i++) csv_pair(f, r, &r->refs[i], "reference");
    for (size_t i = 0; i < r->napart; i++) csv_apart(f, r, &r->apart[i]);
    return ferror(f) ? -1 : 0;
}

int compare_write_csv(const char *path, const compare_result *r, char *err, size_t errlen)
{
    return write_file_atomic(path, render_csv, (void *)r, err, errlen);
}

/* ---- JSON ------------------------------------------------------------------------------------- */

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *phase_json(const compare_phase *ph)
{
    json_t *o = json_object();
    json_object_set_new(o, "base_ms", num(ph->base_ms));
    json_object_set_new(o, "new_ms", num(ph->new_ms));
    json_object_set_new(o, "speedup", num(ph->speedup));
    json_object_set_new(o, "speedup_to_machine", ph->adj > 0 ? num(ph->adj) : json_null());
    json_object_set_new(o, "ci_low", num(ph->lo));
    json_object_set_new(o, "ci_high", num(ph->hi));
    json_object_set_new(o, "p", num(ph->p));
    json_object_set_new(o, "change_pct", num(ph->change * 100));
    json_object_set_new(o, "threshold_pct", num(ph->threshold * 100));
    json_object_set_new(o, "samples_base", json_integer((json_int_t)ph->base_n));
    json_object_set_new(o, "samples_new", json_integer((json_int_t)ph->new_n));
    json_object_set_new(o, "method", json_string(compare_method_name(ph->method)));
    json_object_set_new(o, "verdict", json_string(compare_verdict_name(ph->verdict)));
    return o;
}

static json_t *side_json(const compare_run *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "dir", json_string(s->dir));
    json_object_set_new(o, "device", json_string(s->device));
    json_object_set_new(o, "samples", json_boolean(s->has_samples));
    static const char *const keys[] = {"experiment", "git_sha", "date", "driver_version", "copy_bandwidth_GBps"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(s->run, keys[i]);
        json_object_set(o, keys[i], v ? v : json_null());
    }
    return o;
}

/* "reference_ms": what each side's times were divided by; null when not normalised. */
static json_t *reference_json(const compare_pair *p)
{
    if (isnan(p->ref_base[0]) && isnan(p->ref_base[1])) return json_null();
    return json_pack("{s:o,s:o,s:o,s:o}", "cold_base", num(p->ref_base[0]), "cold_new", num(p->ref_new[0]), "hot_base",
                     num(p->ref_base[1]), "hot_new", num(p->ref_new[1]));
}

static json_t *pair_json(const compare_result *r, const compare_pair *p)
{
    json_t *row = json_object(), *m = json_object();
    json_object_set_new(row, "variant", json_string(p->base->plain.cfg.variant));
    json_object_set_new(row, "configuration", json_string(p->label));
    json_object_set_new(row, "n", json_integer((json_int_t)p->base->plain.cfg.n));
    json_object_set_new(row, "reference_ms", reference_json(p));
    json_object_set_new(row, "cold", phase_json(&p->cold));
    json_object_set_new(row, "hot", phase_json(&p->hot));
    for (size_t k = 0; k < r->nmetrics; k++) json_object_set_new(m, r->metrics[k].m->name, num(p->metric_change[k] * 100));
    json_object_set_new(row, "metric_change_pct", m);
    return row;
}

static json_t *apart_json(const compare_apart *a)
{
    json_t *x = json_object();
    json_object_set_new(x, "configuration", json_string(a->label));
    json_object_set_new(x, "base", a->base ? json_string(row_status_name(a->base->status)) : json_null());
    json_object_set_new(x, "new", a->newer ? json_string(row_status_name(a->newer->status)) : json_null());
    json_object_set_new(x, "reason", json_string(a->reason));
    json_object_set_new(x, "no_reference", json_boolean(a->no_reference));
    return x;
}

/* The empirical null: per phase its bands, and every variant's verdict. */
static json_t *band_json(const compare_band *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "n_from", json_integer((json_int_t)b->n_lo));
    json_object_set_new(o, "n_to", json_integer((json_int_t)b->n_hi));
    json_object_set_new(o, "configurations", json_integer((json_int_t)b->configs));
    json_object_set_new(o, "variants", json_integer((json_int_t)b->variants));
    json_object_set_new(o, "centre_reduce_pct", num((exp(b->centre[0]) - 1) * 100));
    json_object_set_new(o, "centre_scan_pct", num((exp(b->centre[1]) - 1) * 100));
    json_object_set_new(o, "scatter_pct", num(b->scatter * 100));
    json_object_set_new(o, "variant_scatter_pct", num(b->variant_scatter * 100));
    json_object_set_new(o, "bound", b->launch_bound < 0 ? json_null() : json_string(b->launch_bound ? "launch" : "bandwidth"));
    return o;
}

static json_t *variant_phase_json(const compare_result *r, const compare_variant_phase *v, int hot)
{
    if (!v->judged) return json_null();
    const compare_band *b = r->null[hot].bands;
    return json_pack("{s:s,s:I,s:I,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "verdict",
                     compare_verdict_name((compare_verdict)v->verdict), "n_from", (json_int_t)b[v->band_lo].n_lo,
                     "n_to", (json_int_t)b[v->band_hi].n_hi, "every_size",
                     v->band_lo == v->band_first && v->band_hi == v->band_last, "shift_pct",
                     num((exp(v->shift) - 1) * 100), "scale_pct", num(v->scale * 100), "p", num(v->p), "speedup",
                     num(v->gm), "ci_low", num(v->lo), "ci_high", num(v->hi), "all_speedup", num(v->all_gm),
                     "all_ci_low", num(v->all_lo), "all_ci_high", num(v->all_hi));
}

static json_t *null_json(const compare_result *r)
{
    json_t *o = json_object(), *vs = json_array();
    for (int h = 0; h < 2; h++) {
        json_t *bands = json_array();
        for (size_t b = 0; b < r->null[h].nbands; b++) json_array_append_new(bands, band_json(&r->null[h].bands[b]));
        json_object_set_new(o, h ? "hot_bands" : "cold_bands", bands);
        json_object_set_new(o, h ? "hot_refused" : "cold_refused",
                            r->null[h].refused[0] ? json_string(r->null[h].refused) : json_null());
    }
    for (size_t g = 0; g < r->nvgroups; g++) {
        const compare_vgroup *v = &r->vgroups[g];
        json_array_append_new(vs, json_pack("{s:s,s:s,s:s,s:o,s:o}", "variant", v->name, "dtype", v->dtype, "op", v->op,
                                            "cold", variant_phase_json(r, &v->ph[0], 0), "hot",
                                            variant_phase_json(r, &v->ph[1], 1)));
    }
    json_object_set_new(o, "variants", vs);
    json_object_set_new(o, "variant_tests", json_integer((json_int_t)r->nvtests));
    json_object_set_new(o, "variants_changed", json_integer((json_int_t)compare_variant_changes(r)));
    return o;
}

static json_t *compare_json(const compare_result *r)
{
    json_t *o = json_object(), *rows = json_array(), *refs = json_array(), *apart = json_array(), *warn = json_array();
    json_object_set_new(o, "base", side_json(&r->base));
    json_object_set_new(o, "new", side_json(&r->newer));
    json_object_set_new(o, "normalize", json_string(compare_norm_name(r->normalize)));
    json_object_set_new(o, "threshold_pct", r->threshold >= 0 ? json_real(r->threshold * 100) : json_null());
    json_object_set_new(o, "correction", json_pack("{s:s,s:f,s:I,s:I}", "method", "Benjamini-Hochberg", "q", r->fdr_q,
                                                   "tests", (json_int_t)r->ntests, "rejected",
                                                   (json_int_t)r->nrejected));
    for (size_t i = 0; i < r->nwarnings; i++) json_array_append_new(warn, json_string(r->warnings[i]));
    json_object_set_new(o, "warnings", warn);
    for (size_t i = 0; i < r->npairs; i++) json_array_append_new(rows, pair_json(r, &r->pairs[i]));
    for (size_t i = 0; i < r->nrefs; i++) json_array_append_new(refs, pair_json(r, &r->refs[i]));
    for (size_t i = 0; i < r->napart; i++) json_array_append_new(apart, apart_json(&r->apart[i]));
    json_object_set_new(o, "rows", rows);
    json_object_set_new(o, "references", refs);
    json_object_set_new(o, "not_compared", apart);
    json_object_set_new(o, "regressions", json_integer((json_int_t)compare_regressions(r)));
    json_object_set_new(o, "variant_regressions", json_integer((json_int_t)compare_variant_regressions(r)));
    json_object_set_new(o, "empirical_null", null_json(r));
    return o;
}

static int render_json(FILE *f, void *ctx)
{
    if (json_dumpf(ctx, f, JSON_INDENT(2) | JSON_REAL_PRECISION(8))) return -1;
    fputc('\n', f);
    return 0;
}

int compare_write_json(const char *path, const compare_result *r, char *err, size_t errlen)
{
    json_t *o = compare_json(r);
    int rc = write_file_atomic(path, render_json, o, err, errlen);
    json_decref(o);
    return rc;
}
