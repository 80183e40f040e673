// gpu_basic: one thread per output element, the definition summed directly (the thesis'
// baseline). Overview: grid-stride loop over all outputs of all pairs; inputs read through the
// read-only cache. When it wins: never by much; it is the simple, always-available GPU path and
// the GPU's ZNCC path (window sums in float64). Constraints: none (all forms, modes, zncc).
// Instantiations: 3 (full; valid; valid + zncc).
#include <memory>
#include <mutex>

#include "core/zncc_rule.hpp"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"
#include "gpu/zncc_epilogue.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;

template <Mode M, bool Zncc>
__global__ void __launch_bounds__(kThreads)
    basic_kernel(DeviceProblem p, const double* left_sums, const double* right_sums, float* out) {
  const long long total = static_cast<long long>(p.out_count) * p.out_rows * p.out_cols;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const auto [r, c, lr, left, right] = p.site(idx);
    const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
    const float* __restrict__ L = left;
    const float* __restrict__ R = right;
    if constexpr (M == Mode::full) {
      const int dy = r - (h - 1), dx = c - (w - 1);
      float sum = 0;
      for (int i = max(0, dy); i < min(h, h + dy); ++i) {
        for (int j = max(0, dx); j < min(w, w + dx); ++j)
          sum += __ldg(L + i * w + j) * __ldg(R + (i - dy) * w + j - dx);
      }
      out[idx] = sum;
    } else if constexpr (!Zncc) {
      float sum = 0;
      for (int i = 0; i < h; ++i) {
        for (int j = 0; j < w; ++j) sum += __ldg(L + i * w + j) * __ldg(R + (r + i) * W + c + j);
      }
      out[idx] = sum;
    } else {
      // {sum, sum of squares} per matrix (compute_matrix_sums), float64.
      const double n = static_cast<double>(h) * w, area = static_cast<double>(p.right_rows) * W;
      const double t_sum = left_sums[2 * lr.x], t_sq = left_sums[2 * lr.x + 1];
      const double t_mean = t_sum / n, t_ss = max(0.0, t_sq - t_sum * t_mean);
      const bool t_flat = t_ss <= kFlatRelative * t_sq;
      const double s_sum = right_sums[2 * lr.y], s_sq = right_sums[2 * lr.y + 1];
      const double s_mean = s_sum / area, s_var = max(0.0, s_sq - s_sum * s_mean) / area;
      double num = 0, sum = 0, sq = 0;
      for (int i = 0; i < h; ++i) {
        for (int j = 0; j < w; ++j) {
          const double s = __ldg(R + (r + i) * W + c + j) - s_mean;
          num += (__ldg(L + i * w + j) - t_mean) * s;
          sum += s;
          sq += s * s;
        }
      }
      out[idx] = zncc_from_sums(num, t_ss, t_flat, max(0.0, sq - sum * sum / n), n, s_var);
    }
  }
}

class BasicCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }
  bool normalizes_itself() const override { return true; }

  double kernel_seconds(const CorrelationProblem& p) const override {
    // Fitted to docs/perf/gpu-engine.md (H200): ~1.6 TMAC/s, ~15 us for the smallest problems;
    // zncc ~1.3 TMAC/s (the DIC guess: 1.08e11 multiply-adds in 84 ms; docs/perf/dic.md).
    const double zncc = p.request.norm == Normalization::zncc ? 1.25 : 1.0;
    return 15e-6 + zncc * p.direct_multiply_adds() / compute_rate(1.6e12) + transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    const void* k = p.request.mode == Mode::full
                        ? reinterpret_cast<const void*>(&basic_kernel<Mode::full, false>)
                    : p.request.norm == Normalization::none
                        ? reinterpret_cast<const void*>(&basic_kernel<Mode::valid, false>)
                        : reinterpret_cast<const void*>(&basic_kernel<Mode::valid, true>);
    if (p.request.norm == Normalization::none) return {{"basic_kernel", k, kThreads, 0}};
    // zncc: the float64 sums of the lefts, then of the rights, first.
    return {{"zncc_stats_kernel", matrix_sums_kernel(), 256, 0},
            {"zncc_stats_kernel", matrix_sums_kernel(), 256, 0},
            {"basic_kernel", k, kThreads, 0}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const long long total = p.out_elements();
    const int blocks =
        static_cast<int>(std::min<long long>((total + kThreads - 1) / kThreads, 64LL * sm_count()));
    if (p.request.mode == Mode::full) {
      basic_kernel<Mode::full, false><<<blocks, kThreads, 0, stream>>>(p, nullptr, nullptr, out);
    } else if (p.request.norm == Normalization::none) {
      basic_kernel<Mode::valid, false><<<blocks, kThreads, 0, stream>>>(p, nullptr, nullptr, out);
    } else {
      // Statistics buffers are kept between runs (grown when needed): no allocation or host
      // synchronisation in the run itself.
      std::lock_guard lock(mutex_);
      XCORR_RETURN_IF_ERROR(compute_matrix_sums(
          p.left, p.n_left, static_cast<long long>(p.left_rows) * p.left_cols, left_sums_, stream));
      XCORR_RETURN_IF_ERROR(compute_matrix_sums(p.right, p.n_right,
                                                static_cast<long long>(p.right_rows) * p.right_cols,
                                                right_sums_, stream));
      basic_kernel<Mode::valid, true>
          <<<blocks, kThreads, 0, stream>>>(p, left_sums_.get(), right_sums_.get(), out);
    }
    XCORR_LAUNCH_TRY("basic_kernel");
    return Status::ok();
  }

 private:
  mutable std::mutex mutex_;
  mutable DeviceBuffer<double> left_sums_, right_sums_;  // zncc only
  VariantInfo info_{"gpu_basic",
                    "basic",
                    "gpu",
                    "one thread per output element (thesis baseline); the GPU zncc path",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_basic_correlator() {
  return std::make_unique<BasicCorrelator>();
}

}  // namespace xcorr::gpu
