// A CUDA event and a CUDA stream owned by value (created in the constructor on the current
// device, destroyed in the destructor).
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

// A stream that does not wait for the legacy default stream (work on both may overlap; order
// them with events), of the device's highest priority: its blocks are scheduled before those
// of streams waiting beside it.
class CudaStream {
 public:
  CudaStream() {
    int least = 0, greatest = 0;
    (void)cudaDeviceGetStreamPriorityRange(&least, &greatest);
    cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, greatest);
  }
  ~CudaStream() { cudaStreamDestroy(s_); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

}  // namespace xcorr::gpu
