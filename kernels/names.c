#include "kernels/variant.h"

#include <string.h>

static const char *const dtype_names[DTYPE_COUNT] = {"f32", "f64", "i32"};
static const size_t dtype_sizes[DTYPE_COUNT] = {4, 8, 4};
static const char *const op_names[OP_COUNT] = {"sum", "max", "min"};
static const char *const finish_names[FINISH_COUNT] = {"none", "recursive", "two_step", "atomic"};
static const char *const scan_mode_names[SCAN_MODE_COUNT] = {"inclusive", "exclusive"};

size_t dtype_size(dtype_t d) { return (unsigned)d < DTYPE_COUNT ? dtype_sizes[d] : 0; }
const char *dtype_name(dtype_t d) { return (unsigned)d < DTYPE_COUNT ? dtype_names[d] : "?"; }
const char *op_name(op_t o) { return (unsigned)o < OP_COUNT ? op_names[o] : "?"; }
const char *finish_name(finish_t f) { return (unsigned)f < FINISH_COUNT ? finish_names[f] : "?"; }
const char *scan_mode_name(scan_mode_t m) { return (unsigned)m < SCAN_MODE_COUNT ? scan_mode_names[m] : "?"; }
const char *kind_name(kind_t k) { return k == KIND_REDUCE ? "reduce" : k == KIND_SCAN ? "scan" : "?"; }

static int lookup(const char *const *names, int count, const char *s)
{
    for (int i = 0; i < count; i++)
        if (s && strcmp(names[i], s) == 0) return i;
    return -1;
}

int dtype_from_name(const char *s) { return lookup(dtype_names, DTYPE_COUNT, s); }
int op_from_name(const char *s) { return lookup(op_names, OP_COUNT, s); }
int finish_from_name(const char *s) { return lookup(finish_names, FINISH_COUNT, s); }
int scan_mode_from_name(const char *s) { return lookup(scan_mode_names, SCAN_MODE_COUNT, s); }
