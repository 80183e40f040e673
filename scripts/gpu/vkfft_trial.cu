// Engine against the thesis (docs/perf/gpu-engine.md): VkFFT trial (not part of the product build).
// VkFFT (Debian libvkfft-dev 1.2.26, CUDA backend: kernels compiled at run time by NVRTC) against
// cuFFT on the transforms of n_to_m full correlation: N x N transforms (N = 2 * size), n lefts, m
// rights. Times (CUDA events, median of 20 single runs; back-to-back = 20 launched without waiting
// / 20):
//   cufft_r2c   : R2C of n + m padded inputs (batch)
//   cufft_c2r   : C2R of n * m products (batch)
//   vk_r2c      : the same R2C with VkFFT (in place, padded layout)
//   vk_c2r      : the same C2R with VkFFT
//   vk_conv     : VkFFT convolution: per left, forward + product with the m pre-transformed rights
//                 (conjugated) + inverse, fused by VkFFT; n launches
// and checks vk_conv's circular cross-correlation at a few shifts against a float64 sum.
// Build (here): nvcc -O2 -std=c++17 -arch=sm_90 scripts/gpu/vkfft_trial.cu -o vkfft_trial
//   -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc -lcufft
// Run (GPU machine): LD_LIBRARY_PATH=/usr/local/cuda/lib64 ./vkfft_trial
// Results: docs/perf/gpu-engine.md, run 73.
#define VKFFT_BACKEND 1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "vkFFT.h"

#define CK(x)                                                                \
  do {                                                                       \
    auto e_ = (x);                                                           \
    if (e_ != 0) {                                                           \
      std::printf("FAIL %s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

struct Timing {
  double single_ms, b2b_ms;
};
Timing time_it(cudaStream_t s, const std::function<void()>& f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) f();
  cudaStreamSynchronize(s);
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(a, s);
    f();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventRecord(a, s);
  for (int i = 0; i < 20; ++i) f();
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  float total;
  cudaEventElapsedTime(&total, a, b);
  return {t[10], total / 20};
}

void run_case(int size, int n, int m) {
  const int N = 2 * size, cx = N / 2 + 1, pitch = 2 * cx;  // floats per padded row
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  std::mt19937 rng(size);
  std::uniform_real_distribution<float> u(-1, 1);
  // Inputs: n lefts then m rights, size x size, in padded R2C layout (N rows of `pitch` floats).
  const size_t padded = static_cast<size_t>(N) * pitch;
  std::vector<float> host((n + m) * padded, 0.0f);
  for (int k = 0; k < n + m; ++k)
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x) host[k * padded + y * pitch + x] = u(rng);
  float *in, *prod, *work;
  CK(cudaMalloc(&in, host.size() * 4));
  CK(cudaMalloc(&work, host.size() * 4));
  CK(cudaMalloc(&prod, static_cast<size_t>(n) * m * padded * 4));
  CK(cudaMemcpy(in, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(prod, 0, static_cast<size_t>(n) * m * padded * 4));

  // cuFFT R2C (out of place into work, complex pitch cx) and C2R over the products (in place).
  cufftHandle fwd, inv;
  int dims[2] = {N, N}, inembed[2] = {N, pitch}, cembed[2] = {N, cx};
  CK(cufftPlanMany(&fwd, 2, dims, inembed, 1, static_cast<int>(padded), cembed, 1, N * cx,
                   CUFFT_R2C, n + m));
  CK(cufftPlanMany(&inv, 2, dims, cembed, 1, N * cx, inembed, 1, static_cast<int>(padded),
                   CUFFT_C2R, n * m));
  CK(cufftSetStream(fwd, s));
  CK(cufftSetStream(inv, s));
  Timing cr = time_it(s, [&] { cufftExecR2C(fwd, in, reinterpret_cast<cufftComplex*>(work)); });
  Timing ci = time_it(s, [&] { cufftExecC2R(inv, reinterpret_cast<cufftComplex*>(prod), prod); });

  // VkFFT R2C over n + m (in place on work, padded layout) and C2R over n * m (in place on prod).
  auto plan = [&](VkFFTApplication& app, int batches, float* buf, uint64_t* bytes) {
    VkFFTConfiguration c = {};
    c.FFTdim = 2;
    c.size[0] = N;
    c.size[1] = N;
    c.size[2] = 1;
    c.performR2C = 1;
    c.numberBatches = batches;
    c.device = &dev;
    c.stream = &s;
    c.num_streams = 1;
    *bytes = static_cast<uint64_t>(batches) * padded * 4;
    c.bufferSize = bytes;
    static void* b;
    b = buf;
    c.buffer = &b;
    CK(initializeVkFFT(&app, c));
  };
  VkFFTApplication vf = {}, vi = {};
  uint64_t bf, bi;
  CK(cudaMemcpy(work, in, host.size() * 4, cudaMemcpyDeviceToDevice));
  plan(vf, n + m, work, &bf);
  plan(vi, n * m, prod, &bi);
  void* wb = work;
  void* pb = prod;
  Timing vr = time_it(s, [&] {
    VkFFTLaunchParams lp = {};
    lp.buffer = &wb;
    VkFFTAppend(&vf, -1, &lp);
  });
  Timing vinv = time_it(s, [&] {
    VkFFTLaunchParams lp = {};
    lp.buffer = &pb;
    VkFFTAppend(&vi, 1, &lp);
  });

  // VkFFT convolution: kernels = the m rights (transformed in place by a kernelConvolution plan).
  float* kern;
  const uint64_t kbytes = static_cast<uint64_t>(m) * padded * 4;
  CK(cudaMalloc(&kern, kbytes));
  CK(cudaMemcpy(kern, in + n * padded, kbytes, cudaMemcpyDeviceToDevice));
  VkFFTConfiguration kc = {};
  kc.FFTdim = 2;
  kc.size[0] = N;
  kc.size[1] = N;
  kc.size[2] = 1;
  kc.performR2C = 1;
  kc.kernelConvolution = 1;
  kc.coordinateFeatures = 1;
  kc.normalize = 1;
  kc.numberBatches = m;
  kc.device = &dev;
  kc.stream = &s;
  kc.num_streams = 1;
  uint64_t kb = kbytes;
  kc.bufferSize = &kb;
  void* kp = kern;
  kc.buffer = &kp;
  VkFFTApplication ka = {};
  CK(initializeVkFFT(&ka, kc));
  {
    VkFFTLaunchParams lp = {};
    lp.buffer = &kp;
    CK(VkFFTAppend(&ka, -1, &lp));
    CK(cudaStreamSynchronize(s));
  }
  VkFFTConfiguration cc = kc;
  cc.kernelConvolution = 0;
  cc.performConvolution = 1;
  cc.conjugateConvolution = 2;  // conj(kernel): cross-correlation
  cc.numberBatches = 1;
  cc.numberKernels = m;
  cc.kernel = &kp;
  cc.kernelSize = &kb;
  // Input: one left, real N x N in padded layout (pitch floats per row): formatted input.
  cc.isInputFormatted = 1;
  cc.inputBufferStride[0] = pitch;
  cc.inputBufferStride[1] = padded;
  cc.inputBufferStride[2] = padded;
  uint64_t in_bytes = padded * 4;
  cc.inputBufferSize = &in_bytes;
  float* outb;
  uint64_t out_bytes = static_cast<uint64_t>(m) * padded * 4;
  CK(cudaMalloc(&outb, out_bytes));
  void* ob = outb;
  cc.buffer = &ob;
  cc.bufferSize = &out_bytes;
  void* ib = in;
  cc.inputBuffer = &ib;
  VkFFTApplication ca = {};
  int conv_ok = initializeVkFFT(&ca, cc);
  Timing vc{-1, -1};
  double max_err = -1;
  if (conv_ok == 0) {
    vc = time_it(s, [&] {
      for (int l = 0; l < n; ++l) {
        void* lin = in + l * padded;
        VkFFTLaunchParams lp = {};
        lp.inputBuffer = &lin;
        lp.buffer = &ob;
        lp.kernel = &kp;
        VkFFTAppend(&ca, -1, &lp);
      }
    });
    // Last left (n - 1) with each right: check a few circular shifts.
    std::vector<float> got(static_cast<size_t>(m) * padded);
    CK(cudaMemcpy(got.data(), outb, out_bytes, cudaMemcpyDeviceToHost));
    max_err = 0;
    double max_ref = 0;
    const float* L = host.data() + (n - 1) * padded;
    for (int r = 0; r < m; r += std::max(1, m / 3)) {
      const float* R = host.data() + (n + r) * padded;
      for (int t = 0; t < 6; ++t) {
        const int sy = (t * 37) % N, sx = (t * 53 + 11) % N;
        // c[s] = sum_x L[x + s] R[x] (circular) -- or with L and R swapped; report both.
        double c1 = 0, c2 = 0;
        for (int y = 0; y < N; ++y)
          for (int x = 0; x < N; ++x) {
            const double l1 = L[((y + sy) % N) * pitch + (x + sx) % N], r1 = R[y * pitch + x];
            c1 += l1 * r1;
            c2 += static_cast<double>(L[y * pitch + x]) * R[((y + sy) % N) * pitch + (x + sx) % N];
          }
        const double g = got[r * padded + sy * pitch + sx];
        max_err = std::max(max_err, std::min(std::abs(g - c1), std::abs(g - c2)));
        max_ref = std::max(max_ref, std::abs(c1));
        if (t == 0)
          std::printf("  check r=%d s=(%d,%d): vkfft %.5f  L[x+s]R[x] %.5f  L[x]R[x+s] %.5f\n", r,
                      sy, sx, g, c1, c2);
      }
    }
    max_err /= std::max(max_ref, 1e-30);
  }
  std::printf(
      "n_to_m %d %dx%d (N=%d): cufft_r2c %.4f/%.4f  cufft_c2r %.4f/%.4f  vk_r2c %.4f/%.4f  "
      "vk_c2r %.4f/%.4f  vk_conv(%d launches) %.4f/%.4f  conv_init=%d rel_err=%.2e  (ms single/"
      "back-to-back)\n",
      size, n, m, N, cr.single_ms, cr.b2b_ms, ci.single_ms, ci.b2b_ms, vr.single_ms, vr.b2b_ms,
      vinv.single_ms, vinv.b2b_ms, n, vc.single_ms, vc.b2b_ms, conv_ok, max_err);
  deleteVkFFT(&vf);
  deleteVkFFT(&vi);
  deleteVkFFT(&ka);
  if (conv_ok == 0) deleteVkFFT(&ca);
  cufftDestroy(fwd);
  cufftDestroy(inv);
  cudaFree(in);
  cudaFree(work);
  cudaFree(prod);
  cudaFree(kern);
  cudaFree(outb);
  cudaStreamDestroy(s);
}

int main() {
  CK(cuInit(0));
  CK(cudaFree(nullptr));  // the runtime's primary context, which VkFFT's driver calls use
  run_case(32, 16, 16);
  run_case(64, 8, 8);
  run_case(128, 8, 8);
  run_case(256, 4, 4);
  run_case(512, 1, 1);
  return 0;
}
