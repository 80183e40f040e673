// DIC frame registration on the GPU (see gpu/dic_gpu.hpp). Stages, all on the device:
//   1. B-spline coefficients of the reference (when it changes) and of the frame: float64,
//      one thread per row, then one per column (math::bspline_prefilter).
//   2. Integer guess: a gather kernel cuts the reference subsets and the search windows into
//      two stacks, the engine's GPU variant for n_to_mn valid zncc (its dispatcher's choice,
//      or --method) correlates them, an argmax kernel turns each score map into (u, v).
//   3. IC-GN: one warp per point; lanes split the subset's pixels; reference values and
//      gradients, the Hessian (float64 sums, warp reductions) once, then per iteration the
//      deformed subset from the frame's spline, the ZNSSD right-hand side, the 6x6 solve and the
//      inverse-compositional update (math::*, the same code as the CPU path).
// Instantiations: none (plain kernels).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/dic/icgn_math.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/dic_gpu.hpp"
#include "gpu/engine.hpp"
#include "gpu/gpu_correlator.cuh"

namespace xcorr::gpu {
namespace {

namespace m = dic::math;
constexpr unsigned kFull = 0xffffffffu;

__global__ void to_double_kernel(const float* __restrict__ in, double* __restrict__ out,
                                 long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}
__global__ void prefilter_rows_kernel(double* c, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) m::bspline_prefilter(c + static_cast<long long>(r) * cols, cols, 1);
}
__global__ void prefilter_cols_kernel(double* c, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < cols) m::bspline_prefilter(c + x, rows, cols);
}

struct GuessPoint {
  int x, y;    // subset centre in the reference (rounded), px
  int wx, wy;  // search window origin in the frame, px
};

// Block k: template k (S x S from the reference) and window k (win x win from the frame).
__global__ void gather_kernel(const float* __restrict__ ref, const float* __restrict__ def,
                              int cols, const GuessPoint* __restrict__ pts, int S, int win,
                              float* __restrict__ templates, float* __restrict__ windows) {
  const GuessPoint p = pts[blockIdx.x];
  const int h = S / 2;
  float* t = templates + static_cast<long long>(blockIdx.x) * S * S;
  float* w = windows + static_cast<long long>(blockIdx.x) * win * win;
  for (int i = threadIdx.x; i < S * S; i += blockDim.x)
    t[i] = ref[static_cast<long long>(p.y - h + i / S) * cols + p.x - h + i % S];
  for (int i = threadIdx.x; i < win * win; i += blockDim.x)
    w[i] = def[static_cast<long long>(p.wy + i / win) * cols + p.wx + i % win];
}

// One warp per point: the best score of its side x side map -> integer (u, v).
__global__ void argmax_kernel(const float* __restrict__ scores, int count, int side,
                              const GuessPoint* __restrict__ pts, int S, int2* __restrict__ uv) {
  const int lane = threadIdx.x % 32;
  const int k = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (k >= count) return;
  const float* s = scores + static_cast<long long>(k) * side * side;
  float best = -2;
  int at = 0;
  for (int i = lane; i < side * side; i += 32) {
    if (s[i] > best) {
      best = s[i];
      at = i;
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    const float b = __shfl_xor_sync(kFull, best, o);
    const int a = __shfl_xor_sync(kFull, at, o);
    if (b > best || (b == best && a < at)) {
      best = b;
      at = a;
    }
  }
  if (lane == 0) {
    const GuessPoint p = pts[k];
    uv[k] = make_int2(p.wx + at % side - (p.x - S / 2), p.wy + at / side - (p.y - S / 2));
  }
}

struct IcgnOut {
  double p[6];
  double zncc;
  int iterations;
  int status;  // dic::PointStatus
};

struct IcgnArgs {
  const double* ref_c;
  const double* def_c;
  int rows, cols;
  const double* cx;
  const double* cy;
  const int2* start;  // integer guess per listed point
  int count;
  int subset, max_iterations;
  double convergence, min_zncc, min_texture;
  IcgnOut* out;
};

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

constexpr int kIcgnWarps = 4;

__global__ void __launch_bounds__(32 * kIcgnWarps) icgn_kernel(IcgnArgs a) {
  extern __shared__ float smem[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int S = a.subset, h = S / 2, n = S * S;
  float* sf = smem + static_cast<long long>(warp) * 4 * n;  // f - mean(f)
  float* sgx = sf + n;                                      // reference gradients
  float* sgy = sgx + n;
  float* sg = sgy + n;  // g - mean(g)
  const int k = blockIdx.x * kIcgnWarps + warp;
  if (k >= a.count) return;
  const double x = a.cx[k], y = a.cy[k], hd = h;
  IcgnOut r{};
  r.p[0] = a.start[k].x;
  r.p[3] = a.start[k].y;
  r.status = static_cast<int>(dic::PointStatus::diverged);
  auto finish = [&] {
    if (lane == 0) a.out[k] = r;
  };
  if (!m::inside_image(x - hd, y - hd, a.rows, a.cols) ||
      !m::inside_image(x + hd, y + hd, a.rows, a.cols)) {
    r.status = static_cast<int>(dic::PointStatus::outside_roi);
    return finish();
  }
  // Reference subset, its mean and spread, steepest-descent terms and Hessian.
  double sum = 0;
  for (int q = lane; q < n; q += 32) {
    double v, gx, gy;
    m::bspline_value_gradient(a.ref_c, a.rows, a.cols, x + (q % S - h), y + (q / S - h), v, gx, gy);
    sf[q] = static_cast<float>(v);
    sgx[q] = static_cast<float>(gx);
    sgy[q] = static_cast<float>(gy);
    sum += v;
  }
  const double fm = warp_sum(sum) / n;
  double ss = 0;
  double hess[21] = {};
  for (int q = lane; q < n; q += 32) {
    const double d = sf[q] - fm;
    sf[q] = static_cast<float>(d);
    ss += d * d;
    const double i = q % S - h, j = q / S - h, gx = sgx[q], gy = sgy[q];
    const double s[6] = {gx, gx * i, gx * j, gy, gy * i, gy * j};
#pragma unroll
    for (int u = 0; u < 6; ++u)
#pragma unroll
      for (int v = 0; v <= u; ++v) hess[u * (u + 1) / 2 + v] += s[u] * s[v];
  }
  const double df = sqrt(warp_sum(ss));
#pragma unroll
  for (int e = 0; e < 21; ++e) hess[e] = warp_sum(hess[e]);
  if (df / sqrt(static_cast<double>(n)) < a.min_texture || !m::cholesky6(hess)) {
    r.status = static_cast<int>(dic::PointStatus::low_texture);
    return finish();
  }
  // Samples the deformed subset at r.p into sg (zero mean); false when it leaves the frame.
  double dg = 0;
  auto sample = [&]() {
    double gsum = 0;
    bool out = false;
    for (int q = lane; q < n; q += 32) {
      const double i = q % S - h, j = q / S - h;
      const double X = x + i + r.p[0] + r.p[1] * i + r.p[2] * j;
      const double Y = y + j + r.p[3] + r.p[4] * i + r.p[5] * j;
      if (!m::inside_image(X, Y, a.rows, a.cols)) {
        out = true;
        continue;
      }
      const double g = m::bspline_value(a.def_c, a.rows, a.cols, X, Y);
      sg[q] = static_cast<float>(g);
      gsum += g;
    }
    if (__any_sync(kFull, out)) return false;
    const double gm = warp_sum(gsum) / n;
    double gss = 0;
    for (int q = lane; q < n; q += 32) {
      const double d = sg[q] - gm;
      sg[q] = static_cast<float>(d);
      gss += d * d;
    }
    dg = sqrt(warp_sum(gss));
    return true;
  };
  bool converged = false;
  for (r.iterations = 1; r.iterations <= a.max_iterations; ++r.iterations) {
    if (!sample()) {
      r.status = static_cast<int>(dic::PointStatus::outside_roi);
      return finish();
    }
    if (!(dg > 0)) return finish();  // flat deformed subset: diverged
    const double scale = df / dg;
    double b[6] = {};
    for (int q = lane; q < n; q += 32) {
      const double e = sf[q] - scale * sg[q];
      const double i = q % S - h, j = q / S - h, gx = sgx[q], gy = sgy[q];
      b[0] += gx * e, b[1] += gx * i * e, b[2] += gx * j * e;
      b[3] += gy * e, b[4] += gy * i * e, b[5] += gy * j * e;
    }
#pragma unroll
    for (int e = 0; e < 6; ++e) b[e] = warp_sum(b[e]);
    m::cholesky6_solve(hess, b);
    double dp[6];
#pragma unroll
    for (int u = 0; u < 6; ++u) dp[u] = -b[u];
    if (!m::compose_inverse(r.p, dp)) return finish();
    const double norm = m::warp_step_norm(dp, hd);
    if (!isfinite(norm)) return finish();
    if (norm < a.convergence) {
      converged = true;
      break;
    }
  }
  if (r.iterations > a.max_iterations) r.iterations = a.max_iterations;
  if (!sample()) {
    r.status = static_cast<int>(dic::PointStatus::outside_roi);
    return finish();
  }
  if (!(dg > 0)) return finish();
  double znssd = 0;
  for (int q = lane; q < n; q += 32) {
    const double d = sf[q] / df - sg[q] / dg;
    znssd += d * d;
  }
  r.zncc = 1 - warp_sum(znssd) / 2;
  if (converged && r.zncc >= a.min_zncc) r.status = static_cast<int>(dic::PointStatus::converged);
  finish();
}

constexpr int kMaxIcgnSmem = 200 * 1024;
constexpr int kGuessBatch = 65536;

class GpuRegistrar final : public dic::FrameRegistrar {
 public:
  explicit GpuRegistrar(const Registry& engine) : engine_(engine) {}
  std::string device() const override { return "gpu"; }
  double last_seconds() const { return last_seconds_; }

  Result<dic::FrameRegistration> register_frame(const dic::FrameInputs& in,
                                                const dic::DicOptions& o) override {
    if (o.propagation != dic::Propagation::independent) {
      return Status{ErrorCode::unsupported,
                    "reliability-guided propagation runs on the CPU (--device cpu)"};
    }
    const int S = o.subset, n_px = S * S;
    if (16LL * n_px > kMaxIcgnSmem) {
      return Status{
          ErrorCode::unsupported,
          "subset " + std::to_string(S) + " px is larger than the GPU IC-GN supports (111 px)"};
    }
    cudaStream_t stream = nullptr;
    const int rows = static_cast<int>(in.reference.rows),
              cols = static_cast<int>(in.reference.cols);
    const auto pixels = static_cast<std::size_t>(rows) * cols;
    if (in.reference_changed || ref_c_.size() < pixels) {
      XCORR_RETURN_IF_ERROR(upload_image(in.reference, ref_img_, stream));
      XCORR_RETURN_IF_ERROR(coefficients(ref_img_.get(), ref_c_, rows, cols, stream));
    }
    XCORR_RETURN_IF_ERROR(upload_image(in.deformed, def_img_, stream));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    const auto t0 = std::chrono::steady_clock::now();  // images on the device from here
    XCORR_RETURN_IF_ERROR(coefficients(def_img_.get(), def_c_, rows, cols, stream));

    // Points to compute, their positions, and the integer guesses of those whose rounded subset
    // lies in the reference (the others keep (0, 0) and IC-GN reports them outside_roi).
    const std::vector<char>& active = *in.active;
    std::vector<int> list;
    std::vector<double> cx, cy;
    std::vector<int2> start;
    std::vector<GuessPoint> guess;
    std::vector<int> guess_of;  // index into `list`
    const int h = S / 2;
    const int R = std::max(0, std::min(o.search_radius, (std::min(rows, cols) - S) / 2));
    const int win = S + 2 * R;
    for (std::size_t k = 0; k < active.size(); ++k) {
      if (!active[k]) continue;
      list.push_back(static_cast<int>(k));
      cx.push_back((*in.cx)[k]);
      cy.push_back((*in.cy)[k]);
      start.push_back(make_int2(0, 0));
      const auto x = static_cast<int>(std::lround((*in.cx)[k]));
      const auto y = static_cast<int>(std::lround((*in.cy)[k]));
      if (x - h < 0 || y - h < 0 || x + h >= cols || y + h >= rows) continue;
      const auto px = static_cast<int>(std::lround((*in.predicted)[k][0]));
      const auto py = static_cast<int>(std::lround((*in.predicted)[k][3]));
      guess.push_back({x, y, std::clamp(x + px - h - R, 0, cols - win),
                       std::clamp(y + py - h - R, 0, rows - win)});
      guess_of.push_back(static_cast<int>(list.size()) - 1);
    }
    dic::FrameRegistration reg;
    reg.points.assign(active.size(), dic::IcgnResult{});
    if (list.empty()) return reg;
    const auto count = static_cast<int>(list.size());
    XCORR_RETURN_IF_ERROR(upload(cx, cx_, stream));
    XCORR_RETURN_IF_ERROR(upload(cy, cy_, stream));
    std::vector<int2> uv;
    auto variant = integer_guess(guess, S, win, R, cols, o, uv, stream);
    if (!variant.is_ok()) return variant.status();
    reg.variant = variant.value();
    for (std::size_t i = 0; i < guess.size(); ++i)
      start[static_cast<std::size_t>(guess_of[i])] = uv[i];
    XCORR_RETURN_IF_ERROR(upload(start, start_, stream));

    // IC-GN.
    XCORR_RETURN_IF_ERROR(out_.allocate(static_cast<std::size_t>(count)));
    static const cudaError_t opt_in = cudaFuncSetAttribute(
        icgn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxIcgnSmem);
    XCORR_CUDA_TRY(opt_in);
    const IcgnArgs args{ref_c_.get(),  def_c_.get(), rows,          cols,      cx_.get(),
                        cy_.get(),     start_.get(), count,         S,         o.max_iterations,
                        o.convergence, o.min_zncc,   o.min_texture, out_.get()};
    const int smem = kIcgnWarps * 4 * n_px * static_cast<int>(sizeof(float));
    icgn_kernel<<<(count + kIcgnWarps - 1) / kIcgnWarps, 32 * kIcgnWarps, smem, stream>>>(args);
    XCORR_LAUNCH_TRY("icgn_kernel");
    std::vector<IcgnOut> results(static_cast<std::size_t>(count));
    XCORR_CUDA_TRY(cudaMemcpyAsync(results.data(), out_.get(), results.size() * sizeof(IcgnOut),
                                   cudaMemcpyDeviceToHost, stream));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int i = 0; i < count; ++i) {
      dic::IcgnResult& q = reg.points[static_cast<std::size_t>(list[static_cast<std::size_t>(i)])];
      const IcgnOut& g = results[static_cast<std::size_t>(i)];
      std::copy(g.p, g.p + 6, q.p.begin());
      q.zncc = g.zncc;
      q.iterations = g.iterations;
      q.status = static_cast<dic::PointStatus>(g.status);
    }
    return reg;
  }

 private:
  template <class T>
  static Status upload(const std::vector<T>& host, DeviceBuffer<T>& dev, cudaStream_t stream) {
    XCORR_RETURN_IF_ERROR(dev.allocate(host.size()));
    XCORR_CUDA_TRY(cudaMemcpyAsync(dev.get(), host.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, stream));
    return Status::ok();
  }

  static Status upload_image(MatrixView<const float> image, DeviceBuffer<float>& dev,
                             cudaStream_t stream) {
    XCORR_RETURN_IF_ERROR(dev.allocate(static_cast<std::size_t>(image.rows * image.cols)));
    XCORR_CUDA_TRY(cudaMemcpy2DAsync(dev.get(), image.cols * sizeof(float), image.data,
                                     image.row_stride * sizeof(float), image.cols * sizeof(float),
                                     image.rows, cudaMemcpyHostToDevice, stream));
    return Status::ok();
  }

  static Status coefficients(const float* image, DeviceBuffer<double>& c, int rows, int cols,
                             cudaStream_t stream) {
    const long long n = static_cast<long long>(rows) * cols;
    XCORR_RETURN_IF_ERROR(c.allocate(static_cast<std::size_t>(n)));
    to_double_kernel<<<static_cast<int>(std::min<long long>((n + 255) / 256, 4096)), 256, 0,
                       stream>>>(image, c.get(), n);
    prefilter_rows_kernel<<<(rows + 63) / 64, 64, 0, stream>>>(c.get(), rows, cols);
    prefilter_cols_kernel<<<(cols + 63) / 64, 64, 0, stream>>>(c.get(), rows, cols);
    XCORR_LAUNCH_TRY("bspline prefilter kernels");
    return Status::ok();
  }

  // Batches of gather -> engine (device-resident) -> argmax; uv[i] = (u, v) of guess[i].
  Result<std::string> integer_guess(const std::vector<GuessPoint>& guess, int S, int win, int R,
                                    int cols, const dic::DicOptions& o, std::vector<int2>& uv,
                                    cudaStream_t stream) {
    std::string variant;
    uv.assign(guess.size(), make_int2(0, 0));
    for (std::size_t first = 0; first < guess.size(); first += kGuessBatch) {
      const int count = static_cast<int>(std::min<std::size_t>(kGuessBatch, guess.size() - first));
      CorrelationProblem shape;  // shapes and counts only: what the dispatcher looks at
      shape.request = {Form::n_to_mn, Mode::valid, Normalization::zncc};
      shape.left = {nullptr, S, S, count, S, static_cast<Index>(S) * S};
      shape.right = {nullptr, win, win, count, win, static_cast<Index>(win) * win};
      auto chosen = choose_variant(engine_, shape, o.method, "gpu");
      if (!chosen.is_ok()) return chosen.status();
      const auto* g = dynamic_cast<const GpuCorrelator*>(chosen.value());
      if (g == nullptr) {
        return Status{
            ErrorCode::invalid_argument,
            "--method " + o.method + " is not a GPU variant (the GPU DIC path needs one)"};
      }
      variant = chosen.value()->info().name;
      std::vector<GuessPoint> batch(guess.begin() + static_cast<std::ptrdiff_t>(first),
                                    guess.begin() + static_cast<std::ptrdiff_t>(first) + count);
      XCORR_RETURN_IF_ERROR(upload(batch, points_, stream));
      XCORR_RETURN_IF_ERROR(templates_.allocate(static_cast<std::size_t>(count) * S * S));
      XCORR_RETURN_IF_ERROR(windows_.allocate(static_cast<std::size_t>(count) * win * win));
      const int side = 2 * R + 1;
      XCORR_RETURN_IF_ERROR(scores_.allocate(static_cast<std::size_t>(count) * side * side));
      XCORR_RETURN_IF_ERROR(uv_.allocate(static_cast<std::size_t>(count)));
      gather_kernel<<<count, 128, 0, stream>>>(ref_img_.get(), def_img_.get(), cols, points_.get(),
                                               S, win, templates_.get(), windows_.get());
      XCORR_LAUNCH_TRY("gather_kernel");
      const DeviceProblem dp = make_device_problem(shape, templates_.get(), windows_.get());
      XCORR_RETURN_IF_ERROR(g->run_device(dp, scores_.get(), stream));
      argmax_kernel<<<(count * 32 + 127) / 128, 128, 0, stream>>>(scores_.get(), count, side,
                                                                  points_.get(), S, uv_.get());
      XCORR_LAUNCH_TRY("argmax_kernel");
      XCORR_CUDA_TRY(cudaMemcpyAsync(uv.data() + first, uv_.get(), count * sizeof(int2),
                                     cudaMemcpyDeviceToHost, stream));
    }
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    return variant;
  }

  const Registry& engine_;
  double last_seconds_ = -1;
  DeviceBuffer<float> ref_img_, def_img_, templates_, windows_, scores_;
  DeviceBuffer<double> ref_c_, def_c_, cx_, cy_;
  DeviceBuffer<int2> start_, uv_;
  DeviceBuffer<GuessPoint> points_;
  DeviceBuffer<IcgnOut> out_;
};

}  // namespace

Result<std::unique_ptr<dic::FrameRegistrar>> make_gpu_registrar(const Registry& engine) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    return Status{ErrorCode::unsupported,
                  std::string("no usable CUDA device: ") +
                      (e != cudaSuccess ? cudaGetErrorString(e) : "none found")};
  }
  return std::unique_ptr<dic::FrameRegistrar>(std::make_unique<GpuRegistrar>(engine));
}

double last_gpu_frame_seconds(const dic::FrameRegistrar& r) {
  const auto* g = dynamic_cast<const GpuRegistrar*>(&r);
  return g != nullptr ? g->last_seconds() : -1;
}

}  // namespace xcorr::gpu
