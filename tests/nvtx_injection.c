/* An NVTX injection library for tests: load it with
 *   NVTX_INJECTION64_PATH=/abs/path/libnvtx_injection.so
 *   NVTX_RECORD_FILE=/abs/path/record.txt
 * and every domain push and pop of the process is appended to the record
 * file, one line each:
 *   push<TAB><domain><TAB><message><TAB><argb hex>
 *   pop<TAB><domain>
 * (Nsight tools attach the same way; this one only records.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

/* A domain handle is a pointer to its name. */
typedef struct rec_domain {
    char name[128];
} rec_domain;

static FILE *out;

static FILE *record(void)
{
    if (!out) {
        const char *path = getenv("NVTX_RECORD_FILE");
        out = fopen(path && *path ? path : "/dev/null", "a");
        if (out) setvbuf(out, NULL, _IOLBF, 0);
    }
    return out;
}

static const char *domain_name(nvtxDomainHandle_t d) { return d ? ((rec_domain *)d)->name : "(global)"; }

static nvtxDomainHandle_t NVTX_API rec_domain_create(const char *name)
{
    rec_domain *d = calloc(1, sizeof *d);
    if (d) snprintf(d->name, sizeof d->name, "%s", name ? name : "");
    return (nvtxDomainHandle_t)d;
}

static void NVTX_API rec_domain_destroy(nvtxDomainHandle_t d) { (void)d; /* handles stay valid for the log */ }

static int NVTX_API rec_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    FILE *f = record();
    const char *msg = a && a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii ? a->message.ascii : "";
    unsigned color = a && a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
    if (f) fprintf(f, "push\t%s\t%s\t%08x\n", domain_name(d), msg, color);
    return 0;
}

static int NVTX_API rec_pop(nvtxDomainHandle_t d)
{
    FILE *f = record();
    if (f) fprintf(f, "pop\t%s\n", domain_name(d));
    return 0;
}

/* The entry point NVTX looks up after dlopen. */
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get_table(NVTX_ETID_CALLBACKS);
    if (!cb || !cb->GetModuleFunctionTable) return 0;
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || !table) return 0;
    if (size > NVTX_CBID_CORE2_DomainCreateA) *table[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)rec_domain_create;
    if (size > NVTX_CBID_CORE2_DomainDestroy)
        *table[NVTX_CBID_CORE2_DomainDestroy] = (NvtxFunctionPointer)rec_domain_destroy;
    if (size > NVTX_CBID_CORE2_DomainRangePushEx) *table[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)rec_push;
    if (size > NVTX_CBID_CORE2_DomainRangePop) *table[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)rec_pop;
    return 1;
}
