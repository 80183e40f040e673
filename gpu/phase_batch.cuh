// Host-side pieces that the batched phase engines (phase_gpu.cu: frames, volume_gpu.cu: volumes)
// share: the cuFFT plan pairs per batch size, the block size that fits the free device memory,
// and the search loop that launches passes and asks the device every few whether any image is
// still searching.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/cufft_api.cuh"

namespace xcorr::gpu::phase {

// R2C and C2R plans of one shape (rank 2: rows x cols; rank 3: depth x rows x cols) for each
// batch size asked, made on first use and destroyed with the object.
class BatchedPlans {
 public:
  BatchedPlans(std::vector<int> dims, cudaStream_t stream)
      : dims_(std::move(dims)), stream_(stream) {}
  ~BatchedPlans() {
    if (auto api = cufft_api(); api.is_ok())
      for (auto& [count, p] : plans_) {
        api.value()->cufftDestroy(p.first);
        api.value()->cufftDestroy(p.second);
      }
  }
  BatchedPlans(const BatchedPlans&) = delete;
  BatchedPlans& operator=(const BatchedPlans&) = delete;

  // {forward, inverse} for `count` images side by side.
  Result<std::pair<cufftHandle, cufftHandle>> get(int count) {
    if (auto it = plans_.find(count); it != plans_.end()) return it->second;
    const CufftApi& api = *cufft_api().value();
    const int rank = static_cast<int>(dims_.size());
    cufftHandle forward = 0, inverse = 0;
    XCORR_CUFFT_TRY(api.cufftPlanMany(&forward, rank, dims_.data(), nullptr, 1, 0, nullptr, 1, 0,
                                      CUFFT_R2C, count));
    if (const cufftResult r = api.cufftPlanMany(&inverse, rank, dims_.data(), nullptr, 1, 0,
                                                nullptr, 1, 0, CUFFT_C2R, count);
        r != CUFFT_SUCCESS) {
      api.cufftDestroy(forward);
      return cufft_status(r, "cufftPlanMany (C2R)");
    }
    api.cufftSetStream(forward, stream_);
    api.cufftSetStream(inverse, stream_);
    return plans_[count] = {forward, inverse};
  }

 private:
  std::vector<int> dims_;
  cudaStream_t stream_;
  std::map<int, std::pair<cufftHandle, cufftHandle>> plans_;
};

// Images per block: as many as fit a quarter of the free device memory and 4 GB at
// `bytes_per_image`, within 1 .. cap.
inline Result<int> batch_that_fits(double bytes_per_image, int cap) {
  std::size_t free = 0, total = 0;
  XCORR_CUDA_TRY(cudaMemGetInfo(&free, &total));
  const double budget = std::min(0.25 * static_cast<double>(free), 4e9);
  return static_cast<int>(std::clamp(budget / bytes_per_image, 1.0, static_cast<double>(cap)));
}

// Launches `pass()` (one evaluation and decision for every image of the block) up to
// max_passes + 1 times, reading `remaining` (the device's count of images still searching, into
// pinned `remaining_host`) every `per_check` passes; an error naming `what` if any still
// searches at the end.
template <class Pass>
Status search_until_done(const Pass& pass, int max_passes, int per_check, const int* remaining,
                         int* remaining_host, cudaStream_t stream, const char* what) {
  for (int done = 0; done <= max_passes + 1; done += per_check) {
    for (int q = 0; q < per_check; ++q) XCORR_RETURN_IF_ERROR(pass());
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(remaining_host, remaining, sizeof(int), cudaMemcpyDeviceToHost, stream));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    if (*remaining_host == 0) return Status::ok();
  }
  return Status{ErrorCode::internal, std::string(what) + " did not finish"};
}

}  // namespace xcorr::gpu::phase
