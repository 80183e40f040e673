// IC-GN of transforms on the device (gpu/transform_gpu.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <vector>

#include "core/dic/icgn_math.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/host_staging.cuh"
#include "gpu/phase_kernels.cuh"
#include "gpu/transform_gpu.hpp"

namespace xcorr::gpu {
namespace {

namespace m = dic::math;
using reg::Affine;
using reg::Transform;
constexpr int kThreads = phase::kThreads, kWarps = phase::kWarps;
constexpr int kBatch = 32;            // frames per block
constexpr int kPixelsPerThread = 16;  // of a level, per thread and pass (about)
constexpr int kSums = 36;             // per frame: the Hessian pass's, 21 + 2 x 6 + 3 (affine)
constexpr int kStepsPerLook = 4;      // IC-GN steps between looks at whether all frames are done

enum Phase : int { kNeedHessian = 0, kIterate = 1, kDone = 2 };

// One frame's IC-GN on one level (level px, relative to the centres), as transform_level.cpp's
// icgn() keeps it: `chosen` is the warp the pixel set and the Hessian (its Cholesky factor, h)
// were taken with.
struct FitState {
  Affine rel, chosen;
  double h[21], sd_sum[6], sd_f[6];
  double n, f_mean, f_dev, zncc, overlap;
  int phase, iterations, converged, singular;
};

// A level's geometry: the reference's and the frames' alike.
struct Geometry {
  int rows, cols, band;
  double cx, cy;
};

// Whether the match of the reference point (xi, eta) (relative to the centre) under `a` lies
// kFitMargin px or more inside the frame (row_span's rule, pixel by pixel).
__device__ bool inside(const Geometry& g, const Affine& a, double xi, double eta) {
  const double x = g.cx + a.x(xi, eta), y = g.cy + a.y(xi, eta), e = reg::kFitMargin;
  return x >= e && x <= g.cols - 1 - e && y >= e && y <= g.rows - 1 - e;
}

// Every thread's v[0 .. M) summed over the block and added to out[0 .. M).
template <int M>
__device__ void add_block_sums(const double (&v)[M], double* scratch, double* out) {
#pragma unroll
  for (int j = 0; j < M; ++j) {
    double s = v[j];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) scratch[(threadIdx.x / 32) * M + j] = s;
  }
  __syncthreads();
  if (threadIdx.x < M) {
    double s = 0;
    for (int w = 0; w < kWarps; ++w) s += scratch[w * M + threadIdx.x];
    atomicAdd(&out[threadIdx.x], s);
  }
}

// The reference pixels clear of the band, in order: pixel i of frame blockIdx.y's pass.
struct Inner {
  int rows, cols;
  __device__ explicit Inner(const Geometry& g)
      : rows(g.rows - 2 * g.band), cols(g.cols - 2 * g.band) {}
  __device__ long long count() const { return rows > 0 && cols > 0 ? 1LL * rows * cols : 0; }
};

// The coarse level of frame blockIdx.y: bin x bin blocks of the full image averaged in the CPU's
// order (make_level), a block with a non-finite pixel to 0 (as the CPU's coefficients take it).
__global__ void bin_kernel(const float* full, int rows, int cols, float* coarse, int bin) {
  const float* in = full + blockIdx.y * (1LL * rows * cols);
  const int crows = rows / bin, ccols = cols / bin;
  float* out = coarse + blockIdx.y * (1LL * crows * ccols);
  for (long long i = blockIdx.x * 1LL * blockDim.x + threadIdx.x; i < 1LL * crows * ccols;
       i += 1LL * gridDim.x * blockDim.x) {
    const long long r = i / ccols, c = i - r * ccols;
    float s = 0;
    for (int y = 0; y < bin; ++y)
      for (int x = 0; x < bin; ++x) s += in[(r * bin + y) * cols + c * bin + x];
    s /= static_cast<float>(bin * bin);
    out[i] = isfinite(s) ? s : 0.0f;
  }
}
// Non-finite pixels of the full level to 0, in place.
__global__ void clean_kernel(float* full, long long n) {
  for (long long i = blockIdx.x * 1LL * blockDim.x + threadIdx.x; i < n;
       i += 1LL * gridDim.x * blockDim.x)
    if (!isfinite(full[i])) full[i] = 0.0f;
}
// The cubic prefilter of `count` images of rows x cols: a thread per column (along y), then a
// thread per row (along x), as cubic_coefficients (core/register/warp_image.hpp).
__global__ void prefilter_columns_kernel(float* c, int rows, int cols, int count) {
  const long long t = blockIdx.x * 1LL * blockDim.x + threadIdx.x;
  if (t >= 1LL * cols * count) return;
  const long long f = t / cols, x = t - f * cols;
  m::bspline_prefilter<3>(c + f * rows * cols + x, rows, cols);
}
__global__ void prefilter_rows_kernel(float* c, int rows, int cols, int count) {
  const long long t = blockIdx.x * 1LL * blockDim.x + threadIdx.x;
  if (t >= 1LL * rows * count) return;
  const long long f = t / rows, y = t - f * rows;
  m::bspline_prefilter<3>(c + (f * rows + y) * cols, cols, 1);
}

// body(xi, eta, p) for frame blockIdx.y's reference pixels clear of the band (this block's share)
// whose match under `a` lies inside the frame: xi, eta relative to the centre, p the pixel's index
// in the level.
template <class Body>
__device__ void for_pixels_inside(const Geometry& g, const Affine& a, Body body) {
  const Inner in(g);
  for (long long i = blockIdx.x * 1LL * blockDim.x + threadIdx.x; i < in.count();
       i += 1LL * gridDim.x * blockDim.x) {
    const long long rr = i / in.cols;
    const int r = g.band + static_cast<int>(rr), k = g.band + static_cast<int>(i - rr * in.cols);
    const double xi = k - g.cx, eta = r - g.cy;
    if (inside(g, a, xi, eta)) body(xi, eta, 1LL * r * g.cols + k);
  }
}

// The Hessian pass of frame blockIdx.y (phase kNeedHessian): over the reference pixels whose
// match under `rel` lies inside the frame, the packed sum of sd sd^T, sum sd, sum sd f, n,
// sum f and sum f^2 into acc[frame * kSums ..] (zeroed before).
template <Transform T>
__global__ void hessian_kernel(const FitState* st, const float* ref, const float* ref_gx,
                               const float* ref_gy, long long ref_step, Geometry g, double* acc) {
  constexpr int N = reg::Model<T>::N, K = N * (N + 1) / 2, M = K + 2 * N + 3;
  __shared__ double scratch[kWarps * M];
  const int f = blockIdx.y;
  if (st[f].phase != kNeedHessian) return;
  const long long o = f * ref_step;
  double v[M] = {};
  for_pixels_inside(g, st[f].rel, [&](double xi, double eta, long long at) {
    const long long p = o + at;
    float s[N];
    reg::Model<T>::sd(ref_gx[p], ref_gy[p], static_cast<float>(xi), static_cast<float>(eta), s);
    const double fv = ref[p];
#pragma unroll
    for (int x = 0; x < N; ++x) {
      v[K + x] += s[x];
      v[K + N + x] += s[x] * fv;
#pragma unroll
      for (int y = 0; y <= x; ++y) v[x * (x + 1) / 2 + y] += static_cast<double>(s[x]) * s[y];
    }
    v[K + 2 * N] += 1, v[K + 2 * N + 1] += fv, v[K + 2 * N + 2] += fv * fv;
  });
  add_block_sums<M>(v, scratch, acc + f * kSums);
}

// One thread per frame: after the Hessian pass, its factor and the reference's statistics, or
// the frame's end (too little overlap, no texture). `total`: the level's pixels clear of the band.
template <Transform T>
__global__ void factor_kernel(FitState* st, int count, double* acc, double total) {
  constexpr int N = reg::Model<T>::N, K = N * (N + 1) / 2;
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= count || st[f].phase != kNeedHessian) return;
  FitState& s = st[f];
  double* a = acc + f * kSums;
  const double n = a[K + 2 * N], f_sum = a[K + 2 * N + 1], f_sq = a[K + 2 * N + 2];
  for (int j = 0; j < K; ++j) s.h[j] = a[j];
  for (int j = 0; j < N; ++j) s.sd_sum[j] = a[K + j], s.sd_f[j] = a[K + N + j];
  for (int j = 0; j < kSums; ++j) a[j] = 0;
  s.overlap = n / total;
  if (n < 16 || s.overlap < reg::kMinOverlap) {
    s.phase = kDone;
    return;
  }
  s.n = n;
  s.f_mean = f_sum / n;
  s.f_dev = sqrt(fmax(0.0, f_sq - n * s.f_mean * s.f_mean));
  if (!m::cholesky<N>(s.h) || !(s.f_dev > 0)) {
    s.singular = 1;
    s.phase = kDone;
    return;
  }
  s.chosen = s.rel;
  s.phase = kIterate;
}

// The value pass of frame blockIdx.y (phase kIterate): the frame's spline g at each chosen
// pixel's match under `rel`, and sum sd g, sum g, sum g^2, sum f g into acc (zeroed before).
template <Transform T>
__global__ void values_kernel(const FitState* st, const float* ref, const float* ref_gx,
                              const float* ref_gy, long long ref_step, const float* coefficients,
                              Geometry g, double* acc) {
  constexpr int N = reg::Model<T>::N, M = N + 3;
  __shared__ double scratch[kWarps * M];
  const int f = blockIdx.y;
  if (st[f].phase != kIterate) return;
  const Affine a = st[f].rel;
  const long long o = f * ref_step;
  const float* frame = coefficients + f * (1LL * g.rows * g.cols);
  double v[M] = {};
  for_pixels_inside(g, st[f].chosen, [&](double xi, double eta, long long at) {
    const long long p = o + at;
    const double gv = static_cast<float>(m::bspline_value<3, float>(
        frame, g.rows, g.cols, g.cx + a.x(xi, eta), g.cy + a.y(xi, eta)));
    float s[N];
    reg::Model<T>::sd(ref_gx[p], ref_gy[p], static_cast<float>(xi), static_cast<float>(eta), s);
#pragma unroll
    for (int x = 0; x < N; ++x) v[x] += s[x] * gv;
    v[N] += gv, v[N + 1] += gv * gv, v[N + 2] += ref[p] * gv;
  });
  add_block_sums<M>(v, scratch, acc + f * kSums);
}

// One thread per frame: the update from the value pass, composed inversely into `rel`; the
// frame ends when the update moves no corner by `tol` px or more (converged), or fails; a warp
// that moved a corner more than the margin from `chosen` needs the Hessian pass again.
template <Transform T>
__global__ void update_kernel(FitState* st, int count, double* acc, Geometry g, double tol) {
  constexpr int N = reg::Model<T>::N;
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= count || st[f].phase != kIterate) return;
  FitState& s = st[f];
  double* a = acc + f * kSums;
  double sd_g[N];
  for (int j = 0; j < N; ++j) sd_g[j] = a[j];
  const double g_sum = a[N], g_sq = a[N + 1], fg = a[N + 2];
  for (int j = 0; j < N + 3; ++j) a[j] = 0;
  ++s.iterations;
  const double n = s.n, g_mean = g_sum / n;
  const double g_dev = sqrt(fmax(0.0, g_sq - n * g_mean * g_mean));
  if (!(g_dev > 0)) {
    s.phase = kDone;
    return;
  }
  s.zncc = (fg - n * s.f_mean * g_mean) / (s.f_dev * g_dev);
  const double k = s.f_dev / g_dev;
  double dp[N];
  for (int j = 0; j < N; ++j)
    dp[j] = -(s.sd_f[j] - s.f_mean * s.sd_sum[j] - k * (sd_g[j] - g_mean * s.sd_sum[j]));
  m::cholesky_solve<N>(s.h, dp);
  Affine d;
  reg::Model<T>::warp(dp, d.m.data());
  s.rel = d.inverse().then(s.rel);
  double step = 0, drift = 0;
  for (const double sx : {-g.cx, g.cx})
    for (const double sy : {-g.cy, g.cy}) {
      step = fmax(step, hypot(d.x(sx, sy) - sx, d.y(sx, sy) - sy));
      drift = fmax(
          drift, hypot(s.rel.x(sx, sy) - s.chosen.x(sx, sy), s.rel.y(sx, sy) - s.chosen.y(sx, sy)));
    }
  if (!isfinite(step)) {
    s.phase = kDone;
  } else if (step < tol) {
    s.converged = 1;
    s.phase = kDone;
  } else if (drift > reg::kFitMargin) {
    s.phase = kNeedHessian;
  }
  if (s.iterations >= reg::kMaxIterations) s.phase = kDone;
}

Affine scaled_translation(Affine a, double by) {
  a.m[2] *= by;
  a.m[5] *= by;
  return a;
}

// A level's reference on the device: pixels, gx, gy (one image, or one per slot of a block).
struct DeviceLevel {
  Geometry geometry{};
  DeviceBuffer<float> pixels, gx, gy;
  Status upload(const reg::Level& l, std::size_t slot) {
    const auto size = static_cast<std::size_t>(l.rows * l.cols);
    const std::size_t at = slot * size;
    XCORR_CUDA_TRY(cudaMemcpy(pixels.get() + at, l.pixels.data(), size * sizeof(float),
                              cudaMemcpyHostToDevice));
    XCORR_CUDA_TRY(
        cudaMemcpy(gx.get() + at, l.gx.data(), size * sizeof(float), cudaMemcpyHostToDevice));
    XCORR_CUDA_TRY(
        cudaMemcpy(gy.get() + at, l.gy.data(), size * sizeof(float), cudaMemcpyHostToDevice));
    geometry = {static_cast<int>(l.rows), static_cast<int>(l.cols), static_cast<int>(l.band), l.cx,
                l.cy};
    return Status::ok();
  }
  Status allocate(std::size_t slots, std::size_t size) {
    if (pixels.size() >= slots * size) return Status::ok();
    XCORR_RETURN_IF_ERROR(pixels.allocate(slots * size));
    XCORR_RETURN_IF_ERROR(gx.allocate(slots * size));
    return gy.allocate(slots * size);
  }
};

class GpuLevelFitter final : public reg::LevelFitter {
 public:
  GpuLevelFitter(Shape shape, int bin)
      : rows_(static_cast<int>(shape.rows)), cols_(static_cast<int>(shape.cols)), bin_(bin) {}

  std::string device() const override { return "gpu"; }

  Status init() {
    XCORR_CUDA_TRY(cudaGetDevice(&device_));
    const auto b = static_cast<std::size_t>(kBatch);
    XCORR_RETURN_IF_ERROR(full_.allocate(b * full_size()));
    if (bin_ > 1) XCORR_RETURN_IF_ERROR(coarse_.allocate(b * coarse_size()));
    XCORR_RETURN_IF_ERROR(state_.allocate(b));
    XCORR_RETURN_IF_ERROR(state_h_.allocate(b));
    XCORR_RETURN_IF_ERROR(acc_.allocate(b * kSums));
    XCORR_CUDA_TRY(cudaMemset(acc_.get(), 0, b * kSums * sizeof(double)));
    return Status::ok();
  }

  Status set_reference(reg::LevelReference r) override {
    XCORR_RETURN_IF_ERROR(set_full_.allocate(1, full_size()));
    XCORR_RETURN_IF_ERROR(set_full_.upload(*r.full, 0));
    if (bin_ > 1) {
      XCORR_RETURN_IF_ERROR(set_coarse_.allocate(1, coarse_size()));
      XCORR_RETURN_IF_ERROR(set_coarse_.upload(*r.coarse, 0));
    }
    has_reference_ = true;
    return Status::ok();
  }

  Result<std::vector<reg::LevelFit>> fit(
      Transform t, const std::vector<reg::LevelInput>& frames,
      const std::vector<reg::LevelReference>* references) override {
    if (references == nullptr && !has_reference_)
      return Status{ErrorCode::invalid_argument, "no reference set"};
    if (references != nullptr && references->size() != frames.size())
      return Status{ErrorCode::invalid_argument, "one reference per frame is needed"};
    XCORR_CUDA_TRY(cudaSetDevice(device_));  // the caller may be another thread
    std::vector<reg::LevelFit> out;
    out.reserve(frames.size());
    for (std::size_t first = 0; first < frames.size(); first += kBatch) {
      const int count = static_cast<int>(std::min<std::size_t>(kBatch, frames.size() - first));
      XCORR_RETURN_IF_ERROR(prepare(frames, references, first, count));
      const DeviceLevel& full = references != nullptr ? slot_full_ : set_full_;
      const DeviceLevel& coarse = references != nullptr ? slot_coarse_ : set_coarse_;
      const long long full_step = references != nullptr ? full_size() : 0;
      const long long coarse_step = references != nullptr ? coarse_size() : 0;
      std::vector<Affine> starts(static_cast<std::size_t>(count));
      std::vector<int> coarse_iterations(starts.size(), 0);
      for (int k = 0; k < count; ++k) starts[k] = frames[first + k].start;
      if (bin_ > 1) {
        std::vector<Affine> at_level(starts.size());
        for (int k = 0; k < count; ++k) at_level[k] = scaled_translation(starts[k], 1.0 / bin_);
        XCORR_RETURN_IF_ERROR(
            run_level(t, coarse, coarse_step, coarse_.get(), at_level, reg::kCoarseTolerance));
        for (int k = 0; k < count; ++k) {
          coarse_iterations[k] = state_h_[k].iterations;
          if (state_h_[k].converged != 0) starts[k] = scaled_translation(state_h_[k].rel, bin_);
        }
      }
      XCORR_RETURN_IF_ERROR(
          run_level(t, full, full_step, full_.get(), starts, reg::kFullTolerance));
      for (int k = 0; k < count; ++k) {
        const FitState& s = state_h_[k];
        out.push_back({s.rel, s.zncc, s.overlap, s.iterations + coarse_iterations[k],
                       s.converged != 0, s.singular != 0});
      }
    }
    return out;
  }

 private:
  long long full_size() const { return 1LL * rows_ * cols_; }
  long long coarse_size() const { return 1LL * (rows_ / bin_) * (cols_ / bin_); }

  // The block's frames up and their levels' coefficients; its references up (`previous`).
  Status prepare(const std::vector<reg::LevelInput>& frames,
                 const std::vector<reg::LevelReference>* references, std::size_t first, int count) {
    for (int k = 0; k < count; ++k) {
      const MatrixView<const float>& im = frames[first + k].image;
      const StackView<const float> s{im.data, im.rows,       im.cols,
                                     1,       im.row_stride, im.rows * im.row_stride};
      XCORR_RETURN_IF_ERROR(upload_staged(s, full_.get() + k * full_size(), nullptr));
    }
    if (references != nullptr) {
      const auto b = static_cast<std::size_t>(kBatch);
      XCORR_RETURN_IF_ERROR(slot_full_.allocate(b, full_size()));
      if (bin_ > 1) XCORR_RETURN_IF_ERROR(slot_coarse_.allocate(b, coarse_size()));
      for (int k = 0; k < count; ++k) {
        const reg::LevelReference& r = (*references)[first + k];
        XCORR_RETURN_IF_ERROR(slot_full_.upload(*r.full, k));
        if (bin_ > 1) XCORR_RETURN_IF_ERROR(slot_coarse_.upload(*r.coarse, k));
      }
    }
    const int grid = static_cast<int>(std::clamp<long long>(
        (std::max(full_size(), coarse_size()) + kThreads * 4 - 1) / (kThreads * 4), 1, 1024));
    if (bin_ > 1) {
      bin_kernel<<<dim3(grid, count), kThreads>>>(full_.get(), rows_, cols_, coarse_.get(), bin_);
      XCORR_LAUNCH_TRY("bin_kernel");
      XCORR_RETURN_IF_ERROR(prefilter(coarse_.get(), rows_ / bin_, cols_ / bin_, count));
    }
    clean_kernel<<<grid, kThreads>>>(full_.get(), count * full_size());
    XCORR_LAUNCH_TRY("clean_kernel");
    return prefilter(full_.get(), rows_, cols_, count);
  }

  static Status prefilter(float* c, int rows, int cols, int count) {
    const long long columns = 1LL * cols * count, lines = 1LL * rows * count;
    prefilter_columns_kernel<<<static_cast<int>((columns + 127) / 128), 128>>>(c, rows, cols,
                                                                               count);
    XCORR_LAUNCH_TRY("prefilter_columns_kernel");
    prefilter_rows_kernel<<<static_cast<int>((lines + 127) / 128), 128>>>(c, rows, cols, count);
    XCORR_LAUNCH_TRY("prefilter_rows_kernel");
    return Status::ok();
  }

  Status run_level(Transform t, const DeviceLevel& ref, long long ref_step,
                   const float* coefficients, const std::vector<Affine>& starts, double tol) {
    switch (t) {
      case Transform::similarity:
        return run<Transform::similarity>(ref, ref_step, coefficients, starts, tol);
      case Transform::affine:
        return run<Transform::affine>(ref, ref_step, coefficients, starts, tol);
      default:
        return run<Transform::rigid>(ref, ref_step, coefficients, starts, tol);
    }
  }

  // IC-GN of the block's frames on one level from `starts` (level px); the states end in
  // state_h_.
  template <Transform T>
  Status run(const DeviceLevel& ref, long long ref_step, const float* coefficients,
             const std::vector<Affine>& starts, double tol) {
    const int count = static_cast<int>(starts.size());
    for (int k = 0; k < count; ++k) {
      state_h_[k] = FitState{};
      state_h_[k].rel = starts[k];
      state_h_[k].phase = kNeedHessian;
    }
    XCORR_CUDA_TRY(
        cudaMemcpy(state_.get(), state_h_.get(), count * sizeof(FitState), cudaMemcpyHostToDevice));
    const Geometry g = ref.geometry;
    const double total = static_cast<double>(g.rows - 2 * g.band) * (g.cols - 2 * g.band);
    const long long pixels = std::max<long long>(1, total);
    const int parts = static_cast<int>(std::clamp<long long>(
        (pixels + kThreads * kPixelsPerThread - 1) / (kThreads * kPixelsPerThread), 1, 1024));
    const dim3 grid(parts, count);
    const int one = (count + 31) / 32 * 32;
    for (int step = 0; step < reg::kMaxIterations; ++step) {
      hessian_kernel<T><<<grid, kThreads>>>(state_.get(), ref.pixels.get(), ref.gx.get(),
                                            ref.gy.get(), ref_step, g, acc_.get());
      XCORR_LAUNCH_TRY("hessian_kernel");
      factor_kernel<T><<<1, one>>>(state_.get(), count, acc_.get(), total);
      XCORR_LAUNCH_TRY("factor_kernel");
      values_kernel<T><<<grid, kThreads>>>(state_.get(), ref.pixels.get(), ref.gx.get(),
                                           ref.gy.get(), ref_step, coefficients, g, acc_.get());
      XCORR_LAUNCH_TRY("values_kernel");
      update_kernel<T><<<1, one>>>(state_.get(), count, acc_.get(), g, tol);
      XCORR_LAUNCH_TRY("update_kernel");
      if (step % kStepsPerLook != kStepsPerLook - 1) continue;
      XCORR_CUDA_TRY(cudaMemcpy(state_h_.get(), state_.get(), count * sizeof(FitState),
                                cudaMemcpyDeviceToHost));
      bool done = true;
      for (int k = 0; k < count && done; ++k) done = state_h_[k].phase == kDone;
      if (done) return Status::ok();
    }
    XCORR_CUDA_TRY(
        cudaMemcpy(state_h_.get(), state_.get(), count * sizeof(FitState), cudaMemcpyDeviceToHost));
    return Status::ok();
  }

  int rows_, cols_, bin_;
  int device_ = 0;  // the device current where the fitter was made
  bool has_reference_ = false;
  DeviceBuffer<float> full_, coarse_;  // the block's frames: coefficients per level
  DeviceLevel set_full_, set_coarse_, slot_full_, slot_coarse_;
  DeviceBuffer<FitState> state_;
  PinnedBuffer<FitState> state_h_;
  DeviceBuffer<double> acc_;
};

}  // namespace

Result<std::unique_ptr<reg::LevelFitter>> make_gpu_level_fitter(Shape shape, int bin) {
  XCORR_RETURN_IF_ERROR(phase::usable_device());
  if (shape.rows < 8 || shape.cols < 8 || bin < 1)
    return Status{ErrorCode::invalid_argument, "transform fits need images of 8 x 8 px or more"};
  if (shape.area() * kBatch >= (1LL << 31))
    return Status{ErrorCode::unsupported, "the GPU transform fit takes frames of under 2^26 px (" +
                                              to_string(shape) + " px given)"};
  auto e = std::make_unique<GpuLevelFitter>(shape, bin);
  XCORR_RETURN_IF_ERROR(e->init());
  return std::unique_ptr<reg::LevelFitter>(std::move(e));
}

}  // namespace xcorr::gpu
