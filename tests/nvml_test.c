/* The NVML reader (harness/device/nvml_conditions.h) against no library at all and
 * against the fake one (tests/fake_nvml.c): what a host without the driver
 * says, what a reading holds, a field the device cannot give, the reason
 * names and which of them hold the clock down. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/device/nvml_conditions.h"
#include "tests/sweep_test_util.h"

static const char *fake_lib(void) { return tu_runfile("tests/libfake_nvml.so", "libfake_nvml.so"); }

static void absent(void **state)
{
    (void)state;
    char msg[256];
    setenv("SWEEP_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_null(nvml_reader_open("0000:01:00.0", msg, sizeof msg));
    assert_non_null(strstr(msg, "NVML not available"));
    assert_non_null(strstr(msg, "/nonexistent/libnvidia-ml.so.1"));
    gpu_conditions g;
    assert_int_equal(nvml_reader_read(NULL, &g), -1);
    assert_int_equal(g.ok, 0);
    assert_true(isnan(g.temperature_c) && isnan(g.power_w));
    nvml_reader_close(NULL);
}

static void init_fails(void **state)
{
    (void)state;
    char msg[256];
    assert_non_null(fake_lib());
    setenv("SWEEP_NVML_LIBRARY", fake_lib(), 1);
    setenv("FAKE_NVML_FAIL_INIT", "1", 1);
    assert_null(nvml_reader_open("0000:01:00.0", msg, sizeof msg));
    assert_non_null(strstr(msg, "nvmlInit_v2: Driver Not Loaded"));
    unsetenv("FAKE_NVML_FAIL_INIT");
}

static void present(void **state)
{
    (void)state;
    char msg[256] = "x";
    setenv("SWEEP_NVML_LIBRARY", fake_lib(), 1);
    setenv("FAKE_NVML_TEMP", "57", 1);
    setenv("FAKE_NVML_POWER_MW", "654321", 1);
    setenv("FAKE_NVML_REASONS", "0x44", 1);
    nvml_reader *r = nvml_reader_open("0000:1b:00.0", msg, sizeof msg);
    assert_non_null(r);
    assert_string_equal(msg, "");
    gpu_conditions g;
    assert_int_equal(nvml_reader_read(r, &g), 0);
    assert_int_equal(g.ok, 1);
    assert_true(g.temperature_c == 57.0);
    assert_true(fabs(g.power_w - 654.321) < 1e-9);
    assert_true(g.sm_clock_mhz == 1980.0 && g.mem_clock_mhz == 3201.0);
    assert_true(g.clock_event_reasons == 0x44);
    /* power unsupported: NaN, the rest still read */
    setenv("FAKE_NVML_NO_POWER", "1", 1);
    assert_int_equal(nvml_reader_read(r, &g), 0);
    assert_true(isnan(g.power_w) && g.temperature_c == 57.0);
    unsetenv("FAKE_NVML_NO_POWER");
    nvml_reader_close(r);
}

static void reason_names(void **state)
{
    (void)state;
    char buf[256];
    assert_string_equal(gpu_clock_event_names(0, buf, sizeof buf), "none");
    assert_string_equal(gpu_clock_event_names(0x1, buf, sizeof buf), "gpu_idle");
    assert_string_equal(gpu_clock_event_names(0x4 | 0x40, buf, sizeof buf), "sw_power_cap|hw_thermal_slowdown");
    assert_string_equal(gpu_clock_event_names(0x8 | 0x10000, buf, sizeof buf), "hw_slowdown|0x10000");
    assert_false(gpu_clock_events_throttle(0x1 | 0x2 | 0x10 | 0x100));
    assert_true(gpu_clock_events_throttle(0x4));
    assert_true(gpu_clock_events_throttle(0x80));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(absent),
        cmocka_unit_test(init_fails),
        cmocka_unit_test(present),
        cmocka_unit_test(reason_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
