/* The GPU's measurement conditions from NVML: temperature, power, SM clock
 * and the clock-event (throttle) reasons. NVML is the driver's library, not
 * the toolkit's: it is loaded at run time (dlopen), so the harness builds
 * where it is absent and runs on a host without it (nvml_reader_open says
 * why, and the sweep records that instead). $SWEEP_NVML_LIBRARY names
 * another library (the tests' fake). No dependency on CUDA. */
#ifndef HARNESS_NVML_CONDITIONS_H
#define HARNESS_NVML_CONDITIONS_H

#include <stddef.h>

typedef struct gpu_conditions {
    int ok;                                 /* 1: read; 0: not available (the fields NaN / 0) */
    double temperature_c;                   /* GPU core temperature */
    double power_w;                         /* board power draw */
    double sm_clock_mhz;                    /* NVML's current SM clock */
    double mem_clock_mhz;                   /* ... and memory clock: HBM has its own idle state */
    unsigned long long clock_event_reasons; /* NVML's bit mask (nvml_api.h) */
} gpu_conditions;

typedef struct nvml_reader nvml_reader;

/* Load NVML and find the device by PCI bus id ("0000:1b:00.0"; NULL or ""
 * for index 0). NULL and one line saying why in msg. */
nvml_reader *nvml_reader_open(const char *pci_bus_id, char *msg, size_t len);
/* 0, or -1 (out->ok = 0). A field NVML cannot give is NaN, the others read. */
int nvml_reader_read(nvml_reader *r, gpu_conditions *out);
void nvml_reader_close(nvml_reader *r); /* NULL allowed */

/* NVML's idle reason: set whenever the GPU has nothing to run. */
#define NVML_EVENT_GPU_IDLE 0x1ull

/* The reasons as names joined by '|' ("sw_power_cap|hw_slowdown"; "none"
 * for 0; unknown bits as "0x..."). Returns buf. */
const char *gpu_clock_event_names(unsigned long long mask, char *buf, size_t len);
/* 1 when the mask holds a reason that holds the clock down (power, thermal,
 * slowdown, power brake), not idle or settings. */
int gpu_clock_events_throttle(unsigned long long mask);

#endif
