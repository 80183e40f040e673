// RAII device memory: allocate() returns a Status (out_of_memory) instead of throwing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace xcorr::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Allocates n elements (uninitialised); keeps the old buffer when it is already large enough.
  Status allocate(std::size_t n) {
    if (n <= n_ && p_ != nullptr) return Status::ok();
    reset();
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T));
    if (e != cudaSuccess) {
      return cuda_status(e,
                         ("cudaMalloc of " + std::to_string(n * sizeof(T) >> 20) + " MiB").c_str());
    }
    p_ = static_cast<T*>(p);
    n_ = n;
    return Status::ok();
  }
  void reset() {
    if (p_ != nullptr) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace xcorr::gpu
