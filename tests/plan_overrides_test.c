/* [axes:GLOB] keys are parsed once, when the file is read: the section holds
 * values (block dims, own axes by name, finishes, scan modes), and the plan
 * and the dry run use those values. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config/axis_values.h"
#include "harness/config/plan.h"
#include "harness/config/plan_axes.h"
#include "harness/config/settings.h"
#include "kernels/registry.h"

static char err[8192];

#define BASE                                                                                                    \
    "[experiment]\nvariants = reduce_coarsened, reduce_one_launch, scan_coarsened\n"                            \
    "[axes]\nsizes = 2^20\nblock_dims = 512\ncoarse = 2\n"

/* TEXT: sections at lines 7 and 11. */
#define TEXT                                                                                                    \
    BASE "[axes:reduce_coarsened]\nitems_per_thread = 16, 4\nfinishes = all\nblock_dims = 64..256\n"           \
         "[axes:scan_coarsened]\nscan_modes = all\n"

static experiment *load(const char *text)
{
    experiment *e = malloc(sizeof *e);
    assert_non_null(e);
    if (experiment_parse_string(text, "experiments/t.ini", e, err, sizeof err)) fail_msg("%s", err);
    return e;
}

static void test_sections_hold_values(void **state)
{
    (void)state;
    experiment *e = load(TEXT);
    assert_int_equal(e->n_overrides, 2);
    const axes_override *o = &e->overrides[0];
    assert_int_equal(o->n_keys, 3);
    assert_int_equal(o->keys[0].setting, OVERRIDE_AXIS_BY_NAME);
    assert_string_equal(o->keys[0].axis, "items_per_thread");
    assert_int_equal(o->keys[0].value.count, 2); /* ascending, as the parser gives them */
    assert_int_equal(o->keys[0].value.list[0], 4);
    assert_int_equal(o->keys[0].value.list[1], 16);
    assert_string_equal(settings_get(o->keys[1].setting)->key, "finishes");
    assert_int_equal(o->keys[1].value.policy, FINISHES_ALL);
    assert_string_equal(settings_get(o->keys[2].setting)->key, "block_dims");
    assert_int_equal(o->keys[2].value.count, 3);
    assert_int_equal(o->keys[2].value.list[0], 64);
    assert_int_equal(o->keys[2].value.list[2], 256);
    const axes_override *s = &e->overrides[1];
    assert_string_equal(settings_get(s->keys[0].setting)->key, "scan_modes");
    assert_int_equal(s->keys[0].value.mask, (1u << SCAN_MODE_COUNT) - 1);
    free(e);
}

/* The variant's view is the stored values over the experiment: change a
 * stored value and the view follows (no text is read again). */
static void test_variant_view_uses_values(void **state)
{
    (void)state;
    experiment *e = load(TEXT), *scratch = malloc(sizeof *scratch);
    assert_non_null(scratch);
    const variant *rc = registry_find("reduce_coarsened"), *ol = registry_find("reduce_one_launch");
    assert_true(experiment_for_variant(e, ol, scratch) == e); /* no section matches it */
    const experiment *x = experiment_for_variant(e, rc, scratch);
    assert_true(x == scratch);
    const axis_values *a = axis_values_of(x, "items_per_thread");
    assert_non_null(a);
    assert_int_equal(a->values.count, 2);
    assert_int_equal(x->finish_policy, FINISHES_ALL);
    assert_int_equal(x->block_dims.count, 3);
    assert_int_equal(e->block_dims.count, 1); /* the experiment itself unchanged */
    e->overrides[0].keys[0].value.list[1] = 32;
    x = experiment_for_variant(e, rc, scratch);
    assert_int_equal(axis_values_of(x, "items_per_thread")->values.v[1], 32);
    free(scratch);
    free(e);
}

static void test_plan_takes_section_values(void **state)
{
    (void)state;
    experiment *e = load(TEXT);
    sweep_plan p;
    if (plan_build(e, &p, err, sizeof err)) fail_msg("%s", err);
    const variant *rc = registry_find("reduce_coarsened");
    unsigned items = 0, blocks = 0, finishes = 0, modes = 0;
    size_t n_rc = 0;
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        if (c->v == rc) {
            n_rc++;
            items |= 1u << __builtin_ctz(c->axis[0]);
            blocks |= 1u << __builtin_ctz(c->block_dim);
            finishes |= 1u << c->finish;
        } else if (!strcmp(c->v->name, "scan_coarsened")) {
            modes |= 1u << c->scan_mode;
        } else {
            assert_int_equal(c->block_dim, 512); /* [axes] */
        }
    }
    assert_int_equal(items, (1u << 2) | (1u << 4));
    assert_int_equal(blocks, (1u << 6) | (1u << 7) | (1u << 8));
    assert_int_equal(finishes, rc->finishes); /* all it accepts */
    assert_int_equal(n_rc, 2 * 3 * (size_t)__builtin_popcount(rc->finishes));
    assert_int_equal(modes, (1u << SCAN_MODE_COUNT) - 1);
    plan_free(&p);
    free(e);
}

/* A named own axis beside another key, in a section for one variant alone:
 * the refusal names the file line (the plan once read a setting that is not there). */
static void test_named_axis_beside_a_refused_key(void **state)
{
    (void)state;
    experiment *e = load(BASE "[axes:reduce_one_launch]\nvectors_in_flight = 2\nfinishes = two_step\n");
    sweep_plan p;
    assert_int_equal(plan_build(e, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "experiments/t.ini:7: [axes:reduce_one_launch] finishes"));
    free(e);
}

static void test_dry_run_prints_values(void **state)
{
    (void)state;
    experiment *e = load(TEXT);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    plan_axes_print(f, e);
    fclose(f);
    assert_non_null(strstr(buf, "axes for reduce_coarsened (experiments/t.ini:7): items_per_thread 4,16; finishes "
                                "all; block_dims 64,128,256\n"));
    assert_non_null(strstr(buf, "axes for scan_coarsened (experiments/t.ini:11): scan_modes inclusive,exclusive\n"));
    free(buf);
    free(e);
}

/* A bad value is refused where it stands, when the file is read. */
static void test_bad_value_at_its_line(void **state)
{
    (void)state;
    experiment *e = malloc(sizeof *e);
    assert_non_null(e);
    assert_int_equal(experiment_parse_string(BASE "[axes:reduce_coarsened]\nitems_per_thread = 3\n",
                                             "experiments/t.ini", e, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "experiments/t.ini:8: [axes:reduce_coarsened] items_per_thread: "));
    assert_non_null(strstr(err, "'3'"));
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections_hold_values),   cmocka_unit_test(test_variant_view_uses_values),
        cmocka_unit_test(test_plan_takes_section_values), cmocka_unit_test(test_named_axis_beside_a_refused_key),
        cmocka_unit_test(test_dry_run_prints_values),  cmocka_unit_test(test_bad_value_at_its_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
