/* With no CUDA device visible, the profiler refuses cleanly: a status and a
 * one-line message, never a crash. CUDA_VISIBLE_DEVICES is emptied before the
 * first CUDA call, so this holds on GPU hosts too. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cupti/profiler.h"

static void test_open_without_device(void **state)
{
    (void)state;
    metric_plan *plan = metric_plan_default();
    assert_non_null(plan);
    profiler *p = (profiler *)1;
    int passes = 7;
    char msg[512] = "";
    profiler_status s = profiler_open(0, plan->raw, plan->nraw, &p, &passes, msg, sizeof msg);
    printf("profiler_open: %s: %s\n", profiler_status_text(s), msg);
    assert_int_equal(s, PROFILER_NO_DEVICE);
    assert_null(p);
    assert_int_equal(passes, 0);
    assert_true(strncmp(msg, "no CUDA device (", 16) == 0);
    assert_null(strchr(msg, '\n'));
    profiler_close(p);
    metric_plan_free(plan);
}

static void test_open_twice_without_device(void **state)
{
    (void)state;
    const char *names[] = {"smsp__inst_executed.sum"};
    profiler *p = NULL;
    char msg[512] = "";
    for (int i = 0; i < 2; i++) {
        assert_int_equal(profiler_open(0, names, 1, &p, NULL, msg, sizeof msg), PROFILER_NO_DEVICE);
        assert_null(p);
    }
    /* without a message buffer as well */
    assert_int_equal(profiler_open(0, names, 1, &p, NULL, NULL, 0), PROFILER_NO_DEVICE);
}

static void test_names_are_still_checked_first(void **state)
{
    (void)state;
    const char *names[] = {"dram__bytes_read.sum", "not a metric"};
    profiler *p = NULL;
    char msg[512] = "";
    assert_int_equal(profiler_open(0, names, 2, &p, NULL, msg, sizeof msg), PROFILER_UNKNOWN_METRIC);
    assert_non_null(strstr(msg, "not a metric"));
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_without_device),
        cmocka_unit_test(test_open_twice_without_device),
        cmocka_unit_test(test_names_are_still_checked_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
