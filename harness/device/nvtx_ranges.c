#include "harness/device/nvtx_ranges.h"

#include <string.h>

#include <nvtx3/nvToolsExt.h>

static nvtxDomainHandle_t domain;
static int depth;

static nvtxDomainHandle_t get_domain(void)
{
    if (!domain) domain = nvtxDomainCreateA(SWEEP_NVTX_DOMAIN);
    return domain;
}

void nvtx_push(const char *name, uint32_t argb)
{
    nvtxEventAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.colorType = NVTX_COLOR_ARGB;
    attr.color = argb;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = name;
    nvtxDomainRangePushEx(get_domain(), &attr);
    depth++;
}

void nvtx_pop(void)
{
    if (depth <= 0) return;
    nvtxDomainRangePop(get_domain());
    depth--;
}

void nvtx_pop_all(void)
{
    while (depth > 0) nvtx_pop();
}

int nvtx_depth(void) { return depth; }

uint32_t nvtx_family_color(const char *family)
{
    /* Colour-blind-safe palette (Okabe-Ito) plus a few more. */
    static const uint32_t palette[] = {0xFFE69F00u, 0xFF56B4E9u, 0xFF009E73u, 0xFFF0E442u, 0xFF0072B2u,
                                       0xFFD55E00u, 0xFFCC79A7u, 0xFF999999u, 0xFF882255u, 0xFF44AA99u};
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *c = family ? family : ""; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
    return palette[h % (sizeof palette / sizeof palette[0])];
}
