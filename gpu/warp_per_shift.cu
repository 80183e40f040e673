// gpu_warp_per_shift: one warp per output element (the thesis' "warp per shift").
// Overview: the 32 lanes split the overlap of the two matrices at that shift as a 2-D grid of
// (32 / LW) rows x LW columns (LW = the smallest power of two >= the template width, at most 32),
// read both inputs through the read-only cache, and reduce with warp shuffles. Every output is
// independent, so even one 16x16 pair spreads over ~1000 warps on all SMs.
// When it wins: tiny problems (one_to_one up to ~32x32), where the other kernels leave most SMs
// idle. Constraints: normalisation none. Instantiations: 2 (full, valid).
#include <memory>

#include "gpu/cuda_check.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kWarpsPerBlock = 8;

template <Mode M>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) warp_per_shift_kernel(DeviceProblem p, int lw_log2,
                                                                              float* __restrict__ out) {
  const int lane = threadIdx.x % 32;
  const int lw = 1 << lw_log2, rows_per_step = 32 >> lw_log2;
  const int lr_row = lane >> lw_log2, lr_col = lane & (lw - 1);
  const long long total = static_cast<long long>(p.out_count) * p.out_rows * p.out_cols;
  const long long warp0 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  for (long long idx = warp0; idx < total; idx += warps) {
    const int c = static_cast<int>(idx % p.out_cols);
    const int r = static_cast<int>((idx / p.out_cols) % p.out_rows);
    const int t = static_cast<int>(idx / (static_cast<long long>(p.out_cols) * p.out_rows));
    const int2 pr = p.pair(t);
    const float* __restrict__ L = p.left + static_cast<long long>(pr.x) * h * w;
    const float* __restrict__ R = p.right + static_cast<long long>(pr.y) * p.right_rows * W;
    // Overlap: template rows [i0, i1), columns [j0, j1); the right element sits at (i - dy, j - dx).
    int i0 = 0, i1 = h, j0 = 0, j1 = w, dy, dx;
    if constexpr (M == Mode::full) {
      dy = r - (h - 1);
      dx = c - (w - 1);
      i0 = max(0, dy);
      i1 = min(h, h + dy);
      j0 = max(0, dx);
      j1 = min(w, w + dx);
    } else {
      dy = -r;  // valid: S[r + i][c + j] = R[i - dy][j - dx]
      dx = -c;
    }
    float sum = 0;
    for (int i = i0 + lr_row; i < i1; i += rows_per_step) {
      const float* lrow = L + i * w;
      const float* rrow = R + (i - dy) * W - dx;
      for (int j = j0 + lr_col; j < j1; j += lw) sum = fmaf(__ldg(lrow + j), __ldg(rrow + j), sum);
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (lane == 0) out[idx] = sum;
  }
}

class WarpPerShiftCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }

  double estimate_seconds(const CorrelationProblem& p) const override {
    // Fitted to docs/perf/gpu-engine.md (H200): ~6 us, then ~2 TMAC/s (one warp per output).
    const double outputs = static_cast<double>(p.output_shape().area() * p.output_count());
    return 6e-6 + p.direct_multiply_adds() / 2e12 + outputs * 32 * 5 / 4e12 + transfer_seconds(p);
  }

  Status run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    int lw_log2 = 0;
    while ((1 << lw_log2) < p.left_cols && lw_log2 < 5) ++lw_log2;
    const long long warps = p.out_elements();
    const int blocks = static_cast<int>(std::min<long long>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock, 132LL * 16));
    if (p.request.mode == Mode::full) {
      warp_per_shift_kernel<Mode::full><<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p, lw_log2, out);
    } else {
      warp_per_shift_kernel<Mode::valid><<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p, lw_log2, out);
    }
    XCORR_LAUNCH_TRY("warp_per_shift_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{"gpu_warp_per_shift",
                    "warp_per_shift",
                    "gpu",
                    "one warp per output element, lanes split the overlap, shuffle reduction; tiny sizes",
                    {Form::one_to_one, Form::one_to_many, Form::n_to_mn, Form::n_to_m},
                    {Mode::full, Mode::valid},
                    {Normalization::none}};
};

}  // namespace

std::unique_ptr<Correlator> make_warp_per_shift_correlator() { return std::make_unique<WarpPerShiftCorrelator>(); }

}  // namespace xcorr::gpu
