#include <string>

#include "gpu/cuda_check.cuh"

namespace xcorr::gpu {

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::ok();
  cudaGetLastError();  // clear a non-sticky error so that later calls are not blamed for it
  if (e == cudaErrorMemoryAllocation) {
    return {ErrorCode::out_of_memory, std::string("too little GPU memory (") + what + ")"};
  }
  return {ErrorCode::internal,
          std::string(what) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e)};
}

Status cufft_status(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return Status::ok();
  if (r == CUFFT_ALLOC_FAILED)
    return {ErrorCode::out_of_memory,
            std::string("too little GPU memory for cuFFT (") + what + ")"};
  return {ErrorCode::internal,
          std::string(what) + " failed: cuFFT error " + std::to_string(static_cast<int>(r))};
}

}  // namespace xcorr::gpu
