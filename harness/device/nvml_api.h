/* The few NVML entry points the harness calls, under their versioned
 * exported names as NVIDIA documents them (nvml.h, NVML API reference), as
 * function-pointer types for dlsym. Why not nvml.h: neither the CUDA
 * toolkit here nor Debian main ships it; where a toolkit's nvml.h is present
 * its types and constants are used instead. */
#ifndef HARNESS_NVML_API_H
#define HARNESS_NVML_API_H

#if defined(__has_include)
#if __has_include(<nvml.h>)
#include <nvml.h>
#define HARNESS_HAVE_NVML_H 1
#endif
#endif

#ifndef HARNESS_HAVE_NVML_H
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_TEMPERATURE_GPU 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#endif

/* Clock-event reasons (nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*). */
#define NVML_REASON_GPU_IDLE 0x1ull
#define NVML_REASON_APPLICATIONS_CLOCKS_SETTING 0x2ull
#define NVML_REASON_SW_POWER_CAP 0x4ull
#define NVML_REASON_HW_SLOWDOWN 0x8ull
#define NVML_REASON_SYNC_BOOST 0x10ull
#define NVML_REASON_SW_THERMAL_SLOWDOWN 0x20ull
#define NVML_REASON_HW_THERMAL_SLOWDOWN 0x40ull
#define NVML_REASON_HW_POWER_BRAKE_SLOWDOWN 0x80ull
#define NVML_REASON_DISPLAY_CLOCK_SETTING 0x100ull

typedef nvmlReturn_t (*nvml_init_fn)(void);                                      /* nvmlInit_v2 */
typedef nvmlReturn_t (*nvml_shutdown_fn)(void);                                  /* nvmlShutdown */
typedef const char *(*nvml_error_string_fn)(nvmlReturn_t);                       /* nvmlErrorString */
typedef nvmlReturn_t (*nvml_by_bus_id_fn)(const char *, nvmlDevice_t *);         /* ..HandleByPciBusId_v2 */
typedef nvmlReturn_t (*nvml_by_index_fn)(unsigned, nvmlDevice_t *);              /* ..HandleByIndex_v2 */
typedef nvmlReturn_t (*nvml_temperature_fn)(nvmlDevice_t, int, unsigned *);      /* ..GetTemperature */
typedef nvmlReturn_t (*nvml_power_fn)(nvmlDevice_t, unsigned *);                 /* ..GetPowerUsage (mW) */
typedef nvmlReturn_t (*nvml_clock_fn)(nvmlDevice_t, int, unsigned *);            /* ..GetClockInfo (MHz) */
typedef nvmlReturn_t (*nvml_reasons_fn)(nvmlDevice_t, unsigned long long *);     /* ..GetCurrentClocksEventReasons */

#endif
