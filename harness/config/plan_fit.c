#define _POSIX_C_SOURCE 200809L
#include "harness/config/plan_fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/axes.h"
#include "harness/check/check_scratch.h"

size_t config_device_bytes(const variant *v, const kernel_args *a)
{
    if (v->runner == RUNNER_HOST) return 0;
    size_t elem = dtype_size(a->dtype);
    size_t out = v->kind == KIND_SCAN ? a->n : 1;
    size_t ws = v->workspace_size ? v->workspace_size(a) : 0;
    return a->n * elem + out * elem + ws + CHECK_DEVICE_SCRATCH_BYTES;
}

/* c's need with the flush buffer the layer holds for the whole run. */
static size_t config_need(const sweep_config *c, const fit_budget *b)
{
    kernel_args a;
    config_kernel_args(c, &a);
    return config_device_bytes(c->v, &a) + b->held_bytes;
}

void format_bytes(double bytes, char *buf, size_t len)
{
    if (bytes >= (double)(1u << 30)) snprintf(buf, len, "%.1f GiB", bytes / (double)(1u << 30));
    else if (bytes >= (double)(1u << 20)) snprintf(buf, len, "%.0f MiB", bytes / (double)(1u << 20));
    else snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
}

static const char *keep_reason(fit_reasons *r, const char *text)
{
    for (size_t i = 0; i < r->count; i++)
        if (!strcmp(r->text[i], text)) return r->text[i];
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char **bigger = realloc(r->text, cap * sizeof *bigger);
        if (!bigger) return NULL;
        r->text = bigger;
        r->cap = cap;
    }
    char *copy = strdup(text);
    if (!copy) return NULL;
    r->text[r->count++] = copy;
    return copy;
}

void fit_reasons_free(fit_reasons *r)
{
    for (size_t i = 0; i < r->count; i++) free(r->text[i]);
    free(r->text);
    memset(r, 0, sizeof *r);
}

/* The device's side of a message: "device 0 has 3.5 GiB usable (3.6 GiB free of 4.0 GiB; 256 MiB kept for the
 * runtime)". */
static void budget_text(const fit_budget *b, size_t usable, char *buf, size_t len)
{
    char u[32], f[32], t[32], m[32];
    format_bytes((double)usable, u, sizeof u);
    format_bytes((double)(b->free_bytes + b->held_bytes), f, sizeof f);
    format_bytes((double)b->total_bytes, t, sizeof t);
    format_bytes((double)FIT_MARGIN_BYTES, m, sizeof m);
    snprintf(buf, len, "device %d has %s usable (%s free of %s; %s kept for the runtime)", b->ordinal, u, f, t, m);
}

/* The smallest need of each size in the plan and whether anything of it fits. */
typedef struct size_need {
    size_t n, min_need, min_index;
    int fits;
} size_need;

typedef struct plan_needs {
    size_need sizes[AXES_MAX_VALUES];
    size_t n_sizes, runnable, fitting, min_need, min_index;
} plan_needs;

static void plan_needs_of(const sweep_plan *p, const fit_budget *b, size_t usable, plan_needs *pn)
{
    memset(pn, 0, sizeof *pn);
    pn->min_need = (size_t)-1;
    for (size_t i = 0; i < p->count; i++) {
        const sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue;
        size_t need = config_need(c, b);
        int fits = need <= usable;
        pn->runnable++;
        pn->fitting += fits;
        if (need < pn->min_need) {
            pn->min_need = need;
            pn->min_index = i;
        }
        size_t k = 0;
        while (k < pn->n_sizes && pn->sizes[k].n != c->n) k++;
        if (k == pn->n_sizes) {
            if (pn->n_sizes == AXES_MAX_VALUES) continue;
            pn->sizes[k] = (size_need){c->n, need, i, 0};
            pn->n_sizes++;
        }
        if (need < pn->sizes[k].min_need) {
            pn->sizes[k].min_need = need;
            pn->sizes[k].min_index = i;
        }
        pn->sizes[k].fits |= fits;
    }
}

/* Every runnable configuration that does not fit becomes a skipped row. */
static long mark_unfit(sweep_plan *p, const fit_budget *b, size_t usable, fit_reasons *r)
{
    long marked = 0;
    char u[32], need_s[32], free_s[32];
    format_bytes((double)usable, u, sizeof u);
    format_bytes((double)(b->free_bytes + b->held_bytes), free_s, sizeof free_s);
    for (size_t i = 0; i < p->count; i++) {
        sweep_config *c = &p->configs[i];
        if (c->skip_reason) continue;
        size_t need = config_need(c, b);
        if (need <= usable) continue;
        char text[384];
        format_bytes((double)need, need_s, sizeof need_s);
        snprintf(text, sizeof text,
                 "does not fit in device memory: needs %s, the device has %s free (device %d; the need counts the L2 "
                 "flush buffer and validation's allowance, %s of the free memory is usable)",
                 need_s, free_s, b->ordinal, u);
        const char *kept = keep_reason(r, text);
        c->skip_reason = kept ? kept : "does not fit in device memory";
        p->skipped++;
        marked++;
    }
    return marked;
}

long plan_fit_memory(sweep_plan *p, const fit_budget *b, const char *sizes_origin, fit_reasons *r, char *err,
                     size_t errlen)
{
    size_t usable = b->free_bytes + b->held_bytes;
    usable = usable > FIT_MARGIN_BYTES ? usable - FIT_MARGIN_BYTES : 0;
    char held[32], have[256], label[256], need_s[32];
    format_bytes((double)b->held_bytes, held, sizeof held);
    budget_text(b, usable, have, sizeof have);
    plan_needs pn;
    plan_needs_of(p, b, usable, &pn);
    if (sizes_origin)
        for (size_t k = 0; k < pn.n_sizes; k++) {
            if (pn.sizes[k].fits) continue;
            char n_s[32];
            format_size(pn.sizes[k].n, n_s, sizeof n_s);
            format_bytes((double)pn.sizes[k].min_need, need_s, sizeof need_s);
            config_label(&p->configs[pn.sizes[k].min_index], label, sizeof label);
            snprintf(err, errlen,
                     "%s: n=%s does not fit in device memory: its smallest configuration (%s) needs %s (input, "
                     "output, workspace, validation's allowance and the %s L2 flush buffer); %s",
                     sizes_origin, n_s, label, need_s, held, have);
            return -1;
        }
    if (pn.runnable && !pn.fitting) {
        format_bytes((double)pn.min_need, need_s, sizeof need_s);
        config_label(&p->configs[pn.min_index], label, sizeof label);
        snprintf(err, errlen,
                 "no configuration of the plan fits in device memory: the smallest (%s) needs %s (input, output, "
                 "workspace, validation's allowance and the %s L2 flush buffer); %s",
                 label, need_s, held, have);
        return -1;
    }
    return mark_unfit(p, b, usable, r);
}
