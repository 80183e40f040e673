// The cuFFT functions the engine calls, loaded at run time (gpu/nvidia_library.hpp): call them as
// cufft_api().value()->cufftExecR2C(...) with the signatures of <cufft.h>.
#pragma once

#include <cufft.h>

#include "core/status.hpp"

#define XCORR_CUFFT_FUNCTIONS(X) \
  X(cufftPlanMany)               \
  X(cufftSetStream)              \
  X(cufftExecR2C)                \
  X(cufftExecC2R)                \
  X(cufftDestroy)

namespace xcorr::gpu {

struct CufftApi {
#define XCORR_CUFFT_MEMBER(f) decltype(&::f) f = nullptr;
  XCORR_CUFFT_FUNCTIONS(XCORR_CUFFT_MEMBER)
#undef XCORR_CUFFT_MEMBER
};

// Loaded once; the error names the missing library or function.
Result<const CufftApi*> cufft_api();

}  // namespace xcorr::gpu
