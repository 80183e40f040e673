// The valid-mode ZNCC anchor: what a CUDA user would call for template matching, NVIDIA NPP's
// nppiCrossCorrValid_NormLevel_32f_C1R_Ctx, one call per (template, window) pair, inputs and
// outputs resident on the device, timed with CUDA events (warm-up calls first). Not part of the
// product: built by scripts/gpu/build_npp_anchor.sh against NPP from PyPI (nvidia-npp 13.x) and
// run on the GPU machine by scripts/gpu/run.sh beside `xcorr bench`, so the two are compared in one
// run. Cases: DIC-shaped (template t in a (t + 20)^2 window, 10^4 pairs) and whole frames (32 in
// 512^2, 64 and 128 in 2048^2). Each case also checks one pair against a float64 ZNCC on the host
// (max |difference| printed), so the anchor is known to compute the same function.
// Usage: npp_anchor OUT.json
#include <cuda_runtime.h>
#include <nppi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                               \
  do {                                                              \
    const cudaError_t e_ = (x);                                     \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)
#define CHECK_NPP(x)                                                         \
  do {                                                                       \
    const NppStatus s_ = (x);                                                \
    if (s_ != NPP_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s: NPP status %d\n", #x, static_cast<int>(s_)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

struct Case {
  int tmpl, window, pairs;
};

// Float64 ZNCC (TM_CCOEFF_NORMED) of template t (n x n) in window s (m x m) at (k, l).
double zncc_at(const float* t, int n, const float* s, int m, int k, int l) {
  double tm = 0, sm = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) tm += t[i * n + j], sm += s[(k + i) * m + l + j];
  tm /= n * n;
  sm /= n * n;
  double num = 0, tt = 0, ss = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double a = t[i * n + j] - tm, b = s[(k + i) * m + l + j] - sm;
      num += a * b, tt += a * a, ss += b * b;
    }
  return num / std::sqrt(tt * ss);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: npp_anchor OUT.json\n");
    return 2;
  }
  const Case cases[] = {{21, 41, 10000}, {31, 51, 10000}, {41, 61, 10000},
                        {32, 512, 1},    {64, 2048, 1},   {128, 2048, 1}};
  // The stream context NPP 13 wants filled in by the caller (the default stream, device 0).
  NppStreamContext ctx{};
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDevice(&ctx.nCudaDeviceId));
  CHECK_CUDA(cudaGetDeviceProperties(&prop, ctx.nCudaDeviceId));
  ctx.hStream = nullptr;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  CHECK_CUDA(cudaStreamGetFlags(ctx.hStream, &ctx.nStreamFlags));
  cudaStream_t stream = ctx.hStream;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::string json = "[\n";
  std::printf("%-28s %9s %7s %6s %12s %12s %14s\n", "impl", "template", "window", "pairs", "ms",
              "us/pair", "max|d| vs f64");
  for (const Case& c : cases) {
    const int out = c.window - c.tmpl + 1;
    const int distinct = std::min(c.pairs, 256);  // inputs cycle through 256 distinct pairs
    std::vector<float> t(static_cast<size_t>(distinct) * c.tmpl * c.tmpl),
        s(static_cast<size_t>(distinct) * c.window * c.window);
    for (float& v : t) v = u(rng);
    for (float& v : s) v = u(rng);
    float *dt = nullptr, *ds = nullptr, *dout = nullptr;
    Npp8u* buffer = nullptr;
    CHECK_CUDA(cudaMalloc(&dt, t.size() * 4));
    CHECK_CUDA(cudaMalloc(&ds, s.size() * 4));
    CHECK_CUDA(cudaMalloc(&dout, static_cast<size_t>(distinct) * out * out * 4));
    CHECK_CUDA(cudaMemcpy(dt, t.data(), t.size() * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(ds, s.data(), s.size() * 4, cudaMemcpyHostToDevice));
    const NppiSize src{c.window, c.window}, tpl{c.tmpl, c.tmpl};
    size_t bytes = 0;
    CHECK_NPP(nppiValidNormLevelGetBufferHostSize_32f_C1R_Ctx(src, &bytes, ctx));
    CHECK_CUDA(cudaMalloc(&buffer, std::max<size_t>(bytes, 1)));
    auto call = [&](int k) {
      const int d = k % distinct;
      CHECK_NPP(nppiCrossCorrValid_NormLevel_32f_C1R_Ctx(
          ds + static_cast<size_t>(d) * c.window * c.window, c.window * 4, src,
          dt + static_cast<size_t>(d) * c.tmpl * c.tmpl, c.tmpl * 4, tpl,
          dout + static_cast<size_t>(d) * out * out, out * 4, buffer, ctx));
    };
    for (int k = 0; k < std::min(c.pairs, 50); ++k) call(k);  // warm-up
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<float> times;
    const int repeats = c.pairs > 1 ? 3 : 20;
    for (int r = 0; r < repeats; ++r) {
      CHECK_CUDA(cudaEventRecord(a, stream));
      for (int k = 0; k < c.pairs; ++k) call(k);
      CHECK_CUDA(cudaEventRecord(b, stream));
      CHECK_CUDA(cudaEventSynchronize(b));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    const double ms = times[times.size() / 2];
    // Check pair 0 against float64 ZNCC at a few positions.
    std::vector<float> got(static_cast<size_t>(out) * out);
    CHECK_CUDA(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int q = 0; q < 64; ++q) {
      const int k = (q * 7919) % out, l = (q * 104729) % out;
      worst = std::max(worst, std::abs(got[static_cast<size_t>(k) * out + l] -
                                       zncc_at(t.data(), c.tmpl, s.data(), c.window, k, l)));
    }
    std::printf("%-28s %9d %7d %6d %12.4f %12.3f %14.2e\n", "npp_crosscorr_valid_normlevel", c.tmpl,
                c.window, c.pairs, ms, 1e3 * ms / c.pairs, worst);
    char row[256];
    std::snprintf(
        row, sizeof row,
        "  {\"impl\": \"npp_crosscorr_valid_normlevel\", \"template\": %d, \"window\": %d, "
        "\"pairs\": %d, \"ms\": %.6f, \"us_per_pair\": %.4f, \"max_abs_diff_f64\": %.3e}",
        c.tmpl, c.window, c.pairs, ms, 1e3 * ms / c.pairs, worst);
    json += std::string(json.size() > 2 ? ",\n" : "") + row;
    cudaFree(dt);
    cudaFree(ds);
    cudaFree(dout);
    cudaFree(buffer);
  }
  json += "\n]\n";
  FILE* f = std::fopen(argv[1], "w");
  if (f == nullptr) return 1;
  std::fputs(json.c_str(), f);
  std::fclose(f);
  return 0;
}
