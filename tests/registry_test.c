/* Registry consistency: every variant is complete and its axes make sense. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/registry.h"

static int is_pow2(unsigned x) { return x && !(x & (x - 1)); }

static void test_every_variant_complete(void **state)
{
    (void)state;
    assert_true(registry_count() > 0);
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        assert_non_null(v);
        assert_non_null(v->name);
        assert_non_null(v->alias);
        assert_non_null(v->family);
        assert_non_null(v->description);
        assert_non_null(v->launch);
        assert_non_null(v->workspace_size);
        assert_non_null(v->bytes_moved);
        assert_int_equal(v->runner, RUNNER_DEVICE); /* only the harness's CPU baseline runs on the host */
        assert_true(strlen(v->description) > 10);
        assert_true(v->kind == KIND_REDUCE || v->kind == KIND_SCAN);
        /* names say what it is: the kind is the prefix */
        assert_int_equal(strncmp(v->name, v->kind == KIND_REDUCE ? "reduce_" : "scan_", v->kind == KIND_REDUCE ? 7 : 5), 0);
    }
}

static void test_names_unique(void **state)
{
    (void)state;
    for (size_t i = 0; i < registry_count(); i++)
        for (size_t j = i + 1; j < registry_count(); j++)
            assert_string_not_equal(registry_get(i)->name, registry_get(j)->name);
}

static void test_axes_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        assert_true(v->dtypes != 0 && (v->dtypes & ~DTYPES_ALL) == 0);
        assert_true(v->ops != 0 && (v->ops & ~OPS_ALL) == 0);
        assert_true(v->block_dims != 0 && (v->block_dims & ~BLOCKS_32_TO_1024) == 0);
        assert_true(v->coarse_factors != 0);
        if (v->excluded_pairs) assert_non_null(v->limits); /* say why */
        if (v->kind == KIND_REDUCE) {
            assert_true(v->finishes != 0 && v->finishes < (1u << FINISH_COUNT));
            assert_int_equal(v->scan_modes, 0);
        } else {
            assert_true(v->scan_modes != 0 && v->scan_modes <= SCAN_BOTH);
        }
        /* At least one full configuration is accepted, and its models answer. */
        int found = 0;
        for (unsigned b = 32; b <= 1024 && !found; b *= 2)
            for (unsigned c = 1; c <= 64 && !found; c *= 2)
                for (int d = 0; d < DTYPE_COUNT && !found; d++)
                    for (int o = 0; o < OP_COUNT && !found; o++)
                        for (int m = 0; m < FINISH_COUNT && !found; m++) {
                            kernel_args a = {.dtype = (dtype_t)d, .op = (op_t)o, .n = 1 << 16, .block_dim = b,
                                             .coarse = c};
                            if (v->kind == KIND_REDUCE) a.finish = (finish_t)m;
                            else if (m < SCAN_MODE_COUNT) a.scan_mode = (scan_mode_t)m;
                            else continue;
                            if (variant_accepts(v, &a, NULL) != 0) continue;
                            found = 1;
                            assert_true(v->bytes_moved(&a) >= (double)a.n * dtype_size(a.dtype));
                        }
        assert_true(found);
        (void)is_pow2;
    }
}

static void test_find_by_name_and_alias(void **state)
{
    (void)state;
    const variant *v = registry_find("reduce_interleaved_divergent");
    assert_non_null(v);
    assert_ptr_equal(registry_find("reduce0"), v);
    assert_ptr_equal(registry_find("reduce_v0"), v);
    assert_null(registry_find("reduce"));
    assert_null(registry_find("no_such_variant"));
}

static void test_accepts_rejects_with_reason(void **state)
{
    (void)state;
    const variant *v = registry_find("reduce_interleaved_divergent");
    kernel_args a = {.dtype = DTYPE_F32, .op = OP_SUM, .n = 1000, .block_dim = 256, .coarse = 1,
                     .finish = FINISH_RECURSIVE};
    const char *why = "unset";
    assert_int_equal(variant_accepts(v, &a, &why), 0);
    assert_null(why);
    kernel_args bad = a;
    bad.block_dim = 100;
    assert_int_equal(variant_accepts(v, &bad, &why), -1);
    assert_non_null(strstr(why, "block dim"));
    bad = a;
    bad.n = 0;
    assert_int_equal(variant_accepts(v, &bad, &why), -1);
    bad = a;
    bad.finish = FINISH_NONE;
    assert_int_equal(variant_accepts(v, &bad, &why), -1);
    bad = a;
    bad.coarse = 3;
    assert_int_equal(variant_accepts(v, &bad, &why), -1);
    const variant *atom = registry_find("reduce_atomic_global");
    kernel_args fmax = {.dtype = DTYPE_F32, .op = OP_MAX, .n = 1000, .block_dim = 256, .coarse = 1};
    assert_int_equal(variant_accepts(atom, &fmax, &why), -1);
    assert_non_null(strstr(why, "max/min"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_variant_complete),
        cmocka_unit_test(test_names_unique),
        cmocka_unit_test(test_axes_valid),
        cmocka_unit_test(test_find_by_name_and_alias),
        cmocka_unit_test(test_accepts_rejects_with_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
