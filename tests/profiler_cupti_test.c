/* The sweep's CUPTI profile phase (harness/device/profiler_cupti.h) through its
 * sweep_profiler interface.
 * CPU part (always): how profiler_open() statuses become the sweep's answers
 * and status lines; unknown names refused before any device is touched; the
 * columns (names, units) a plan gives; without a device, UNAVAILABLE with
 * the columns kept and clean failures after.
 * GPU part (prints `SKIPPED: no CUDA device (...)` where there is none): a
 * real reduction measured through begin/profile/end at 2^22 and 2^26: DRAM
 * bytes read close to the input (the L2 is emptied in each pass), DRAM bytes
 * written no more than twice what the launcher stores (neither the flush's
 * nor the profiler's own lines are written back inside the range), the same
 * instruction count twice. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "cupti/metrics.h"
#include "harness/check/check.h"
#include "harness/device/device.h"
#include "harness/device/profiler_cupti.h"
#include "kernels/registry.h"
#include "tests/test_parts.h"

static int have_device(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static void test_answers(void **state)
{
    (void)state;
    char st[256];
    assert_int_equal(profiler_cupti_answer(PROFILER_OK, "", st, sizeof st), SWEEP_PROFILER_READY);

    assert_int_equal(profiler_cupti_answer(PROFILER_UNAVAILABLE_OTHER_PROFILER, "x (CUPTI_ERROR_MULTIPLE_...)", st,
                                           sizeof st),
                     SWEEP_PROFILER_UNAVAILABLE);
    assert_string_equal(st, "another profiler (ncu/nsys) is attached; metric columns left empty");

    assert_int_equal(profiler_cupti_answer(PROFILER_INSUFFICIENT_PRIVILEGES, "x", st, sizeof st),
                     SWEEP_PROFILER_UNAVAILABLE);
    assert_non_null(strstr(st, "NVreg_RestrictProfilingToAdminUsers=0"));
    assert_non_null(strstr(st, "run as root"));
    assert_non_null(strstr(st, "metric columns left empty"));
    assert_null(strchr(st, '\n'));
    assert_true(strlen(st) + strlen("unavailable: ") < 256); /* fits run.json's profiler_status */

    assert_int_equal(profiler_cupti_answer(PROFILER_UNKNOWN_METRIC, "unknown metric 'a__b.sum': ...; closest: c",
                                           st, sizeof st),
                     SWEEP_PROFILER_BAD_METRIC);
    assert_string_equal(st, "unknown metric 'a__b.sum': ...; closest: c");

    assert_int_equal(profiler_cupti_answer(PROFILER_NO_DEVICE, "no CUDA device (x)", st, sizeof st),
                     SWEEP_PROFILER_UNAVAILABLE);
    assert_string_equal(st, "CUPTI: no CUDA device (x); metric columns left empty");
    assert_int_equal(profiler_cupti_answer(PROFILER_ERROR, "", st, sizeof st), SWEEP_PROFILER_UNAVAILABLE);
    assert_string_equal(st, "CUPTI: error; metric columns left empty");

    /* a long message is cut, the tail kept */
    char long_msg[2000];
    memset(long_msg, 'x', sizeof long_msg - 1);
    long_msg[sizeof long_msg - 1] = '\0';
    assert_int_equal(profiler_cupti_answer(PROFILER_ERROR, long_msg, st, sizeof st), SWEEP_PROFILER_UNAVAILABLE);
    assert_true(strlen(st) < sizeof st);
    assert_non_null(strstr(st, "; metric columns left empty"));
}

static void test_unknown_names_refused_before_the_device(void **state)
{
    (void)state;
    const sweep_profiler *p = sweep_profiler_cupti();
    assert_non_null(p);
    assert_non_null(p->begin);
    assert_non_null(p->profile);
    assert_non_null(p->end);
    device_info dev = {0};
    sweep_profiler_setup s;
    memset(&s, 0, sizeof s);
    const char *names[] = {"dram__bytes_read.sum", "warp_eficiency"};
    s.device = &dev;
    s.requested = names;
    s.requested_count = 2;
    assert_int_equal(p->begin(p->state, &s), SWEEP_PROFILER_BAD_METRIC);
    assert_int_equal(s.metric_count, 0);
    assert_non_null(strstr(s.status, "unknown metric 'warp_eficiency'"));
    assert_non_null(strstr(s.status, "closest: warp_efficiency"));

    const char *bad_syntax[] = {"dram__bytes_read.sum."};
    s.requested = bad_syntax;
    s.requested_count = 1;
    assert_int_equal(p->begin(p->state, &s), SWEEP_PROFILER_BAD_METRIC);
    assert_non_null(strstr(s.status, "dram__bytes_read.sum."));
}

/* The columns a request gives: names and units from the metric table. */
static void check_columns(const sweep_profiler_setup *s)
{
    assert_int_equal(s->metric_count, 4);
    assert_string_equal(s->metrics[0].name, "dram__bytes_read.sum");
    assert_string_equal(s->metrics[0].unit, "bytes");
    assert_string_equal(s->metrics[1].name, "warp_efficiency");
    assert_string_equal(s->metrics[1].unit, "fraction");
    assert_string_equal(s->metrics[2].name, "instructions"); /* nvprof inst_executed */
    assert_string_equal(s->metrics[2].unit, "warp instructions");
    assert_string_equal(s->metrics[3].name, "smsp__inst_executed_op_shared_ld.sum");
    assert_string_equal(s->metrics[3].unit, "");
}

static const char *const four[] = {"dram__bytes_read.sum", "warp_efficiency", "inst_executed",
                                   "smsp__inst_executed_op_shared_ld.sum"};

static void test_without_a_device(void **state)
{
    (void)state;
    if (have_device()) {
        printf("(a CUDA device is present: the no-device path is the GPU part's business)\n");
        return;
    }
    const sweep_profiler *p = sweep_profiler_cupti();
    device_info dev = {0};
    dev.l2_bytes = (size_t)50 << 20;
    sweep_profiler_setup s;
    memset(&s, 0, sizeof s);
    s.device = &dev;
    s.requested = four;
    s.requested_count = 4;
    assert_int_equal(p->begin(p->state, &s), SWEEP_PROFILER_UNAVAILABLE);
    check_columns(&s);
    assert_int_equal(s.passes, 0);
    printf("status: %s\n", s.status);
    assert_non_null(strstr(s.status, "CUPTI: no CUDA device"));
    assert_non_null(strstr(s.status, "metric columns left empty"));

    /* the profile phase then fails cleanly, with a message, and leaves values alone */
    char err[512] = "";
    if (p->before) {
        int r = p->before(p->state, NULL, NULL, NULL, err, sizeof err);
        if (r) assert_true(strlen(err) > 0);
    }
    err[0] = '\0';
    if (p->after) {
        int r = p->after(p->state, NULL, NULL, NULL, err, sizeof err);
        if (r) assert_true(strlen(err) > 0);
    }
    p->end(p->state);
    p->end(p->state); /* twice is harmless */

    /* a tool injected into CUDA (as ncu and nsys are): the failure reads as another profiler */
    setenv("CUDA_INJECTION64_PATH", "/nonexistent/libtool.so", 1);
    memset(&s, 0, sizeof s);
    s.device = &dev;
    s.requested = four;
    s.requested_count = 4;
    assert_int_equal(p->begin(p->state, &s), SWEEP_PROFILER_UNAVAILABLE);
    assert_string_equal(s.status, SWEEP_PROFILER_TEXT_OTHER_PROFILER);
    check_columns(&s);
    p->end(p->state);
    unsetenv("CUDA_INJECTION64_PATH");

    /* the default set */
    memset(&s, 0, sizeof s);
    s.device = &dev;
    assert_int_equal(p->begin(p->state, &s), SWEEP_PROFILER_UNAVAILABLE);
    const char *keys[METRIC_PLAN_MAX];
    size_t n_keys = metric_default_keys(keys, METRIC_PLAN_MAX);
    assert_int_equal(s.metric_count, n_keys);
    for (size_t i = 0; i < n_keys; i++) {
        assert_string_equal(s.metrics[i].name, keys[i]);
        assert_string_equal(s.metrics[i].unit, metric_find_key(keys[i])->unit);
    }
    p->end(p->state);
}

/* ---- GPU part ---- */

/* Bytes a reduce0 launcher stores at 256 threads: one partial per block at
 * each level until one is left, each level rounded up to whole 32-byte
 * sectors (the DRAM write granule). */
static double reduce0_stored_bytes(size_t n)
{
    double bytes = 0;
    for (size_t level = n; level > 1;) {
        level = (level + 255) / 256;
        bytes += (double)((level * sizeof(float) + 31) / 32 * 32);
    }
    return bytes;
}

static void test_gpu_measure_a_reduction(void **state)
{
    (void)state;
    device_info dev;
    char msg[1024];
    if (device_open(0, &dev, msg, sizeof msg)) fail_msg("%s", msg);
    const variant *v = registry_find("reduce_interleaved_divergent");
    assert_non_null(v);

    const sweep_profiler *p = sweep_profiler_cupti();
    sweep_profiler_setup s;
    memset(&s, 0, sizeof s);
    const char *names[] = {"dram__bytes_read.sum", "dram__bytes_write.sum", "smsp__inst_executed.sum",
                           "warp_efficiency"};
    s.device = &dev;
    s.requested = names;
    s.requested_count = 4;
    int answer = p->begin(p->state, &s);
    printf("begin: %d: %s\n", answer, s.status);
    if (answer == SWEEP_PROFILER_UNAVAILABLE) {
        printf("SKIPPED: the GPU counters are not available here: %s\n", s.status);
        p->end(p->state);
        return;
    }
    assert_int_equal(answer, SWEEP_PROFILER_READY);
    assert_int_equal(s.metric_count, 4);
    assert_true(s.passes >= 1);
    assert_non_null(strstr(s.status, "ok: CUPTI range profiler on "));

    cudaStream_t stream;
    assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    /* 2^22 fits in the L2; 2^26 (4x the H200's L2) streams through it and
     * evicts whatever else is there, so lines dirtied by the profiler when it
     * starts a pass (about 3 MB) would be written back inside the range. */
    const size_t sizes[] = {(size_t)1 << 22, (size_t)1 << 26};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        kernel_args a = {.dtype = DTYPE_F32, .op = OP_SUM, .n = sizes[si], .block_dim = 256, .axis = {1, 1},
                         .finish = FINISH_RECURSIVE, .scan_mode = SCAN_INCLUSIVE};
        check_ctx *chk = check_create();
        assert_non_null(chk);
        check_result cr = check_run(chk, v, &a, 7);
        if (!cr.ok) fail_msg("check_run: %s", cr.message);
        assert_int_equal(check_prepare(chk, v, &a), cudaSuccess);
        double first_inst = 0;
        const double input = (double)a.n * sizeof(float);
        const double stored = reduce0_stored_bytes(a.n);
        for (int round = 0; round < 2; round++) {
            double values[4] = {NAN, NAN, NAN, NAN};
            char err[1024] = "";
            if (p->before) assert_int_equal(p->before(p->state, v, &a, stream, err, sizeof err), 0);
            int r = p->profile(p->state, "reduce0", v, &a, stream, values, err, sizeof err);
            if (r) fail_msg("profile: %s", err);
            if (p->after) assert_int_equal(p->after(p->state, v, &a, stream, err, sizeof err), 0);
            printf("n %zu round %d: dram read %.0f (input %.0f), dram write %.0f (launcher stores %.0f), inst "
                   "%.0f, warp efficiency %.4f\n",
                   a.n, round, values[0], input, values[1], stored, values[2], values[3]);
            assert_true(values[0] > 0.95 * input && values[0] < 1.10 * input); /* cold: the input comes from DRAM */
            /* Only the launcher's own stores are written back, each 32-byte
             * sector at most twice (a sector evicted half-written and again
             * when full): no flush or profiler lines inside the range. */
            assert_true(values[1] <= 2.0 * stored);
            assert_true(values[2] > 0);
            assert_true(values[3] > 0 && values[3] <= 1.0);
            if (round == 0) first_inst = values[2];
            else assert_true(values[2] == first_inst); /* deterministic kernel: the same count */
        }
        check_destroy(chk);
    }
    cudaStreamDestroy(stream);
    p->end(p->state);
}

int main(int argc, char **argv)
{
    int parts = test_parts(argc, argv);
    const struct CMUnitTest cpu[] = {
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_unknown_names_refused_before_the_device),
        cmocka_unit_test(test_without_a_device),
    };
    int failed = parts & TEST_PART_CPU ? cmocka_run_group_tests_name("profiler_cupti_cpu", cpu, NULL, NULL) : 0;
    if (!(parts & TEST_PART_GPU)) return failed;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIPPED: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none");
        return failed;
    }
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_gpu_measure_a_reduction),
    };
    return failed + cmocka_run_group_tests_name("profiler_cupti_gpu", gpu, NULL, NULL);
}
