/* A stand-in for the driver's libnvidia-ml.so.1, for the tests: the entry
 * points harness/device/nvml_conditions.c looks up, answering from the environment.
 *   FAKE_NVML_TEMP (°C, default 41), FAKE_NVML_POWER_MW (default 312000),
 *   FAKE_NVML_SM_MHZ (default 1980), FAKE_NVML_MEM_MHZ (default 3201),
 *   FAKE_NVML_REASONS (a mask, default 0x4: sw_power_cap),
 *   FAKE_NVML_FAIL_INIT=1 (nvmlInit_v2 fails), FAKE_NVML_NO_POWER=1 (power unsupported). */
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

static unsigned long long env_num(const char *name, unsigned long long fallback)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : fallback;
}

static int device_token;

nvmlReturn_t nvmlInit_v2(void) { return env_num("FAKE_NVML_FAIL_INIT", 0) ? 3 : 0; }
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(nvmlReturn_t rc) { return rc == 3 ? "Driver Not Loaded" : rc ? "Not Supported" : "Success"; }

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvmlDevice_t *dev)
{
    if (!bus_id || !*bus_id) return 2;
    *dev = (nvmlDevice_t)&device_token;
    return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *dev)
{
    if (index) return 2;
    *dev = (nvmlDevice_t)&device_token;
    return 0;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned *t)
{
    (void)dev;
    if (sensor != 0) return 2;
    *t = (unsigned)env_num("FAKE_NVML_TEMP", 41);
    return 0;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned *mw)
{
    (void)dev;
    if (env_num("FAKE_NVML_NO_POWER", 0)) return 3;
    *mw = (unsigned)env_num("FAKE_NVML_POWER_MW", 312000);
    return 0;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned *mhz)
{
    (void)dev;
    if (type == 1) *mhz = (unsigned)env_num("FAKE_NVML_SM_MHZ", 1980);
    else if (type == 2) *mhz = (unsigned)env_num("FAKE_NVML_MEM_MHZ", 3201);
    else return 2;
    return 0;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *mask)
{
    (void)dev;
    *mask = env_num("FAKE_NVML_REASONS", 0x4);
    return 0;
}
