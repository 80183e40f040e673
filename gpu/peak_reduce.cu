#include "core/peak_fit.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/peak_key.cuh"
#include "gpu/peak_reduce.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 16;

// Block b covers elements [first, first + kThreads * kPerThread) of surface b / per_surface.
__global__ void __launch_bounds__(kThreads)
    peak_argmax_kernel(const float* __restrict__ s, long long area, int per_surface,
                       unsigned long long* __restrict__ keys) {
  const int m = blockIdx.x / per_surface;
  const long long first =
      static_cast<long long>(blockIdx.x % per_surface) * kThreads * kPerThread + threadIdx.x;
  unsigned long long best = 0;
  for (int k = 0; k < kPerThread; ++k) {
    const long long i = first + static_cast<long long>(k) * kThreads;
    if (i < area) {
      const unsigned long long key = peak_key(s[m * area + i], static_cast<unsigned>(i));
      best = key > best ? key : best;
    }
  }
  best = warp_max_key(best);
  if (threadIdx.x % 32 == 0 && best != 0) atomicMax(keys + m, best);
}

__global__ void __launch_bounds__(kThreads)
    peak_refine_kernel(const float* __restrict__ s, int count, int rows, int cols,
                       SubpixelMethod subpixel, const unsigned long long* __restrict__ keys,
                       float* __restrict__ records) {
  const int m = blockIdx.x * kThreads + threadIdx.x;
  if (m >= count) return;
  const unsigned long long key = keys[m];
  const int index = static_cast<int>(peak_key_index(key));
  const int r = index / cols, c = index % cols;
  PeakFit fit;
  if (r > 0 && c > 0 && r + 1 < rows && c + 1 < cols) {
    const float* p = s + static_cast<long long>(m) * rows * cols;
    double n[3][3];
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 3; ++x) n[y][x] = p[(r + y - 1) * cols + c + x - 1];
    fit = refine_peak(n, subpixel);
  }
  encode_peak(records + static_cast<long long>(m) * kPeakFields, r, c, peak_key_value(key), fit);
}

}  // namespace

Status reduce_peaks(const float* surfaces, int count, int rows, int cols, SubpixelMethod subpixel,
                    float* records, DeviceBuffer<unsigned long long>& keys, cudaStream_t stream) {
  const long long area = static_cast<long long>(rows) * cols;
  const long long per_block = static_cast<long long>(kThreads) * kPerThread;
  const int per_surface = static_cast<int>((area + per_block - 1) / per_block);
  XCORR_RETURN_IF_ERROR(keys.allocate(static_cast<std::size_t>(count)));
  XCORR_CUDA_TRY(cudaMemsetAsync(keys.get(), 0, sizeof(unsigned long long) * count, stream));
  peak_argmax_kernel<<<static_cast<unsigned>(count) * per_surface, kThreads, 0, stream>>>(
      surfaces, area, per_surface, keys.get());
  XCORR_LAUNCH_TRY("peak_argmax_kernel");
  peak_refine_kernel<<<(count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
      surfaces, count, rows, cols, subpixel, keys.get(), records);
  XCORR_LAUNCH_TRY("peak_refine_kernel");
  return Status::ok();
}

std::vector<GpuCorrelator::Launch> peak_reduce_launches() {
  return {{"peak_argmax_kernel", reinterpret_cast<const void*>(&peak_argmax_kernel), kThreads, 0},
          {"peak_refine_kernel", reinterpret_cast<const void*>(&peak_refine_kernel), kThreads, 0}};
}

}  // namespace xcorr::gpu
