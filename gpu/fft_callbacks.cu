// cuFFT LTO callbacks of gpu_fft's fused pipeline (contract: gpu/fft_callbacks.cuh). Compiled to
// LTO-IR only (gpu/CMakeLists.txt: nvcc -dc -fatbin, code=lto_XX) and embedded as a byte array;
// cuFFT links them into its kernels at plan time through nvJitLink. Not part of xcorr_gpu's
// object code. Plain C++ names at global scope with cuFFT's exact callback signatures: cuFFT
// finds each by the name fft.cu passes to cufftXtSetJITCallback.
#include <cufftXt.h>

#include "gpu/fft_callbacks.cuh"

using xcorr::gpu::FftCropInfo;
using xcorr::gpu::FftPadInfo;
using xcorr::gpu::FftProductInfo;

__device__ cufftReal xcorr_fft_load_padded(void*, unsigned long long offset, void* info, void*) {
  const FftPadInfo& f = *static_cast<const FftPadInfo*>(info);
  const auto at = xcorr::gpu::split_index(offset, f.P, f.Q);
  if (at.batch < f.n_a) {
    if (at.row >= f.ah || at.col >= f.aw) return 0.0f;
    return f.a[(static_cast<long long>(at.batch) * f.ah + at.row) * f.aw + at.col];
  }
  if (at.row >= f.bh || at.col >= f.bw) return 0.0f;
  return f.b[(static_cast<long long>(at.batch - f.n_a) * f.bh + at.row) * f.bw + at.col];
}

__device__ cufftComplex xcorr_fft_load_product(void*, unsigned long long offset, void* info,
                                               void*) {
  const FftProductInfo& f = *static_cast<const FftProductInfo*>(info);
  const auto at = xcorr::gpu::split_index(offset, 1, f.spec_size);
  const int2 lr = f.problem.pair(f.t0 + at.batch);
  const float2 l = f.spectra[static_cast<long long>(lr.x) * f.spec_size + at.col];
  const float2 r = f.spectra[static_cast<long long>(f.problem.n_left + lr.y) * f.spec_size + at.col];
  const float sign = f.problem.request.mode == xcorr::Mode::full ? 1.0f : -1.0f;
  return make_float2(l.x * r.x + l.y * r.y, sign * (l.y * r.x - l.x * r.y));
}

__device__ void xcorr_fft_store_cropped(void*, unsigned long long offset, cufftReal value,
                                        void* info, void*) {
  const FftCropInfo& f = *static_cast<const FftCropInfo*>(info);
  const auto at = xcorr::gpu::split_index(offset, f.P, f.Q);
  int r = at.row + f.rs, c = at.col + f.cs;
  if (r >= f.P) r -= f.P;
  if (c >= f.Q) c -= f.Q;
  if (r >= f.out_rows || c >= f.out_cols) return;
  f.out[(static_cast<long long>(at.batch) * f.out_rows + r) * f.out_cols + c] = value * f.scale;
}
