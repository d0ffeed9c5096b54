/* Registry consistency: every variant is complete and its axes make sense;
 * a failed check names the variant. Optional fields (.alias, .limits,
 * .max_n, .workspace_init) may be left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/registry.h"

/* A failed check says which variant (its position in kernels/variants.def
 * when it has no name) and what is wrong. */
#define CHECK(i, v, cond, what)                                                                                    \
    do {                                                                                                         \
        if (!(cond))                                                                                             \
            fail_msg("variant %s (entry %zu of kernels/variants.def): %s", (v)->name ? (v)->name : "(no .name)", \
                     (size_t)(i) + 1, what);                                                                     \
    } while (0)

static void test_every_variant_complete(void **state)
{
    (void)state;
    assert_true(registry_count() > 0);
    for (size_t i = 0; i < registry_count(); i++) {
        const variant *v = registry_get(i);
        assert_non_null(v);
        CHECK(i, v, v->name, "no .name");
        CHECK(i, v, v->family, "no .family (it groups variants in plots and NVTX colours)");
        CHECK(i, v, v->description, "no .description");
        CHECK(i, v, v->launch && v->workspace_size && v->bytes_moved,
              "no launch, workspace or bytes function: build it with REDUCE_VARIANT, "
              "BLOCK_PARTIALS_REDUCE_VARIANT or SCAN_VARIANT (kernels/variant.h)");
        /* only the harness's CPU baseline runs on the host */
        CHECK(i, v, v->runner == RUNNER_DEVICE, "runner is not RUNNER_DEVICE");
        CHECK(i, v, strlen(v->description) > 10, ".description is shorter than one line of words");
        CHECK(i, v, v->kind == KIND_REDUCE || v->kind == KIND_SCAN, "kind is neither reduce nor scan");
        /* names say what it is: the kind is the prefix */
        CHECK(i, v, !strncmp(v->name, v->kind == KIND_REDUCE ? "reduce_" : "scan_", v->kind == KIND_REDUCE ? 7 : 5),
              "its name does not start with its kind (reduce_ or scan_)");
        /* .alias is optional: where there is one, it holds names */
        CHECK(i, v, !v->alias || (v->alias[0] && v->alias[0] != ','), ".alias is empty or starts with a comma");
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
        CHECK(i, v, v->dtypes != 0 && (v->dtypes & ~DTYPES_ALL) == 0, "dtypes empty or unknown");
        CHECK(i, v, v->ops != 0 && (v->ops & ~OPS_ALL) == 0, "ops empty or unknown");
        CHECK(i, v, v->block_dims != 0 && (v->block_dims & ~BLOCKS_32_TO_1024) == 0,
              ".block_dims empty or outside 32..1024 (powers of two)");
        CHECK(i, v, variant_axis_set(v, 0) != 0, "own axis 0 accepts nothing (AXIS_NONE where it has none)");
        CHECK(i, v, !v->excluded_pairs || v->limits, ".excluded_pairs without .limits saying why");
        if (v->kind == KIND_REDUCE) {
            CHECK(i, v, v->finishes != 0 && v->finishes < (1u << FINISH_COUNT), "reduction without finishes");
            CHECK(i, v, v->scan_modes == 0, "reduction with scan modes");
        } else {
            CHECK(i, v, v->scan_modes != 0 && v->scan_modes <= SCAN_BOTH, "scan without scan modes");
        }
        /* At least one full configuration is accepted, and its models answer. */
        int found = 0;
        for (unsigned b = 32; b <= 1024 && !found; b *= 2)
            for (unsigned c = 1; c <= 64 && !found; c *= 2)
                for (int d = 0; d < DTYPE_COUNT && !found; d++)
                    for (int o = 0; o < OP_COUNT && !found; o++)
                        for (int m = 0; m < FINISH_COUNT && !found; m++) {
                            /* own axis 1: its smallest value (1 where the variant has none) */
                            unsigned c1 = 1u << __builtin_ctz(variant_axis_set(v, 1));
                            kernel_args a = {.dtype = (dtype_t)d, .op = (op_t)o, .n = 1 << 16, .block_dim = b,
                                             .axis = {c, c1}};
                            if (v->kind == KIND_REDUCE) a.finish = (finish_t)m;
                            else if (m < SCAN_MODE_COUNT) a.scan_mode = (scan_mode_t)m;
                            else continue;
                            if (variant_accepts(v, &a, NULL) != 0) continue;
                            found = 1;
                            CHECK(i, v, v->bytes_moved(&a) >= (double)a.n * dtype_size(a.dtype),
                                  "bytes moved below one read of the input at n = 2^16");
                        }
        CHECK(i, v, found, "accepts no configuration at n = 2^16");
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
    kernel_args a = {.dtype = DTYPE_F32, .op = OP_SUM, .n = 1000, .block_dim = 256, .axis = {1, 1},
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
    bad.axis[0] = 3;
    assert_int_equal(variant_accepts(v, &bad, &why), -1);
    const variant *atom = registry_find("reduce_atomic_global");
    kernel_args fmax = {.dtype = DTYPE_F32, .op = OP_MAX, .n = 1000, .block_dim = 256, .axis = {1, 1}};
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
