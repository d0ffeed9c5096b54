/* CPU references. Trusted code: plain loops, no cleverness beyond compensated
 * summation, which makes the reference's own error negligible (about 2u|sum|
 * in double) next to the GPU's float error. */
#include "harness/reference/reference.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    double sum, comp; /* Neumaier: sum + comp is the running total */
} kahan;

static void kahan_add(kahan *k, double x)
{
    double t = k->sum + x;
    if (fabs(k->sum) >= fabs(x)) k->comp += (k->sum - t) + x;
    else k->comp += (x - t) + k->sum;
    k->sum = t;
}

static double kahan_value(const kahan *k) { return k->sum + k->comp; }

static double load(const void *in, size_t i, dtype_t d)
{
    switch (d) {
    case DTYPE_F32: return ((const float *)in)[i];
    case DTYPE_F64: return ((const double *)in)[i];
    case DTYPE_I32: return ((const int32_t *)in)[i];
    default: return NAN;
    }
}

ref_value reference_identity(dtype_t d, op_t op)
{
    ref_value r = {0, 0};
    if (op == OP_MAX) {
        if (d == DTYPE_I32) r.i = INT32_MIN, r.d = INT32_MIN;
        else r.d = -INFINITY;
    } else if (op == OP_MIN) {
        if (d == DTYPE_I32) r.i = INT32_MAX, r.d = INT32_MAX;
        else r.d = INFINITY;
    }
    return r;
}

/* One running state for any op; `step` folds element i in. */
typedef struct {
    dtype_t d;
    op_t op;
    kahan k;     /* float sums */
    int64_t i64; /* i32 sums (exact), i32 max/min */
    double ext;  /* float max/min */
    double abs;  /* running sum of |x| */
} fold;

static void fold_init(fold *f, dtype_t d, op_t op)
{
    ref_value id = reference_identity(d, op);
    f->d = d;
    f->op = op;
    f->k.sum = f->k.comp = 0;
    f->i64 = id.i;
    f->ext = id.d;
    f->abs = 0;
}

/* Element i folded in, for a dtype and op the caller names: fold_loop passes
 * constants, so each of its nine copies has no per-element switch. */
static inline void fold_step(fold *f, const void *in, size_t i, dtype_t d, op_t op)
{
    if (d == DTYPE_I32) {
        int64_t x = ((const int32_t *)in)[i];
        f->abs += (double)llabs(x);
        if (op == OP_SUM) f->i64 += x;
        else if (op == OP_MAX) f->i64 = x > f->i64 ? x : f->i64;
        else f->i64 = x < f->i64 ? x : f->i64;
        return;
    }
    double x = load(in, i, d);
    f->abs += fabs(x);
    if (op == OP_SUM) kahan_add(&f->k, x);
    else if (op == OP_MAX) f->ext = x > f->ext ? x : f->ext;
    else f->ext = x < f->ext ? x : f->ext;
}

static inline ref_value fold_value_of(const fold *f, dtype_t d, op_t op)
{
    ref_value r;
    if (d == DTYPE_I32) {
        r.i = f->i64;
        r.d = (double)f->i64;
    } else {
        r.i = 0;
        r.d = op == OP_SUM ? kahan_value(&f->k) : f->ext;
    }
    return r;
}

static ref_value fold_value(const fold *f) { return fold_value_of(f, f->d, f->op); }

/* n elements folded in; with out_val, each prefix written (a scan). The state
 * is a local copy, so it stays in registers: with the state in memory and a
 * switch per element a float sum took 6 ns an element, this 1.5-2. */
static inline __attribute__((always_inline)) void fold_loop(fold *f, const void *in, size_t n, dtype_t d, op_t op,
                                                            scan_mode_t mode, ref_value *out_val, double *out_abs)
{
    fold s = *f;
    for (size_t i = 0; i < n; i++) {
        if (out_val && mode == SCAN_EXCLUSIVE) {
            out_val[i] = fold_value_of(&s, d, op);
            if (out_abs) out_abs[i] = s.abs;
        }
        fold_step(&s, in, i, d, op);
        if (out_val && mode != SCAN_EXCLUSIVE) {
            out_val[i] = fold_value_of(&s, d, op);
            if (out_abs) out_abs[i] = s.abs;
        }
    }
    *f = s;
}

#define FOLD_OPS(D)                                                                                                    \
    case D:                                                                                                            \
        if (f->op == OP_SUM) fold_loop(f, in, n, D, OP_SUM, mode, out_val, out_abs);                                   \
        else if (f->op == OP_MAX) fold_loop(f, in, n, D, OP_MAX, mode, out_val, out_abs);                              \
        else fold_loop(f, in, n, D, OP_MIN, mode, out_val, out_abs);                                                   \
        return

static void fold_range(fold *f, const void *in, size_t n, scan_mode_t mode, ref_value *out_val, double *out_abs)
{
    switch (f->d) {
        FOLD_OPS(DTYPE_F32);
        FOLD_OPS(DTYPE_F64);
        FOLD_OPS(DTYPE_I32);
    default: return;
    }
}
#undef FOLD_OPS

ref_value reference_reduce(const void *in, size_t n, dtype_t d, op_t op, double *abs_sum)
{
    ref_carry c = reference_fold(in, n, d, op);
    if (abs_sum) *abs_sum = c.abs;
    return c.value;
}

static ref_carry carry_of(const fold *f)
{
    ref_carry c = {fold_value(f), f->k.sum, f->k.comp, f->abs};
    return c;
}

ref_carry reference_fold(const void *in, size_t n, dtype_t d, op_t op)
{
    fold f;
    fold_init(&f, d, op);
    fold_range(&f, in, n, SCAN_INCLUSIVE, NULL, NULL);
    return carry_of(&f);
}

ref_carry reference_combine(ref_carry a, ref_carry b, dtype_t d, op_t op)
{
    fold f;
    fold_init(&f, d, op);
    f.k.sum = a.sum;
    f.k.comp = a.comp;
    f.i64 = a.value.i;
    f.ext = a.value.d;
    f.abs = a.abs + b.abs;
    if (d == DTYPE_I32) {
        if (op == OP_SUM) f.i64 += b.value.i;
        else if (op == OP_MAX) f.i64 = b.value.i > f.i64 ? b.value.i : f.i64;
        else f.i64 = b.value.i < f.i64 ? b.value.i : f.i64;
    } else if (op == OP_SUM) {
        kahan_add(&f.k, b.sum);
        kahan_add(&f.k, b.comp);
    } else if (op == OP_MAX) {
        f.ext = b.value.d > f.ext ? b.value.d : f.ext;
    } else {
        f.ext = b.value.d < f.ext ? b.value.d : f.ext;
    }
    return carry_of(&f);
}

void reference_scan(const void *in, size_t n, dtype_t d, op_t op, scan_mode_t mode, ref_value *out_val,
                    double *out_abs)
{
    reference_scan_from(in, n, d, op, mode, NULL, out_val, out_abs);
}

void reference_scan_from(const void *in, size_t n, dtype_t d, op_t op, scan_mode_t mode, const ref_carry *carry,
                         ref_value *out_val, double *out_abs)
{
    fold f;
    fold_init(&f, d, op);
    if (carry) {
        f.k.sum = carry->sum;
        f.k.comp = carry->comp;
        f.i64 = carry->value.i;
        f.ext = carry->value.d;
        f.abs = carry->abs;
    }
    fold_range(&f, in, n, mode, out_val, out_abs);
}
