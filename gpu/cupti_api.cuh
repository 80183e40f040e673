// The CUPTI functions the counter reader (gpu/counters.cu) calls, loaded at run time
// (gpu/nvidia_library.hpp), with the signatures of the CUPTI headers.
#pragma once

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include "core/status.hpp"

#define XCORR_CUPTI_FUNCTIONS(X)                  \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)         \
  X(cuptiRangeProfilerCounterDataGetRangeInfo)

namespace xcorr::gpu {

struct CuptiApi {
#define XCORR_CUPTI_MEMBER(f) decltype(&::f) f = nullptr;
  XCORR_CUPTI_FUNCTIONS(XCORR_CUPTI_MEMBER)
#undef XCORR_CUPTI_MEMBER
};

// Loaded once; the error names the missing library or function.
Result<const CuptiApi*> cupti_api();

}  // namespace xcorr::gpu
