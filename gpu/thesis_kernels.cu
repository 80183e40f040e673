// The thesis' block-per-shift family (Maděra, "Accelerating cross-correlation with GPUs", 2022;
// github MK4H/cross-corr), kept as a faithful baseline (the profiler compares it
// with the tiled and FFT variants):
//
// gpu_block_per_shift: one block (128 threads) per output element; the threads split the
// overlap and reduce through warp shuffles and shared memory. When it wins: few outputs with
// large overlaps (e.g. a template as large as its window). Constraints: normalisation none.
//
// Instantiations: 2 (full, valid). The warp-shuffle family is in gpu/warp_shuffle.cu.
#include <algorithm>
#include <memory>

#include "core/smem/block_per_shift_layout.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kBlockThreads = smem::kBpsThreads;
constexpr unsigned kFull = 0xffffffffu;

template <Mode M>
__global__ void __launch_bounds__(kBlockThreads)
    block_per_shift_kernel(DeviceProblem p, float* __restrict__ out) {
  static_assert(kBlockThreads == 128, "the partials are read as one float4");
  __shared__ __align__(16) float partial[kBlockThreads / 32];
  const long long total = static_cast<long long>(p.out_count) * p.out_rows * p.out_cols;
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  for (long long idx = blockIdx.x; idx < total; idx += gridDim.x) {
    const auto [r, c, lr, L, R] = p.site(idx);
    int i0 = 0, i1 = h, j0 = 0, j1 = w, dy = -r,
        dx = -c;  // valid: R[i - dy][j - dx] = S[r + i][c + j]
    if constexpr (M == Mode::full) {
      dy = r - (h - 1);
      dx = c - (w - 1);
      i0 = max(0, dy);
      i1 = min(h, h + dy);
      j0 = max(0, dx);
      j1 = min(w, w + dx);
    }
    const int ow = j1 - j0, n = (i1 - i0) * ow;
    float sum = 0;
    for (int k = threadIdx.x; k < n; k += kBlockThreads) {
      const int i = i0 + k / ow, j = j0 + k % ow;
      sum = fmaf(__ldg(L + i * w + j), __ldg(R + (i - dy) * W + j - dx), sum);
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(kFull, sum, o);
    __syncthreads();  // `partial` of the previous output is consumed
    if (threadIdx.x % 32 == 0) partial[smem::bps_partial_slot(threadIdx.x / 32)] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
      const float4 q = *reinterpret_cast<const float4*>(partial + smem::bps_partial_slot(0));
      out[idx] = ((q.x + q.y) + q.z) + q.w;
    }
  }
}

int blocks_for(long long work_items, int per_block) {
  return static_cast<int>(
      std::clamp<long long>((work_items + per_block - 1) / per_block, 1, 32LL * sm_count()));
}

class BlockPerShiftCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }
  double kernel_seconds(const CorrelationProblem& p) const override {
    // Prior: a block per output: ~1 TMAC/s and ~0.1 us per output beyond the first wave.
    const double outputs = static_cast<double>(p.surface_shape().area() * p.output_count());
    return 8e-6 + p.direct_multiply_adds() / compute_rate(1e12) + outputs * 1e-7 +
           transfer_seconds(p);
  }
  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    return {{"block_per_shift_kernel",
             p.request.mode == Mode::full
                 ? reinterpret_cast<const void*>(&block_per_shift_kernel<Mode::full>)
                 : reinterpret_cast<const void*>(&block_per_shift_kernel<Mode::valid>),
             kBlockThreads, 0,
             [outputs = p.out_elements()] { return profiling::model_block_per_shift(outputs); }}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const int blocks = blocks_for(p.out_elements(), 1);
    if (p.request.mode == Mode::full) {
      block_per_shift_kernel<Mode::full><<<blocks, kBlockThreads, 0, stream>>>(p, out);
    } else {
      block_per_shift_kernel<Mode::valid><<<blocks, kBlockThreads, 0, stream>>>(p, out);
    }
    XCORR_LAUNCH_TRY("block_per_shift_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{"gpu_block_per_shift",
                    "block_per_shift",
                    "gpu",
                    "one block per output element (thesis family); few outputs with large overlaps",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_block_per_shift_correlator() {
  return std::make_unique<BlockPerShiftCorrelator>();
}

}  // namespace xcorr::gpu
