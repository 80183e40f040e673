// DIC frame registration on the GPU (see gpu/dic_gpu.hpp). Stages, all on the device:
//   1. B-spline coefficients of the reference (when it or the interpolation options change) and
//      of the frame: float64, the Gaussian prefilter (one thread per pixel, rows then columns),
//      then one thread per row and one per column (math::bspline_prefilter).
//   2. Integer guess: a gather kernel cuts the reference subsets and the search windows into
//      two stacks, the engine's GPU variant for the n_to_mn valid zncc peak request (its
//      dispatcher's choice, or --method; gpu_zncc_tiled fuses the search, no score maps in
//      memory) finds each pair's maximum, a small kernel turns each record into (u, v).
//   3. IC-GN: one warp per point; lanes split the subset's pixels; reference values and
//      gradients (shared memory), the Hessian (float64 sums, warp reductions) once, then per
//      iteration one pass over the deformed subset from the frame's spline accumulating the
//      moments the ZNSSD step needs (see Moments), the 6x6 solve and the inverse-compositional
//      update (math::*, the same code as the CPU path).
// Instantiations: icgn_kernel, icgn2_kernel (second order) and the prefilter kernels for the cubic
// (3) and quintic (5) B-spline.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/dic/bspline.hpp"
#include "core/dic/consistency.hpp"
#include "core/dic/icgn_math.hpp"
#include "core/dic/initial_guess.hpp"
#include "core/parallel.hpp"
#include "core/round.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/cuda_event.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/dic_gpu.hpp"
#include "gpu/dic_timed.hpp"
#include "gpu/engine.hpp"
#include "gpu/gpu_correlator.cuh"
#include "gpu/once_per_device.cuh"

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
__global__ void to_float_kernel(const double* __restrict__ in, float* __restrict__ out,
                                long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = static_cast<float>(in[i]);
}
template <int D>
__global__ void prefilter_rows_kernel(double* c, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) m::bspline_prefilter<D>(c + static_cast<long long>(r) * cols, cols, 1);
}
template <int D>
__global__ void prefilter_cols_kernel(double* c, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < cols) m::bspline_prefilter<D>(c + x, rows, cols);
}
// The Gaussian prefilter (DicOptions::prefilter, math::gaussian_at), one thread per pixel:
// along rows from the frame (float) into `out`, then along columns.
struct GaussianTaps {
  double w[2 * m::kMaxGaussianRadius + 1];
  int r;
};
__global__ void gaussian_rows_kernel(const float* __restrict__ in, double* __restrict__ out,
                                     int rows, int cols, GaussianTaps g) {
  const long long n = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / cols;
    out[i] = m::gaussian_at(in + y * cols, cols, 1, i - y * cols, g.w, g.r);
  }
}
__global__ void gaussian_cols_kernel(const double* __restrict__ in, double* __restrict__ out,
                                     int rows, int cols, GaussianTaps g) {
  const long long n = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / cols, x = i - y * cols;
    out[i] = m::gaussian_at(in + x, rows, cols, y, g.w, g.r);
  }
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

// One thread per guessed point: its peak record (the engine's peak output) -> integer (u, v),
// written to start[dest[k]] (its place among the listed points).
__global__ void guess_from_peaks_kernel(const float* __restrict__ records, int count,
                                        const GuessPoint* __restrict__ pts, int S,
                                        const int* __restrict__ dest, int2* __restrict__ start) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const float* rec = records + static_cast<long long>(k) * kPeakFields;
  const GuessPoint p = pts[k];
  start[dest[k]] = make_int2(p.wx + static_cast<int>(rec[1]) - (p.x - S / 2),
                             p.wy + static_cast<int>(rec[0]) - (p.y - S / 2));
}

struct IcgnOut {
  double p[6];
  double zncc;
  double sigma_u, sigma_v;  // px (math::noise_sigma), at the final warp
  int iterations;
  int status;  // dic::PointStatus
};

struct IcgnArgs {
  const float* ref_c;  // B-spline coefficients (computed in float64, stored as float32)
  const float* def_c;
  int rows, cols;
  const double* cx;
  const double* cy;
  const int2* start;         // integer guess per listed point
  const double* start_warp;  // or, when not null, 6 warp parameters per point (reliability waves)
  int count;
  int subset, max_iterations;
  double convergence, min_zncc, min_texture;
  m::NoiseModel noise;  // of the reference (dic::noise_model, computed on the host)
  double band;          // px: math::border_band of the prefilter (subsets are clipped to it)
  IcgnOut* out;
};

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

// The reference subset centred at (x, y), clipped to `rect` (math::clipped_subset): values and
// gradients into sf, sgx, sgy (shared, float; pixel q at offset (i0 + q % width, j0 + q / width);
// the lane's pixels q = lane, lane + 32, ...), and the values' mean (every lane).
template <int D>
__device__ inline double reference_subset(const IcgnArgs& a, double x, double y, int lane,
                                          const m::SubsetRect& rect, float* sf, float* sgx,
                                          float* sgy) {
  const int W = rect.width(), n = rect.pixels();
  double sum = 0;
  for (int q = lane; q < n; q += 32) {
    double v, gx, gy;
    m::bspline_value_gradient<D>(a.ref_c, a.rows, a.cols, x + (rect.i0 + q % W),
                                 y + (rect.j0 + q / W), v, gx, gy);
    sf[q] = static_cast<float>(v);
    sgx[q] = static_cast<float>(gx);
    sgy[q] = static_cast<float>(gy);
    sum += v;
  }
  return warp_sum(sum) / n;
}

// sigma_u, sigma_v of a point (math::noise_sigma) from its Hessian's factor `chol`. Not inlined:
// its 6 x 6 matrices would otherwise take registers from IC-GN's loop (ptxas: the kernel's stack
// frame and spills grew 2.6x with it inlined, and IC-GN took 50 % longer on the H200).
__device__ __noinline__ double2 point_sigma(const double* chol, double df, double zncc,
                                            m::SubsetRect rect, const m::NoiseModel& noise) {
  double basis[6];
  m::basis_moments<3>(rect, basis);
  double2 sigma;
  m::noise_sigma<6>(chol, basis, df, zncc, rect.pixels(), 0, 3, noise, sigma.x, sigma.y);
  return sigma;
}

constexpr int kIcgnWarps = 4;
constexpr int kIcgnConsts = 33;  // doubles per warp: Cholesky factor (21) + 2 x 6 constants

// One pass over the deformed subset at warp p gives everything an iteration needs: with
// g~ = g - mean(g) and the constants sum(SD_a f~) and sum(SD_a) of the reference,
//   sum(SD_a (f~ - (df/dg) g~)) = sum(SD_a f~) - (df/dg) (sum(SD_a g) - mean(g) sum(SD_a)),
//   dg^2 = sum(g^2) - n mean(g)^2,   ZNSSD = 2 - 2 sum(f~ g) / (df dg),
// so the subset is never stored. The moments are of d = g - c with c = mean(f) rounded to float
// (both formulas are invariant to the shift; sum(f~ g) = sum(f~ d) + c sum(f~)): at the
// solution d is zero-mean at the image's contrast, so each lane sums its <= 133 pixels in float
// (relative error <= 133 x 2^-24 = 8e-6 of sums of that contrast, no large-offset cancellation)
// and the warp adds the lanes' sums in float64. Error analysis and measurement: docs/perf/dic.md.
struct Moments {
  double g, gg, fg, sdg[6];
};
struct LaneMoments {  // one lane's float sums of d = g - c
  float g, gg, fg, sdg[6];
};

template <int D>
__global__ void __launch_bounds__(32 * kIcgnWarps, 4) icgn_kernel(IcgnArgs a) {
  extern __shared__ double smem_d[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int S = a.subset, h = S / 2;
  // Per warp: the Cholesky factor and the constants (identical in every lane, so kept once),
  // then f - mean(f) and the reference gradients of its pixels.
  double* consts = smem_d + warp * kIcgnConsts;
  double* chol = consts;         // 21
  double* sd_f = consts + 21;    // sum(SD_a f~), 6
  double* sd_sum = consts + 27;  // sum(SD_a), 6
  float* sf = reinterpret_cast<float*>(smem_d + warps * kIcgnConsts) +
              static_cast<long long>(warp) * 3 * S * S;
  float* sgx = sf + S * S;
  float* sgy = sgx + S * S;
  const int k = blockIdx.x * warps + warp;
  if (k >= a.count) return;
  const double x = a.cx[k], y = a.cy[k], hd = h;
  IcgnOut r{};
  if (a.start_warp != nullptr) {
#pragma unroll
    for (int u = 0; u < 6; ++u) r.p[u] = a.start_warp[6 * k + u];
  } else {
    r.p[0] = a.start[k].x;
    r.p[3] = a.start[k].y;
  }
  r.status = static_cast<int>(dic::PointStatus::diverged);
  auto finish = [&] {
    if (lane == 0) a.out[k] = r;
  };
  // The subset clipped to the pixels away from the border band (math::reference_subset_rect, as
  // the CPU's icgn): n of them, W to a row, offsets from (i0, j0).
  m::SubsetRect rect;
  if (!m::reference_subset_rect(x, y, h, a.rows, a.cols, a.band, rect)) {
    r.status = static_cast<int>(dic::PointStatus::outside_roi);
    return finish();
  }
  const int W = rect.width(), n = rect.pixels(), i0 = rect.i0, j0 = rect.j0;
  // Reference subset, its mean and spread, steepest-descent constants and Hessian.
  const double fm = reference_subset<D>(a, x, y, lane, rect, sf, sgx, sgy);
  double ss = 0, f_sum = 0, hess[21] = {}, c_f[6] = {}, c_sum[6] = {};
  for (int q = lane; q < n; q += 32) {
    const double d = sf[q] - fm;
    sf[q] = static_cast<float>(d);
    const double fq = sf[q];  // what later passes read
    ss += fq * fq;
    f_sum += fq;
    const double i = i0 + q % W, j = j0 + q / W, gx = sgx[q], gy = sgy[q];
    const double sd[6] = {gx, gx * i, gx * j, gy, gy * i, gy * j};
#pragma unroll
    for (int u = 0; u < 6; ++u) {
      c_f[u] += sd[u] * fq;
      c_sum[u] += sd[u];
#pragma unroll
      for (int v = 0; v <= u; ++v) hess[u * (u + 1) / 2 + v] += sd[u] * sd[v];
    }
  }
  const double df = sqrt(warp_sum(ss));
  const float shift = static_cast<float>(fm);  // c: the moments are of g - c
  f_sum = warp_sum(f_sum);                     // sum(f~) of the stored (rounded) f~, ~0
#pragma unroll
  for (int e = 0; e < 21; ++e) hess[e] = warp_sum(hess[e]);
#pragma unroll
  for (int u = 0; u < 6; ++u) {
    c_f[u] = warp_sum(c_f[u]);
    c_sum[u] = warp_sum(c_sum[u]);
  }
  if (df / sqrt(static_cast<double>(n)) < a.min_texture || !m::cholesky6(hess)) {
    r.status = static_cast<int>(dic::PointStatus::low_texture);
    return finish();
  }
  if (lane == 0) {
    for (int e = 0; e < 21; ++e) chol[e] = hess[e];
    for (int u = 0; u < 6; ++u) sd_f[u] = c_f[u], sd_sum[u] = c_sum[u];
  }
  __syncwarp();
  // Moments of the deformed subset at r.p; false when it is carried out of the frame (the
  // CPU's rule, math::inside_sampling: a corner of the whole subset further than
  // kIterationReach past the pixel centres while iterating, kFootprintReach at the end).
  Moments mo;
  auto sample = [&](double reach) {
    // The warped subset is a parallelogram: inside iff its 4 corners are.
    for (int c = 0; c < 4; ++c) {
      const double i = (c & 1) ? h : -h, j = (c & 2) ? h : -h;
      if (!m::inside_sampling(x + i + r.p[0] + r.p[1] * i + r.p[2] * j,
                              y + j + r.p[3] + r.p[4] * i + r.p[5] * j, a.rows, a.cols, reach))
        return false;
    }
    LaneMoments t{};
    // Lane's pixels q = lane, lane + 32, ...: offsets (qi, qj) stepped without division.
    int qi = lane % W, qj = lane / W;
    for (int q = lane; q < n; q += 32) {
      const double i = i0 + qi, j = j0 + qj;
      qi += 32;
      while (qi >= W) qi -= W, ++qj;
      const double X = x + i + r.p[0] + r.p[1] * i + r.p[2] * j;
      const double Y = y + j + r.p[3] + r.p[4] * i + r.p[5] * j;
      const float d =
          static_cast<float>(m::bspline_value<D, float>(a.def_c, a.rows, a.cols, X, Y)) - shift;
      const float fi = static_cast<float>(i), fj = static_cast<float>(j);
      const float gx = sgx[q] * d, gy = sgy[q] * d;
      t.g += d;
      t.gg = fmaf(d, d, t.gg);
      t.fg = fmaf(sf[q], d, t.fg);
      t.sdg[0] += gx, t.sdg[1] = fmaf(gx, fi, t.sdg[1]), t.sdg[2] = fmaf(gx, fj, t.sdg[2]);
      t.sdg[3] += gy, t.sdg[4] = fmaf(gy, fi, t.sdg[4]), t.sdg[5] = fmaf(gy, fj, t.sdg[5]);
    }
    mo.g = warp_sum(t.g);
    mo.gg = warp_sum(t.gg);
    mo.fg = warp_sum(t.fg) + shift * f_sum;  // sum(f~ g)
#pragma unroll
    for (int u = 0; u < 6; ++u) mo.sdg[u] = warp_sum(t.sdg[u]);
    return true;
  };
  auto spread = [&]() {  // dg (of g - c: the same)
    const double gm = mo.g / n;
    return sqrt(fmax(mo.gg - n * gm * gm, 0.0));
  };
  bool converged = false;
  for (r.iterations = 1; r.iterations <= a.max_iterations; ++r.iterations) {
    if (!sample(m::kIterationReach)) {
      r.status = static_cast<int>(dic::PointStatus::outside_image);
      return finish();
    }
    const double dg = spread();
    if (!(dg > 0)) return finish();  // flat deformed subset: diverged
    const double scale = df / dg, gm = mo.g / n;
    double b[6];
#pragma unroll
    for (int u = 0; u < 6; ++u) b[u] = sd_f[u] - scale * (mo.sdg[u] - gm * sd_sum[u]);
    m::cholesky6_solve(chol, b);
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
  if (!sample(m::kFootprintReach)) {
    r.status = static_cast<int>(dic::PointStatus::outside_image);
    return finish();
  }
  const double dg = spread();
  if (!(dg > 0)) return finish();
  r.zncc = mo.fg / (df * dg);  // = 1 - ZNSSD / 2
  if (lane == 0) {
    const double2 sigma = point_sigma(chol, df, r.zncc, rect, a.noise);
    r.sigma_u = sigma.x, r.sigma_v = sigma.y;
  }
  if (converged && r.zncc >= a.min_zncc) r.status = static_cast<int>(dic::PointStatus::converged);
  finish();
}

// Second-order IC-GN (q = u, ux, uy, uxx, uxy, uyy, v, ...; the CPU's SecondOrder in
// core/dic/icgn.cpp, the same math:: helpers): one warp per point as above, written for
// agreement rather than speed: the 12 x 12 Hessian entry by entry (once per point), the
// deformed subset stored per iteration (g - c, float) and the 12 sums taken from it; every
// pixel checked against the image (the warped subset is no parallelogram), as the CPU does.
constexpr int kIcgn2Warps = 2;
constexpr int kIcgn2Consts = 78;  // doubles per warp: the Hessian's Cholesky factor

__device__ inline double sd2(int a, double gx, double gy, double i, double j) {
  const int e = a % 6;
  const double b = e == 0   ? 1
                   : e == 1 ? i
                   : e == 2 ? j
                   : e == 3 ? i * i / 2
                   : e == 4 ? i * j
                            : j * j / 2;
  return (a < 6 ? gx : gy) * b;
}

__device__ __noinline__ double2 point_sigma2(const double* chol, double df, double zncc,
                                             m::SubsetRect rect, const m::NoiseModel& noise) {
  double basis[21];
  m::basis_moments<6>(rect, basis);
  double2 sigma;
  m::noise_sigma<12>(chol, basis, df, zncc, rect.pixels(), 0, 6, noise, sigma.x, sigma.y);
  return sigma;
}

template <int D>
__global__ void __launch_bounds__(32 * kIcgn2Warps) icgn2_kernel(IcgnArgs a) {
  extern __shared__ double smem_d[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int S = a.subset, h = S / 2;
  double* chol = smem_d + warp * kIcgn2Consts;
  float* sf = reinterpret_cast<float*>(smem_d + warps * kIcgn2Consts) +
              static_cast<long long>(warp) * 4 * S * S;
  float* sgx = sf + S * S;
  float* sgy = sgx + S * S;
  float* sg = sgy + S * S;
  const int k = blockIdx.x * warps + warp;
  if (k >= a.count) return;
  const double x = a.cx[k], y = a.cy[k], hd = h;
  IcgnOut r{};
  double q[12] = {};
  if (a.start_warp != nullptr) {
    q[0] = a.start_warp[6 * k], q[1] = a.start_warp[6 * k + 1], q[2] = a.start_warp[6 * k + 2];
    q[6] = a.start_warp[6 * k + 3], q[7] = a.start_warp[6 * k + 4], q[8] = a.start_warp[6 * k + 5];
  } else {
    q[0] = a.start[k].x;
    q[6] = a.start[k].y;
  }
  r.status = static_cast<int>(dic::PointStatus::diverged);
  auto finish = [&] {
    r.p[0] = q[0], r.p[1] = q[1], r.p[2] = q[2], r.p[3] = q[6], r.p[4] = q[7], r.p[5] = q[8];
    if (lane == 0) a.out[k] = r;
  };
  // The subset clipped to the pixels away from the border band, as icgn_kernel's.
  m::SubsetRect rect;
  if (!m::reference_subset_rect(x, y, h, a.rows, a.cols, a.band, rect)) {
    r.status = static_cast<int>(dic::PointStatus::outside_roi);
    return finish();
  }
  const int W = rect.width(), n = rect.pixels(), i0 = rect.i0, j0 = rect.j0;
  const double fm = reference_subset<D>(a, x, y, lane, rect, sf, sgx, sgy);
  double ss = 0;
  for (int p = lane; p < n; p += 32) {
    sf[p] = static_cast<float>(sf[p] - fm);
    ss += static_cast<double>(sf[p]) * sf[p];
  }
  const double df = sqrt(warp_sum(ss));
  for (int u = 0, e = 0; u < 12; ++u)
    for (int v = 0; v <= u; ++v, ++e) {
      double t = 0;
      for (int p = lane; p < n; p += 32) {
        const double i = i0 + p % W, j = j0 + p / W;
        t += sd2(u, sgx[p], sgy[p], i, j) * sd2(v, sgx[p], sgy[p], i, j);
      }
      t = warp_sum(t);
      if (lane == 0) chol[e] = t;
    }
  __syncwarp();
  bool ok = df / sqrt(static_cast<double>(n)) >= a.min_texture;
  if (lane == 0 && ok) ok = m::cholesky<12>(chol);
  ok = __shfl_sync(kFull, ok, 0);
  __syncwarp();
  if (!ok) {
    r.status = static_cast<int>(dic::PointStatus::low_texture);
    return finish();
  }
  const float shift = static_cast<float>(fm);
  double gm = 0, dg = 0;
  // The deformed subset at q into sg (g - c); false when it is carried out of the frame (the
  // CPU's rule: while iterating, a pixel of the whole subset further than kIterationReach past
  // the pixel centres; at the end, a corner of it under q's first-order part further than
  // kFootprintReach).
  auto sample = [&](bool final) {
    bool inside = true;
    if (final) {
      for (int c = 0; c < 4; ++c) {
        const double i = (c & 1) ? h : -h, j = (c & 2) ? h : -h;
        if (!m::inside_sampling(x + i + q[0] + q[1] * i + q[2] * j,
                                y + j + q[6] + q[7] * i + q[8] * j, a.rows, a.cols))
          return false;
      }
    } else {
      for (int p = lane; p < S * S; p += 32) {
        const double i = p % S - h, j = p / S - h, ii = i * i / 2, ij = i * j, jj = j * j / 2;
        inside =
            inside && m::inside_sampling(
                          x + i + q[0] + q[1] * i + q[2] * j + q[3] * ii + q[4] * ij + q[5] * jj,
                          y + j + q[6] + q[7] * i + q[8] * j + q[9] * ii + q[10] * ij + q[11] * jj,
                          a.rows, a.cols, m::kIterationReach);
      }
      if (!__all_sync(kFull, inside)) return false;
    }
    double tg = 0, tgg = 0;
    for (int p = lane; p < n; p += 32) {
      const double i = i0 + p % W, j = j0 + p / W, ii = i * i / 2, ij = i * j, jj = j * j / 2;
      const double X = x + i + q[0] + q[1] * i + q[2] * j + q[3] * ii + q[4] * ij + q[5] * jj;
      const double Y = y + j + q[6] + q[7] * i + q[8] * j + q[9] * ii + q[10] * ij + q[11] * jj;
      const float d =
          static_cast<float>(m::bspline_value<D, float>(a.def_c, a.rows, a.cols, X, Y)) - shift;
      sg[p] = d;
      tg += d;
      tgg += static_cast<double>(d) * d;
    }
    const double g_sum = warp_sum(tg), gg = warp_sum(tgg);
    gm = g_sum / n;
    dg = sqrt(fmax(gg - n * gm * gm, 0.0));
    __syncwarp();
    return true;
  };
  bool converged = false;
  for (r.iterations = 1; r.iterations <= a.max_iterations; ++r.iterations) {
    if (!sample(false)) {
      r.status = static_cast<int>(dic::PointStatus::outside_image);
      return finish();
    }
    if (!(dg > 0)) return finish();
    const double scale = df / dg;
    double b[12] = {};
    for (int p = lane; p < n; p += 32) {
      const double i = i0 + p % W, j = j0 + p / W;
      const double e = sf[p] - scale * (sg[p] - gm);
#pragma unroll
      for (int u = 0; u < 12; ++u) b[u] += sd2(u, sgx[p], sgy[p], i, j) * e;
    }
#pragma unroll
    for (int u = 0; u < 12; ++u) b[u] = warp_sum(b[u]);
    m::cholesky_solve<12>(chol, b);
    double dq[12];
#pragma unroll
    for (int u = 0; u < 12; ++u) dq[u] = -b[u];
    const double norm = m::quadratic_step_norm(dq, hd);
    if (!m::compose_inverse_quadratic(q, dq) || !isfinite(norm)) return finish();
    if (norm < a.convergence) {
      converged = true;
      break;
    }
  }
  if (r.iterations > a.max_iterations) r.iterations = a.max_iterations;
  if (!sample(true)) {
    r.status = static_cast<int>(dic::PointStatus::outside_image);
    return finish();
  }
  if (!(dg > 0)) return finish();
  double fg = 0;
  for (int p = lane; p < n; p += 32) fg += static_cast<double>(sf[p]) * (sg[p] - gm);
  fg = warp_sum(fg);
  r.zncc = fg / (df * dg);
  if (lane == 0) {
    const double2 sigma = point_sigma2(chol, df, r.zncc, rect, a.noise);
    r.sigma_u = sigma.x, r.sigma_v = sigma.y;
  }
  if (converged && r.zncc >= a.min_zncc) r.status = static_cast<int>(dic::PointStatus::converged);
  finish();
}

// px: the border band subsets are clipped to (math::border_band of the prefilter's radius).
double icgn_band(const dic::DicOptions& o) {
  double w[2 * m::kMaxGaussianRadius + 1];
  return m::border_band(m::gaussian_taps(o.prefilter, w));
}

// The search window's side (px): the subset plus the search radius each way, within the image.
int guess_window(const dic::DicOptions& o, int rows, int cols) {
  return dic::guess_window(o.subset, o.search_radius, rows, cols);
}

CorrelationProblem guess_shape(int count, int S, int win, const dic::DicOptions& o) {
  return dic::guess_shape(count, S, win, o.accuracy);
}

// Shared memory of one IC-GN warp (bytes): its constants, then 3 (first order) or 4 (second
// order) float arrays of the subset.
long long icgn_warp_bytes(int subset, bool second_order) {
  const long long px = static_cast<long long>(subset) * subset;
  return second_order ? kIcgn2Consts * 8LL + 16 * px : kIcgnConsts * 8LL + 12 * px;
}
// Warps per IC-GN block on the current device: up to kIcgnWarps (kIcgn2Warps), as many as its
// shared memory per block holds; 0 when not even one fits.
int icgn_warps(int subset, bool second_order) {
  int w = second_order ? kIcgn2Warps : kIcgnWarps;
  while (w > 0 && w * icgn_warp_bytes(subset, second_order) > max_shared_bytes_per_block()) --w;
  return w;
}
constexpr Index kHostChunks = 64;    // the grid's chunks for the host's passes over it
constexpr int kGuessBatch = 262144;  // points per engine call (memory: ~12 KB each at R = 10)

class GpuRegistrar final : public TimedRegistrar {
 public:
  explicit GpuRegistrar(const Registry& engine) : engine_(engine) {}
  std::string device() const override { return "gpu"; }
  double last_seconds() const override { return last_seconds_; }
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return gpu_guess_method(engine_, o, static_cast<int>(rows), static_cast<int>(cols), points);
  }
  bool has_waves() const override { return true; }
  // The reliability-guided waves over `pts` (the frame's independent results), on this device,
  // with the coefficients of the frame it registered last.
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& pts) override {
    stages_.waves = 0;
    stages_.wave_points = 0;
    return reliability_waves(in, o, pts, nullptr);
  }
  GpuDicStages stages() const override { return stages_; }

  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    const int S = o.subset;
    XCORR_RETURN_IF_ERROR(check_shared_bytes(
        "the GPU IC-GN", icgn_warp_bytes(S, o.shape == dic::ShapeFunction::second_order),
        " for subset " + std::to_string(S) + " px"));
    cudaStream_t stream = nullptr;
    const int rows = static_cast<int>(in.reference.rows),
              cols = static_cast<int>(in.reference.cols);
    const auto pixels = static_cast<std::size_t>(rows) * cols;
    const std::vector<char>& active = *in.active;
    const std::size_t n_all = active.size();
    // Host lists and results in pinned memory, reused frame after frame (see PinnedBuffer in
    // gpu/device_buffer.cuh).
    XCORR_RETURN_IF_ERROR(guess_of_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(cx_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(cy_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(guess_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(results_h_.allocate(n_all));
    if (in.reference_changed || ref_c_.size() < pixels || ref_interpolation_ != o.interpolation ||
        ref_prefilter_ != o.prefilter) {
      XCORR_RETURN_IF_ERROR(upload_image(in.reference, ref_img_, stream));
      XCORR_RETURN_IF_ERROR(coefficients(ref_img_.get(), ref_c_, rows, cols, o, stream));
      ref_interpolation_ = o.interpolation;
      ref_prefilter_ = o.prefilter;
      noise_ = dic::noise_model(in.reference, o.interpolation, o.prefilter);
    }
    // The same deformed frame again (the consistency check's second pass): its image and
    // coefficients are still on the device.
    const bool same_deformed = !in.deformed_changed && def_rows_ == rows && def_cols_ == cols &&
                               def_interpolation_ == o.interpolation &&
                               def_prefilter_ == o.prefilter;
    if (!same_deformed) {
      def_rows_ = -1;  // until the coefficients below are made
      XCORR_RETURN_IF_ERROR(upload_image(in.deformed, def_img_, stream));
    }
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    const auto t0 = std::chrono::steady_clock::now();  // images on the device from here
    XCORR_CUDA_TRY(cudaEventRecord(ev_[0].get(), stream));
    if (!same_deformed) {
      XCORR_RETURN_IF_ERROR(coefficients(def_img_.get(), def_c_, rows, cols, o, stream));
      def_rows_ = rows, def_cols_ = cols;
      def_interpolation_ = o.interpolation;
      def_prefilter_ = o.prefilter;
    }
    XCORR_CUDA_TRY(cudaEventRecord(ev_[1].get(), stream));

    // Points to compute (while the device computes the coefficients), their positions, and the
    // integer guesses of those whose rounded subset lies in the reference (the others keep
    // (0, 0) and IC-GN reports them outside_roi). The grid goes in chunks over the host's
    // threads: count per chunk, then write in place from the chunk's offsets (one thread took
    // ~5 ms at 2048^2 step 4, a quarter of the device's whole integer guess).
    const int h = S / 2;
    const int win = guess_window(o, rows, cols), R = (win - S) / 2;
    const std::vector<double>& cx = *in.cx;
    const std::vector<double>& cy = *in.cy;
    const std::vector<dic::Warp>& predicted = *in.predicted;
    auto guessed = [&](std::size_t k, int& x, int& y) {  // the rounded subset inside
      x = round_half_away(cx[k]);
      y = round_half_away(cy[k]);
      return x - h >= 0 && y - h >= 0 && x + h < cols && y + h < rows;
    };
    const std::size_t per = (n_all + kHostChunks - 1) / kHostChunks;
    parallel_for(kHostChunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        ch.begin = std::min(n_all, static_cast<std::size_t>(c) * per);
        ch.end = std::min(n_all, ch.begin + per);
        ch.listed = ch.guessed = 0;
        for (std::size_t k = ch.begin; k < ch.end; ++k) {
          int x = 0, y = 0;
          if (!active[k]) continue;
          ++ch.listed;
          ch.guessed += guessed(k, x, y) ? 1 : 0;
        }
      }
    });
    int count = 0, guesses = 0;
    for (Chunk& ch : chunks_) {
      ch.first_listed = count, ch.first_guess = guesses;
      count += ch.listed, guesses += ch.guessed;
    }
    parallel_for(kHostChunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        const Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        int i = ch.first_listed, g = ch.first_guess;
        for (std::size_t k = ch.begin; k < ch.end; ++k) {
          if (!active[k]) continue;
          cx_h_[i] = cx[k];
          cy_h_[i] = cy[k];
          int x = 0, y = 0;
          if (guessed(k, x, y)) {
            const int px = round_half_away(predicted[k][0]), py = round_half_away(predicted[k][3]);
            guess_h_[g] = {x, y, std::clamp(x + px - h - R, 0, cols - win),
                           std::clamp(y + py - h - R, 0, rows - win)};
            guess_of_h_[g++] = i;
          }
          ++i;
        }
      }
    });
    dic::FrameRegistration& reg = reg_;
    reg.variant.clear();
    reg.points.resize(n_all);
    if (count == 0) {
      std::fill(reg.points.begin(), reg.points.end(), dic::IcgnResult{});
      return &reg_;
    }
    const auto n_listed = static_cast<std::size_t>(count);
    XCORR_RETURN_IF_ERROR(upload(cx_h_.get(), n_listed, cx_, stream));
    XCORR_RETURN_IF_ERROR(upload(cy_h_.get(), n_listed, cy_, stream));
    // Integer guesses go straight into start_ on the device (points without one keep (0, 0)).
    XCORR_RETURN_IF_ERROR(start_.allocate(n_listed));
    XCORR_CUDA_TRY(cudaMemsetAsync(start_.get(), 0, sizeof(int2) * count, stream));
    XCORR_RETURN_IF_ERROR(
        upload(guess_of_h_.get(), static_cast<std::size_t>(guesses), guess_of_, stream));
    // One variant for the whole frame, chosen for its listed points (one batch at most): a device
    // that registers part of a frame (gpu/dic_multi_gpu.cpp) is handed the same choice, so the
    // results do not depend on how a frame is split.
    auto chosen = guess_variant(guess_shape(std::min(count, kGuessBatch), S, win, o), o.method);
    if (!chosen.is_ok()) return chosen.status();
    const auto* g = dynamic_cast<const GpuCorrelator*>(chosen.value());
    if (g == nullptr) {
      return Status{ErrorCode::invalid_argument,
                    "--method " + o.method + " is not a GPU variant (the GPU DIC path needs one)"};
    }
    XCORR_RETURN_IF_ERROR(integer_guess(*g, guess_h_.get(), guesses, S, win, cols, o, stream));
    reg.variant = g->info().name;
    XCORR_CUDA_TRY(cudaEventRecord(ev_[2].get(), stream));
    // Progress (when asked for) at the two stages' ends: a frame takes milliseconds here, about
    // a second for 10^7 points; the extra synchronisation costs microseconds.
    const dic::PointProgress* progress =
        in.progress != nullptr && *in.progress ? in.progress : nullptr;
    if (progress != nullptr) {
      XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
      if (!(*progress)(count, 2 * static_cast<Index>(count)))
        return Status{ErrorCode::cancelled, "cancelled inside a frame"};
    }

    // IC-GN.
    XCORR_RETURN_IF_ERROR(out_.allocate(static_cast<std::size_t>(count)));
    const IcgnArgs args{ref_c_.get(),     def_c_.get(),  rows,       cols,          cx_.get(),
                        cy_.get(),        start_.get(),  nullptr,    count,         S,
                        o.max_iterations, o.convergence, o.min_zncc, o.min_texture, noise_,
                        icgn_band(o),     out_.get()};
    XCORR_RETURN_IF_ERROR(launch_icgn(args, o, stream));
    XCORR_CUDA_TRY(cudaEventRecord(ev_[3].get(), stream));
    XCORR_CUDA_TRY(cudaMemcpyAsync(results_h_.get(), out_.get(), n_listed * sizeof(IcgnOut),
                                   cudaMemcpyDeviceToHost, stream));
    XCORR_CUDA_TRY(cudaEventRecord(ev_[4].get(), stream));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    stages_.coefficients = ev_[1].seconds_since(ev_[0]);
    stages_.integer_guess = ev_[2].seconds_since(ev_[1]);
    stages_.icgn = ev_[3].seconds_since(ev_[2]);
    stages_.download = ev_[4].seconds_since(ev_[3]);
    if (guesses > 0) {  // the last batch's (one batch up to kGuessBatch points)
      stages_.guess_gather = guess_ev_[1].seconds_since(guess_ev_[0]);
      stages_.guess_search = guess_ev_[2].seconds_since(guess_ev_[1]);
    }
    // Results back to their grid points, chunk by chunk; inactive points get the default.
    parallel_for(kHostChunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        const Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        int i = ch.first_listed;
        for (std::size_t k = ch.begin; k < ch.end; ++k) {
          dic::IcgnResult& q = reg.points[k];
          if (!active[k]) {
            q = dic::IcgnResult{};
            continue;
          }
          q = to_result(results_h_[i++]);
        }
      }
    });
    stages_.propagation = 0;
    stages_.waves = 0;
    stages_.wave_points = 0;
    if (o.propagation == dic::Propagation::reliability_guided) {
      const auto w0 = std::chrono::steady_clock::now();
      XCORR_RETURN_IF_ERROR(reliability_waves(in, o, reg_.points, stream));
      stages_.propagation =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    }
    last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress != nullptr &&
        !(*progress)(2 * static_cast<Index>(count), 2 * static_cast<Index>(count)))
      return Status{ErrorCode::cancelled, "cancelled inside a frame"};
    return &reg_;
  }

 private:
  static dic::IcgnResult to_result(const IcgnOut& g) {
    dic::IcgnResult q;
    std::copy(g.p, g.p + 6, q.p.begin());
    q.zncc = g.zncc;
    q.sigma_u = g.sigma_u;
    q.sigma_v = g.sigma_v;
    q.iterations = g.iterations;
    q.status = static_cast<dic::PointStatus>(g.status);
    return q;
  }

  Status launch_icgn(const IcgnArgs& args, const dic::DicOptions& o, cudaStream_t stream) {
    if (o.shape == dic::ShapeFunction::second_order) {
      static OncePerDevice once2;
      const cudaError_t opt_in2 = once2([] {
        const auto limit = static_cast<int>(max_shared_bytes_per_block());
        const cudaError_t e = cudaFuncSetAttribute(
            icgn2_kernel<5>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
        return e != cudaSuccess
                   ? e
                   : cudaFuncSetAttribute(icgn2_kernel<3>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
      });
      XCORR_CUDA_TRY(opt_in2);
      const int warps2 = icgn_warps(args.subset, true);
      XCORR_CHECK(warps2 > 0, "IC-GN subset checked against the device in register_frame");
      const auto smem2 = static_cast<int>(warps2 * icgn_warp_bytes(args.subset, true));
      const int blocks2 = (args.count + warps2 - 1) / warps2;
      if (o.interpolation == dic::Interpolation::quintic) {
        icgn2_kernel<5><<<blocks2, 32 * warps2, smem2, stream>>>(args);
      } else {
        icgn2_kernel<3><<<blocks2, 32 * warps2, smem2, stream>>>(args);
      }
      XCORR_LAUNCH_TRY("icgn2_kernel");
      return Status::ok();
    }
    static OncePerDevice once;
    const cudaError_t opt_in = once([] {
      const auto limit = static_cast<int>(max_shared_bytes_per_block());
      const cudaError_t e =
          cudaFuncSetAttribute(icgn_kernel<5>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
      return e != cudaSuccess
                 ? e
                 : cudaFuncSetAttribute(icgn_kernel<3>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        limit);
    });
    XCORR_CUDA_TRY(opt_in);
    const int warps = icgn_warps(args.subset, false);
    XCORR_CHECK(warps > 0, "IC-GN subset checked against the device in register_frame");
    const auto smem = static_cast<int>(warps * icgn_warp_bytes(args.subset, false));
    const int blocks = (args.count + warps - 1) / warps;
    if (o.interpolation == dic::Interpolation::quintic) {
      icgn_kernel<5><<<blocks, 32 * warps, smem, stream>>>(args);
    } else {
      icgn_kernel<3><<<blocks, 32 * warps, smem, stream>>>(args);
    }
    XCORR_LAUNCH_TRY("icgn_kernel");
    return Status::ok();
  }

  // Reliability-guided work on the GPU: every point has had its independent pass (integer guess,
  // IC-GN); the points that did not converge are then started from their best converged
  // 4-neighbour's warp (highest ZNCC, as the CPU's propagation starts them), in waves: each wave
  // registers every failed point that has a converged neighbour, once per point, until no point
  // is left that could be started. Points whose integer-guess match lies outside their search
  // range (the CPU checks its seeds the same way), and converged points further than
  // max_deviation from their neighbours' prediction (consistency.hpp), count as failed first, so
  // a wave may reach them from a neighbour. low_texture and outside_roi are properties of the
  // reference subset: not tried again.
  Status reliability_waves(const dic::FrameInputs& in, const dic::DicOptions& o,
                           std::vector<dic::IcgnResult>& pts, cudaStream_t stream) {
    const dic::Grid& grid = *in.grid;
    const std::vector<char>& active = *in.active;
    const std::vector<double>& cx = *in.cx;
    const std::vector<double>& cy = *in.cy;
    const std::size_t n = pts.size();
    for (std::size_t k = 0; k < n; ++k)
      if (active[k] && dic::beyond_search(pts[k], (*in.predicted)[k], o.search_radius))
        pts[k].status = dic::PointStatus::outside_image;
    // A false peak inside the search range (the true match lies beyond it) can converge far
    // from what its neighbours say (4.5 px in a test run): such points wait for a neighbour's
    // start, as the CPU's propagation would have reached them first. Its neighbours may only
    // converge in the waves, so the check runs again after them (3 rounds at most); what still
    // disagrees then is inconsistent.
    std::vector<char> tried(n, 0);
    std::vector<std::size_t> wave;
    std::vector<double> wx, wy, warps;
    const auto retry = [&](std::size_t k) {
      const dic::PointStatus s = pts[k].status;
      return active[k] && !tried[k] && s != dic::PointStatus::converged &&
             s != dic::PointStatus::low_texture && s != dic::PointStatus::outside_roi;
    };
    const auto mark_suspects = [&](bool retry_them) {
      if (o.max_deviation <= 0) return false;
      const std::vector<dic::Suspect> suspects =
          dic::find_suspects(grid, cx, cy, active, pts, o.max_deviation);
      for (const dic::Suspect& s : suspects) {
        pts[s.index].status = dic::PointStatus::inconsistent;
        if (retry_them) tried[s.index] = 0;
      }
      return !suspects.empty();
    };
    // Waves until no failed point has a converged neighbour it has not been started from.
    const auto run_waves = [&]() -> Status {
      std::vector<std::size_t> failed;  // the candidates, scanned by each wave
      for (std::size_t k = 0; k < n; ++k)
        if (retry(k)) failed.push_back(k);
      for (;;) {
        wave.clear(), wx.clear(), wy.clear(), warps.clear();
        std::erase_if(failed, [&](std::size_t k) { return !retry(k); });
        for (const std::size_t k : failed) {
          const Index r = static_cast<Index>(k) / grid.cols, c = static_cast<Index>(k) % grid.cols;
          const Index nr[4] = {r - 1, r + 1, r, r}, nc[4] = {c, c, c - 1, c + 1};
          std::size_t best = n;
          for (int e = 0; e < 4; ++e) {
            if (nr[e] < 0 || nc[e] < 0 || nr[e] >= grid.rows || nc[e] >= grid.cols) continue;
            const auto q = static_cast<std::size_t>(nr[e] * grid.cols + nc[e]);
            if (active[q] && pts[q].status == dic::PointStatus::converged &&
                (best == n || pts[q].zncc > pts[best].zncc))
              best = q;
          }
          if (best == n) continue;
          const dic::Warp& p = pts[best].p;
          const double dx = cx[k] - cx[best], dy = cy[k] - cy[best];
          const double start[6] = {p[0] + p[1] * dx + p[2] * dy, p[1], p[2],
                                   p[3] + p[4] * dx + p[5] * dy, p[4], p[5]};
          wave.push_back(k);
          wx.push_back(cx[k]);
          wy.push_back(cy[k]);
          warps.insert(warps.end(), start, start + 6);
        }
        if (wave.empty()) return Status::ok();
        const int count = static_cast<int>(wave.size());
        ++stages_.waves;
        stages_.wave_points += count;
        XCORR_RETURN_IF_ERROR(upload(wx.data(), wave.size(), wave_cx_, stream));
        XCORR_RETURN_IF_ERROR(upload(wy.data(), wave.size(), wave_cy_, stream));
        XCORR_RETURN_IF_ERROR(upload(warps.data(), warps.size(), wave_start_, stream));
        XCORR_RETURN_IF_ERROR(wave_out_.allocate(wave.size()));
        const IcgnArgs args{ref_c_.get(),
                            def_c_.get(),
                            static_cast<int>(in.reference.rows),
                            static_cast<int>(in.reference.cols),
                            wave_cx_.get(),
                            wave_cy_.get(),
                            nullptr,
                            wave_start_.get(),
                            count,
                            o.subset,
                            o.max_iterations,
                            o.convergence,
                            o.min_zncc,
                            o.min_texture,
                            noise_,
                            icgn_band(o),
                            wave_out_.get()};
        XCORR_RETURN_IF_ERROR(launch_icgn(args, o, stream));
        wave_h_.resize(wave.size());
        XCORR_CUDA_TRY(cudaMemcpyAsync(wave_h_.data(), wave_out_.get(),
                                       wave.size() * sizeof(IcgnOut), cudaMemcpyDeviceToHost,
                                       stream));
        XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
        for (std::size_t i = 0; i < wave.size(); ++i) {
          tried[wave[i]] = 1;
          pts[wave[i]] = to_result(wave_h_[i]);
        }
      }
    };
    mark_suspects(true);
    for (int round = 0; round < 3; ++round) {
      XCORR_RETURN_IF_ERROR(run_waves());
      if (!mark_suspects(round < 2)) break;
    }
    return Status::ok();
  }

  template <class T>
  static Status upload(const T* host, std::size_t n, DeviceBuffer<T>& dev, cudaStream_t stream) {
    XCORR_RETURN_IF_ERROR(dev.allocate(n));
    XCORR_CUDA_TRY(cudaMemcpyAsync(dev.get(), host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
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

  // Coefficients computed in float64 (work_) and stored as float32 (c): half the bytes per
  // interpolation; the rounding moves displacements by ~1e-7 px (tests: GPU vs CPU).
  Status coefficients(const float* image, DeviceBuffer<float>& c, int rows, int cols,
                      const dic::DicOptions& o, cudaStream_t stream) {
    const long long n = static_cast<long long>(rows) * cols;
    XCORR_RETURN_IF_ERROR(work_.allocate(static_cast<std::size_t>(n)));
    XCORR_RETURN_IF_ERROR(c.allocate(static_cast<std::size_t>(n)));
    const int blocks = static_cast<int>(std::min<long long>((n + 255) / 256, 4096));
    GaussianTaps g{};
    g.r = m::gaussian_taps(o.prefilter, g.w);
    if (g.r > 0) {
      XCORR_RETURN_IF_ERROR(smooth_.allocate(static_cast<std::size_t>(n)));
      gaussian_rows_kernel<<<blocks, 256, 0, stream>>>(image, smooth_.get(), rows, cols, g);
      gaussian_cols_kernel<<<blocks, 256, 0, stream>>>(smooth_.get(), work_.get(), rows, cols, g);
    } else {
      to_double_kernel<<<blocks, 256, 0, stream>>>(image, work_.get(), n);
    }
    if (o.interpolation == dic::Interpolation::quintic) {
      prefilter_rows_kernel<5><<<(rows + 63) / 64, 64, 0, stream>>>(work_.get(), rows, cols);
      prefilter_cols_kernel<5><<<(cols + 63) / 64, 64, 0, stream>>>(work_.get(), rows, cols);
    } else {
      prefilter_rows_kernel<3><<<(rows + 63) / 64, 64, 0, stream>>>(work_.get(), rows, cols);
      prefilter_cols_kernel<3><<<(cols + 63) / 64, 64, 0, stream>>>(work_.get(), rows, cols);
    }
    to_float_kernel<<<blocks, 256, 0, stream>>>(work_.get(), c.get(), n);
    XCORR_LAUNCH_TRY("bspline prefilter kernels");
    return Status::ok();
  }

  // Batches of gather -> `g` (device-resident) -> argmax; start_[guess_of_[i]] = (u, v) of
  // guess[i].
  Status integer_guess(const GpuCorrelator& g, const GuessPoint* guess, int n, int S, int win,
                       int cols, const dic::DicOptions& o, cudaStream_t stream) {
    for (int first = 0; first < n; first += kGuessBatch) {
      const int count = std::min(kGuessBatch, n - first);
      const CorrelationProblem shape = guess_shape(count, S, win, o);
      XCORR_RETURN_IF_ERROR(
          upload(guess + first, static_cast<std::size_t>(count), points_, stream));
      XCORR_RETURN_IF_ERROR(templates_.allocate(static_cast<std::size_t>(count) * S * S));
      XCORR_RETURN_IF_ERROR(windows_.allocate(static_cast<std::size_t>(count) * win * win));
      XCORR_RETURN_IF_ERROR(peaks_.allocate(static_cast<std::size_t>(count) * kPeakFields));
      XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[0].get(), stream));
      gather_kernel<<<count, 128, 0, stream>>>(ref_img_.get(), def_img_.get(), cols, points_.get(),
                                               S, win, templates_.get(), windows_.get());
      XCORR_LAUNCH_TRY("gather_kernel");
      XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[1].get(), stream));
      const DeviceProblem dp = make_device_problem(shape, templates_.get(), windows_.get());
      XCORR_RETURN_IF_ERROR(g.run_device(dp, peaks_.get(), stream));
      XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[2].get(), stream));
      guess_from_peaks_kernel<<<(count + 127) / 128, 128, 0, stream>>>(
          peaks_.get(), count, points_.get(), S, guess_of_.get() + first, start_.get());
      XCORR_LAUNCH_TRY("guess_from_peaks_kernel");
    }
    return Status::ok();
  }

  // `method`: auto, a variant name, or "name:param=value,..." (a configured variant, kept).
  Result<const Correlator*> guess_variant(const CorrelationProblem& shape,
                                          const std::string& method) {
    const std::size_t colon = method.find(':');
    if (colon == std::string::npos) return choose_variant(engine_, shape, method, "gpu");
    auto base = choose_variant(engine_, shape, method.substr(0, colon), "gpu");
    if (!base.is_ok()) return base.status();
    if (configured_text_ != method) {
      auto made = configure_variant(engine_, method.substr(0, colon), method.substr(colon + 1));
      if (!made.is_ok()) return made.status();
      configured_ = std::move(made).value();
      configured_text_ = method;
    }
    return configured_.get();
  }

  const Registry& engine_;
  std::unique_ptr<Correlator> configured_;
  std::string configured_text_;
  double last_seconds_ = -1;
  GpuDicStages stages_;
  CudaEvent ev_[5], guess_ev_[3];
  // Host lists and results of the last frame (pinned, reused; see register_frame).
  PinnedBuffer<int> guess_of_h_;  // per guess: its index among the listed (active) points
  PinnedBuffer<double> cx_h_, cy_h_;
  PinnedBuffer<GuessPoint> guess_h_;
  PinnedBuffer<IcgnOut> results_h_;
  dic::FrameRegistration reg_;
  // The grid's chunks for the host passes: grid points [begin, end), their listed (active)
  // points from first_listed, their guesses from first_guess.
  struct Chunk {
    std::size_t begin = 0, end = 0;
    int listed = 0, guessed = 0, first_listed = 0, first_guess = 0;
  };
  std::vector<Chunk> chunks_ = std::vector<Chunk>(kHostChunks);
  DeviceBuffer<float> ref_img_, def_img_, templates_, windows_, peaks_;
  DeviceBuffer<float> ref_c_, def_c_;
  DeviceBuffer<double> work_, smooth_, cx_, cy_;
  // What the reference's coefficients were computed with.
  dic::Interpolation ref_interpolation_ = dic::Interpolation::quintic;
  double ref_prefilter_ = -1;
  // What def_img_ and def_c_ hold (def_rows_ -1: nothing usable).
  int def_rows_ = -1, def_cols_ = -1;
  dic::Interpolation def_interpolation_ = dic::Interpolation::quintic;
  double def_prefilter_ = -1;
  m::NoiseModel noise_;
  DeviceBuffer<int2> start_;
  // The reliability waves' points: positions, start warps (6 each), results.
  DeviceBuffer<double> wave_cx_, wave_cy_, wave_start_;
  DeviceBuffer<IcgnOut> wave_out_;
  std::vector<IcgnOut> wave_h_;
  DeviceBuffer<int> guess_of_;
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

Result<std::string> gpu_guess_method(const Registry& engine, const dic::DicOptions& o, int rows,
                                     int cols, Index points) {
  return dic::frame_guess_method(engine, o.method, o.accuracy, rows, cols, o.subset,
                                 o.search_radius, points, kGuessBatch, "gpu");
}

double last_gpu_frame_seconds(const dic::FrameRegistrar& r) {
  const auto* g = dynamic_cast<const TimedRegistrar*>(&r);
  return g != nullptr ? g->last_seconds() : -1;
}

GpuDicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r) {
  const auto* g = dynamic_cast<const TimedRegistrar*>(&r);
  return g != nullptr ? g->stages() : GpuDicStages{};
}

}  // namespace xcorr::gpu
