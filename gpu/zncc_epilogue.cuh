// ZNCC for the variants whose kernels compute only unnormalised correlation (tiled, warp per
// shift, block per shift, the warp-shuffle family): the numerator sum(T' S') comes from the
// variant's own valid-mode kernel run on zero-mean copies, and an epilogue turns it into ZNCC.
//   1. zncc_stats_kernel: per matrix, float64 sum and sum of squares (atomics; any matrix size).
//   2. zero_mean_kernel: T' = T - mean(T) and S' = S - mean(S) as float32 copies; per template
//      delta = sum(T') and q = sum(T'^2) of the rounded values (float64).
//   3. the variant's kernel on (T', S') gives a = sum(T' S').
//   4. row_box_kernel: hs[y][l] = sum of S' and of S'^2 over row y, columns [l, l + w) (float64,
//      sliding along 32-column chunks).
//   5. zncc_normalize_kernel: window sums from hs (sliding down 32-row chunks), then
//      numerator = a - delta * window mean, template_ss = q - delta^2 / n, and
//      core/zncc_rule.hpp's formula and flatness rule (template flat against sum(T^2), window
//      flat against the variance of the whole search matrix). Float64 sums throughout, so the
//      result matches cpu_reference to float32 rounding. No kernel uses shared memory.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "gpu/device_buffer.cuh"
#include "gpu/device_problem.cuh"
#include "gpu/gpu_correlator.cuh"

namespace xcorr::gpu {

class ZnccEpilogue {
 public:
  // Steps 1-2 for the surface problem `p` (valid mode, zncc); returns the problem step 3 runs
  // (the zero-mean copies, normalisation none). The copies live until the next prepare().
  Result<DeviceProblem> prepare(const DeviceProblem& p, cudaStream_t stream);
  // Steps 4-5: `out` holds step 3's numerators for `p` (as given to prepare) and gets ZNCC.
  Status normalize(const DeviceProblem& p, float* out, cudaStream_t stream);

  // Per-matrix statistics after prepare(): right matrix m: {sum, sum of squares} at [2m, 2m+1].
  const double* right_stats() const { return right_stats_.get(); }

  // The epilogue's kernels around the variant's (`inner`), in launch order.
  static std::vector<GpuCorrelator::Launch> launches(
      const std::vector<GpuCorrelator::Launch>& inner);
  // Device bytes beyond inputs and outputs.
  static double workspace_bytes(const DeviceProblem& p);

 private:
  DeviceBuffer<double> left_stats_, right_stats_, hs_;
  DeviceBuffer<float> left_copy_, right_copy_;
};

// Just step 1 for `count` matrices of `area` elements at `data`: {sum, sum of squares} per matrix
// (float64) into `sums`, which it sizes. gpu_basic's ZNCC and the fused kernels' search variance
// use it.
Status compute_matrix_sums(const float* data, int count, long long area, DeviceBuffer<double>& sums,
                           cudaStream_t stream);
const void* matrix_sums_kernel();  // the kernel compute_matrix_sums launches (for profiles)

}  // namespace xcorr::gpu
