// A CUDA event owned by value (created in the constructor, destroyed in the destructor).
#pragma once

#include <cuda_runtime.h>

namespace xcorr::gpu {

class CudaEvent {
 public:
  CudaEvent() { cudaEventCreate(&e_); }
  ~CudaEvent() { cudaEventDestroy(e_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }
  // Seconds from `start` to this event (both recorded and complete); 0 when unavailable.
  double seconds_since(const CudaEvent& start) const {
    float ms = 0;
    return cudaEventElapsedTime(&ms, start.e_, e_) == cudaSuccess ? ms * 1e-3 : 0.0;
  }

 private:
  cudaEvent_t e_{};
};

}  // namespace xcorr::gpu
