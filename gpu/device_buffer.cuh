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

// How many of `count` items of `bytes_each` device bytes fit in a quarter of the free device
// memory, between 1 and count (the work-buffer chunking rule of the FFT paths; the other three
// quarters are left to the inputs, outputs and other users of the device).
inline Result<int> items_in_free_memory(double bytes_each, int count) {
  std::size_t free_bytes = 0, total_bytes = 0;
  XCORR_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<int>(
      std::clamp<double>(static_cast<double>(free_bytes) / 4 / bytes_each, 1, count));
}

}  // namespace xcorr::gpu
