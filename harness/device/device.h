/* The CUDA device as the harness sees it: is there one, what is it. */
#ifndef HARNESS_DEVICE_H
#define HARNESS_DEVICE_H

#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

/* Print "file:line: call: error text" to stderr and evaluate to the error. */
cudaError_t cuda_report(cudaError_t err, const char *call, const char *file, int line);
#define CUDA_TRY(call) cuda_report((call), #call, __FILE__, __LINE__)

typedef struct device_info {
    int ordinal;
    char name[256];
    int sm_major, sm_minor, sm_count;
    size_t l2_bytes, global_mem_bytes;
    int mem_clock_khz, mem_bus_bits, sm_clock_khz;
    double peak_bandwidth_GBps; /* 2 x memory clock x bus width (DDR) */
    int driver_version, runtime_version;
    char pci_bus_id[32]; /* "0000:1b:00.0" (cudaDeviceGetPCIBusId); "" unknown */
    char uuid[48];       /* "GPU-8-4-4-4-12 hex", as nvidia-smi -L names the card: which card, across machines */
} device_info;

/* The number of CUDA devices in *count: 0, or -1 with "no CUDA device:
 * <why>" in msg (device_explain_absence) when there is none. */
int device_count(int *count, char *msg, size_t msglen);

/* Why there is no device, in words a user can act on: no NVIDIA driver at
 * all, a driver too old for the runtime (both versions), a driver that sees
 * no GPU, or the runtime's own text. err is cudaGetDeviceCount's answer
 * (cudaSuccess: it counted 0); versions as cudaDriverGetVersion and
 * cudaRuntimeGetVersion give them (12080); driver_present from
 * device_driver_present(). */
void device_explain_absence(cudaError_t err, int driver_version, int runtime_version, int driver_present,
                            char *msg, size_t len);

/* 1 when this machine has an NVIDIA driver: /dev/nvidiaN nodes or a loadable libcuda.so.1. */
int device_driver_present(void);

/* 0 when device `ordinal` is usable, filling *info. Otherwise -1 and a message
 * "no CUDA device: <reason>" (no GPU, no driver, ordinal out of range). */
int device_open(int ordinal, device_info *info, char *msg, size_t msglen);

/* Exit-0 skip for GPU tests: prints "SKIPPED: no CUDA device (<reason>)" when
 * there is none and returns 1; returns 0 when a device is there. */
int device_skip_if_absent(void);

#endif
