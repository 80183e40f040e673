// gpu_warp_per_shift and gpu_warp_per_shift_shared: one warp per output element (the thesis'
// "warp per shift", plain and with shared memory).
// Overview: the 32 lanes split the overlap of the two matrices at that shift as a 2-D grid of
// (32 / LW) rows x LW columns (LW = the smallest power of two >= the template width, at most 32)
// and reduce with warp shuffles. Every output is independent, so even one 16x16 pair spreads over
// ~1000 warps on all SMs. The plain kernel reads both inputs through the read-only cache; the
// shared one gives each block the outputs of one pair, stages that pair in shared memory first,
// and so trades L2 latency for one staging pass.
// When it wins: tiny problems (one_to_one up to ~32x32), where the other kernels leave most SMs
// idle. Constraints: normalisation none; shared: both matrices of a pair within 96 KiB.
// Instantiations: 4 (full, valid) x (plain, shared).
#include <algorithm>
#include <memory>
#include <string>

#include "gpu/cuda_check.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kWarpsPerBlock = 8;

// Overlap of output (r, c): template rows [i0, i1), columns [j0, j1); the right element of
// template element (i, j) sits at (i - dy, j - dx).
struct Overlap {
  int i0, i1, j0, j1, dy, dx;
};

template <Mode M>
__device__ inline Overlap overlap_at(int r, int c, int h, int w) {
  if constexpr (M == Mode::full) {
    const int dy = r - (h - 1), dx = c - (w - 1);
    return {max(0, dy), min(h, h + dy), max(0, dx), min(w, w + dx), dy, dx};
  }
  return {0, h, 0, w, -r, -c};  // valid: S[r + i][c + j] = R[i - dy][j - dx]
}

// The warp's sum over the overlap; every lane returns it. L has row pitch w, R row pitch W.
__device__ inline float warp_dot(const float* L, int w, const float* R, int W, const Overlap& o,
                                 int lane, int lw_log2) {
  const int lw = 1 << lw_log2, rows_per_step = 32 >> lw_log2;
  const int lr_row = lane >> lw_log2, lr_col = lane & (lw - 1);
  float sum = 0;
  for (int i = o.i0 + lr_row; i < o.i1; i += rows_per_step) {
    const float* lrow = L + i * w;
    const float* rrow = R + (i - o.dy) * W - o.dx;
    for (int j = o.j0 + lr_col; j < o.j1; j += lw) sum = fmaf(lrow[j], rrow[j], sum);
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  return sum;
}

template <Mode M>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    warp_per_shift_kernel(DeviceProblem p, int lw_log2, float* __restrict__ out) {
  const int lane = threadIdx.x % 32;
  const long long total = static_cast<long long>(p.out_count) * p.out_rows * p.out_cols;
  const long long warp0 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  for (long long idx = warp0; idx < total; idx += warps) {
    const int c = static_cast<int>(idx % p.out_cols);
    const int r = static_cast<int>((idx / p.out_cols) % p.out_rows);
    const int t = static_cast<int>(idx / (static_cast<long long>(p.out_cols) * p.out_rows));
    const int2 pr = p.pair(t);
    const float* L = p.left + static_cast<long long>(pr.x) * h * w;
    const float* R = p.right + static_cast<long long>(pr.y) * p.right_rows * W;
    const float sum = warp_dot(L, w, R, W, overlap_at<M>(r, c, h, w), lane, lw_log2);
    if (lane == 0) out[idx] = sum;
  }
}

// Blocks (x, pair): stage the pair, then warps take that pair's outputs.
template <Mode M>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    warp_per_shift_shared_kernel(DeviceProblem p, int lw_log2, float* __restrict__ out) {
  extern __shared__ float smem[];
  const int h = p.left_rows, w = p.left_cols, H = p.right_rows, W = p.right_cols;
  float* sL = smem;
  float* sR = smem + h * w;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int per_pair = p.out_rows * p.out_cols;
  for (int t = blockIdx.y; t < p.out_count; t += gridDim.y) {
    const int2 pr = p.pair(t);
    const float* L = p.left + static_cast<long long>(pr.x) * h * w;
    const float* R = p.right + static_cast<long long>(pr.y) * H * W;
    __syncthreads();
    for (int k = threadIdx.x; k < h * w; k += blockDim.x) sL[k] = L[k];
    for (int k = threadIdx.x; k < H * W; k += blockDim.x) sR[k] = R[k];
    __syncthreads();
    for (int o = blockIdx.x * kWarpsPerBlock + warp; o < per_pair;
         o += gridDim.x * kWarpsPerBlock) {
      const float sum = warp_dot(sL, w, sR, W, overlap_at<M>(o / p.out_cols, o % p.out_cols, h, w),
                                 lane, lw_log2);
      if (lane == 0) out[static_cast<long long>(t) * per_pair + o] = sum;
    }
  }
}

constexpr int kMaxSharedBytes = 96 * 1024;

int lw_log2_for(int w) {
  int l = 0;
  while ((1 << l) < w && l < 5) ++l;
  return l;
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
    const int lw_log2 = lw_log2_for(p.left_cols);
    const long long warps = p.out_elements();
    const int blocks = static_cast<int>(
        std::min<long long>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock, 132LL * 16));
    if (p.request.mode == Mode::full) {
      warp_per_shift_kernel<Mode::full>
          <<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p, lw_log2, out);
    } else {
      warp_per_shift_kernel<Mode::valid>
          <<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p, lw_log2, out);
    }
    XCORR_LAUNCH_TRY("warp_per_shift_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{
      "gpu_warp_per_shift",
      "warp_per_shift",
      "gpu",
      "one warp per output element, lanes split the overlap, shuffle reduction; tiny sizes",
      kAllForms,
      kBothModes,
      {Normalization::none}};
};

class WarpPerShiftSharedCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    const auto bytes = (p.left.rows * p.left.cols + p.right.rows * p.right.cols) * 4;
    if (bytes > kMaxSharedBytes) {
      return {ErrorCode::unsupported, info_.name + ": a pair needs " + std::to_string(bytes >> 10) +
                                          " KiB of shared memory (limit " +
                                          std::to_string(kMaxSharedBytes >> 10) + " KiB)"};
    }
    return Status::ok();
  }

  double estimate_seconds(const CorrelationProblem& p) const override {
    // Prior: like gpu_warp_per_shift with shared-memory latency (~1.5x its rate), plus staging.
    const double outputs = static_cast<double>(p.output_shape().area() * p.output_count());
    return 5e-6 + p.direct_multiply_adds() / 3e12 + outputs * 32 * 5 / 6e12 + transfer_seconds(p);
  }

  Status run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const int lw_log2 = lw_log2_for(p.left_cols);
    const int bytes = (p.left_rows * p.left_cols + p.right_rows * p.right_cols) * 4;
    static const cudaError_t opt_full =
        cudaFuncSetAttribute(warp_per_shift_shared_kernel<Mode::full>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSharedBytes);
    static const cudaError_t opt_valid =
        cudaFuncSetAttribute(warp_per_shift_shared_kernel<Mode::valid>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSharedBytes);
    XCORR_CUDA_TRY(opt_full);
    XCORR_CUDA_TRY(opt_valid);
    // Enough blocks per pair to fill the GPU (4 blocks per SM), at most one per 8 outputs.
    const int per_pair = p.out_rows * p.out_cols;
    const int pairs = std::min(p.out_count, 65535);
    const int x = std::clamp((132 * 4 + pairs - 1) / pairs, 1,
                             (per_pair + kWarpsPerBlock - 1) / kWarpsPerBlock);
    const dim3 grid(x, pairs);
    if (p.request.mode == Mode::full) {
      warp_per_shift_shared_kernel<Mode::full>
          <<<grid, 32 * kWarpsPerBlock, bytes, stream>>>(p, lw_log2, out);
    } else {
      warp_per_shift_shared_kernel<Mode::valid>
          <<<grid, 32 * kWarpsPerBlock, bytes, stream>>>(p, lw_log2, out);
    }
    XCORR_LAUNCH_TRY("warp_per_shift_shared_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{"gpu_warp_per_shift_shared",
                    "warp_per_shift",
                    "gpu",
                    "one warp per output, the pair staged in shared memory per block; tiny sizes",
                    kAllForms,
                    kBothModes,
                    {Normalization::none}};
};

}  // namespace

std::unique_ptr<Correlator> make_warp_per_shift_shared_correlator() {
  return std::make_unique<WarpPerShiftSharedCorrelator>();
}

std::unique_ptr<Correlator> make_warp_per_shift_correlator() {
  return std::make_unique<WarpPerShiftCorrelator>();
}

}  // namespace xcorr::gpu
