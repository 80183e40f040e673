// What gpu_fft's fused pipeline (gpu/fft.cu, fusion=callbacks) hands to its cuFFT LTO callbacks
// (gpu/fft_callbacks.cu): plain structs in device memory, one per cuFFT plan, written by a
// one-thread kernel in stream order before each transform (so graph replays carry their own).
// The three callbacks replace the pad, multiply and crop passes of the unfused pipeline:
//   forward R2C load:  element (m, r, c) of the P x Q padded batch = input m at (r, c), or 0;
//   inverse C2R load:  element k of pair b's spectrum = FL * conj(FR) (full) or FR * conj(FL);
//   inverse C2R store: element (b, sr, sc) of the P x Q result goes, scaled by 1/(P Q), to
//                      output (sr + rs) mod P, (sc + cs) mod Q when that lies inside the output.
#pragma once

#include "gpu/device_problem.cuh"

namespace xcorr::gpu {

struct FftPadInfo {
  const float* a = nullptr;  // n_a matrices of ah x aw (the left inputs)
  const float* b = nullptr;  // then the right inputs, bh x bw
  int n_a = 0, ah = 0, aw = 0, bh = 0, bw = 0;
  int P = 0, Q = 0;  // padded transform size
};

struct FftProductInfo {
  const float2* spectra = nullptr;  // n_left + n_right spectra of spec_size elements
  DeviceProblem problem;            // its pair(t) maps output t to (left, right)
  int t0 = 0;                       // output of the transform's first batch entry
  int spec_size = 0;                // P x (Q / 2 + 1)
};

struct FftCropInfo {
  float* out = nullptr;  // this chunk's first output, out_rows x out_cols each
  int P = 0, Q = 0, out_rows = 0, out_cols = 0;
  int rs = 0, cs = 0;  // cyclic shift of the result (full mode: h - 1, w - 1)
  float scale = 1;     // 1 / (P Q)
};

// Splits a flat element index of a batch of `plane` = rows x cols elements (32-bit arithmetic
// when the whole batch fits, which is the common case: 64-bit division is slow).
struct FlatIndex {
  int batch, row, col;
};
__host__ __device__ inline FlatIndex split_index(unsigned long long i, int rows, int cols) {
  const unsigned long long plane = static_cast<unsigned long long>(rows) * cols;
  if (i < 0xffffffffull) {
    const unsigned k = static_cast<unsigned>(i), p = static_cast<unsigned>(plane);
    const unsigned b = k / p, rem = k - b * p, r = rem / static_cast<unsigned>(cols);
    return {static_cast<int>(b), static_cast<int>(r), static_cast<int>(rem - r * cols)};
  }
  const unsigned long long b = i / plane, rem = i - b * plane;
  const int r = static_cast<int>(rem / cols);
  return {static_cast<int>(b), r, static_cast<int>(rem) - r * cols};
}

}  // namespace xcorr::gpu
