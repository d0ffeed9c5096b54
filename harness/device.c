#include "harness/device.h"

#include <string.h>

cudaError_t cuda_report(cudaError_t err, const char *call, const char *file, int line)
{
    if (err != cudaSuccess)
        fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, call, cudaGetErrorString(err), cudaGetErrorName(err));
    return err;
}

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) return 0;
    return v;
}

int device_open(int ordinal, device_info *info, char *msg, size_t msglen)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(msg, msglen, "no CUDA device: %s", cudaGetErrorString(err));
        cudaGetLastError(); /* clear it: the caller may still print and exit cleanly */
        return -1;
    }
    if (count == 0) {
        snprintf(msg, msglen, "no CUDA device: the driver reports none");
        return -1;
    }
    if (ordinal < 0 || ordinal >= count) {
        snprintf(msg, msglen, "no CUDA device: ordinal %d out of range (this host has %d device%s: 0..%d)", ordinal,
                 count, count == 1 ? "" : "s", count - 1);
        return -1;
    }
    if ((err = cudaSetDevice(ordinal)) != cudaSuccess || (err = cudaFree(0)) != cudaSuccess) {
        snprintf(msg, msglen, "no CUDA device: device %d unusable: %s", ordinal, cudaGetErrorString(err));
        return -1;
    }
    struct cudaDeviceProp p;
    if ((err = cudaGetDeviceProperties(&p, ordinal)) != cudaSuccess) {
        snprintf(msg, msglen, "no CUDA device: cannot read properties of device %d: %s", ordinal,
                 cudaGetErrorString(err));
        return -1;
    }
    memset(info, 0, sizeof *info);
    info->ordinal = ordinal;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->sm_major = p.major;
    info->sm_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->l2_bytes = (size_t)p.l2CacheSize;
    info->global_mem_bytes = p.totalGlobalMem;
    info->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, ordinal);
    info->mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    info->sm_clock_khz = attr(cudaDevAttrClockRate, ordinal);
    /* Double data rate: two transfers per memory clock over the whole bus. */
    info->peak_bandwidth_GBps = 2.0 * info->mem_clock_khz * 1e3 * (info->mem_bus_bits / 8.0) / 1e9;
    if (cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, ordinal) != cudaSuccess)
        info->pci_bus_id[0] = '\0';
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    return 0;
}

int device_skip_if_absent(void)
{
    device_info info;
    char msg[512];
    if (device_open(0, &info, msg, sizeof msg) == 0) return 0;
    printf("SKIPPED: %s\n", msg);
    return 1;
}
