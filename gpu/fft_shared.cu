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
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kMaxN = 128;

template <int N>
constexpr int threads_for() {
  return N >= 128 ? 512 : 256;
}
template <int N>
constexpr int log2_of() {
  int l = 0;
  while ((1 << l) < N) ++l;
  return l;
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

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 cmul_conj(float2 a, float2 b) {  // a * conj(b)
  return make_float2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

// G radix-2 stages (G <= 4) on the first `lines` lines of z (rows when kRows, else columns), each
// thread holding 2^G values in registers. Forward (decimation in frequency, spans S, S/2, ...):
// (a, b) -> (a + b, (a - b) W^j). Inverse (decimation in time, spans S, 2S, ...):
// (a, b) -> (a + b conj(W^j), a - b conj(W^j)). tw[k] = exp(-2 pi i k / N), k < N / 2.
// Twiddles are read from the table (each one rounding; a chain of products and squares, tried
// in run 44, lost up to 3e-5 of accuracy on 16 x 16).
// Lines: the first `lines` of them, 2^lines_log >= lines (index arithmetic in shifts and masks;
// every size here is a compile-time power of two).
template <int N, int G, bool kRows, bool kForward, int S>
__device__ void stage_group(float2* z, const float2* tw, int lines, int lines_log) {
  constexpr int kT = threads_for<N>(), kP = pitch_of<N>(), kM = 1 << G;
  // Values m of an item sit at base + m * step along the line: step is the smallest span.
  constexpr int step = kForward ? S >> (G - 1) : S;
  constexpr int block = kForward ? 2 * S : S * kM;  // the items' block along the line
  constexpr int kItemsPerLine = N / kM;
  const int line_mask = (1 << lines_log) - 1;
  for (int idx = threadIdx.x; idx < (kItemsPerLine << lines_log); idx += kT) {
    const int line = idx & line_mask, q = idx >> lines_log;  // consecutive threads: lines
    if (line >= lines) continue;
    const int o = q % step, base = (q / step) * block + o;
    float2 v[kM];
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      const int x = base + m * step;
      v[m] = kRows ? z[line * kP + x] : z[x * kP + line];
    }
#pragma unroll
    for (int l = 0; l < G; ++l) {
      const int half = kForward ? kM >> (l + 1) : 1 << l;  // partner distance in m
      const int span = kForward ? S >> l : S << l;         // partner distance along the line
#pragma unroll
      for (int m = 0; m < kM; ++m) {
        if (m & half) continue;
        // W^j, j the offset inside the butterfly's block of 2 span: table index j N / (2 span).
        const float2 tw_m = tw[(o + (m % half) * step) * (N / (2 * span))];
        const float2 a = v[m], b = v[m + half];
        if (kForward) {
          v[m] = make_float2(a.x + b.x, a.y + b.y);
          v[m + half] = cmul(make_float2(a.x - b.x, a.y - b.y), tw_m);
        } else {
          const float2 t = cmul_conj(b, tw_m);
          v[m] = make_float2(a.x + t.x, a.y + t.y);
          v[m + half] = make_float2(a.x - t.x, a.y - t.y);
        }
      }
    }
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      const int x = base + m * step;
      (kRows ? z[line * kP + x] : z[x * kP + line]) = v[m];
    }
  }
  __syncthreads();
}

// Groups of three stages after the first kDone stages of one dimension.
template <int N, bool kRows, bool kForward, int kDone>
__device__ void later_groups(float2* z, const float2* tw, int lines, int lines_log) {
  if constexpr (kDone < log2_of<N>()) {
    stage_group<N, 3, kRows, kForward, kForward ? N / (2 << kDone) : 1 << kDone>(z, tw, lines,
                                                                                 lines_log);
    later_groups<N, kRows, kForward, kDone + 3>(z, tw, lines, lines_log);
  }
}

// Every stage of one dimension on the first `lines` lines: forward spans N/2 down to 1, inverse
// 1 up to N/2; a group of up to four stages first, then groups of three.
template <int N, bool kRows, bool kForward>
__device__ void transform_lines(float2* z, const float2* tw, int lines) {
  constexpr int kLog = log2_of<N>();
  constexpr int kFirst = kLog <= 4 ? kLog : kLog - 3;  // N = 16: one pass; 128: 4 + 3 stages
  int lines_log = 0;
  while ((1 << lines_log) < lines) ++lines_log;
  stage_group<N, kFirst, kRows, kForward, kForward ? N / 2 : 1>(z, tw, lines, lines_log);
  later_groups<N, kRows, kForward, kFirst>(z, tw, lines, lines_log);
}

// Storage index (bit-reversed order) of the frequency whose storage index is i, negated.
template <int N>
__device__ __forceinline__ int mirror_index(int i) {
  constexpr int kLog = log2_of<N>();
  const unsigned k = __brev(static_cast<unsigned>(i)) >> (32 - kLog);
  return static_cast<int>(__brev((N - k) & (N - 1)) >> (32 - kLog));
}

template <int N>
__global__ void __launch_bounds__(threads_for<N>())
    fft_shared_kernel(DeviceProblem p, float* __restrict__ out, int rs, int cs, bool full) {
  constexpr int kT = threads_for<N>(), kP = pitch_of<N>();
  extern __shared__ float2 smem[];
  float2* z = smem;
  float2* tw = smem + N * kP;
  for (int k = threadIdx.x; k < N / 2; k += kT) {
    float s, c;
    sincospif(-2.0f * static_cast<float>(k) / N, &s, &c);
    tw[k] = make_float2(c, s);
  }
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
    transform_lines<N, true, true>(z, tw, max(lh, rh));
    transform_lines<N, false, true>(z, tw, N);
    // The product at k and -k together (one thread owns both; self-mirrored k once).
    for (int e = threadIdx.x; e < N * N; e += kT) {
      const int i = e / N, j = e % N, mi = mirror_index<N>(i), mj = mirror_index<N>(j);
      const int f = i * N + j, g = mi * N + mj;
      if (f > g) continue;
      const float2 zk = z[i * kP + j], zm = z[mi * kP + mj];
      const float2 fl = make_float2(0.5f * (zk.x + zm.x), 0.5f * (zk.y - zm.y));
      const float2 fr = make_float2(0.5f * (zk.y + zm.y), -0.5f * (zk.x - zm.x));
      float2 c = full ? cmul_conj(fl, fr) : cmul_conj(fr, fl);
      c = make_float2(c.x * scale, c.y * scale);
      z[i * kP + j] = c;
      z[mi * kP + mj] = make_float2(c.x, -c.y);
    }
    __syncthreads();
    // Columns, then only the rows the output reads (valid mode: its first out_rows).
    transform_lines<N, false, false>(z, tw, N);
    transform_lines<N, true, false>(z, tw, full ? N : p.out_rows);
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

// f(std::integral_constant<int, N>{}) for the instantiated transform size n (16 to 128;
// can_implement has refused the rest).
template <class F>
auto with_size(int n, F&& f) {
  switch (n) {
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 32:
      return f(std::integral_constant<int, 32>{});
    case 64:
      return f(std::integral_constant<int, 64>{});
    default:
      return f(std::integral_constant<int, 128>{});
  }
}

template <int N>
Status launch(const DeviceProblem& p, float* out, cudaStream_t stream) {
  static const cudaError_t attr = cudaFuncSetAttribute(
      fft_shared_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes<N>());
  XCORR_CUDA_TRY(attr);
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
    return Status::ok();
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    // Fitted to docs/perf/gpu-engine.md (H200, runs 43-46; event-timed, launch included): one
    // pair takes ~8 / 13 / 32 us at N = 32 / 64 / 128 (one block on one SM: its latency), and
    // each further pair ~0.012 / 0.041 / 0.19 us of the whole GPU's throughput (N = 16
    // extrapolated).
    const int n = transform_size(p);
    const int k = n == 16 ? 0 : n == 32 ? 1 : n == 64 ? 2 : 3;
    constexpr double kFirst[] = {6e-6, 8e-6, 13e-6, 32e-6};
    constexpr double kEach[] = {0.004e-6, 0.012e-6, 0.041e-6, 0.19e-6};
    return kFirst[k] + kEach[k] * static_cast<double>(p.output_count() - 1) + transfer_seconds(p);
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
