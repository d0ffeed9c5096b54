#include "tests/gpu_variants.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "harness/check/check.h"
#include "harness/device/device.h"
#include "kernels/registry.h"

#define MAX_SIZES 16
#define MAX_PRINTED_FAILURES 20

static int have_device;
static check_ctx *ctx;
static uint64_t seed_base;
static uint64_t seed_counter;
static size_t g_extra_n;
static const char *const *g_extra_for;
static size_t total_configs, total_failed;

static int in_list(const char *env, const char *name)
{
    const char *list = getenv(env);
    if (!list || !*list) return 1;
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0')) return 1;
        p = strchr(p, ',');
        if (p) p++;
    }
    return 0;
}

static int number_in_list(const char *env, size_t x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", x);
    return in_list(env, buf);
}

static int wants_extra(const variant *v)
{
    if (!g_extra_n) return 0;
    if (!g_extra_for) return 1;
    for (const char *const *p = g_extra_for; *p; p++)
        if (strcmp(*p, v->name) == 0) return 1;
    return 0;
}

static size_t sizes_for(const variant *v, unsigned block, size_t *out)
{
    size_t k = 0;
    const char *env = getenv("GPU_TEST_SIZES");
    if (env && *env) {
        for (const char *p = env; p && *p && k < MAX_SIZES;) {
            out[k++] = strtoull(p, NULL, 10);
            p = strchr(p, ',');
            if (p) p++;
        }
        return k;
    }
    size_t base[] = {1, 2, 31, block - 1, block, block + 1, 1000003, (size_t)1 << 24};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        int dup = base[i] == 0;
        for (size_t j = 0; j < k; j++) dup |= out[j] == base[i];
        if (!dup) out[k++] = base[i];
    }
    if (wants_extra(v)) out[k++] = g_extra_n;
    return k;
}

/* The two largest sizes (2^24 and the extra one) cross block dim x dtype x
 * mode for op sum only: max and min run at every smaller size, 1000003 (many
 * blocks) included, and the host-side reference and transfers at 2^27 cost
 * a quarter second per check. The extra size takes one coarse factor (the
 * largest accepted). GPU_TEST_LARGE_ALL=1 crosses everything. */
static unsigned axis_top(const variant *v, size_t k)
{
    return 1u << (31 - __builtin_clz(variant_axis_set(v, k)));
}

static int skip_large(const variant *v, size_t n, op_t op, const unsigned *axis)
{
    if (getenv("GPU_TEST_LARGE_ALL") && atoi(getenv("GPU_TEST_LARGE_ALL"))) return 0;
    if (getenv("GPU_TEST_SIZES") && *getenv("GPU_TEST_SIZES")) return 0;
    if (n < ((size_t)1 << 24)) return 0;
    if (op != OP_SUM) return 1;
    if (n > ((size_t)1 << 24)) return axis[0] != axis_top(v, 0) || axis[1] != axis_top(v, 1);
    return 0;
}

/* The values of a variant's own axes, as config_label names them: " a=2 b=16"
 * ("" for a variant without own axes). */
static void own_axes_text(const variant *v, const unsigned *axis, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t k = 0, used = 0; k < VARIANT_AXES_MAX && v->axes[k].name && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, " %s=%u", v->axes[k].name, axis[k]);
}

static const char *axis_name(const variant *v, const kernel_args *a)
{
    return v->kind == KIND_REDUCE ? finish_name(a->finish) : scan_mode_name(a->scan_mode);
}

static void test_variant(void **state)
{
    const variant *v = *state;
    if (!have_device) skip();
    int first_only = getenv("GPU_TEST_FIRST_AXES") && atoi(getenv("GPU_TEST_FIRST_AXES"));
    size_t configs = 0, failed = 0;
    time_t start = time(NULL);
    unsigned modes = v->kind == KIND_REDUCE ? v->finishes : v->scan_modes;
    int modes_count = v->kind == KIND_REDUCE ? FINISH_COUNT : SCAN_MODE_COUNT;

    for (unsigned block = 32; block <= 1024; block *= 2) {
        if (!(v->block_dims & block) || !number_in_list("GPU_TEST_BLOCK_DIMS", block)) continue;
        size_t sizes[MAX_SIZES];
        size_t nsizes = sizes_for(v, block, sizes);
        /* Every pair of own-axis values (axis 1 is 1 only for a variant with one or none). */
        int axes_done = 0;
        for (unsigned long long pair = 0; pair < 31ull * 31ull; pair++) {
            const unsigned axis[VARIANT_AXES_MAX] = {1u << (pair / 31), 1u << (pair % 31)};
            if (!(variant_axis_set(v, 0) & axis[0]) || !(variant_axis_set(v, 1) & axis[1]) ||
                (first_only && axes_done++))
                continue;
            int mode_done = 0;
            for (int m = 0; m < modes_count; m++) {
                if (!(modes & (1u << m)) || (first_only && mode_done++)) continue;
                for (int d = 0; d < DTYPE_COUNT; d++) {
                    if (!in_list("GPU_TEST_DTYPES", dtype_name((dtype_t)d))) continue;
                    for (int o = 0; o < OP_COUNT; o++) {
                        if (!in_list("GPU_TEST_OPS", op_name((op_t)o))) continue;
                        for (size_t s = 0; s < nsizes; s++) {
                            if (skip_large(v, sizes[s], (op_t)o, axis)) continue;
                            kernel_args a;
                            memset(&a, 0, sizeof a);
                            a.dtype = (dtype_t)d;
                            a.op = (op_t)o;
                            a.n = sizes[s];
                            a.block_dim = block;
                            a.axis[0] = axis[0];
                            a.axis[1] = axis[1];
                            if (v->kind == KIND_REDUCE) a.finish = (finish_t)m;
                            else a.scan_mode = (scan_mode_t)m;
                            if (variant_accepts(v, &a, NULL) != 0) continue;
                            check_result r = check_run(ctx, v, &a, seed_base + seed_counter++);
                            configs++;
                            if (r.ok) continue;
                            char own[128]; /* as config_label: the own axes by name, none without */
                            own_axes_text(v, axis, own, sizeof own);
                            if (failed++ < MAX_PRINTED_FAILURES)
                                print_error("FAIL %s block=%u%s %s %s %s n=%zu: %s\n", v->name, block, own,
                                            axis_name(v, &a), dtype_name(a.dtype), op_name(a.op), a.n, r.message);
                            if (r.cuda_error != cudaSuccess && r.cuda_error != cudaErrorInvalidValue &&
                                r.cuda_error != cudaErrorMemoryAllocation) {
                                /* A sticky error poisons the context: nothing after it can be trusted. */
                                cudaError_t sticky = cudaDeviceSynchronize();
                                if (sticky != cudaSuccess) {
                                    print_error("context lost (%s): stopping\n", cudaGetErrorString(sticky));
                                    fail();
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    total_configs += configs;
    total_failed += failed;
    print_message("%-34s %6zu configs, %zu failed, %lds\n", v->name, configs, failed, (long)(time(NULL) - start));
    assert_true(configs > 0);
    assert_int_equal(failed, 0);
}

int gpu_variants_main(kind_t kind, size_t extra_n, const char *const *extra_n_for)
{
    g_extra_n = extra_n;
    g_extra_for = extra_n_for;
    have_device = !device_skip_if_absent();
    seed_base = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
    ctx = check_create();

    size_t count = 0;
    struct CMUnitTest *tests = calloc(registry_count(), sizeof *tests);
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        if (v->kind != kind || !in_list("GPU_TEST_VARIANTS", v->name)) continue;
        tests[count].name = v->name;
        tests[count].test_func = test_variant;
        tests[count].initial_state = (void *)v;
        count++;
    }
    time_t start = time(NULL);
    int failed = _cmocka_run_group_tests(kind == KIND_REDUCE ? "gpu_reduce" : "gpu_scan", tests, count, NULL, NULL);
    if (have_device)
        printf("GPU %s checks: %zu configurations, %zu passed, %zu failed, %lds\n", kind_name(kind), total_configs,
               total_configs - total_failed, total_failed, (long)(time(NULL) - start));
    check_destroy(ctx);
    free(tests);
    return failed;
}
