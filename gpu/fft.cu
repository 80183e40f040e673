// gpu_fft: correlation through cuFFT (float32), everything on the device.
// Overview: one pad kernel copies every left and right matrix into a zero-padded P x Q batch
// (P, Q of the form 2^a 3^b 5^c 7^d, or powers of two: parameter `padding`); one batched R2C
// transform gives the spectrum of each distinct input once (reused by every pair: one_to_many,
// n_to_m); per chunk of outputs a fused kernel forms FL * conj(FR) (full) or FR * conj(FL) (valid),
// a batched C2R transforms back and a crop kernel writes the (2h-1) x (2w-1) or (H-h+1) x (W-w+1)
// layout, scaled by 1/(P Q). Plans are cached per (P, Q, batch). When it wins: from roughly 32x32
// up, and for large batches. ZNCC: the shared epilogue (gpu/zncc_epilogue.cuh) around the
// unnormalised pipeline. Constraints: none. Output chunks are sized from free device memory, so
// results larger than the GPU still run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "core/fft_size.hpp"
#include "gpu/cufft_api.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/graph_replay.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;

struct Geometry {
  int P = 0, Q = 0;
  __host__ __device__ int cq() const { return Q / 2 + 1; }
  __host__ __device__ long long real_size() const { return static_cast<long long>(P) * Q; }
  __host__ __device__ long long spec_size() const { return static_cast<long long>(P) * cq(); }
};

// Padding: 0 = the next 2^a 3^b 5^c 7^d size, 1 = the next power of two (fewer, larger radices;
// which is faster depends on the size: the tuner measures both).
int padded_size(int n, int padding) {
  if (padding == 0) return static_cast<int>(next_fast_fft_size(n));
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

Geometry geometry(Mode mode, int lh, int lw, int rh, int rw, int padding) {
  if (mode == Mode::full)
    return {padded_size(2 * lh - 1, padding), padded_size(2 * lw - 1, padding)};
  return {padded_size(rh, padding), padded_size(rw, padding)};
}

// 2-D/3-D grids with 32-bit indices inside a matrix (64-bit division per element is slow).
constexpr int kBlockX = 32, kBlockY = 8;
constexpr int kMaxGridZ = 65535;

// dst[m] = source m zero-padded to P x Q; m < n_a reads a[m], else b[m - n_a].
__global__ void pad_kernel(const float* __restrict__ a, int n_a, int ah, int aw,
                           const float* __restrict__ b, int bh, int bw, int count, Geometry g,
                           float* __restrict__ dst) {
  const int c = blockIdx.x * kBlockX + threadIdx.x, r = blockIdx.y * kBlockY + threadIdx.y;
  if (c >= g.Q || r >= g.P) return;
  for (int m = blockIdx.z; m < count; m += gridDim.z) {
    float v = 0;
    if (m < n_a) {
      if (r < ah && c < aw) v = a[(static_cast<long long>(m) * ah + r) * aw + c];
    } else if (r < bh && c < bw) {
      v = b[(static_cast<long long>(m - n_a) * bh + r) * bw + c];
    }
    dst[m * g.real_size() + r * g.Q + c] = v;
  }
}

// prod[b] = spectrum(left) * conj(spectrum(right)) (full) or its conjugate (valid), output t0 + b.
__global__ void multiply_kernel(const float2* __restrict__ spectra, DeviceProblem p, int t0,
                                int batch, int spec_size, float2* __restrict__ prod) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= spec_size) return;
  const float sign = p.request.mode == Mode::full ? 1.0f : -1.0f;
  for (int b = blockIdx.y; b < batch; b += gridDim.y) {
    const int2 lr = p.pair(t0 + b);
    const float2 l = spectra[static_cast<long long>(lr.x) * spec_size + k];
    const float2 r = spectra[static_cast<long long>(p.n_left + lr.y) * spec_size + k];
    prod[static_cast<long long>(b) * spec_size + k] =
        make_float2(l.x * r.x + l.y * r.y, sign * (l.y * r.x - l.x * r.y));
  }
}

// out[b][r][c] = corr[b][(r - rs) mod P][(c - cs) mod Q] / (P Q)
__global__ void crop_kernel(const float* __restrict__ corr, int batch, Geometry g, int out_rows,
                            int out_cols, int rs, int cs, float scale, float* __restrict__ out) {
  const int c = blockIdx.x * kBlockX + threadIdx.x, r = blockIdx.y * kBlockY + threadIdx.y;
  if (c >= out_cols || r >= out_rows) return;
  int sr = r - rs, sc = c - cs;
  if (sr < 0) sr += g.P;
  if (sc < 0) sc += g.Q;
  for (int b = blockIdx.z; b < batch; b += gridDim.z) {
    out[(static_cast<long long>(b) * out_rows + r) * out_cols + c] =
        corr[b * g.real_size() + sr * g.Q + sc] * scale;
  }
}

dim3 grid_2d(int cols, int rows, long long count) {
  return dim3((cols + kBlockX - 1) / kBlockX, (rows + kBlockY - 1) / kBlockY,
              static_cast<unsigned>(std::min<long long>(count, kMaxGridZ)));
}

// cuFFT, once PlanCache::get has loaded it (every cuFFT call follows a plan).
const CufftApi& cufft() {
  return *cufft_api().value();
}

// One correlator instance's cuFFT plans keyed by (device, P, Q, batch, type). cuFFT allows
// concurrent host threads only on different plans, so the plans belong to the instance, like its
// work buffers: one instance serves one thread at a time (several GPUs, or device 0 listed twice,
// get one instance each: engine::on_devices).
class PlanCache {
 public:
  ~PlanCache() {
    for (auto& [k, plan] : plans_) cufft().cufftDestroy(plan.handle);
  }
  // The plan for (P, Q, batch, type) on the current device (a plan belongs to the device it was
  // made on), bound to `stream` (rebound only when the stream changes).
  Result<cufftHandle> get(Geometry g, int batch, cufftType type, cudaStream_t stream) {
    if (auto api = cufft_api(); !api.is_ok()) return api.status();
    int device = 0;
    XCORR_CUDA_TRY(cudaGetDevice(&device));
    std::lock_guard lock(mutex_);
    const auto key = std::make_tuple(device, g.P, g.Q, batch, static_cast<int>(type));
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      cufftHandle h{};
      int n[2] = {g.P, g.Q};
      XCORR_CUFFT_TRY(cufft().cufftPlanMany(&h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, batch));
      XCORR_CUFFT_TRY(cufft().cufftSetStream(h, stream));
      it = plans_.emplace(key, Plan{h, stream}).first;
    } else if (it->second.stream != stream) {
      XCORR_CUFFT_TRY(cufft().cufftSetStream(it->second.handle, stream));
      it->second.stream = stream;
    }
    return it->second.handle;
  }

 private:
  struct Plan {
    cufftHandle handle;
    cudaStream_t stream;
  };
  std::mutex mutex_;
  std::map<std::tuple<int, int, int, int, int>, Plan> plans_;
};

class FftCorrelator final : public GpuCorrelator {
 public:
  explicit FftCorrelator(int padding = 0) : padding_(padding) {}
  const VariantInfo& info() const override { return info_; }
  ParamValues params() const override { return {{"padding", padding_}}; }
  Result<std::unique_ptr<Correlator>> with_params(const ParamValues& values) const override {
    auto all = complete_params(info_.name, info_.params, values);
    if (!all.is_ok()) return all.status();
    return std::unique_ptr<Correlator>(std::make_unique<FftCorrelator>(all.value().at("padding")));
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    const Geometry g =
        geometry(p.request.mode, static_cast<int>(p.left.rows), static_cast<int>(p.left.cols),
                 static_cast<int>(p.right.rows), static_cast<int>(p.right.cols), padding_);
    const double inputs = static_cast<double>(p.left.count + p.right.count);
    const double outputs = static_cast<double>(p.output_count());
    const double n = static_cast<double>(g.real_size());
    // Fitted to docs/perf/gpu-engine.md (H200): ~15 us for a small problem replayed as a graph
    // (~28 us on its first run); beyond that each transform moves ~6 x its data at ~3 TB/s.
    const double bytes = inputs * n * 4 * 8 + outputs * n * 4 * 10;
    return 15e-6 + bytes / memory_rate(3e12) + transfer_seconds(p);
  }

  // The pipeline is replayed as a CUDA graph when the same problem, inputs, output and work
  // buffers come again (gpu/graph_replay.cuh): one launch instead of five stages and two cuFFT
  // executions.
  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    std::lock_guard lock(mutex_);  // work buffers, plans and graphs are shared state
    Prepared prep;
    XCORR_RETURN_IF_ERROR(prepare(p, prep, stream));
    if (prep.chunk != p.out_count) return enqueue(p, out, stream, prep);  // chunked: direct
    GraphKey key = graph_key(p, out);
    for (const void* b :
         {static_cast<const void*>(padded_.get()), static_cast<const void*>(corr_.get()),
          static_cast<const void*>(spectra_.get()), static_cast<const void*>(product_.get())})
      key.push_back(reinterpret_cast<std::uintptr_t>(b));
    return graphs_.run(
        key, stream, [&](cudaStream_t s) { return enqueue(p, out, s, prep); },
        [&](cudaStream_t s) {
          Prepared bound;
          return prepare(p, bound, s);  // binds the plans to the capture stream
        });
  }

 private:
  struct Prepared {
    Geometry g;
    int inputs = 0, chunk = 0;
  };

  // Allocations, plans and the chunk size: everything that may not happen inside a capture.
  Status prepare(const DeviceProblem& p, Prepared& prep, cudaStream_t stream) const {
    const Geometry g =
        geometry(p.request.mode, p.left_rows, p.left_cols, p.right_rows, p.right_cols, padding_);
    const int inputs = p.n_left + p.n_right;
    XCORR_RETURN_IF_ERROR(padded_.allocate(static_cast<std::size_t>(inputs * g.real_size())));
    XCORR_RETURN_IF_ERROR(spectra_.allocate(static_cast<std::size_t>(inputs * g.spec_size())));
    // Outputs in chunks that fit in a quarter of the free memory; the free-memory query is
    // skipped when the buffers of an earlier run already hold every output.
    const double per_output =
        static_cast<double>(g.spec_size()) * 8 + static_cast<double>(g.real_size()) * 4;
    int chunk = p.out_count;
    if (product_.size() < static_cast<std::size_t>(p.out_count * g.spec_size()) ||
        corr_.size() < static_cast<std::size_t>(p.out_count * g.real_size())) {
      auto fit = items_in_free_memory(per_output, p.out_count);
      if (!fit.is_ok()) return fit.status();
      chunk = fit.value();
    }
    XCORR_RETURN_IF_ERROR(product_.allocate(static_cast<std::size_t>(chunk * g.spec_size())));
    XCORR_RETURN_IF_ERROR(corr_.allocate(static_cast<std::size_t>(chunk * g.real_size())));
    auto forward = plans_.get(g, inputs, CUFFT_R2C, stream);
    if (!forward.is_ok()) return forward.status();
    const int last = p.out_count % chunk;
    for (int batch : {chunk, last}) {
      if (batch == 0) continue;
      auto inverse = plans_.get(g, batch, CUFFT_C2R, stream);
      if (!inverse.is_ok()) return inverse.status();
    }
    prep = {g, inputs, chunk};
    return Status::ok();
  }

  // The pipeline's kernels and transforms on `stream` (plans already exist).
  Status enqueue(const DeviceProblem& p, float* out, cudaStream_t stream,
                 const Prepared& prep) const {
    const Geometry g = prep.g;
    pad_kernel<<<grid_2d(g.Q, g.P, prep.inputs), dim3(kBlockX, kBlockY), 0, stream>>>(
        p.left, p.n_left, p.left_rows, p.left_cols, p.right, p.right_rows, p.right_cols,
        prep.inputs, g, padded_.get());
    XCORR_LAUNCH_TRY("pad_kernel");
    auto forward = plans_.get(g, prep.inputs, CUFFT_R2C, stream);
    if (!forward.is_ok()) return forward.status();
    XCORR_CUFFT_TRY(cufft().cufftExecR2C(forward.value(), padded_.get(),
                                         reinterpret_cast<cufftComplex*>(spectra_.get())));
    const int rs = p.request.mode == Mode::full ? p.left_rows - 1 : 0;
    const int cs = p.request.mode == Mode::full ? p.left_cols - 1 : 0;
    const float scale = 1.0f / static_cast<float>(g.real_size());
    for (int t0 = 0; t0 < p.out_count; t0 += prep.chunk) {
      const int batch = std::min(prep.chunk, p.out_count - t0);
      const dim3 mul_grid(static_cast<unsigned>((g.spec_size() + kThreads - 1) / kThreads),
                          std::min(batch, kMaxGridZ));
      multiply_kernel<<<mul_grid, kThreads, 0, stream>>>(
          spectra_.get(), p, t0, batch, static_cast<int>(g.spec_size()), product_.get());
      XCORR_LAUNCH_TRY("multiply_kernel");
      auto inverse = plans_.get(g, batch, CUFFT_C2R, stream);
      if (!inverse.is_ok()) return inverse.status();
      XCORR_CUFFT_TRY(cufft().cufftExecC2R(
          inverse.value(), reinterpret_cast<cufftComplex*>(product_.get()), corr_.get()));
      const long long per = static_cast<long long>(p.out_rows) * p.out_cols;
      crop_kernel<<<grid_2d(p.out_cols, p.out_rows, batch), dim3(kBlockX, kBlockY), 0, stream>>>(
          corr_.get(), batch, g, p.out_rows, p.out_cols, rs, cs, scale, out + t0 * per);
      XCORR_LAUNCH_TRY("crop_kernel");
    }
    return Status::ok();
  }

  mutable std::mutex mutex_;
  mutable PlanCache plans_;
  mutable GraphReplay graphs_;
  // Work buffers kept between runs (the engine thread owns the GPU); grown when needed.
  mutable DeviceBuffer<float> padded_, corr_;
  mutable DeviceBuffer<float2> spectra_, product_;
  VariantInfo info_{"gpu_fft",
                    "fft",
                    "gpu",
                    "cuFFT R2C/C2R, spectra reused across pairs, padding/multiply/crop on the GPU",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc},
                    true,
                    {{"padding",
                      {0, 1},
                      0,
                      {"fast", "pow2"},
                      "transform size: next 2^a 3^b 5^c 7^d, or next power of two"}}};
  int padding_ = 0;
};

}  // namespace

std::unique_ptr<Correlator> make_fft_correlator() {
  return std::make_unique<FftCorrelator>();
}

}  // namespace xcorr::gpu
