/* See nvml_conditions.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness/device/nvml_conditions.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/device/nvml_api.h"

struct nvml_reader {
    void *lib;
    nvmlDevice_t dev;
    nvml_shutdown_fn shutdown;
    nvml_temperature_fn temperature;
    nvml_power_fn power;
    nvml_clock_fn clock;
    nvml_reasons_fn reasons;
};

static const char *error_text(void *lib, nvmlReturn_t rc)
{
    nvml_error_string_fn f = (nvml_error_string_fn)dlsym(lib, "nvmlErrorString");
    const char *s = f ? f(rc) : NULL;
    return s ? s : "error";
}

static int fail(nvml_reader *r, char *msg, size_t len, const char *what, nvmlReturn_t rc)
{
    snprintf(msg, len, "NVML not available: %s: %s (%d)", what, error_text(r->lib, rc), (int)rc);
    if (r->shutdown && strcmp(what, "nvmlInit_v2")) r->shutdown();
    dlclose(r->lib);
    free(r);
    return -1;
}

nvml_reader *nvml_reader_open(const char *pci_bus_id, char *msg, size_t len)
{
    const char *name = getenv("SWEEP_NVML_LIBRARY");
    if (!name || !*name) name = "libnvidia-ml.so.1";
    nvml_reader *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(msg, len, "NVML not available: out of memory");
        return NULL;
    }
    if (!(r->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(msg, len, "NVML not available: %s", dlerror());
        free(r);
        return NULL;
    }
    nvml_init_fn init = (nvml_init_fn)dlsym(r->lib, "nvmlInit_v2");
    nvml_by_bus_id_fn by_bus = (nvml_by_bus_id_fn)dlsym(r->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_by_index_fn by_index = (nvml_by_index_fn)dlsym(r->lib, "nvmlDeviceGetHandleByIndex_v2");
    r->shutdown = (nvml_shutdown_fn)dlsym(r->lib, "nvmlShutdown");
    r->temperature = (nvml_temperature_fn)dlsym(r->lib, "nvmlDeviceGetTemperature");
    r->power = (nvml_power_fn)dlsym(r->lib, "nvmlDeviceGetPowerUsage");
    r->clock = (nvml_clock_fn)dlsym(r->lib, "nvmlDeviceGetClockInfo");
    r->reasons = (nvml_reasons_fn)dlsym(r->lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!r->reasons) r->reasons = (nvml_reasons_fn)dlsym(r->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!init || !by_bus || !by_index || !r->shutdown) {
        snprintf(msg, len, "NVML not available: %s lacks nvmlInit_v2 or the device handle entry points", name);
        dlclose(r->lib);
        free(r);
        return NULL;
    }
    nvmlReturn_t rc = init();
    if (rc != NVML_SUCCESS) return fail(r, msg, len, "nvmlInit_v2", rc), NULL;
    rc = pci_bus_id && *pci_bus_id ? by_bus(pci_bus_id, &r->dev) : by_index(0, &r->dev);
    if (rc != NVML_SUCCESS) return fail(r, msg, len, "finding the device by its PCI bus id", rc), NULL;
    msg[0] = '\0';
    return r;
}

int nvml_reader_read(nvml_reader *r, gpu_conditions *out)
{
    memset(out, 0, sizeof *out);
    out->temperature_c = out->power_w = out->sm_clock_mhz = out->mem_clock_mhz = NAN;
    if (!r) return -1;
    unsigned v;
    unsigned long long mask;
    int any = 0;
    if (r->temperature && r->temperature(r->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
        out->temperature_c = v, any = 1;
    if (r->power && r->power(r->dev, &v) == NVML_SUCCESS) out->power_w = v / 1000.0, any = 1;
    if (r->clock && r->clock(r->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) out->sm_clock_mhz = v, any = 1;
    if (r->clock && r->clock(r->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) out->mem_clock_mhz = v, any = 1;
    if (r->reasons && r->reasons(r->dev, &mask) == NVML_SUCCESS) out->clock_event_reasons = mask, any = 1;
    out->ok = any;
    return any ? 0 : -1;
}

void nvml_reader_close(nvml_reader *r)
{
    if (!r) return;
    r->shutdown();
    dlclose(r->lib);
    free(r);
}

static const struct {
    unsigned long long bit;
    const char *name;
    int throttle;
} reasons[] = {
    {NVML_REASON_GPU_IDLE, "gpu_idle", 0},
    {NVML_REASON_APPLICATIONS_CLOCKS_SETTING, "applications_clocks_setting", 0},
    {NVML_REASON_SW_POWER_CAP, "sw_power_cap", 1},
    {NVML_REASON_HW_SLOWDOWN, "hw_slowdown", 1},
    {NVML_REASON_SYNC_BOOST, "sync_boost", 0},
    {NVML_REASON_SW_THERMAL_SLOWDOWN, "sw_thermal_slowdown", 1},
    {NVML_REASON_HW_THERMAL_SLOWDOWN, "hw_thermal_slowdown", 1},
    {NVML_REASON_HW_POWER_BRAKE_SLOWDOWN, "hw_power_brake_slowdown", 1},
    {NVML_REASON_DISPLAY_CLOCK_SETTING, "display_clock_setting", 0},
};
#define N_REASONS (sizeof reasons / sizeof reasons[0])

const char *gpu_clock_event_names(unsigned long long mask, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!mask) {
        snprintf(buf, len, "none");
        return buf;
    }
    unsigned long long known = 0;
    for (size_t i = 0; i < N_REASONS; i++) {
        known |= reasons[i].bit;
        if (mask & reasons[i].bit)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "|" : "", reasons[i].name);
    }
    if (mask & ~known) snprintf(buf + strlen(buf), len - strlen(buf), "%s0x%llx", buf[0] ? "|" : "", mask & ~known);
    return buf;
}

int gpu_clock_events_throttle(unsigned long long mask)
{
    for (size_t i = 0; i < N_REASONS; i++)
        if (reasons[i].throttle && (mask & reasons[i].bit)) return 1;
    return 0;
}
