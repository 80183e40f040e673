// Radix-2 FFT passes over lines of a 2-D complex array in shared memory, for one thread block
// (gpu_fft_shared: a whole 2-D transform per block; gpu_fft_fused: batches of rows or columns).
// Contract: z holds lines of N complex values (N a power of two), line l at z + l * kP (kP >= N,
// N + 1 spreads a column pass over the banks); tw[k] = exp(-2 pi i k / N) for k < N / 2, in
// shared memory. Forward: decimation in frequency, natural order in, bit-reversed order out.
// Inverse: decimation in time, bit-reversed order in, natural order out, unscaled (a forward and
// an inverse multiply by N). Every pass ends with __syncthreads().
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

namespace xcorr::gpu::fft {

// f(std::integral_constant<int, N>{}) for the power of two N = n in [kMin, kMax]; n outside that
// range gets kMax (callers' can_implement refuses sizes they do not instantiate). One switch for
// every size-templated launch of gpu_fft_shared and gpu_fft_fused.
template <int kMin, int kMax, class F>
auto with_size(int n, F&& f) {
  if constexpr (kMin >= kMax) {
    return f(std::integral_constant<int, kMax>{});
  } else {
    if (n == kMin) return f(std::integral_constant<int, kMin>{});
    return with_size<2 * kMin, kMax>(n, static_cast<F&&>(f));
  }
}

template <int N>
constexpr int log2_of() {
  int l = 0;
  while ((1 << l) < N) ++l;
  return l;
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 cmul_conj(float2 a, float2 b) {  // a * conj(b)
  return make_float2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

// tw[k] = exp(-2 pi i k / N), k < N / 2, written by the block's kT threads (no barrier).
template <int N, int kT>
__device__ void fill_twiddles(float2* tw) {
  for (int k = threadIdx.x; k < N / 2; k += kT) {
    float s, c;
    sincospif(-2.0f * static_cast<float>(k) / N, &s, &c);
    tw[k] = make_float2(c, s);
  }
}

// Storage index (bit-reversed order) of frequency k, for k < N.
template <int N>
__device__ __forceinline__ int bitrev(int k) {
  return static_cast<int>(__brev(static_cast<unsigned>(k)) >> (32 - log2_of<N>()));
}
// Storage index (bit-reversed order) of the frequency whose storage index is i, negated.
template <int N>
__device__ __forceinline__ int mirror_index(int i) {
  return bitrev<N>((N - bitrev<N>(i)) & (N - 1));
}

// G radix-2 stages (G <= 4) on the first `lines` lines of z (rows when kRows, else columns of an
// N x N array), each thread holding 2^G values in registers. Forward (decimation in frequency,
// spans S, S/2, ...): (a, b) -> (a + b, (a - b) W^j). Inverse (decimation in time, spans S, 2S,
// ...): (a, b) -> (a + b conj(W^j), a - b conj(W^j)).
// Twiddles are read from the table (each one rounding; a chain of products and squares, tried
// in run 44, lost up to 3e-5 of accuracy on 16 x 16).
// Lines: the first `lines` of them, 2^lines_log >= lines (index arithmetic in shifts and masks;
// every size here is a compile-time power of two).
// kSkew (rows only; 0: none): value x of a line sits at x + (x >> kSkew), a gap every 2^kSkew
// values, which spreads the strided accesses of lines longer than 256 over the banks.
template <int kSkew>
__device__ __forceinline__ int skewed(int x) {
  return kSkew > 0 ? x + (x >> kSkew) : x;
}
template <int N, int kT, int kP, int G, bool kRows, bool kForward, int S, int kSkew = 0>
__device__ void stage_group(float2* z, const float2* tw, int lines, int lines_log) {
  constexpr int kM = 1 << G;
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
      v[m] = kRows ? z[line * kP + skewed<kSkew>(x)] : z[x * kP + line];
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
      (kRows ? z[line * kP + skewed<kSkew>(x)] : z[x * kP + line]) = v[m];
    }
  }
  __syncthreads();
}

// Groups of kG stages after the first kDone stages of one dimension.
template <int N, int kT, int kP, bool kRows, bool kForward, int kG, int kSkew, int kDone>
__device__ void later_groups(float2* z, const float2* tw, int lines, int lines_log) {
  if constexpr (kDone < log2_of<N>()) {
    stage_group<N, kT, kP, kG, kRows, kForward, kForward ? N / (2 << kDone) : 1 << kDone, kSkew>(
        z, tw, lines, lines_log);
    later_groups<N, kT, kP, kRows, kForward, kG, kSkew, kDone + kG>(z, tw, lines, lines_log);
  }
}

// Every stage of one dimension on the first `lines` lines: forward spans N/2 down to 1, inverse
// 1 up to N/2. Groups of kG stages (3 or 4); the first group takes what is left over, 2 to 4
// stages (kG = 3: N = 16: one pass of 4; 128: 4 + 3; 1024: 4 + 3 + 3; 2048: 2 + 3 + 3 + 3.
// kG = 4: 256: 4 + 4; 2048: 3 + 4 + 4).
template <int N, int kT, int kP, bool kRows, bool kForward, int kG = 3, int kSkew = 0>
__device__ void transform_lines(float2* z, const float2* tw, int lines) {
  constexpr int kLog = log2_of<N>();
  constexpr int kFirst = kLog - kG * ((kLog - 2) / kG);
  static_assert(kLog >= 4 && kFirst >= 2 && kFirst <= 4, "transform sizes from 16 up");
  int lines_log = 0;
  while ((1 << lines_log) < lines) ++lines_log;
  stage_group<N, kT, kP, kFirst, kRows, kForward, kForward ? N / 2 : 1, kSkew>(z, tw, lines,
                                                                               lines_log);
  later_groups<N, kT, kP, kRows, kForward, kG, kSkew, kFirst>(z, tw, lines, lines_log);
}

}  // namespace xcorr::gpu::fft
