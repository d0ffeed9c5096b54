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

static void fold_step(fold *f, const void *in, size_t i)
{
    if (f->d == DTYPE_I32) {
        int64_t x = ((const int32_t *)in)[i];
        f->abs += (double)llabs(x);
        if (f->op == OP_SUM) f->i64 += x;
        else if (f->op == OP_MAX) f->i64 = x > f->i64 ? x : f->i64;
        else f->i64 = x < f->i64 ? x : f->i64;
        return;
    }
    double x = load(in, i, f->d);
    f->abs += fabs(x);
    if (f->op == OP_SUM) kahan_add(&f->k, x);
    else if (f->op == OP_MAX) f->ext = x > f->ext ? x : f->ext;
    else f->ext = x < f->ext ? x : f->ext;
}

static ref_value fold_value(const fold *f)
{
    ref_value r;
    if (f->d == DTYPE_I32) {
        r.i = f->i64;
        r.d = (double)f->i64;
    } else {
        r.i = 0;
        r.d = f->op == OP_SUM ? kahan_value(&f->k) : f->ext;
    }
    return r;
}

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
    for (size_t i = 0; i < n; i++) fold_step(&f, in, i);
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
    for (size_t i = 0; i < n; i++) {
        if (mode == SCAN_EXCLUSIVE) {
            out_val[i] = fold_value(&f);
            if (out_abs) out_abs[i] = f.abs;
            fold_step(&f, in, i);
        } else {
            fold_step(&f, in, i);
            out_val[i] = fold_value(&f);
            if (out_abs) out_abs[i] = f.abs;
        }
    }
}
