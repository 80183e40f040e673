// gpu_fft_shared: FFT correlation of small inputs done whole on chip, one thread block per pair:
// load, forward 2-D FFT, product, inverse 2-D FFT and the cropped store in one kernel; only the
// inputs are read and only the output is written (no padded copies, no spectra in device memory,
// no second launch). The thesis' FFT path and gpu_fft run separate passes through device memory.
// Overview: the pair's left L and right R go into one N x N complex array z = L + iR (zero
// padded; N a power of two, 16 to 128) in shared memory. A decimation-in-frequency radix-2 FFT
// (rows, then columns; up to four stages per pass through shared memory, a thread's 8 or 16
// values in registers: two passes per dimension, one for N = 16) leaves the spectrum Z in
// bit-reversed order. Each frequency k is read with
// its mirror -k: FL = (Z(k) + conj Z(-k)) / 2, FR = (Z(k) - conj Z(-k)) / 2i, and the product
// C = FL conj FR (full; FR conj FL valid) is written to both (C(-k) = conj C(k)). A
// decimation-in-time inverse takes the bit-reversed order back to natural order; the real part,
// scaled by 1/N^2 and shifted cyclically by (h - 1, w - 1) in full mode, is the output.
// When it wins: batched small problems (n_to_mn, n_to_m, one_to_many up to 64 x 64 inputs in
// full mode, windows up to 128 x 128 in valid mode), where gpu_fft's passes and launches dominate.
// Constraints: full mode max(2h - 1, 2w - 1) <= 128; valid mode max(H, W) <= 128. ZNCC through
// the shared epilogue. Instantiations: N = 16, 32, 64, 128 (one kernel each).
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/fft_stages.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/once_per_device.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kMaxN = 128;

template <int N>
constexpr int threads_for() {
  return N >= 128 ? 512 : 256;
}
// Row pitch of z in float2: one more than N, so that the lines of a column pass fall in
// different banks.
template <int N>
constexpr int pitch_of() {
  return N + 1;
}
template <int N>
constexpr int shared_bytes() {
  return static_cast<int>(sizeof(float2)) * (N * pitch_of<N>() + N / 2);
}

template <int N>
__global__ void __launch_bounds__(threads_for<N>())
    fft_shared_kernel(DeviceProblem p, float* __restrict__ out, int rs, int cs, bool full) {
  constexpr int kT = threads_for<N>(), kP = pitch_of<N>();
  extern __shared__ float2 smem[];
  float2* z = smem;
  float2* tw = smem + N * kP;
  fft::fill_twiddles<N, kT>(tw);
  const int lh = p.left_rows, lw = p.left_cols, rh = p.right_rows, rw = p.right_cols;
  const long long per = static_cast<long long>(p.out_rows) * p.out_cols;
  const float scale = 1.0f / (static_cast<float>(N) * N);
  for (int t = blockIdx.x; t < p.out_count; t += gridDim.x) {
    const int2 lr = p.pair(t);
    const float* __restrict__ L = p.left + static_cast<long long>(lr.x) * lh * lw;
    const float* __restrict__ R = p.right + static_cast<long long>(lr.y) * rh * rw;
    __syncthreads();  // the previous pair's output has been read
    for (int e = threadIdx.x; e < N * N; e += kT) {
      const int r = e / N, c = e % N;
      z[r * kP + c] = make_float2(r < lh && c < lw ? __ldg(L + r * lw + c) : 0.0f,
                                  r < rh && c < rw ? __ldg(R + r * rw + c) : 0.0f);
    }
    __syncthreads();
    // Rows past both inputs are zero and stay zero under the row transform.
    fft::transform_lines<N, kT, kP, true, true>(z, tw, max(lh, rh));
    fft::transform_lines<N, kT, kP, false, true>(z, tw, N);
    // The product at k and -k together (one thread owns both; self-mirrored k once).
    for (int e = threadIdx.x; e < N * N; e += kT) {
      const int i = e / N, j = e % N, mi = fft::mirror_index<N>(i), mj = fft::mirror_index<N>(j);
      const int f = i * N + j, g = mi * N + mj;
      if (f > g) continue;
      const float2 zk = z[i * kP + j], zm = z[mi * kP + mj];
      const float2 fl = make_float2(0.5f * (zk.x + zm.x), 0.5f * (zk.y - zm.y));
      const float2 fr = make_float2(0.5f * (zk.y + zm.y), -0.5f * (zk.x - zm.x));
      float2 c = full ? fft::cmul_conj(fl, fr) : fft::cmul_conj(fr, fl);
      c = make_float2(c.x * scale, c.y * scale);
      z[i * kP + j] = c;
      z[mi * kP + mj] = make_float2(c.x, -c.y);
    }
    __syncthreads();
    // Columns, then only the rows the output reads (valid mode: its first out_rows).
    fft::transform_lines<N, kT, kP, false, false>(z, tw, N);
    fft::transform_lines<N, kT, kP, true, false>(z, tw, full ? N : p.out_rows);
    float* o = out + t * per;
    for (int e = threadIdx.x; e < per; e += kT) {
      const int r = e / p.out_cols, c = e % p.out_cols;
      int sr = r - rs, sc = c - cs;
      if (sr < 0) sr += N;
      if (sc < 0) sc += N;
      o[e] = z[sr * kP + sc].x;
    }
  }
}

// The transform size a problem needs (a power of two), or 0 when it is larger than kMaxN.
int transform_size(Mode mode, long long lh, long long lw, long long rh, long long rw) {
  const long long need = mode == Mode::full ? std::max(2 * lh - 1, 2 * lw - 1) : std::max(rh, rw);
  int n = 16;
  while (n < need && n <= kMaxN) n *= 2;
  return n <= kMaxN ? n : 0;
}
int transform_size(const CorrelationProblem& p) {
  return transform_size(p.request.mode, p.left.rows, p.left.cols, p.right.rows, p.right.cols);
}
int transform_size(const DeviceProblem& p) {
  return transform_size(p.request.mode, p.left_rows, p.left_cols, p.right_rows, p.right_cols);
}

// The instantiated transform sizes: 16 to 128 (can_implement refuses the rest).
template <class F>
auto with_size(int n, F&& f) {
  return fft::with_size<16, kMaxN>(n, static_cast<F&&>(f));
}

template <int N>
Status launch(const DeviceProblem& p, float* out, cudaStream_t stream) {
  static OncePerDevice once;
  XCORR_CUDA_TRY(once([] {
    return cudaFuncSetAttribute(fft_shared_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                shared_bytes<N>());
  }));
  const bool full = p.request.mode == Mode::full;
  const int blocks = std::min(p.out_count, 1 << 20);
  fft_shared_kernel<N><<<blocks, threads_for<N>(), shared_bytes<N>(), stream>>>(
      p, out, full ? p.left_rows - 1 : 0, full ? p.left_cols - 1 : 0, full);
  XCORR_LAUNCH_TRY("fft_shared_kernel");
  return Status::ok();
}

class FftSharedCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    if (transform_size(p) == 0)
      return {ErrorCode::unsupported,
              "gpu_fft_shared: the padded transform exceeds 128 x 128 (full mode: inputs up to "
              "64 x 64; valid mode: windows up to 128 x 128)"};
    const int bytes = with_size(transform_size(p),
                                [](auto size) { return shared_bytes<decltype(size)::value>(); });
    return check_shared_bytes("gpu_fft_shared", bytes,
                              " for a " + std::to_string(transform_size(p)) + "-point transform");
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    // Fitted to docs/perf/gpu-engine.md (H200; kernel_ms, launch included): one pair takes
    // ~9.5 / 14.5 / 31 us at N = 32 / 64 / 128 (one block on one SM: its latency; the mean of
    // one_to_one 16 / 32 / 64 over runs 60, 68 and 70, whose spread is 8.7-10.5 us at N = 32),
    // and each further pair ~0.012 / 0.041 / 0.19 us of the whole GPU's throughput (runs 43-46;
    // N = 16 extrapolated).
    const int n = transform_size(p);
    const int k = n == 16 ? 0 : n == 32 ? 1 : n == 64 ? 2 : 3;
    constexpr double kFirst[] = {6e-6, 9.5e-6, 14.5e-6, 31e-6};
    constexpr double kEach[] = {0.004e-6, 0.012e-6, 0.041e-6, 0.19e-6};
    return kFirst[k] +
           kEach[k] / current_device().compute_scale() * static_cast<double>(p.output_count() - 1) +
           transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    return with_size(transform_size(p), [](auto size) -> std::vector<Launch> {
      constexpr int N = decltype(size)::value;
      return {{"fft_shared_kernel", reinterpret_cast<const void*>(&fft_shared_kernel<N>),
               threads_for<N>(), shared_bytes<N>()}};
    });
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    if (transform_size(p) == 0)
      return {ErrorCode::unsupported, "gpu_fft_shared: transform larger than 128 x 128"};
    return with_size(transform_size(p),
                     [&](auto size) { return launch<decltype(size)::value>(p, out, stream); });
  }

 private:
  VariantInfo info_{"gpu_fft_shared",
                    "fft",
                    "gpu",
                    "one block per pair: load, 2-D FFT, product, inverse FFT and crop on chip "
                    "(transforms up to 128 x 128)",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_fft_shared_correlator() {
  return std::make_unique<FftSharedCorrelator>();
}

}  // namespace xcorr::gpu
