// Internal to cupti/: the profiler's state and the error plumbing shared by
// profiler_range.cc (open, close, metric checks) and profiler_measure.cc
// (measurements). C++ (cupti_profiler_host.h includes <string>).
#ifndef CUPTI_PROFILER_IMPL_H
#define CUPTI_PROFILER_IMPL_H

#include "cupti/profiler.h"
#include "cupti/msg.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstdint>
#include <string>
#include <vector>

struct profiler {
    int device = -1;
    CUcontext ctx = nullptr;
    bool cupti_initialized = false;
    std::string chip;
    std::vector<uint8_t> availability;
    CUpti_Profiler_Host_Object *host = nullptr;
    std::vector<std::string> names;      // distinct CUPTI names, in first-seen order
    std::vector<const char *> name_ptrs; // into names
    std::vector<size_t> slot;            // caller's index -> index into names
    std::vector<uint8_t> config;
    size_t passes = 0;
    std::vector<uint8_t> counter_data;
    std::vector<double> distinct_values;
    profiler_times times = {}; // where the measurements' time went (profiler_get_times)
    bool range_waits = true;   // profiler_set_range_waits
};

namespace cupti_impl {

// "<explanation> (file:line: call: CUPTI_ERROR_X)" where there is an explanation,
// else "file:line: call: CUPTI_ERROR_X: <CUPTI's message>"; the mapped status.
profiler_status cupti_fail(CUptiResult r, const char *call, const char *file, int line, char *msg, size_t msglen);
profiler_status cuda_fail(cudaError_t e, const char *call, const char *file, int line, char *msg, size_t msglen);
// The range profiler enabled on p's context, and disabled.
profiler_status enable(profiler *p, CUpti_RangeProfiler_Object **rp, char *msg, size_t msglen);
CUptiResult disable(CUpti_RangeProfiler_Object *rp);

} // namespace cupti_impl

#define CUPTI_TRY(call)                                                                   \
    do {                                                                                  \
        CUptiResult cupti_r_ = (call);                                                    \
        if (cupti_r_ != CUPTI_SUCCESS)                                                    \
            return cupti_impl::cupti_fail(cupti_r_, #call, __FILE__, __LINE__, msg, msglen);          \
    } while (0)

#define CUPTI_CHECK(result, what)                                                         \
    do {                                                                                  \
        CUptiResult cupti_r_ = (result);                                                  \
        if (cupti_r_ != CUPTI_SUCCESS)                                                    \
            return cupti_impl::cupti_fail(cupti_r_, what, __FILE__, __LINE__, msg, msglen);           \
    } while (0)

#define CUDA_TRY(call)                                                                    \
    do {                                                                                  \
        cudaError_t cuda_e_ = (call);                                                     \
        if (cuda_e_ != cudaSuccess)                                                       \
            return cupti_impl::cuda_fail(cuda_e_, #call, __FILE__, __LINE__, msg, msglen);            \
    } while (0)

// A CUPTI parameter struct: zeroed, with its structSize set.
#define PARAMS(type, var) \
    type var{};           \
    var.structSize = type##_STRUCT_SIZE


#endif
