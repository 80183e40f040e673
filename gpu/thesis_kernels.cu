// Two more of the thesis' definition-based families, kept as faithful baselines (the profiler
// compares them with the tiled and FFT variants):
//
// gpu_block_per_shift: one block (128 threads) per output element; the threads split the
// overlap and reduce through warp shuffles and shared memory. When it wins: few outputs with
// large overlaps (e.g. a template as large as its window). Constraints: normalisation none.
//
// gpu_warp_shuffle: the thesis' "warp shuffle" (simple, no work distribution): a warp computes 32
// consecutive shifts of one output row of one pair. For each overlapping template row, lanes load
// 32 template values and 64 right values in 32-wide chunks; each step broadcasts one template
// value (__shfl_sync) and gives every lane its right value from the chunks (two shuffles and a
// select), then one FMA: 1 FMA per 3 shuffles, which is why the thesis' multirow/multimat
// variants add register reuse. Constraints: normalisation none.
// Instantiations: 4 ((full, valid) x 2 kernels).
#include <algorithm>
#include <memory>

#include "gpu/cuda_check.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kBlockThreads = 128;
constexpr unsigned kFull = 0xffffffffu;

template <Mode M>
__global__ void __launch_bounds__(kBlockThreads)
    block_per_shift_kernel(DeviceProblem p, float* __restrict__ out) {
  __shared__ float partial[kBlockThreads / 32];
  const long long total = static_cast<long long>(p.out_count) * p.out_rows * p.out_cols;
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  for (long long idx = blockIdx.x; idx < total; idx += gridDim.x) {
    const int c = static_cast<int>(idx % p.out_cols);
    const int r = static_cast<int>((idx / p.out_cols) % p.out_rows);
    const int t = static_cast<int>(idx / (static_cast<long long>(p.out_cols) * p.out_rows));
    const int2 pr = p.pair(t);
    const float* L = p.left + static_cast<long long>(pr.x) * h * w;
    const float* R = p.right + static_cast<long long>(pr.y) * p.right_rows * W;
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
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
      float s = 0;
      for (int wi = 0; wi < kBlockThreads / 32; ++wi) s += partial[wi];
      out[idx] = s;
    }
  }
}

// Warp task: (pair t, output row r, output columns c0 .. c0 + 31).
template <Mode M>
__global__ void __launch_bounds__(kBlockThreads)
    warp_shuffle_kernel(DeviceProblem p, float* __restrict__ out) {
  const int lane = threadIdx.x % 32;
  const int chunks = (p.out_cols + 31) / 32;
  const long long tasks = static_cast<long long>(p.out_count) * p.out_rows * chunks;
  const long long warp0 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  for (long long task = warp0; task < tasks; task += warps) {
    const int c0 = static_cast<int>(task % chunks) * 32;
    const int r = static_cast<int>((task / chunks) % p.out_rows);
    const int t = static_cast<int>(task / (static_cast<long long>(chunks) * p.out_rows));
    const int2 pr = p.pair(t);
    const float* L = p.left + static_cast<long long>(pr.x) * h * w;
    const float* R = p.right + static_cast<long long>(pr.y) * p.right_rows * W;
    // Template rows i overlapping this output row, and right row of template row i.
    int i0 = 0, i1 = h, row_shift = -r;  // right row = i - row_shift
    int j_lo = 0, j_hi = w;
    if constexpr (M == Mode::full) {
      row_shift = r - (h - 1);
      i0 = max(0, row_shift);
      i1 = min(h, h + row_shift);
      const int dx0 = c0 - (w - 1);  // lane k: dx = dx0 + k; right column = j - dx
      j_lo = max(0, dx0);
      j_hi = min(w, w + dx0 + 31);
    }
    float acc = 0;
    for (int i = i0; i < i1; ++i) {
      const float* lrow = L + i * w;
      const float* rrow = R + (i - row_shift) * W;
      for (int jc = j_lo; jc < j_hi; jc += 32) {
        const int jl = jc + lane;
        const float lv = jl < j_hi ? __ldg(lrow + jl) : 0.0f;
        // Right values needed at step s by lane k: full: column jc + s - dx0 - k = base + q with
        // base = jc - dx0 - 31, q = 31 + s - k; valid: column jc + s + c0 + k = base + q with
        // base = jc + c0, q = s + k. q in [0, 62]: two 32-wide chunks.
        const int base = M == Mode::full ? jc - (c0 - (w - 1)) - 31 : jc + c0;
        const int x_a = base + lane, x_b = base + 32 + lane;
        const int x_max = M == Mode::full ? w : W;
        const float ra = (x_a >= 0 && x_a < x_max) ? __ldg(rrow + x_a) : 0.0f;
        const float rb = (x_b >= 0 && x_b < x_max) ? __ldg(rrow + x_b) : 0.0f;
        const int steps = min(32, j_hi - jc);
        for (int s = 0; s < steps; ++s) {
          const float l = __shfl_sync(kFull, lv, s);
          const int q = M == Mode::full ? 31 + s - lane : s + lane;
          const float va = __shfl_sync(kFull, ra, q & 31);
          const float vb = __shfl_sync(kFull, rb, q & 31);
          acc = fmaf(l, q < 32 ? va : vb, acc);
        }
      }
    }
    const int c = c0 + lane;
    if (c < p.out_cols) out[(static_cast<long long>(t) * p.out_rows + r) * p.out_cols + c] = acc;
  }
}

int blocks_for(long long work_items, int per_block) {
  return static_cast<int>(
      std::clamp<long long>((work_items + per_block - 1) / per_block, 1, 132LL * 32));
}

class BlockPerShiftCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }
  double estimate_seconds(const CorrelationProblem& p) const override {
    // Prior: a block per output: ~1 TMAC/s and ~0.1 us per output beyond the first wave.
    const double outputs = static_cast<double>(p.output_shape().area() * p.output_count());
    return 8e-6 + p.direct_multiply_adds() / 1e12 + outputs * 1e-7 + transfer_seconds(p);
  }
  Status run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
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
                    {Normalization::none}};
};

class WarpShuffleCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }
  double estimate_seconds(const CorrelationProblem& p) const override {
    // Prior: shuffle-bound, ~3 shuffles per multiply-add: ~1.2 TMAC/s on an H200.
    return 8e-6 + p.direct_multiply_adds() / 1.2e12 + transfer_seconds(p);
  }
  Status run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const long long tasks =
        static_cast<long long>(p.out_count) * p.out_rows * ((p.out_cols + 31) / 32);
    const int blocks = blocks_for(tasks, kBlockThreads / 32);
    if (p.request.mode == Mode::full) {
      warp_shuffle_kernel<Mode::full><<<blocks, kBlockThreads, 0, stream>>>(p, out);
    } else {
      warp_shuffle_kernel<Mode::valid><<<blocks, kBlockThreads, 0, stream>>>(p, out);
    }
    XCORR_LAUNCH_TRY("warp_shuffle_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{"gpu_warp_shuffle",
                    "warp_shuffle",
                    "gpu",
                    "thesis' warp shuffle (simple): 32 shifts per warp, values passed by shuffles",
                    kAllForms,
                    kBothModes,
                    {Normalization::none}};
};

}  // namespace

std::unique_ptr<Correlator> make_block_per_shift_correlator() {
  return std::make_unique<BlockPerShiftCorrelator>();
}
std::unique_ptr<Correlator> make_warp_shuffle_correlator() {
  return std::make_unique<WarpShuffleCorrelator>();
}

}  // namespace xcorr::gpu
