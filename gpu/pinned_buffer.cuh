// RAII pinned (page-locked) host memory for buffers reused call after call: the host writes them
// in place and cudaMemcpyAsync moves them by DMA at full PCIe speed, without the staging copy and
// the first-touch page faults of fresh pageable vectors. allocate() returns a Status.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace xcorr::gpu {

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  // n elements (uninitialised); keeps the old buffer when it is already large enough.
  Status allocate(std::size_t n) {
    if (n <= n_ && p_ != nullptr) return Status::ok();
    reset();
    void* p = nullptr;
    const cudaError_t e = cudaMallocHost(&p, std::max<std::size_t>(n, 1) * sizeof(T));
    if (e != cudaSuccess) {
      return cuda_status(
          e, ("cudaMallocHost of " + std::to_string(n * sizeof(T) >> 20) + " MiB").c_str());
    }
    p_ = static_cast<T*>(p);
    n_ = n;
    return Status::ok();
  }
  void reset() {
    if (p_ != nullptr) cudaFreeHost(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace xcorr::gpu
