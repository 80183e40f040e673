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
#include "gpu/device_buffer.cuh"

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

// The device buffers of a block of images that both engines keep: the images (in), their
// windowed values or inverse transforms (real), spectra (spec), cross-power spectra (cross), sums
// and energies, the search's sums (acc: `points` per image), argmax keys and the count of images
// still searching; the set reference's spectrum and energy, and one per image (refs_*) for
// `previous`.
struct BlockBuffers {
  DeviceBuffer<float> in, real;
  DeviceBuffer<float2> spec, cross, ref_spec, refs_spec;
  DeviceBuffer<double> sums, energy, ref_energy, refs_energy, acc;
  DeviceBuffer<unsigned long long> keys;
  DeviceBuffer<int> remaining;
  PinnedBuffer<int> remaining_host;

  // Blocks of `batch` images of `size` values with spectra of `n_spec`.
  Status allocate(std::size_t batch, long long size, long long n_spec, int points) {
    const auto values = static_cast<std::size_t>(size), bins = static_cast<std::size_t>(n_spec);
    XCORR_RETURN_IF_ERROR(in.allocate(batch * values));
    XCORR_RETURN_IF_ERROR(real.allocate(batch * values));
    XCORR_RETURN_IF_ERROR(spec.allocate(batch * bins));
    XCORR_RETURN_IF_ERROR(cross.allocate(batch * bins));
    XCORR_RETURN_IF_ERROR(sums.allocate(batch));
    XCORR_RETURN_IF_ERROR(energy.allocate(batch));
    XCORR_RETURN_IF_ERROR(acc.allocate(batch * static_cast<std::size_t>(points)));
    XCORR_RETURN_IF_ERROR(keys.allocate(batch));
    XCORR_RETURN_IF_ERROR(remaining.allocate(1));
    return remaining_host.allocate(1);
  }
  Status allocate_reference(long long n_spec) {
    XCORR_RETURN_IF_ERROR(ref_spec.allocate(static_cast<std::size_t>(n_spec)));
    return ref_energy.allocate(1);
  }
  Status allocate_references(std::size_t batch, long long n_spec) {
    XCORR_RETURN_IF_ERROR(refs_spec.allocate(batch * static_cast<std::size_t>(n_spec)));
    return refs_energy.allocate(batch);
  }
};

// A measurement of `n` images in blocks of at most `batch`. Per block (its first image and
// count): with references, upload(true, first, count) puts the block's references in b.in and
// spectra(count) makes their spectra into b.refs_spec and b.refs_energy; then upload(false,
// first, count) puts the images in b.in, and measure(count, ref, ref_energy, ref_step) measures
// them against the set reference (ref_step 0) or their own (ref_step 1).
template <class Upload, class Spectra, class Measure>
Status for_each_block(std::size_t n, int batch, bool with_references, BlockBuffers& b,
                      const Upload& upload, const Spectra& spectra, const Measure& measure) {
  for (std::size_t first = 0; first < n; first += static_cast<std::size_t>(batch)) {
    const int count = static_cast<int>(std::min(n - first, static_cast<std::size_t>(batch)));
    const float2* ref = b.ref_spec.get();
    const double* ref_energy = b.ref_energy.get();
    int ref_step = 0;
    if (with_references) {
      XCORR_RETURN_IF_ERROR(upload(true, first, count));
      XCORR_RETURN_IF_ERROR(spectra(count));
      ref = b.refs_spec.get(), ref_energy = b.refs_energy.get(), ref_step = 1;
    }
    XCORR_RETURN_IF_ERROR(upload(false, first, count));
    XCORR_RETURN_IF_ERROR(measure(count, ref, ref_energy, ref_step));
  }
  return Status::ok();
}

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
