/* The clock probe (harness/device/clock_probe.h) on a real GPU: around a 2 ms
 * spinning kernel (stream_block's spinner, never released, so it gives up
 * at its limit), the SM clock it reports is a clock this device can run
 * at -- between a tenth of and 10 % above its default clock -- and two
 * stretches in a row agree within 5 % (the device is busy for both). And
 * two probes back to back give NaN (too short a stretch to tell) or, where
 * the device runs slowed down (under compute-sanitizer), still a clock in
 * that range: never a made-up number. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "harness/device/clock_probe.h"
#include "harness/device/stream_block.h"

static int sm_count, default_khz;

static double probe_over_spin(clock_probe *p, stream_block *b, cudaStream_t s, double spin_ms)
{
    assert_int_equal(clock_probe_record(p, s, 0), cudaSuccess);
    if (spin_ms > 0) assert_int_equal(stream_block_hold(b, s, spin_ms), cudaSuccess);
    assert_int_equal(clock_probe_record(p, s, 1), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    return clock_probe_mhz(p);
}

/* A stream, a probe and a spinner for each test (cmocka's setup and teardown). */
typedef struct fixture {
    cudaStream_t s;
    clock_probe *p;
    stream_block *b;
} fixture;

static int setup(void **state)
{
    static fixture f;
    cudaError_t err;
    if (cudaStreamCreateWithFlags(&f.s, cudaStreamNonBlocking) != cudaSuccess) return -1;
    f.p = clock_probe_create(sm_count, &err);
    f.b = stream_block_create(&err);
    *state = &f;
    return f.p && f.b ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    stream_block_destroy(f->b);
    clock_probe_destroy(f->p);
    cudaStreamDestroy(f->s);
    return 0;
}

static void clock_within_device_range(void **state)
{
    fixture *f = *state;
    double first = probe_over_spin(f->p, f->b, f->s, 2.0), second = probe_over_spin(f->p, f->b, f->s, 2.0);
    double def = default_khz / 1e3;
    print_message("SM clock over 2 ms: %.1f then %.1f MHz (default %.0f MHz)\n", first, second, def);
    assert_true(first > 0.1 * def && first < 1.1 * def);
    assert_true(second > 0.1 * def && second < 1.1 * def);
    assert_true(fabs(first - second) < 0.05 * def);
}

static void too_short_is_nan(void **state)
{
    fixture *f = *state;
    /* two probes back to back: well under the 20 us the probe needs, unless the device is slowed */
    double mhz = probe_over_spin(f->p, f->b, f->s, 0), def = default_khz / 1e3;
    print_message("two probes back to back: %.1f MHz\n", mhz);
    assert_true(isnan(mhz) || (mhz > 0.1 * def && mhz < 1.1 * def));
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("SKIPPED: no CUDA device\n");
        return 0;
    }
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&default_khz, cudaDevAttrClockRate, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(clock_within_device_range, setup, teardown),
        cmocka_unit_test_setup_teardown(too_short_is_nan, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
