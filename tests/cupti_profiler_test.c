/* The profiler's C interface. CPU part (always): argument errors, statuses,
 * metric checks against a chip's list through the CUPTI host API (no GPU
 * needed). GPU part: the default metric set on a small kernel that reads
 * 64 MiB after an L2 flush; skipped where there is no CUDA device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "cupti/profiler.h"
#include "tests/cupti_test_kernels.h"
#include "tests/test_parts.h"

#define H200_CHIP "GH100"

/* ---- CPU part ---- */

static void test_status_text(void **state)
{
    (void)state;
    const profiler_status all[] = {PROFILER_OK, PROFILER_UNAVAILABLE_OTHER_PROFILER,
                                   PROFILER_INSUFFICIENT_PRIVILEGES, PROFILER_UNKNOWN_METRIC,
                                   PROFILER_NO_DEVICE, PROFILER_ERROR};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        assert_non_null(profiler_status_text(all[i]));
        assert_true(strlen(profiler_status_text(all[i])) > 0);
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(profiler_status_text(all[i]), profiler_status_text(all[j]));
    }
    assert_string_equal(profiler_status_text(PROFILER_OK), "ok");
    assert_non_null(profiler_status_text((profiler_status)99));
}

static void test_open_argument_errors(void **state)
{
    (void)state;
    const char *names[] = {"dram__bytes_read.sum"};
    profiler *p = (profiler *)1;
    int passes = 7;
    char msg[512];

    msg[0] = '\0';
    assert_int_equal(profiler_open(0, names, 1, NULL, &passes, msg, sizeof msg), PROFILER_ERROR);
    assert_non_null(strstr(msg, "out is NULL"));
    assert_int_equal(passes, 0);

    msg[0] = '\0';
    assert_int_equal(profiler_open(0, NULL, 1, &p, &passes, msg, sizeof msg), PROFILER_ERROR);
    assert_null(p);
    assert_string_equal(msg, "empty metric list");

    p = (profiler *)1;
    assert_int_equal(profiler_open(0, names, 0, &p, NULL, msg, sizeof msg), PROFILER_ERROR);
    assert_null(p);
    assert_string_equal(msg, "empty metric list");

    const char *with_null[] = {"dram__bytes_read.sum", NULL};
    assert_int_equal(profiler_open(0, with_null, 2, &p, NULL, msg, sizeof msg), PROFILER_ERROR);
    assert_non_null(strstr(msg, "NULL"));

    /* no message buffer: still a clean status */
    assert_int_equal(profiler_open(0, NULL, 0, &p, NULL, NULL, 0), PROFILER_ERROR);
}

static void test_open_bad_names_fail_before_the_device(void **state)
{
    (void)state;
    profiler *p = NULL;
    char msg[512] = "";
    const char *typo[] = {"dram_bytes_read.sum"};
    assert_int_equal(profiler_open(0, typo, 1, &p, NULL, msg, sizeof msg), PROFILER_UNKNOWN_METRIC);
    assert_null(p);
    assert_non_null(strstr(msg, "dram_bytes_read.sum"));
    assert_non_null(strstr(msg, "closest: dram__bytes_read.sum"));

    /* a study key is not a CUPTI name: say what it stands for */
    const char *key[] = {"warp_efficiency"};
    assert_int_equal(profiler_open(0, key, 1, &p, NULL, msg, sizeof msg), PROFILER_UNKNOWN_METRIC);
    assert_non_null(strstr(msg, "smsp__thread_inst_executed_per_inst_executed.ratio"));
}

static void test_null_profiler(void **state)
{
    (void)state;
    double v = 0.0;
    char msg[256] = "";
    assert_int_equal(profiler_measure(NULL, "r", NULL, NULL, NULL, &v, msg, sizeof msg),
                     PROFILER_ERROR);
    assert_true(strlen(msg) > 0);
    msg[0] = '\0';
    assert_int_equal(profiler_measure_batch(NULL, 4, NULL, NULL, NULL, &v, msg, sizeof msg), PROFILER_ERROR);
    assert_string_equal(msg, "profiler_measure_batch: the profiler is NULL");
    assert_int_equal(profiler_num_values(NULL), 0);
    assert_int_equal(profiler_num_passes(NULL), 0);
    assert_string_equal(profiler_chip(NULL), "");
    profiler_close(NULL);
}

static void test_check_default_set_on_h200(void **state)
{
    (void)state;
    metric_plan *plan = metric_plan_default();
    assert_non_null(plan);
    int passes = 0;
    char msg[1024] = "";
    profiler_status s = profiler_check_metrics(H200_CHIP, plan->raw, plan->nraw, &passes, msg, sizeof msg);
    if (s != PROFILER_OK)
        fail_msg("%s: %s", profiler_status_text(s), msg);
    assert_true(passes >= 1);
    printf("default set on %s: %zu CUPTI metrics, %d pass(es)\n", H200_CHIP, plan->nraw, passes);
    metric_plan_free(plan);
}

static void test_check_unknown_names_on_h200(void **state)
{
    (void)state;
    char msg[1024] = "";
    int passes = 9;

    const char *typo[] = {"l2_hit_rate_pct__x.sum", "dram__bytes_red.sum"};
    assert_int_equal(profiler_check_metrics(H200_CHIP, typo + 1, 1, &passes, msg, sizeof msg),
                     PROFILER_UNKNOWN_METRIC);
    assert_int_equal(passes, 0);
    assert_non_null(strstr(msg, "unknown metric 'dram__bytes_red.sum'"));
    assert_non_null(strstr(msg, "dram__bytes_read.sum"));
    assert_int_equal(profiler_check_metrics(H200_CHIP, typo, 2, NULL, msg, sizeof msg),
                     PROFILER_UNKNOWN_METRIC);
    assert_non_null(strstr(msg, "l2_hit_rate_pct__x.sum")); /* the first bad name is reported */

    const char *rollup[] = {"dram__bytes_read.summ"};
    assert_int_equal(profiler_check_metrics(H200_CHIP, rollup, 1, NULL, msg, sizeof msg),
                     PROFILER_UNKNOWN_METRIC);
    assert_non_null(strstr(msg, "no submetric '.summ'"));
    assert_non_null(strstr(msg, "dram__bytes_read.sum"));

    const char *bare[] = {"dram__bytes_read"};
    assert_int_equal(profiler_check_metrics(H200_CHIP, bare, 1, NULL, msg, sizeof msg),
                     PROFILER_UNKNOWN_METRIC);
    assert_non_null(strstr(msg, "needs a rollup"));
    assert_non_null(strstr(msg, "closest: dram__bytes_read.sum"));

    const char *ratio[] = {"lts__t_sector_hit_rate.sum"};
    assert_int_equal(profiler_check_metrics(H200_CHIP, ratio, 1, NULL, msg, sizeof msg),
                     PROFILER_UNKNOWN_METRIC);
    assert_non_null(strstr(msg, "lts__t_sector_hit_rate.pct"));
}

static void test_check_good_names_and_repeats(void **state)
{
    (void)state;
    char msg[1024] = "";
    int passes = 0;
    const char *names[] = {"smsp__inst_executed.sum", "gpu__time_duration.sum", "smsp__inst_executed.sum"};
    profiler_status s = profiler_check_metrics(H200_CHIP, names, 3, &passes, msg, sizeof msg);
    if (s != PROFILER_OK)
        fail_msg("%s", msg);
    assert_int_equal(passes, 1);
}

static void test_check_bad_chip_and_arguments(void **state)
{
    (void)state;
    char msg[2048] = "";
    const char *names[] = {"dram__bytes_read.sum"};
    assert_int_equal(profiler_check_metrics("XX999", names, 1, NULL, msg, sizeof msg), PROFILER_ERROR);
    assert_non_null(strstr(msg, "XX999"));
    assert_non_null(strstr(msg, H200_CHIP)); /* in the supported list */
    assert_int_equal(profiler_check_metrics(NULL, names, 1, NULL, msg, sizeof msg), PROFILER_ERROR);
    assert_int_equal(profiler_check_metrics(H200_CHIP, NULL, 0, NULL, msg, sizeof msg), PROFILER_ERROR);
    assert_string_equal(msg, "empty metric list");
}

/* ---- GPU part ---- */

#define READ_BYTES ((size_t)64 << 20)

typedef struct counted_work {
    cupti_test_work *work;
    int runs, restores;
    int fail_run; /* make fn fail (returns this when nonzero) */
} counted_work;

static int run_counted(void *user)
{
    counted_work *c = user;
    c->runs++;
    if (c->fail_run)
        return c->fail_run;
    return cupti_test_work_run(c->work);
}

static int restore_counted(void *user)
{
    counted_work *c = user;
    c->restores++;
    return cupti_test_work_restore(c->work);
}

static size_t column(const metric_plan *p, const char *key)
{
    for (size_t i = 0; i < p->ncolumns; i++)
        if (strcmp(p->columns[i].key, key) == 0)
            return i;
    fail_msg("no column %s", key);
    return 0;
}

static void test_gpu_default_set(void **state)
{
    (void)state;
    metric_plan *plan = metric_plan_default();
    assert_non_null(plan);
    profiler *p = NULL;
    int passes = 0;
    char msg[1024] = "";
    profiler_status s = profiler_open(0, plan->raw, plan->nraw, &p, &passes, msg, sizeof msg);
    if (s != PROFILER_OK)
        fail_msg("profiler_open: %s: %s", profiler_status_text(s), msg);
    assert_non_null(p);
    assert_true(passes >= 1);
    assert_int_equal(profiler_num_passes(p), passes);
    assert_true(strlen(profiler_chip(p)) > 0);
    printf("chip %s, %d pass(es)\n", profiler_chip(p), passes);

    counted_work c = {cupti_test_work_new(READ_BYTES), 0, 0, 0};
    assert_non_null(c.work);

    double raw[2 * METRIC_PLAN_MAX], cols[METRIC_PLAN_MAX];
    for (int round = 0; round < 2; round++) {
        c.runs = c.restores = 0;
        s = profiler_measure(p, "cupti_test_sum", run_counted, restore_counted, &c, raw, msg, sizeof msg);
        if (s != PROFILER_OK)
            fail_msg("profiler_measure (round %d): %s: %s", round, profiler_status_text(s), msg);
        assert_int_equal(c.runs, passes);
        assert_int_equal(c.restores, passes);
        assert_true(cupti_test_work_result(c.work) == (double)cupti_test_work_elements(c.work));

        metric_plan_eval(plan, raw, cols);
        for (size_t i = 0; i < plan->ncolumns; i++)
            printf("  %-34s %16.4f %s\n", plan->columns[i].key, cols[i], plan->columns[i].unit);

        double inst = cols[column(plan, "instructions")];
        double threads = cols[column(plan, "warp_active_threads")];
        double eff = cols[column(plan, "warp_efficiency")];
        double dram_read = cols[column(plan, "dram_read_bytes")];
        double duration = cols[column(plan, "duration")];
        assert_true(inst > 0.0);
        assert_true(threads > 0.0 && threads <= 32.0);
        assert_true(eff > 0.0 && eff <= 1.0);
        assert_true(fabs(eff * 32.0 - threads) < 1e-9);
        assert_true(dram_read > 0.0);
        assert_true(dram_read >= (double)(READ_BYTES / 4)); /* the input does not fit in the flushed L2 */
        assert_true(duration > 0.0);
    }

    /* a failing measured function: a clean error, and the profiler still works */
    c.fail_run = 5;
    s = profiler_measure(p, "cupti_test_sum", run_counted, restore_counted, &c, raw, msg, sizeof msg);
    assert_int_equal(s, PROFILER_ERROR);
    assert_non_null(strstr(msg, "returned 5"));
    c.fail_run = 0;
    s = profiler_measure(p, "cupti_test_sum", run_counted, NULL, &c, raw, msg, sizeof msg);
    if (s != PROFILER_OK)
        fail_msg("profiler_measure after a failure: %s", msg);

    cupti_test_work_free(c.work);
    profiler_close(p);
    metric_plan_free(plan);
}

static void test_gpu_unknown_metric(void **state)
{
    (void)state;
    const char *names[] = {"smsp__inst_executed.sum", "dram__bytes_red.sum"};
    profiler *p = NULL;
    char msg[1024] = "";
    assert_int_equal(profiler_open(0, names, 2, &p, NULL, msg, sizeof msg), PROFILER_UNKNOWN_METRIC);
    assert_null(p);
    assert_non_null(strstr(msg, "dram__bytes_read.sum"));
}

static void test_gpu_bad_device(void **state)
{
    (void)state;
    const char *names[] = {"smsp__inst_executed.sum"};
    profiler *p = NULL;
    char msg[512] = "";
    assert_int_equal(profiler_open(1 << 20, names, 1, &p, NULL, msg, sizeof msg), PROFILER_ERROR);
    assert_null(p);
    assert_non_null(strstr(msg, "does not exist"));
}

int main(int argc, char **argv)
{
    int parts = test_parts(argc, argv);
    const struct CMUnitTest cpu[] = {
        cmocka_unit_test(test_status_text),
        cmocka_unit_test(test_open_argument_errors),
        cmocka_unit_test(test_open_bad_names_fail_before_the_device),
        cmocka_unit_test(test_null_profiler),
        cmocka_unit_test(test_check_default_set_on_h200),
        cmocka_unit_test(test_check_unknown_names_on_h200),
        cmocka_unit_test(test_check_good_names_and_repeats),
        cmocka_unit_test(test_check_bad_chip_and_arguments),
    };
    int failed = parts & TEST_PART_CPU ? cmocka_run_group_tests_name("cupti_profiler_cpu", cpu, NULL, NULL) : 0;
    if (!(parts & TEST_PART_GPU)) return failed;

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIPPED: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none");
        return failed;
    }
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_gpu_default_set),
        cmocka_unit_test(test_gpu_unknown_metric),
        cmocka_unit_test(test_gpu_bad_device),
    };
    return failed + cmocka_run_group_tests_name("cupti_profiler_gpu", gpu, NULL, NULL);
}
