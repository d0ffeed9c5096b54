#define _POSIX_C_SOURCE 200809L
#include "harness/device/device.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>
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

/* A CUDA version number (12080) as the driver and toolkit write it (12.8). */
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", nvidia-smi's form of the card's UUID. */
static void uuid_text(const cudaUUID_t *u, char *buf, size_t len)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(buf, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void cuda_version_text(int v, char *buf, size_t len)
{
    if (v <= 0) snprintf(buf, len, "none");
    else snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

void device_explain_absence(cudaError_t err, int driver_version, int runtime_version, int driver_present,
                            char *msg, size_t len)
{
    char drv[32], rt[32];
    cuda_version_text(driver_version, drv, sizeof drv);
    cuda_version_text(runtime_version, rt, sizeof rt);
    /* The runtime says "insufficient driver" both for an old driver and for
     * none at all: the driver's library and device nodes tell them apart. */
    if (err == cudaErrorInsufficientDriver && !driver_present)
        snprintf(msg, len, "no CUDA device: no NVIDIA driver on this machine (no libcuda.so.1, no /dev/nvidia*)");
    else if (err == cudaErrorInsufficientDriver)
        snprintf(msg, len,
                 "no CUDA device: the NVIDIA driver is too old for this build: it supports CUDA %s, the runtime "
                 "needs CUDA %s (update the driver)",
                 drv, rt);
    else if (err == cudaErrorNoDevice || err == cudaSuccess)
        snprintf(msg, len, "no CUDA device: the NVIDIA driver (CUDA %s) sees no GPU%s", drv,
                 getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES is set: it may hide them)" : "");
    else
        snprintf(msg, len, "no CUDA device: %s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
}

int device_driver_present(void)
{
    glob_t g;
    int nodes = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    if (nodes) return 1;
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) return 0;
    dlclose(lib);
    return 1;
}

int device_count(int *count, char *msg, size_t msglen)
{
    *count = 0;
    cudaError_t err = cudaGetDeviceCount(count);
    if (err == cudaSuccess && *count > 0) return 0;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    device_explain_absence(err, drv, rt, err == cudaErrorInsufficientDriver ? device_driver_present() : 1, msg,
                           msglen);
    cudaGetLastError(); /* clear it: the caller may still print and exit cleanly */
    *count = 0;
    return -1;
}

int device_open(int ordinal, device_info *info, char *msg, size_t msglen)
{
    int count = 0;
    cudaError_t err;
    if (device_count(&count, msg, msglen)) return -1;
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
    uuid_text(&p.uuid, info->uuid, sizeof info->uuid);
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
