// Set-up that CUDA keeps per device, done once per device: a kernel's function attributes
// (cudaFuncSetAttribute, e.g. its dynamic shared-memory opt-in) belong to the device that was
// current when they were set, so a process-wide `static` would leave every other device
// without them. Keyed by the current device; thread-safe.
#pragma once

#include <cuda_runtime.h>

#include <mutex>

namespace xcorr::gpu {

class OncePerDevice {
 public:
  // `set_up()` (returning cudaError_t) on the first call for the current device; later calls on
  // that device return the first call's result.
  template <class F>
  cudaError_t operator()(F&& set_up) {
    int device = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (device < 0 || device >= kMaxDevices) return set_up();
    std::call_once(done_[device], [&] { result_[device] = set_up(); });
    return result_[device];
  }

 private:
  static constexpr int kMaxDevices = 64;
  std::once_flag done_[kMaxDevices];
  cudaError_t result_[kMaxDevices] = {};
};

}  // namespace xcorr::gpu
