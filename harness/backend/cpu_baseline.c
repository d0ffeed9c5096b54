/* See cpu_baseline.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness/backend/cpu_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/check/check.h"
#include "harness/reference/reference.h"
#include "harness/reference/validate.h"

typedef struct pass_ctx {
    const void *in;
    const kernel_args *a;
    volatile unsigned char sink; /* keeps every pass's result alive */
} pass_ctx;

/* One pass; the result as the GPU would return it (dtype-sized, host memory). */
static void serial_pass(const void *in, const kernel_args *a, void *result)
{
    size_t n = a->n;
    switch (a->dtype) {
    case DTYPE_F32: {
        const float *x = in;
        double acc = a->op == OP_SUM ? 0.0 : x[0];
        for (size_t i = a->op == OP_SUM ? 0 : 1; i < n; i++)
            acc = a->op == OP_SUM ? acc + x[i] : a->op == OP_MAX ? fmax(acc, x[i]) : fmin(acc, x[i]);
        *(float *)result = (float)acc;
        break;
    }
    case DTYPE_F64: {
        const double *x = in;
        double acc = a->op == OP_SUM ? 0.0 : x[0];
        for (size_t i = a->op == OP_SUM ? 0 : 1; i < n; i++)
            acc = a->op == OP_SUM ? acc + x[i] : a->op == OP_MAX ? fmax(acc, x[i]) : fmin(acc, x[i]);
        *(double *)result = acc;
        break;
    }
    default: {
        const int32_t *x = in;
        int64_t acc = a->op == OP_SUM ? 0 : x[0];
        for (size_t i = a->op == OP_SUM ? 0 : 1; i < n; i++)
            acc = a->op == OP_SUM ? acc + x[i] : a->op == OP_MAX ? (x[i] > acc ? x[i] : acc) : (x[i] < acc ? x[i] : acc);
        *(int32_t *)result = (int32_t)(uint32_t)(uint64_t)acc;
        break;
    }
    }
}

static int timed_pass(void *p, double *ms)
{
    pass_ctx *c = p;
    double r[1]; /* room for one value of any dtype, suitably aligned */
    double t0 = timing_now();
    serial_pass(c->in, c->a, r);
    *ms = (timing_now() - t0) * 1e3;
    c->sink = *(const unsigned char *)r;
    return 0;
}

int cpu_serial_run(const kernel_args *cfg, uint64_t seed, const timing_params *p, double budget_s,
                   volatile sig_atomic_t *interrupt, sweep_validation *val, timing_stats *out)
{
    memset(val, 0, sizeof *val);
    memset(out, 0, sizeof *out);
    val->error_abs = val->tolerance_abs = NAN;
    void *in = malloc(cfg->n * dtype_size(cfg->dtype));
    if (!in) {
        snprintf(val->message, sizeof val->message, "out of host memory for %zu elements", cfg->n);
        return -1;
    }
    random_fill(in, cfg->n, cfg->dtype, seed);
    double abs_sum = 0;
    ref_value ref = reference_reduce(in, cfg->n, cfg->dtype, cfg->op, &abs_sum);
    double got[1];
    serial_pass(in, cfg, got);
    validate_result v = validate_reduce(got, cfg->dtype, cfg->op, cfg->n, ref, abs_sum);
    val->ok = v.ok;
    val->error_abs = v.error;
    val->tolerance_abs = v.tolerance;
    if (!v.ok) snprintf(val->message, sizeof val->message, "%s", v.message);
    if (v.ok) {
        pass_ctx c = {in, cfg, 0};
        timing_measure(p, budget_s, timed_pass, &c, interrupt, out);
    }
    free(in);
    return 0;
}
