// The profiler of profiler.h on the CUDA 13 Range Profiler (cupti_range_profiler.h)
// and the Profiler Host API (cupti_profiler_host.h). C++ only because
// cupti_profiler_host.h includes <string>; the interface is C. Open, close and
// the metric checks here; the measurements in profiler_measure.cc.
//
// Call order (per the CUPTI documentation):
//   open:    cuptiProfilerInitialize -> cuptiDeviceGetChipName ->
//            cuptiProfilerGetCounterAvailability -> cuptiProfilerHostInitialize ->
//            cuptiProfilerHostConfigAddMetrics -> cuptiProfilerHostGetConfigImageSize /
//            GetConfigImage / GetNumOfPasses -> cuptiRangeProfilerEnable + Disable (a probe,
//            so missing privileges or another profiler show up at open)
//   measure: per chunk of at most PROFILER_BATCH_MAX ranges: cuptiRangeProfilerEnable ->
//            GetCounterDataSize -> CounterDataImageInitialize -> SetConfig -> per pass
//            {Start, per range {restore, PushRange, fn, PopRange}, Stop} until
//            isAllPassSubmitted -> DecodeData -> GetCounterDataInfo -> per range
//            {CounterDataGetRangeInfo, cuptiProfilerHostEvaluateToGpuValues} ->
//            cuptiRangeProfilerDisable
//   close:   cuptiProfilerHostDeinitialize -> cuptiProfilerDeInitialize
// What a measurement costs besides the measured work, and where it goes: the
// host object and config image are built once, at open (ConfigAddMetrics and
// GetConfigImage: the slow host-side scheduling); per session: Enable/Disable
// (the counters reserved and released), the counter data image's
// initialisation, SetConfig, and per pass Start/Stop, each a device
// synchronisation, then DecodeData; per range: the restore with its
// synchronisations, Push/Pop and the host-side evaluation. A session measures a
// whole chunk of ranges, so what it costs is shared by up to
// PROFILER_BATCH_MAX configurations. Each chunk is its own enable/disable
// session with a fresh counter-data image, so chunks are independent of one
// another, and the range profiler is never enabled outside a measurement
// (the sweep's timings run with it disabled).

#include "cupti/profiler_impl.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <new>

namespace {

const char *explain(CUptiResult r)
{
    switch (r) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return "another profiler holds the GPU counters (Nsight Compute, Nsight Systems or another "
               "CUPTI client): run without it to collect metrics here";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return "GPU performance counters are restricted to administrators: run as root, or load the "
               "nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
               "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return "the hypervisor does not allow profiling on this virtual GPU";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        return "profiling is not supported on a MIG instance";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        return "profiling is not allowed in confidential-computing mode";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        return "CUPTI does not support crypto-mining processors";
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        return "the legacy CUPTI event/metric API is already in use in this process";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        return "this device or driver does not support the CUPTI Range Profiler";
    default:
        return nullptr;
    }
}

profiler_status status_of(CUptiResult r)
{
    switch (r) {
    case CUPTI_SUCCESS:
        return PROFILER_OK;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return PROFILER_UNAVAILABLE_OTHER_PROFILER;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return PROFILER_INSUFFICIENT_PRIVILEGES;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
        return PROFILER_UNKNOWN_METRIC;
    default:
        return PROFILER_ERROR;
    }
}

// "<explanation> (file:line: call: CUPTI_ERROR_X)" where there is an explanation,
// else "file:line: call: CUPTI_ERROR_X: <CUPTI's message>".

} // namespace

namespace cupti_impl {

profiler_status cupti_fail(CUptiResult r, const char *call, const char *file, int line, char *msg,
                           size_t msglen)
{
    const char *name = nullptr;
    if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI result";
    const char *why = explain(r);
    if (why) {
        cupti_msg_set(msg, msglen, "%s (%s:%d: %s: %s)", why, file, line, call, name);
    } else {
        const char *text = nullptr;
        if (cuptiGetErrorMessage(r, &text) != CUPTI_SUCCESS || !text || strcmp(text, name) == 0)
            cupti_msg_set(msg, msglen, "%s:%d: %s: %s (%d)", file, line, call, name, (int)r);
        else
            cupti_msg_set(msg, msglen, "%s:%d: %s: %s: %s", file, line, call, name, text);
    }
    return status_of(r);
}

profiler_status cuda_fail(cudaError_t e, const char *call, const char *file, int line, char *msg,
                          size_t msglen)
{
    cupti_msg_set(msg, msglen, "%s:%d: %s: %s: %s", file, line, call, cudaGetErrorName(e),
            cudaGetErrorString(e));
    return PROFILER_ERROR;
}

// Every CUPTI and CUDA call goes through one of these: on failure, the
// enclosing function returns the mapped status with file/line in msg.
profiler_status enable(profiler *p, CUpti_RangeProfiler_Object **rp, char *msg, size_t msglen)
{
    PARAMS(CUpti_RangeProfiler_Enable_Params, ep);
    ep.ctx = p->ctx;
    CUPTI_TRY(cuptiRangeProfilerEnable(&ep));
    *rp = ep.pRangeProfilerObject;
    return PROFILER_OK;
}

CUptiResult disable(CUpti_RangeProfiler_Object *rp)
{
    PARAMS(CUpti_RangeProfiler_Disable_Params, dp);
    dp.pRangeProfilerObject = rp;
    return cuptiRangeProfilerDisable(&dp);
}

} // namespace cupti_impl

using cupti_impl::enable;
using cupti_impl::disable;

namespace {


CUptiResult host_init(const char *chip, const uint8_t *availability, CUpti_Profiler_Host_Object **out)
{
    PARAMS(CUpti_Profiler_Host_Initialize_Params, hp);
    hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hp.pChipName = chip;
    hp.pCounterAvailabilityImage = availability;
    CUptiResult r = cuptiProfilerHostInitialize(&hp);
    *out = r == CUPTI_SUCCESS ? hp.pHostObject : nullptr;
    return r;
}

void host_deinit(CUpti_Profiler_Host_Object *host)
{
    if (!host)
        return;
    PARAMS(CUpti_Profiler_Host_Deinitialize_Params, dp);
    dp.pHostObject = host;
    cuptiProfilerHostDeinitialize(&dp);
}

struct scoped_host {
    CUpti_Profiler_Host_Object *obj = nullptr;
    ~scoped_host() { host_deinit(obj); }
};

bool metric_known(CUpti_Profiler_Host_Object *host, const char *name, CUpti_MetricType *type)
{
    PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, mp);
    mp.pHostObject = host;
    mp.pMetricName = name;
    if (cuptiProfilerHostGetMetricProperties(&mp) != CUPTI_SUCCESS)
        return false;
    if (type)
        *type = mp.metricType;
    return true;
}

// Base metric names of the chip ("dram__bytes_read"), without the group
// prefix some carry ("CTC.TriageCompute.ctc__rx_bytes" -> "ctc__rx_bytes").
std::vector<std::string> base_metrics(CUpti_Profiler_Host_Object *host)
{
    std::vector<std::string> out;
    const CUpti_MetricType types[] = {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO,
                                      CUPTI_METRIC_TYPE_THROUGHPUT};
    for (CUpti_MetricType t : types) {
        PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, bp);
        bp.pHostObject = host;
        bp.metricType = t;
        if (cuptiProfilerHostGetBaseMetrics(&bp) != CUPTI_SUCCESS || !bp.ppMetricNames)
            continue;
        for (size_t i = 0; i < bp.numMetrics; i++) {
            const char *n = bp.ppMetricNames[i];
            if (!n)
                continue;
            const char *dot = strrchr(n, '.');
            out.emplace_back(dot ? dot + 1 : n);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void append_closest(char *msg, size_t msglen, const std::vector<std::string> &names)
{
    if (names.empty()) {
        cupti_msg_append(msg, msglen, " (no close match)");
        return;
    }
    cupti_msg_append(msg, msglen, "; closest: ");
    for (size_t i = 0; i < names.size(); i++)
        cupti_msg_append(msg, msglen, "%s%s", i ? ", " : "", names[i].c_str());
}

// PROFILER_UNKNOWN_METRIC for `name`, with the closest names the chip knows.
profiler_status unknown_metric(CUpti_Profiler_Host_Object *host, const std::string &chip,
                               const char *name, char *msg, size_t msglen)
{
    const std::string full(name);
    const size_t dot = full.find('.');
    const std::string base = full.substr(0, dot);
    const std::string suffix = dot == std::string::npos ? "" : full.substr(dot);
    const std::vector<std::string> bases = base_metrics(host);
    std::vector<std::string> closest;
    CUpti_MetricType type = CUPTI_METRIC_TYPE_COUNTER;

    if (std::binary_search(bases.begin(), bases.end(), base) && metric_known(host, base.c_str(), &type)) {
        // The counter exists; the rollup / submetric does not.
        std::vector<std::string> full_names;
        PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params, sp);
        sp.pHostObject = host;
        sp.metricType = type;
        sp.pMetricName = base.c_str();
        if (cuptiProfilerHostGetSubMetrics(&sp) == CUPTI_SUCCESS && sp.ppSubMetrics) {
            for (size_t i = 0; i < sp.numOfSubmetrics; i++) {
                const char *s = sp.ppSubMetrics[i];
                if (s && *s)
                    full_names.push_back(base + (s[0] == '.' ? "" : ".") + s);
            }
        }
        // The usual rollups first: a bare counter name most likely wants one of them.
        const char *usual[] = {".sum", ".ratio", ".pct", ".avg.pct_of_peak_sustained_elapsed", ".avg"};
        std::vector<const char *> ptrs;
        for (const char *u : usual)
            for (const std::string &s : full_names)
                if (s == base + u)
                    ptrs.push_back(s.c_str());
        for (const std::string &s : full_names)
            if (std::find(ptrs.begin(), ptrs.end(), s.c_str()) == ptrs.end())
                ptrs.push_back(s.c_str());
        const char *best[3];
        size_t got = suffix.empty() ? 0 : metric_suggest(name, ptrs.data(), ptrs.size(), best, 3);
        if (got == 0) { // no suffix, or all too far for the distance rule: the usual ones
            got = std::min<size_t>(3, ptrs.size());
            std::copy_n(ptrs.begin(), got, best);
        }
        for (size_t i = 0; i < got; i++)
            closest.emplace_back(best[i]);
        if (suffix.empty())
            cupti_msg_set(msg, msglen, "unknown metric '%s': %s needs a rollup or submetric", name,
                    base.c_str());
        else
            cupti_msg_set(msg, msglen, "unknown metric '%s': %s has no submetric '%s' on %s", name,
                    base.c_str(), suffix.c_str(), chip.c_str());
    } else {
        std::vector<const char *> ptrs;
        for (const std::string &s : bases)
            ptrs.push_back(s.c_str());
        const char *best[3];
        size_t got = metric_suggest(base.c_str(), ptrs.data(), ptrs.size(), best, 3);
        for (size_t i = 0; i < got; i++) {
            std::string with_suffix = std::string(best[i]) + suffix;
            closest.push_back(!suffix.empty() && metric_known(host, with_suffix.c_str(), nullptr)
                                  ? with_suffix
                                  : std::string(best[i]));
        }
        cupti_msg_set(msg, msglen, "unknown metric '%s': %s has no metric %s", name, chip.c_str(),
                base.c_str());
    }
    append_closest(msg, msglen, closest);
    return PROFILER_UNKNOWN_METRIC;
}

// Names checked against the chip, then the config image and its pass count.
profiler_status build_config(CUpti_Profiler_Host_Object *host, const std::string &chip,
                             const uint8_t *availability, const std::vector<const char *> &names,
                             std::vector<uint8_t> &config, size_t &passes, char *msg, size_t msglen)
{
    for (const char *n : names)
        if (!metric_known(host, n, nullptr))
            return unknown_metric(host, chip, n, msg, msglen);

    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, ap);
    ap.pHostObject = host;
    ap.ppMetricNames = const_cast<const char **>(names.data());
    ap.numMetrics = names.size();
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&ap);
    if (r != CUPTI_SUCCESS) {
        // CUPTI says only "invalid parameter": find the name it refuses alone.
        for (const char *n : names) {
            scoped_host one;
            if (host_init(chip.c_str(), availability, &one.obj) != CUPTI_SUCCESS)
                break;
            PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, p1);
            p1.pHostObject = one.obj;
            p1.ppMetricNames = &n;
            p1.numMetrics = 1;
            if (cuptiProfilerHostConfigAddMetrics(&p1) != CUPTI_SUCCESS)
                return unknown_metric(host, chip, n, msg, msglen);
        }
        CUPTI_CHECK(r, "cuptiProfilerHostConfigAddMetrics");
    }

    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sp);
    sp.pHostObject = host;
    CUPTI_TRY(cuptiProfilerHostGetConfigImageSize(&sp));
    config.assign(sp.configImageSize, 0);

    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, ip);
    ip.pHostObject = host;
    ip.configImageSize = config.size();
    ip.pConfigImage = config.data();
    CUPTI_TRY(cuptiProfilerHostGetConfigImage(&ip));

    PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    CUPTI_TRY(cuptiProfilerHostGetNumOfPasses(&np));
    passes = np.numOfPasses;
    if (passes == 0) {
        cupti_msg_set(msg, msglen, "%s:%d: cuptiProfilerHostGetNumOfPasses: 0 passes", __FILE__, __LINE__);
        return PROFILER_ERROR;
    }
    return PROFILER_OK;
}

// Argument checks shared by profiler_open and profiler_check_metrics: names
// present and well formed (suggestions from the metric table otherwise).
profiler_status check_names(const char *const *names, size_t count, char *msg, size_t msglen)
{
    if (!names || count == 0) {
        cupti_msg_set(msg, msglen, "empty metric list");
        return PROFILER_ERROR;
    }
    for (size_t i = 0; i < count; i++) {
        if (!names[i]) {
            cupti_msg_set(msg, msglen, "metric name %zu is NULL", i);
            return PROFILER_ERROR;
        }
        char why[256] = "";
        if (metric_name_check(names[i], why, sizeof why) != 0) {
            const metric_def *d = metric_find_key(names[i]);
            if (!d)
                d = metric_find_nvprof(names[i]);
            if (d) {
                cupti_msg_set(msg, msglen,
                        "'%s' is a study metric, not a CUPTI name: resolve it with metric_plan_new "
                        "(it reads %s%s%s)",
                        names[i], d->name, d->denominator ? " / " : "",
                        d->denominator ? d->denominator : "");
                return PROFILER_UNKNOWN_METRIC;
            }
            const char *cands[256];
            size_t nc = metric_table_candidates(cands, sizeof cands / sizeof cands[0]);
            cupti_msg_set(msg, msglen, "unknown metric '%s': %s", names[i], why);
            metric_append_suggestions(msg, msglen, names[i], cands, nc);
            return PROFILER_UNKNOWN_METRIC;
        }
    }
    return PROFILER_OK;
}

typedef CUresult (*ctx_get_current_fn)(CUcontext *);

// The current CUDA context, through the runtime's driver entry point (so
// nothing links libcuda, and a host without a driver still loads us).
profiler_status current_context(CUcontext *ctx, char *msg, size_t msglen)
{
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    CUDA_TRY(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn) {
        cupti_msg_set(msg, msglen, "%s:%d: the driver has no cuCtxGetCurrent", __FILE__, __LINE__);
        return PROFILER_ERROR;
    }
    CUresult r = reinterpret_cast<ctx_get_current_fn>(fn)(ctx);
    if (r != CUDA_SUCCESS || !*ctx) {
        cupti_msg_set(msg, msglen, "%s:%d: cuCtxGetCurrent: error %d", __FILE__, __LINE__, (int)r);
        return PROFILER_ERROR;
    }
    return PROFILER_OK;
}

profiler_status open_steps(profiler *p, int device, const char *const *names, size_t count,
                           char *msg, size_t msglen)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess) {
        cupti_msg_set(msg, msglen, "no CUDA device (%s: %s)", cudaGetErrorName(e), cudaGetErrorString(e));
        return PROFILER_NO_DEVICE;
    }
    if (ndev == 0) {
        cupti_msg_set(msg, msglen, "no CUDA device (the driver reports none)");
        return PROFILER_NO_DEVICE;
    }
    if (device < 0 || device >= ndev) {
        cupti_msg_set(msg, msglen, "CUDA device %d does not exist (%d device%s)", device, ndev,
                ndev == 1 ? "" : "s");
        return PROFILER_ERROR;
    }
    p->device = device;
    CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaFree(0)); // the primary context exists from here on
    profiler_status s = current_context(&p->ctx, msg, msglen);
    if (s != PROFILER_OK)
        return s;

    // distinct names, and where each caller's index finds its value
    for (size_t i = 0; i < count; i++) {
        size_t j = 0;
        while (j < p->names.size() && p->names[j] != names[i])
            j++;
        if (j == p->names.size())
            p->names.emplace_back(names[i]);
        p->slot.push_back(j);
    }
    for (const std::string &n : p->names)
        p->name_ptrs.push_back(n.c_str());
    p->distinct_values.assign(p->names.size(), 0.0);

    PARAMS(CUpti_Profiler_Initialize_Params, ip);
    CUPTI_TRY(cuptiProfilerInitialize(&ip));
    p->cupti_initialized = true;

    PARAMS(CUpti_Device_GetChipName_Params, cp);
    cp.deviceIndex = (size_t)device;
    CUPTI_TRY(cuptiDeviceGetChipName(&cp));
    p->chip = cp.pChipName ? cp.pChipName : "";

    PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ap);
    ap.ctx = p->ctx;
    CUPTI_TRY(cuptiProfilerGetCounterAvailability(&ap)); // size
    p->availability.assign(ap.counterAvailabilityImageSize, 0);
    ap.pCounterAvailabilityImage = p->availability.data();
    CUPTI_TRY(cuptiProfilerGetCounterAvailability(&ap)); // image

    CUPTI_CHECK(host_init(p->chip.c_str(), p->availability.data(), &p->host), "cuptiProfilerHostInitialize");

    s = build_config(p->host, p->chip, p->availability.data(), p->name_ptrs, p->config, p->passes,
                     msg, msglen);
    if (s != PROFILER_OK)
        return s;

    // Probe: privileges and other profilers are refused here, not mid-sweep.
    CUpti_RangeProfiler_Object *rp = nullptr;
    s = enable(p, &rp, msg, msglen);
    if (s != PROFILER_OK)
        return s;
    CUPTI_CHECK(disable(rp), "cuptiRangeProfilerDisable");
    return PROFILER_OK;
}

// What a batch measures: fn(user, k) is range k, restore(user, k) runs before it.
} // namespace

extern "C" {

profiler_status profiler_open(int device, const char *const *metric_names, size_t count,
                              profiler **out, int *num_passes, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (num_passes)
        *num_passes = 0;
    if (!out) {
        cupti_msg_set(msg, msglen, "profiler_open: out is NULL");
        return PROFILER_ERROR;
    }
    *out = nullptr;
    profiler_status s = check_names(metric_names, count, msg, msglen);
    if (s != PROFILER_OK)
        return s;

    profiler *p = new (std::nothrow) profiler;
    if (!p) {
        cupti_msg_set(msg, msglen, "out of memory");
        return PROFILER_ERROR;
    }
    try {
        s = open_steps(p, device, metric_names, count, msg, msglen);
    } catch (const std::bad_alloc &) {
        cupti_msg_set(msg, msglen, "out of memory");
        s = PROFILER_ERROR;
    }
    if (s != PROFILER_OK) {
        profiler_close(p);
        return s;
    }
    if (num_passes)
        *num_passes = (int)p->passes;
    *out = p;
    return PROFILER_OK;
}


int profiler_num_passes(const profiler *p)
{
    return p ? (int)p->passes : 0;
}

const char *profiler_chip(const profiler *p)
{
    return p ? p->chip.c_str() : "";
}

void profiler_close(profiler *p)
{
    if (!p)
        return;
    host_deinit(p->host);
    if (p->cupti_initialized) {
        PARAMS(CUpti_Profiler_DeInitialize_Params, dp);
        cuptiProfilerDeInitialize(&dp);
    }
    delete p;
}

profiler_status profiler_check_metrics(const char *chip, const char *const *metric_names,
                                       size_t count, int *num_passes, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (num_passes)
        *num_passes = 0;
    if (!chip || !*chip) {
        cupti_msg_set(msg, msglen, "profiler_check_metrics: no chip name");
        return PROFILER_ERROR;
    }
    profiler_status s = check_names(metric_names, count, msg, msglen);
    if (s != PROFILER_OK)
        return s;
    try {
        scoped_host host;
        CUptiResult r = host_init(chip, nullptr, &host.obj);
        if (r != CUPTI_SUCCESS) {
            cupti_msg_set(msg, msglen, "CUPTI does not know chip '%s' (%s:%d: cuptiProfilerHostInitialize)",
                    chip, __FILE__, __LINE__);
            PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params, cp);
            if (cuptiProfilerHostGetSupportedChips(&cp) == CUPTI_SUCCESS && cp.ppChipNames) {
                cupti_msg_append(msg, msglen, "; supported:");
                for (size_t i = 0; i < cp.numChips; i++)
                    cupti_msg_append(msg, msglen, " %s", cp.ppChipNames[i]);
            }
            return PROFILER_ERROR;
        }
        std::vector<const char *> names; // distinct, in the caller's order
        for (size_t i = 0; i < count; i++)
            if (std::none_of(names.begin(), names.end(),
                             [&](const char *n) { return strcmp(n, metric_names[i]) == 0; }))
                names.push_back(metric_names[i]);
        std::vector<uint8_t> config;
        size_t passes = 0;
        s = build_config(host.obj, chip, nullptr, names, config, passes, msg, msglen);
        if (s == PROFILER_OK && num_passes)
            *num_passes = (int)passes;
        return s;
    } catch (const std::bad_alloc &) {
        cupti_msg_set(msg, msglen, "out of memory");
        return PROFILER_ERROR;
    }
}

const char *profiler_status_text(profiler_status s)
{
    switch (s) {
    case PROFILER_OK:
        return "ok";
    case PROFILER_UNAVAILABLE_OTHER_PROFILER:
        return "unavailable: another profiler is attached";
    case PROFILER_INSUFFICIENT_PRIVILEGES:
        return "insufficient privileges for GPU performance counters";
    case PROFILER_UNKNOWN_METRIC:
        return "unknown metric";
    case PROFILER_NO_DEVICE:
        return "no CUDA device";
    case PROFILER_ERROR:
        return "error";
    }
    return "invalid status";
}

} // extern "C"

