// profiler_measure and profiler_measure_batch (cupti/profiler.h) on the CUDA 13
// Range Profiler; open and close: profiler_range.cc, whose header says the
// call order and where a measurement's cost goes.

#include "cupti/profiler_impl.h"

#include <algorithm>
#include <ctime>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using cupti_impl::cuda_fail;
using cupti_impl::disable;
using cupti_impl::enable;

namespace {

double now_s()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct batch_call {
    int (*fn)(void *, size_t);
    int (*restore)(void *, size_t);
    void *user;
};

// The counter data image for `count` ranges and the session's configuration:
// user ranges, user replay, up to `count` ranges in each pass, one level.
profiler_status set_config(profiler *p, CUpti_RangeProfiler_Object *rp, size_t count, char *msg, size_t msglen)
{
    PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, sp);
    sp.pRangeProfilerObject = rp;
    sp.pMetricNames = const_cast<const char **>(p->name_ptrs.data());
    sp.numMetrics = p->name_ptrs.size();
    sp.maxNumOfRanges = count;
    sp.maxNumRangeTreeNodes = (uint32_t)count;
    CUPTI_TRY(cuptiRangeProfilerGetCounterDataSize(&sp));
    p->counter_data.assign(sp.counterDataSize, 0); // keeps its capacity across batches

    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, cp);
    cp.pRangeProfilerObject = rp;
    cp.counterDataSize = p->counter_data.size();
    cp.pCounterData = p->counter_data.data();
    CUPTI_TRY(cuptiRangeProfilerCounterDataImageInitialize(&cp));

    PARAMS(CUpti_RangeProfiler_SetConfig_Params, cfg);
    cfg.pRangeProfilerObject = rp;
    cfg.configSize = p->config.size();
    cfg.pConfig = p->config.data();
    cfg.counterDataImageSize = p->counter_data.size();
    cfg.pCounterDataImage = p->counter_data.data();
    cfg.range = CUPTI_UserRange;
    cfg.replayMode = CUPTI_UserReplay;
    cfg.maxRangesPerPass = count;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    CUPTI_TRY(cuptiRangeProfilerSetConfig(&cfg));
    return PROFILER_OK;
}

// One pass: restore(k) outside any range, then range "r<k>" around fn(k),
// for every k of the chunk, in order (every pass pushes the same ranges).
// restore runs after Start: starting a pass leaves about 3 MB of dirty L2
// lines on the H200, and popping a range may write the profiler's own data;
// a restore that flushes the L2 writes them back here instead of inside the
// next range. Measured on a reduction at 2^26 that stores 1 MiB: 3.9-4.4 MB of
// DRAM writes with the flush before Start, 0.93 MB after.
profiler_status run_pass(profiler *p, CUpti_RangeProfiler_Object *rp, size_t first, size_t count, const batch_call &b,
                         size_t pass, char *msg, size_t msglen)
{
    profiler_times &t = p->times;
    for (size_t k = 0; k < count; k++) {
        double t0 = now_s();
        int rc = b.restore ? b.restore(b.user, first + k) : 0;
        if (rc != 0) {
            cupti_msg_set(msg, msglen, "restore returned %d before range %zu of pass %zu", rc, first + k, pass + 1);
            return PROFILER_ERROR;
        }
        if (p->range_waits)
            CUDA_TRY(cudaDeviceSynchronize()); // restore's work stays out of the range
        double t1 = now_s();
        t.restore += t1 - t0;
        char name[24];
        snprintf(name, sizeof name, "r%zu", k);
        PARAMS(CUpti_RangeProfiler_PushRange_Params, push);
        push.pRangeProfilerObject = rp;
        push.pRangeName = name;
        CUPTI_TRY(cuptiRangeProfilerPushRange(&push));
        double t2 = now_s();
        rc = b.fn(b.user, first + k);
        double t3 = now_s();
        cudaError_t sync_e = p->range_waits ? cudaDeviceSynchronize() : cudaSuccess;
        double t4 = now_s();
        PARAMS(CUpti_RangeProfiler_PopRange_Params, pop);
        pop.pRangeProfilerObject = rp;
        CUptiResult pop_r = cuptiRangeProfilerPopRange(&pop);
        double t5 = now_s();
        t.push += t2 - t1;
        t.fn += t3 - t2;
        t.wait += t4 - t3;
        t.pop += t5 - t4;
        t.ranges += t5 - t1;
        if (rc != 0) {
            cupti_msg_set(msg, msglen, "the measured function returned %d for range %zu in pass %zu", rc, first + k,
                          pass + 1);
            return PROFILER_ERROR;
        }
        if (sync_e != cudaSuccess)
            return cuda_fail(sync_e, "cudaDeviceSynchronize() after the measured function", __FILE__, __LINE__, msg,
                             msglen);
        CUPTI_CHECK(pop_r, "cuptiRangeProfilerPopRange");
    }
    if (!p->range_waits) { // the pass's queued work, before its stop
        double t0 = now_s();
        cudaError_t e = cudaDeviceSynchronize();
        t.wait += now_s() - t0;
        t.ranges += now_s() - t0;
        if (e != cudaSuccess)
            return cuda_fail(e, "cudaDeviceSynchronize() at the pass's end", __FILE__, __LINE__, msg, msglen);
    }
    return PROFILER_OK;
}

// Which of the chunk's ranges counter-data range `index` is: the k of its
// name "r<k>" (after the last delimiter); push order where CUPTI gives no
// such name.
profiler_status range_slot(const profiler *p, size_t index, size_t count, size_t *k, char *msg, size_t msglen)
{
    PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, ri);
    ri.pCounterDataImage = p->counter_data.data();
    ri.counterDataImageSize = p->counter_data.size();
    ri.rangeIndex = index;
    ri.rangeDelimiter = "/";
    *k = index; // push order, where CUPTI names no range
    if (cuptiRangeProfilerCounterDataGetRangeInfo(&ri) != CUPTI_SUCCESS || !ri.rangeName)
        return PROFILER_OK;
    const char *name = ri.rangeName;
    const char *last = strrchr(name, '/');
    last = last ? last + 1 : name;
    char *end = nullptr;
    unsigned long long got = last[0] == 'r' && isdigit((unsigned char)last[1]) ? strtoull(last + 1, &end, 10) : 0;
    if (!end || *end)
        return PROFILER_OK;
    if (got >= count) {
        cupti_msg_set(msg, msglen, "%s:%d: counter-data range %zu is named '%s', not one of r0..r%zu", __FILE__,
                      __LINE__, index, name, count - 1);
        return PROFILER_ERROR;
    }
    *k = (size_t)got;
    return PROFILER_OK;
}

// Up to p->max_ranges ranges in one session (enable .. disable of the caller):
// the passes, then each range's values into values[(first + k) * slots + i].
profiler_status measure_chunk(profiler *p, CUpti_RangeProfiler_Object *rp, size_t first, size_t count,
                              const batch_call &b, double *values, char *msg, size_t msglen)
{
    double t0 = now_s();
    profiler_status s = set_config(p, rp, count, msg, msglen);
    p->times.session += now_s() - t0;
    if (s != PROFILER_OK)
        return s;
    const size_t max_passes = p->passes + 8; // CUPTI decides; this only stops a runaway loop
    bool all_submitted = false;
    for (size_t pass = 0; !all_submitted; pass++) {
        if (pass == max_passes) {
            cupti_msg_set(msg, msglen, "%s:%d: CUPTI still wants passes after %zu (config said %zu)", __FILE__,
                          __LINE__, pass, p->passes);
            return PROFILER_ERROR;
        }
        PARAMS(CUpti_RangeProfiler_Start_Params, start);
        start.pRangeProfilerObject = rp;
        double ts = now_s();
        CUPTI_TRY(cuptiRangeProfilerStart(&start));
        p->times.passes += now_s() - ts;
        s = run_pass(p, rp, first, count, b, pass, msg, msglen);
        // Stop whatever happened, so the session can be disabled cleanly.
        PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
        stop.pRangeProfilerObject = rp;
        ts = now_s();
        CUptiResult stop_r = cuptiRangeProfilerStop(&stop);
        p->times.passes += now_s() - ts;
        p->times.n_passes++;
        p->times.n_ranges += count;
        if (s != PROFILER_OK)
            return s;
        CUPTI_CHECK(stop_r, "cuptiRangeProfilerStop");
        all_submitted = stop.isAllPassSubmitted != 0;
    }

    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dp);
    dp.pRangeProfilerObject = rp;
    double td = now_s();
    CUPTI_TRY(cuptiRangeProfilerDecodeData(&dp));
    p->times.decode += now_s() - td;
    double te = now_s();
    if (dp.numOfRangeDropped != 0) {
        cupti_msg_set(msg, msglen, "%s:%d: cuptiRangeProfilerDecodeData: %zu of %zu range(s) dropped", __FILE__,
                      __LINE__, dp.numOfRangeDropped, count);
        return PROFILER_ERROR;
    }
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, ip);
    ip.pCounterDataImage = p->counter_data.data();
    ip.counterDataImageSize = p->counter_data.size();
    CUPTI_TRY(cuptiRangeProfilerGetCounterDataInfo(&ip));
    if (ip.numTotalRanges != count) {
        cupti_msg_set(msg, msglen, "%s:%d: expected %zu range(s) in the counter data, found %zu", __FILE__, __LINE__,
                      count, ip.numTotalRanges);
        return PROFILER_ERROR;
    }
    std::vector<bool> seen(count, false);
    for (size_t i = 0; i < count; i++) {
        size_t k = 0;
        if ((s = range_slot(p, i, count, &k, msg, msglen)) != PROFILER_OK)
            return s;
        if (seen[k]) {
            cupti_msg_set(msg, msglen, "%s:%d: range r%zu appears twice in the counter data", __FILE__, __LINE__, k);
            return PROFILER_ERROR;
        }
        seen[k] = true;
        PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
        ev.pHostObject = p->host;
        ev.pCounterDataImage = p->counter_data.data();
        ev.counterDataImageSize = p->counter_data.size();
        ev.rangeIndex = i;
        ev.ppMetricNames = const_cast<const char **>(p->name_ptrs.data());
        ev.numMetrics = p->name_ptrs.size();
        ev.pMetricValues = p->distinct_values.data();
        CUPTI_TRY(cuptiProfilerHostEvaluateToGpuValues(&ev));
        double *out = values + (first + k) * p->slot.size();
        for (size_t j = 0; j < p->slot.size(); j++)
            out[j] = p->distinct_values[p->slot[j]];
    }
    p->times.evaluate += now_s() - te;
    return PROFILER_OK;
}

// Every chunk of a batch, each in its own enable .. disable session.
profiler_status measure_batch(profiler *p, size_t count, const batch_call &b, double *values, char *msg,
                              size_t msglen)
{
    CUDA_TRY(cudaSetDevice(p->device));
    for (size_t first = 0; first < count; first += PROFILER_BATCH_MAX) {
        size_t chunk = std::min<size_t>(PROFILER_BATCH_MAX, count - first);
        CUpti_RangeProfiler_Object *rp = nullptr;
        double t0 = now_s();
        profiler_status s = enable(p, &rp, msg, msglen);
        p->times.session += now_s() - t0;
        p->times.n_sessions++;
        if (s != PROFILER_OK)
            return s;
        try {
            s = measure_chunk(p, rp, first, chunk, b, values, msg, msglen);
        } catch (const std::bad_alloc &) {
            cupti_msg_set(msg, msglen, "out of memory");
            s = PROFILER_ERROR;
        }
        double t1 = now_s();
        CUptiResult r = disable(rp);
        p->times.session += now_s() - t1;
        if (s != PROFILER_OK)
            return s;
        CUPTI_CHECK(r, "cuptiRangeProfilerDisable");
    }
    return PROFILER_OK;
}

// profiler_measure's one region as a batch of one.
struct single_call {
    int (*fn)(void *);
    int (*restore)(void *);
    void *user;
};
int single_fn(void *u, size_t) { return static_cast<single_call *>(u)->fn(static_cast<single_call *>(u)->user); }
int single_restore(void *u, size_t)
{
    single_call *c = static_cast<single_call *>(u);
    return c->restore ? c->restore(c->user) : 0;
}
} // namespace

extern "C" {

profiler_status profiler_measure(profiler *p, const char *range_name, int (*fn)(void *user),
                                 int (*restore)(void *user), void *user, double *values, char *msg,
                                 size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!p || !fn || !values) {
        cupti_msg_set(msg, msglen, "profiler_measure: %s is NULL", !p ? "the profiler" : !fn ? "fn" : "values");
        return PROFILER_ERROR;
    }
    (void)range_name; // CUPTI's range is "r0": see profiler.h
    single_call one = {fn, restore, user};
    return measure_batch(p, 1, batch_call{single_fn, single_restore, &one}, values, msg, msglen);
}

profiler_status profiler_measure_batch(profiler *p, size_t count, int (*fn)(void *user, size_t k),
                                       int (*restore)(void *user, size_t k), void *user, double *values,
                                       char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!p || !fn || !values || count == 0) {
        cupti_msg_set(msg, msglen, "profiler_measure_batch: %s",
                      !p ? "the profiler is NULL" : !fn ? "fn is NULL" : !values ? "values is NULL" : "count is 0");
        return PROFILER_ERROR;
    }
    return measure_batch(p, count, batch_call{fn, restore, user}, values, msg, msglen);
}

void profiler_get_times(const profiler *p, profiler_times *out)
{
    *out = p ? p->times : profiler_times{};
}

void profiler_set_range_waits(profiler *p, int wait)
{
    if (p)
        p->range_waits = wait != 0;
}

size_t profiler_num_values(const profiler *p)
{
    return p ? p->slot.size() : 0;
}

} // extern "C"
