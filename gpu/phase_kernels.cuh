// The pieces of phase correlation on the GPU that the 2-D engine (phase_gpu.cu) and the 3-D one
// (volume_gpu.cu) share: per-image sums, the Tukey window, the normalised cross-power spectrum,
// the surface's argmax, the parabola vertex and the device check. Kernels are static (each
// including file has its own); threads per block are kThreads.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/status.hpp"
#include "gpu/peak_key.cuh"

namespace xcorr::gpu::phase {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

inline __device__ double block_sum(double v,
                                   double* scratch) {  // every thread's v; thread 0 gets it
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  double s = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < kWarps; ++w) s += scratch[w];
  __syncthreads();
  return s;
}

// Frame blockIdx.y: its sum into sums[frame] (zeroed before).
static __global__ void stats_kernel(const float* __restrict__ in, long long area,
                                    double* __restrict__ sums) {
  __shared__ double scratch[kWarps];
  const float* f = in + blockIdx.y * area;
  double s = 0;
  for (long long i = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; i < area;
       i += static_cast<long long>(gridDim.x) * kThreads)
    s += f[i];
  s = block_sum(s, scratch);
  if (threadIdx.x == 0) atomicAdd(&sums[blockIdx.y], s);
}

// Image blockIdx.y (depth planes of rows x cols; planes and rows blockIdx.x, + gridDim.x, ...):
// out = (in - mean) wz wy wx with the image's windows (wz null: one plane), and its energy (sum
// of squares) into energy[image] (zeroed before).
static __global__ void prep_kernel(const float* __restrict__ in, const double* __restrict__ sums,
                                   const float* __restrict__ wx, const float* __restrict__ wy,
                                   const float* __restrict__ wz, int depth, int rows, int cols,
                                   float* __restrict__ out, double* __restrict__ energy) {
  __shared__ double scratch[kWarps];
  const int k = blockIdx.y;
  const long long lines = static_cast<long long>(depth) * rows, area = lines * cols;
  const float mean = static_cast<float>(sums[k] / static_cast<double>(area));
  const float* f = in + k * area;
  float* o = out + k * area;
  const float* wxk = wx + k * static_cast<long long>(cols);
  double e = 0;
  for (long long u = blockIdx.x; u < lines; u += gridDim.x) {
    const int z = static_cast<int>(u / rows), r = static_cast<int>(u % rows);
    float w = wy[k * static_cast<long long>(rows) + r];
    if (wz != nullptr) w = wz[k * static_cast<long long>(depth) + z] * w;
    float row_e = 0;
    for (int c = threadIdx.x; c < cols; c += kThreads) {
      const float v = (f[u * cols + c] - mean) * w * wxk[c];
      o[u * cols + c] = v;
      row_e += v * v;
    }
    e += row_e;
  }
  e = block_sum(e, scratch);
  if (threadIdx.x == 0) atomicAdd(&energy[k], e);
}

// Tukey window of n samples (alpha 0.5), moved by `shift` samples; all 1 without a window.
inline __device__ float tukey_at(int i, int n, double shift, bool window) {
  if (!window) return 1.0f;
  const double last = n - 1, width = 0.5 * last / 2;
  const double t = i - shift, k = fmin(t, last - t);
  return k < 0 ? 0.0f : k < width ? static_cast<float>(0.5 * (1 - cospi(k / width))) : 1.0f;
}

// R over `count` frames of n_spec values each; frame k against reference k * ref_step.
static __global__ void cross_kernel(const float2* __restrict__ ref,
                                    const double* __restrict__ ref_energy, int ref_step,
                                    const float2* __restrict__ spec,
                                    const double* __restrict__ energy, long long n_spec, int count,
                                    bool whiten, float2* __restrict__ cross,
                                    float2* __restrict__ copy) {
  const long long total = n_spec * count;
  int frame = -1;  // the frame whose energy scale `unwhitened` holds (once per thread and frame)
  float unwhitened = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(i / n_spec);
    const long long e = i - k * n_spec;
    const float2 a = ref[k * ref_step * n_spec + e], b = spec[i];
    float pr = a.x * b.x + a.y * b.y, pi = a.y * b.x - a.x * b.y;  // a conj(b)
    float f;
    if (whiten) {
      const float m = sqrtf(pr * pr + pi * pi);
      f = m > 1e-30f ? 1 / m : 0.0f;
    } else {
      if (k != frame) {
        const double norm = sqrt(ref_energy[k * ref_step] * energy[k]);
        unwhitened = norm > 0 ? static_cast<float>(1 / norm) : 0.0f;
        frame = k;
      }
      f = unwhitened;
    }
    const float2 p{pr * f, pi * f};
    cross[i] = p;
    if (copy != nullptr) copy[i] = p;
  }
}

// Frame blockIdx.y: the largest value of its surface (first in row-major order on ties).
static __global__ void argmax_kernel(const float* __restrict__ surface, long long area,
                                     unsigned long long* __restrict__ keys) {
  __shared__ unsigned long long scratch[kWarps];
  const float* s = surface + blockIdx.y * area;
  unsigned long long best = 0;
  for (long long i = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; i < area;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    const unsigned long long key = peak_key(s[i], static_cast<unsigned>(i));
    best = key > best ? key : best;
  }
  best = warp_max_key(best);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = best;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kWarps; ++w) best = scratch[w] > best ? scratch[w] : best;
    atomicMax(&keys[blockIdx.y], best);
  }
}

// Index k of an n-point transform as a signed frequency (or shift).
inline __device__ double signed_frequency(int k, int n) {
  return k < (n + 1) / 2 ? k : k - n;
}

inline __device__ double vertex(double a, double b,
                                double c) {  // of the parabola through 3 samples
  const double d = a - 2 * b + c;
  return d < 0 ? fmin(fmax(0.5 * (a - c) / d, -0.5), 0.5) : 0.0;
}

// Blocks for `work` items at `per_block` a block, within 1 .. cap.
inline int grid_for(long long work, int per_block, int cap) {
  return static_cast<int>(std::clamp<long long>((work + per_block - 1) / per_block, 1, cap));
}

// ok when a CUDA device is present; else ErrorCode::unsupported with the reason.
inline Status usable_device() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e == cudaSuccess && devices > 0) return Status::ok();
  (void)cudaGetLastError();
  return Status{ErrorCode::unsupported,
                std::string("no usable CUDA device: ") +
                    (e != cudaSuccess ? cudaGetErrorString(e) : "none found")};
}

}  // namespace xcorr::gpu::phase
