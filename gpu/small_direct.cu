// gpu_small_direct: direct correlation for small problems in one short launch: one thread block
// per output row of a pair, both matrices' rows that the row needs staged in shared memory, each
// output summed by a group of g lanes (g = the largest power of two <= 256 / output columns, at
// most 32) that split the overlap's rows and meet in a shuffle reduction. No memset, no second
// kernel, no host work beyond the launch.
// When it wins: tiny one_to_one and small batches (16 x 16 to about 32 x 32), where every other
// path is launch- or latency-bound. Constraints: the staged rows of the left and the right fit in
// 48 KiB of shared memory (rows x (left cols + right cols), rows padded for banks, <= 12288
// floats); at most 256 output columns.
// ZNCC through the shared epilogue. Instantiations: 2 (full; valid).
#include <algorithm>
#include <cmath>
#include <memory>

#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxSharedFloats = 12288;  // 48 KiB: no opt-in needed

// Lanes per output for a row of `cols` outputs: a power of two, 1 to 32.
__host__ __device__ inline int lanes_per_output(int cols) {
  int g = 1;
  while (g < 32 && 2 * g * cols <= kThreads) g *= 2;
  return g;
}
// Shared row pitch (floats) >= width with pitch = 32 / g (mod 32): the g lanes of an output read
// rows i, i + 1, ... at the same column, and the 32 / g outputs of a warp consecutive columns,
// so a warp's 32 reads fall in 32 different banks.
__host__ __device__ inline int row_pitch(int width, int g) {
  return width + ((32 / g - width) % 32 + 32) % 32;
}

template <Mode M>
__global__ void __launch_bounds__(kThreads) small_direct_kernel(DeviceProblem p, float* out) {
  extern __shared__ float smem[];
  const int h = p.left_rows, w = p.left_cols, H = p.right_rows, W = p.right_cols;
  const int t = blockIdx.x, r = blockIdx.y;
  const int2 lr = p.pair(t);
  const float* __restrict__ L = p.left + static_cast<long long>(lr.x) * h * w;
  const float* __restrict__ R = p.right + static_cast<long long>(lr.y) * H * W;
  // Left rows [i0, i1) meet right rows [i0 - dy, i1 - dy) (full: shift dy = r - (h - 1);
  // valid: right rows r + i).
  const int dy = M == Mode::full ? r - (h - 1) : -r;
  const int i0 = max(0, dy), i1 = min(h, M == Mode::full ? h + dy : h);
  const int rows = i1 - i0;
  const int g = lanes_per_output(p.out_cols), pl = row_pitch(w, g), pr = row_pitch(W, g);
  float* sl = smem;
  float* sr = smem + rows * pl;
  for (int e = threadIdx.x; e < rows * w; e += kThreads)
    sl[e / w * pl + e % w] = __ldg(L + i0 * w + e);
  for (int e = threadIdx.x; e < rows * W; e += kThreads)
    sr[e / W * pr + e % W] = __ldg(R + (i0 - dy) * W + e);
  __syncthreads();
  const int c = threadIdx.x / g, lane = threadIdx.x % g;
  float sum = 0;
  if (c < p.out_cols) {
    // Full: left column j meets right column j - dx; valid: right column c + j.
    const int dx = M == Mode::full ? c - (w - 1) : -c;
    const int j0 = max(0, dx), j1 = min(w, M == Mode::full ? w + dx : w);
    for (int i = lane; i < rows; i += g) {
      const float* a = sl + i * pl;
      const float* b = sr + i * pr - dx;
      for (int j = j0; j < j1; ++j) sum = fmaf(a[j], b[j], sum);
    }
  }
  for (int s = g / 2; s > 0; s /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, s);
  if (c < p.out_cols && lane == 0)
    out[(static_cast<long long>(t) * p.out_rows + r) * p.out_cols + c] = sum;
}

long long shared_floats(long long left_rows, long long left_cols, long long right_rows,
                        long long right_cols, long long out_cols) {
  const int g = lanes_per_output(static_cast<int>(out_cols));
  return std::min(left_rows, right_rows) *
         (row_pitch(static_cast<int>(left_cols), g) + row_pitch(static_cast<int>(right_cols), g));
}
int shared_floats(const DeviceProblem& p) {
  return static_cast<int>(
      shared_floats(p.left_rows, p.left_cols, p.right_rows, p.right_cols, p.out_cols));
}

class SmallDirectCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    if (p.surface_shape().cols > kThreads)
      return {ErrorCode::unsupported, "gpu_small_direct: more than 256 output columns"};
    if (p.surface_shape().rows > 65535)
      return {ErrorCode::unsupported, "gpu_small_direct: more than 65535 output rows"};
    if (shared_floats(p.left.rows, p.left.cols, p.right.rows, p.right.cols,
                      p.surface_shape().cols) > kMaxSharedFloats)
      return {ErrorCode::unsupported,
              "gpu_small_direct: the staged rows exceed 48 KiB of shared memory"};
    return Status::ok();
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    // Fitted to kernel_ms of the anchor cases in run 68 (H200, docs/perf/gpu-engine.md; every
    // case within 25 %, most within 10 %): the launch and host work (~6.75 us), then waves of ~5
    // blocks per SM on every SM (132 there), each wave ~2 us plus a block's multiply-adds at ~4.25
    // x 10^9 per second (one_to_one 16 / 32: 9.3 / 12.6 us; n_to_mn 16 x4096: 0.50 ms). ncu puts
    // the one_to_one 16 x 16 kernel itself at ~4 us (run 45).
    const Shape s = p.surface_shape();
    const double blocks = static_cast<double>(p.output_count()) * static_cast<double>(s.rows);
    const double waves = std::ceil(blocks / (sm_count() * 5.0));
    return 6.75e-6 + waves * (2e-6 + p.direct_multiply_adds() / blocks / sm_rate(4.25e9)) +
           transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    const void* k = p.request.mode == Mode::full
                        ? reinterpret_cast<const void*>(&small_direct_kernel<Mode::full>)
                        : reinterpret_cast<const void*>(&small_direct_kernel<Mode::valid>);
    return {{"small_direct_kernel", k, kThreads, shared_floats(p) * 4}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const dim3 grid(p.out_count, p.out_rows);
    const int bytes = shared_floats(p) * 4;
    if (p.request.mode == Mode::full)
      small_direct_kernel<Mode::full><<<grid, kThreads, bytes, stream>>>(p, out);
    else
      small_direct_kernel<Mode::valid><<<grid, kThreads, bytes, stream>>>(p, out);
    XCORR_LAUNCH_TRY("small_direct_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{"gpu_small_direct",
                    "direct",
                    "gpu",
                    "one block per output row, rows staged in shared memory, lanes split each "
                    "sum: small problems in one short launch",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_small_direct_correlator() {
  return std::make_unique<SmallDirectCorrelator>();
}

}  // namespace xcorr::gpu
