/* Every registered device variant past 2^31: one configuration at
 * n = 2^31 + 1029 (odd, past every 32-bit boundary), i32 sum (exact) and,
 * for the fast variants, f32 sum, each checked end to end by check_run (fresh
 * random input, poisoned output, every element against the CPU reference);
 * n = 2^32 + 3 too for CUB and the two fastest of each kind. A variant whose
 * max_n is below n must refuse it through variant_accepts, with its reason.
 * One line per check: "big-n reduce_coarsened 2147484677 i32 sum ok 1.8 s".
 * Skips (exit 0) without a CUDA device. GPU_TEST_VARIANTS=a,b narrows it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/check/check.h"
#include "harness/device/device.h"
#include "kernels/registry.h"

#define N_PAST_31 (((size_t)1 << 31) + 1029)
#define N_PAST_32 (((size_t)1 << 32) + 3)

static const char *const fast[] = {"reduce_coarsened", "reduce_vectorized_single_pass", "reduce_one_launch",
                                   "reduce_bulk_ring", "reduce_warp_shuffle", "reduce_multi_element",
                                   "reduce_cooperative_groups", "reduce_atomic_shared", "reduce_cub",
                                   "scan_decoupled_lookback", "scan_lookback_vectorized", "scan_lookahead_bulk",
                                   "scan_reduce_then_scan", "scan_hierarchical", "scan_coarsened", "scan_cub", NULL};
static const char *const past_32[] = {"reduce_cub", "scan_cub", "reduce_one_launch", "reduce_coarsened",
                                      "scan_lookahead_bulk", "scan_lookback_vectorized", NULL};

static int listed(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (!strcmp(*list, name)) return 1;
    return 0;
}

static int selected(const char *name)
{
    const char *only = getenv("GPU_TEST_VARIANTS");
    if (!only || !*only) return 1;
    size_t len = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += len)
        if ((p == only || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One configuration of v: its largest accepted block dim up to 512, the top
 * value of its first own axis and the lowest of its second, its first finish
 * or scan mode (inclusive). */
static kernel_args config_of(const variant *v, dtype_t d, size_t n)
{
    kernel_args a;
    memset(&a, 0, sizeof a);
    a.dtype = d;
    a.op = OP_SUM;
    a.n = n;
    for (unsigned b = 32; b <= 512; b *= 2)
        if (v->block_dims & b) a.block_dim = b;
    if (!a.block_dim) a.block_dim = 1u << __builtin_ctz(v->block_dims);
    unsigned s0 = variant_axis_set(v, 0), s1 = variant_axis_set(v, 1);
    a.axis[0] = 1u << (31 - __builtin_clz(s0));
    a.axis[1] = 1u << __builtin_ctz(s1);
    if (v->kind == KIND_REDUCE) a.finish = (finish_t)__builtin_ctz(v->finishes);
    else a.scan_mode = SCAN_INCLUSIVE;
    return a;
}

/* 0 when the check (or the refusal, for a variant with a smaller max_n) holds. */
static int check_one(check_ctx *ctx, const variant *v, dtype_t d, size_t n, uint64_t seed)
{
    kernel_args a = config_of(v, d, n);
    const char *why = NULL;
    int accepted = variant_accepts(v, &a, &why) == 0;
    if (v->max_n && n > v->max_n) {
        if (accepted) {
            printf("big-n FAIL %s %zu %s sum: accepted above its max_n %zu\n", v->name, n, dtype_name(d), v->max_n);
            return 1;
        }
        if (!why || !strstr(why, "max_n")) {
            printf("big-n FAIL %s %zu %s sum: refused for another reason: %s\n", v->name, n, dtype_name(d),
                   why ? why : "(none)");
            return 1;
        }
        printf("big-n %s %zu %s sum refused ok (max_n %zu: %s; %s)\n", v->name, n, dtype_name(d), v->max_n,
               why ? why : "?", v->limits ? v->limits : "no limits text");
        return 0;
    }
    if (!accepted) {
        printf("big-n FAIL %s %zu %s sum block %u axis %u: refused: %s\n", v->name, n, dtype_name(d), a.block_dim,
               a.axis[0], why ? why : "?");
        return 1;
    }
    double t0 = now_s();
    check_result r = check_run(ctx, v, &a, seed);
    double dt = now_s() - t0;
    if (!r.ok) {
        printf("big-n FAIL %s %zu %s sum block %u axis %u: %s\n", v->name, n, dtype_name(d), a.block_dim, a.axis[0],
               r.message);
        return 1;
    }
    printf("big-n %s %zu %s sum ok %.1f s\n", v->name, n, dtype_name(d), dt);
    fflush(stdout);
    return 0;
}

int main(void)
{
    if (device_skip_if_absent()) return 0;
    check_ctx *ctx = check_create();
    if (!ctx) {
        printf("big-n FAIL: check_create failed\n");
        return 1;
    }
    int failed = 0, checks = 0;
    /* Fresh each run; one input per dtype and n, shared by every variant (as
     * the sweep shares one per configuration group), so a validator that keeps
     * its reference between calls computes it once. */
    const uint64_t base = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
    printf("big-n: seed base %llu\n", (unsigned long long)base);
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        if (v->runner != RUNNER_DEVICE || !selected(v->name)) continue;
        failed += check_one(ctx, v, DTYPE_I32, N_PAST_31, base + 1);
        checks++;
        if (listed(fast, v->name)) {
            failed += check_one(ctx, v, DTYPE_F32, N_PAST_31, base + 2);
            checks++;
        }
        if (listed(past_32, v->name)) {
            failed += check_one(ctx, v, DTYPE_I32, N_PAST_32, base + 3);
            checks++;
        }
    }
    check_destroy(ctx);
    printf("big-n: %d checks, %d failed\n", checks, failed);
    /* cmocka's summary lines, which tools/count-tests.sh adds up */
    printf("[==========] %d test(s) run.\n[  PASSED  ] %d test(s).\n", checks, checks - failed);
    if (failed) printf("[  FAILED  ] %d test(s).\n", failed);
    return failed ? 1 : 0;
}
