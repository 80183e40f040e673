// Every CUDA and cuFFT call goes through these: a failure becomes a Status naming the call;
// running out of device memory becomes ErrorCode::out_of_memory with a message a user can act on.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include "core/status.hpp"

namespace xcorr::gpu {

Status cuda_status(cudaError_t e, const char* what);
Status cufft_status(cufftResult r, const char* what);

}  // namespace xcorr::gpu

#define XCORR_CUDA_TRY(expr) XCORR_RETURN_IF_ERROR(::xcorr::gpu::cuda_status((expr), #expr))
#define XCORR_CUFFT_TRY(expr) XCORR_RETURN_IF_ERROR(::xcorr::gpu::cufft_status((expr), #expr))
// After every kernel launch.
#define XCORR_LAUNCH_TRY(kernel_name) \
  XCORR_RETURN_IF_ERROR(::xcorr::gpu::cuda_status(cudaGetLastError(), "launch of " kernel_name))
