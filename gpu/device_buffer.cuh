// RAII CUDA memory: allocate() returns a Status (out_of_memory) instead of throwing.
//   DeviceBuffer<T>: device memory (cudaMalloc).
//   PinnedBuffer<T>: page-locked host memory (cudaMallocHost) for buffers reused call after call:
//     the host writes them in place (operator[]) and cudaMemcpyAsync moves them by DMA at full
//     PCIe speed, without the staging copy and first-touch page faults of fresh pageable vectors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace xcorr::gpu {

struct DeviceMemory {
  static constexpr const char* kAllocator = "cudaMalloc";
  static constexpr bool kHost = false;
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
  static void release(void* p) { cudaFree(p); }
};

struct PinnedMemory {
  static constexpr const char* kAllocator = "cudaMallocHost";
  static constexpr bool kHost = true;
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
  static void release(void* p) { cudaFreeHost(p); }
};

template <class T, class Memory>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  ~CudaBuffer() { reset(); }
  CudaBuffer(CudaBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  CudaBuffer& operator=(CudaBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  // Allocates n elements (uninitialised); keeps the old buffer when it is already large enough.
  Status allocate(std::size_t n) {
    if (n <= n_ && p_ != nullptr) return Status::ok();
    reset();
    void* p = nullptr;
    const cudaError_t e = Memory::allocate(&p, std::max<std::size_t>(n, 1) * sizeof(T));
    if (e != cudaSuccess) {
      return cuda_status(e, (std::string(Memory::kAllocator) + " of " +
                             std::to_string(n * sizeof(T) >> 20) + " MiB")
                                .c_str());
    }
    p_ = static_cast<T*>(p);
    n_ = n;
    return Status::ok();
  }
  void reset() {
    if (p_ != nullptr) Memory::release(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) const requires Memory::kHost { return p_[i]; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

template <class T>
using DeviceBuffer = CudaBuffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = CudaBuffer<T, PinnedMemory>;

}  // namespace xcorr::gpu
