// IC-GN kernels and their launch (gpu/dic_icgn.cuh).
#include <algorithm>

#include "core/dic/bspline.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/dic_icgn.cuh"
#include "gpu/once_per_device.cuh"

namespace xcorr::gpu {
namespace {

namespace m = dic::math;
constexpr unsigned kFull = 0xffffffffu;

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

// Point k's starting parameters (N = 6: first order, u then v; N = 12: second order, whose u
// and v halves start at 0 and 6): the wave's warp when given, else the initial guess.
template <int N>
__device__ inline void start_parameters(const IcgnArgs& a, int k, double (&q)[N]) {
  if (a.start_warp != nullptr) {
#pragma unroll
    for (int u = 0; u < 3; ++u) {
      q[u] = a.start_warp[6 * k + u];
      q[N / 2 + u] = a.start_warp[6 * k + 3 + u];
    }
  } else {
    q[0] = a.start[k].x;
    q[N / 2] = a.start[k].y;
  }
}

// The subset centred at (x, y) clipped to the pixels away from the border band
// (math::reference_subset_rect, as the CPU's icgn): n of them, W to a row, offsets from (i0, j0);
// false when none is left (outside_roi).
__device__ inline bool subset_rect(const IcgnArgs& a, double x, double y, int h,
                                   m::SubsetRect& rect) {
  return m::reference_subset_rect(x, y, h, a.rows, a.cols, a.band, rect);
}

// The reference subset centred at (x, y), clipped to `rect` (math::clipped_subset): values and
// gradients into sf, sgx, sgy (shared, float; pixel q at offset (i0 + q % width, j0 + q / width);
// the lane's pixels q = lane, lane + 32, ...), and the lane's sum of the values. Read from the
// reference's PixelTable when the launch has one (x, y integral: the clipped subset lies inside
// the frame, reference_subset_rect, so every index does too), else computed; the same numbers
// either way.
__device__ inline double table_subset(const IcgnArgs& a, double x, double y, int lane,
                                      const m::SubsetRect& rect, float* sf, float* sgx,
                                      float* sgy) {
  const int W = rect.width(), n = rect.pixels();
  const long long origin =
      (static_cast<long long>(y) + rect.j0) * a.cols + static_cast<long long>(x) + rect.i0;
  double sum = 0;
  for (int q = lane; q < n; q += 32) {
    const long long at = origin + static_cast<long long>(q / W) * a.cols + q % W;
    const double v = a.ref_value[at];
    sf[q] = static_cast<float>(v);
    sgx[q] = a.ref_gx[at];
    sgy[q] = a.ref_gy[at];
    sum += v;
  }
  return sum;
}
template <int D>
__device__ inline double computed_subset(const float* ref_c, int rows, int cols, double x, double y,
                                         int lane, m::SubsetRect rect, float* sf, float* sgx,
                                         float* sgy) {
  const int W = rect.width(), n = rect.pixels();
  double sum = 0;
  for (int q = lane; q < n; q += 32) {
    double v, gx, gy;
    m::bspline_value_gradient<D>(ref_c, rows, cols, x + (rect.i0 + q % W), y + (rect.j0 + q / W), v,
                                 gx, gy);
    sf[q] = static_cast<float>(v);
    sgx[q] = static_cast<float>(gx);
    sgy[q] = static_cast<float>(gy);
    sum += v;
  }
  return sum;
}
// The subset's values' mean (every lane): from the table when Table (the launch has one), else
// computed.
template <int D, bool Table>
__device__ inline double reference_subset(const IcgnArgs& a, double x, double y, int lane,
                                          const m::SubsetRect& rect, float* sf, float* sgx,
                                          float* sgy) {
  double sum;
  if constexpr (Table)
    sum = table_subset(a, x, y, lane, rect, sf, sgx, sgy);
  else
    sum = computed_subset<D>(a.ref_c, a.rows, a.cols, x, y, lane, rect, sf, sgx, sgy);
  return warp_sum(sum) / rect.pixels();
}

// floor(v) and v - floor(v) of |v| < 2^31 without the conversion unit (16 results per clock
// per SM on sm_80/sm_90, against 64 for float64 additions): v + 1.5 * 2^52 rounds v to an
// integer n held in its low 32 bits, and n - 1 when that rounded up. Exact: the same numbers as
// floor() and (long long) for every such v (tests: DicGpu against the CPU).
struct Cell {
  int index;       // floor(v)
  float fraction;  // v - floor(v), rounded to float
};
__device__ inline Cell cell_of(double v) {
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  const double s = __dadd_rn(v, kRound);
  double r = __dadd_rn(s, -kRound);
  int index = __double2loint(s);
  if (r > v) r -= 1, --index;
  return {index, static_cast<float>(v - r)};
}

// The deformed frame's spline at (X, Y) px, within kIterationReach of its pixel centres: the
// interior sum over the padded coefficients (kDeformedPad), no branch at the border (the
// continuation out of line took 8 % of IC-GN's time on the H200, docs/perf/dic.md).
static_assert(kDeformedPad >= static_cast<int>(m::kIterationReach) + 1 + 3,
              "IC-GN's samples and their quintic taps stay in the padded coefficients");
template <int D>
__device__ inline float deformed_value(const IcgnArgs& a, double X, double Y) {
  const Cell cx = cell_of(X), cy = cell_of(Y);
  return m::bspline_interior_value<D, float>(a.def_c, a.cols + 2LL * kDeformedPad,
                                             cx.index + kDeformedPad, cy.index + kDeformedPad,
                                             cx.fraction, cy.fraction);
}

constexpr int kIcgnWarps = 4;
// doubles per warp: Cholesky factor (21) + 2 x 6 constants + the last samples' ZNCC
constexpr int kIcgnConsts = 34;

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

// Table: the launch has the reference's PixelTable. A separate instantiation: with the computed
// subsets' spline code in the same kernel, IC-GN measured 20.1 ms instead of 19.5 on an H200.
template <int D, bool Table>
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
  double* zncc = consts + 33;    // of the last samples (in shared memory: no register held
                                 // across the iterations)
  float* sf = reinterpret_cast<float*>(smem_d + warps * kIcgnConsts) +
              static_cast<long long>(warp) * 3 * S * S;
  float* sgx = sf + S * S;
  float* sgy = sgx + S * S;
  const int k = blockIdx.x * warps + warp;
  if (k >= a.count) return;
  const double x = a.cx[k], y = a.cy[k], hd = h;
  IcgnOut r{};
  start_parameters(a, k, r.p);
  r.status = static_cast<int>(dic::PointStatus::diverged);
  // The result; a point that stops early has no sigma (df < 0 tells icgn_sigma_kernel).
  auto finish = [&] {
    if (lane == 0) a.out[k] = r, a.factor[k].df = -1;
  };
  m::SubsetRect rect;
  if (!subset_rect(a, x, y, h, rect)) {
    r.status = static_cast<int>(dic::PointStatus::outside_roi);
    return finish();
  }
  const int W = rect.width(), n = rect.pixels(), i0 = rect.i0, j0 = rect.j0;
  // Reference subset, its mean and spread, steepest-descent constants and Hessian.
  const double fm = reference_subset<D, Table>(a, x, y, lane, rect, sf, sgx, sgy);
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
  // inside(reach): whether the subset under r.p stays in the frame (the CPU's rule,
  // math::inside_sampling: no corner of the whole subset further than kIterationReach past the
  // pixel centres while iterating, kFootprintReach at the end); sample(): its moments.
  Moments mo;
  auto inside = [&](double reach) {
    // The warped subset is a parallelogram: inside iff its 4 corners are.
    for (int c = 0; c < 4; ++c) {
      const double i = (c & 1) ? h : -h, j = (c & 2) ? h : -h;
      if (!m::inside_sampling(x + i + r.p[0] + r.p[1] * i + r.p[2] * j,
                              y + j + r.p[3] + r.p[4] * i + r.p[5] * j, a.rows, a.cols, reach))
        return false;
    }
    return true;
  };
  auto sample = [&] {
    LaneMoments t{};
    // Lane's pixels q = lane, lane + 32, ...: offsets (i, j) from the centre stepped without
    // division or conversion (small integers, exact as double and as float).
    double i = i0 + lane % W, j = j0 + lane / W;
    float fi = static_cast<float>(i), fj = static_cast<float>(j);
    const double i_end = i0 + W;
    for (int q = lane; q < n; q += 32) {
      const double X = x + i + r.p[0] + r.p[1] * i + r.p[2] * j;
      const double Y = y + j + r.p[3] + r.p[4] * i + r.p[5] * j;
      const float d = deformed_value<D>(a, X, Y) - shift;
      const float gx = sgx[q] * d, gy = sgy[q] * d;
      t.g += d;
      t.gg = fmaf(d, d, t.gg);
      t.fg = fmaf(sf[q], d, t.fg);
      t.sdg[0] += gx, t.sdg[1] = fmaf(gx, fi, t.sdg[1]), t.sdg[2] = fmaf(gx, fj, t.sdg[2]);
      t.sdg[3] += gy, t.sdg[4] = fmaf(gy, fi, t.sdg[4]), t.sdg[5] = fmaf(gy, fj, t.sdg[5]);
      i += 32, fi += 32;
      while (i >= i_end) i -= W, fi -= static_cast<float>(W), ++j, ++fj;
    }
    mo.g = warp_sum(t.g);
    mo.gg = warp_sum(t.gg);
    mo.fg = warp_sum(t.fg) + shift * f_sum;  // sum(f~ g)
#pragma unroll
    for (int u = 0; u < 6; ++u) mo.sdg[u] = warp_sum(t.sdg[u]);
  };
  auto spread = [&]() {  // dg (of g - c: the same)
    const double gm = mo.g / n;
    return sqrt(fmax(mo.gg - n * gm * gm, 0.0));
  };
  // Iterations; the ZNCC is that of the last iteration's samples (IcgnResult::zncc), and the
  // final warp's footprint is checked once more (`done`); without iterations (max_iterations 0)
  // one pass at the start. One call each of inside() and sample() keeps the kernel's code small.
  const bool iterate = a.max_iterations >= 1;
  bool converged = false, done = false;
  r.iterations = 0;
  for (;;) {
    if (!inside(iterate && !done ? m::kIterationReach : m::kFootprintReach)) {
      r.status = static_cast<int>(dic::PointStatus::outside_image);
      return finish();
    }
    if (done) break;
    sample();
    const double dg = spread();
    if (!(dg > 0)) return finish();            // flat deformed subset: diverged
    if (lane == 0) *zncc = mo.fg / (df * dg);  // = 1 - ZNSSD / 2
    if (!iterate) break;
    ++r.iterations;
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
    if (norm < a.convergence)
      converged = done = true;
    else if (r.iterations == a.max_iterations)
      done = true;
  }
  __syncwarp();
  r.zncc = *zncc;
  if (converged && r.zncc >= a.min_zncc) r.status = static_cast<int>(dic::PointStatus::converged);
  // The factor for the point's sigma (icgn_sigma_kernel): 32 lanes would each repeat its 6 x 6
  // algebra (it took 11 % of this kernel's time on the H200, docs/perf/dic.md).
  if (lane < 21) a.factor[k].chol[lane] = chol[lane];
  if (lane == 0) a.out[k] = r, a.factor[k].df = df;
}

// sigma_u, sigma_v of a point (math::noise_sigma) from its Hessian's factor `chol`: N = 6
// (first order) or 12 (second order) parameters, u's first and v's from N / 2.
template <int N>
__device__ inline double2 point_sigma(const double* chol, double df, double zncc,
                                      m::SubsetRect rect, const m::NoiseModel& noise) {
  constexpr int M = N / 2;
  double basis[M * (M + 1) / 2];
  m::basis_moments<M>(rect, basis);
  double2 sigma;
  m::noise_sigma<N>(chol, basis, df, zncc, rect.pixels(), 0, M, noise, sigma.x, sigma.y);
  return sigma;
}
// The first-order points' sigma, a thread per point, after icgn_kernel: from the factor it left
// (IcgnFactor) and the ZNCC of its result; points that stopped early keep sigma 0.
__global__ void icgn_sigma_kernel(IcgnArgs a) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.count) return;
  const IcgnFactor& f = a.factor[k];
  if (!(f.df >= 0)) return;
  m::SubsetRect rect;
  subset_rect(a, a.cx[k], a.cy[k], a.subset / 2, rect);  // as icgn_kernel found it
  double chol[21];
  for (int e = 0; e < 21; ++e) chol[e] = f.chol[e];
  const double2 sigma = point_sigma<6>(chol, f.df, a.out[k].zncc, rect, a.noise);
  a.out[k].sigma_u = sigma.x;
  a.out[k].sigma_v = sigma.y;
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

// Out of line: inside the warp kernel its 12 x 12 algebra would take the loop's registers.
__device__ __noinline__ double2 point_sigma2(const double* chol, double df, double zncc,
                                             m::SubsetRect rect, const m::NoiseModel& noise) {
  return point_sigma<12>(chol, df, zncc, rect, noise);
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
  start_parameters(a, k, q);
  r.status = static_cast<int>(dic::PointStatus::diverged);
  auto finish = [&] {
    r.p[0] = q[0], r.p[1] = q[1], r.p[2] = q[2], r.p[3] = q[6], r.p[4] = q[7], r.p[5] = q[8];
    if (lane == 0) a.out[k] = r;
  };
  m::SubsetRect rect;
  if (!subset_rect(a, x, y, h, rect)) {
    r.status = static_cast<int>(dic::PointStatus::outside_roi);
    return finish();
  }
  const int W = rect.width(), n = rect.pixels(), i0 = rect.i0, j0 = rect.j0;
  const double fm = a.ref_value != nullptr
                        ? reference_subset<D, true>(a, x, y, lane, rect, sf, sgx, sgy)
                        : reference_subset<D, false>(a, x, y, lane, rect, sf, sgx, sgy);
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
  auto inside_footprint = [&] {
    for (int c = 0; c < 4; ++c) {
      const double i = (c & 1) ? h : -h, j = (c & 2) ? h : -h;
      if (!m::inside_sampling(x + i + q[0] + q[1] * i + q[2] * j,
                              y + j + q[6] + q[7] * i + q[8] * j, a.rows, a.cols))
        return false;
    }
    return true;
  };
  auto sample = [&](bool final) {
    bool inside = true;
    if (final) {
      if (!inside_footprint()) return false;
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
      const float d = deformed_value<D>(a, X, Y) - shift;
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
  // The final warp's footprint; without iterations, one pass at the start for the ZNCC.
  const bool iterated = a.max_iterations >= 1;
  if (!(iterated ? inside_footprint() : sample(true))) {
    r.status = static_cast<int>(dic::PointStatus::outside_image);
    return finish();
  }
  if (!(dg > 0)) return finish();
  // The ZNCC of the samples in sg: the last iteration's (IcgnResult::zncc).
  double fg = 0;
  for (int p = lane; p < n; p += 32) fg += static_cast<double>(sf[p]) * (sg[p] - gm);
  r.zncc = warp_sum(fg) / (df * dg);
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

}  // namespace

IcgnArgs icgn_args(const dic::DicOptions& o, const float* ref_c, const PixelTable* ref_table,
                   const float* def_c, int rows, int cols, const double* cx, const double* cy,
                   const double2* start, const double* start_warp, int count,
                   const m::NoiseModel& noise, IcgnOut* out, IcgnFactor* factor) {
  IcgnArgs a{};
  a.ref_c = ref_c;
  if (ref_table != nullptr) {
    a.ref_value = ref_table->value.get();
    a.ref_gx = ref_table->gx.get();
    a.ref_gy = ref_table->gy.get();
  }
  a.def_c = def_c;
  a.rows = rows;
  a.cols = cols;
  a.cx = cx;
  a.cy = cy;
  a.start = start;
  a.start_warp = start_warp;
  a.count = count;
  a.subset = o.subset;
  a.max_iterations = o.max_iterations;
  a.convergence = o.convergence;
  a.min_zncc = o.min_zncc;
  a.min_texture = o.min_texture;
  a.noise = noise;
  a.band = icgn_band(o);
  a.out = out;
  a.factor = factor;
  return a;
}

dic::IcgnResult to_result(const IcgnOut& g) {
  dic::IcgnResult q;
  std::copy(g.p, g.p + 6, q.p.begin());
  q.zncc = g.zncc;
  q.sigma_u = g.sigma_u;
  q.sigma_v = g.sigma_v;
  q.iterations = g.iterations;
  q.status = static_cast<dic::PointStatus>(g.status);
  return q;
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

namespace {

using IcgnKernel = void (*)(IcgnArgs);

// One order's launch: its kernels (cubic, quintic) allowed the device's shared memory per block
// (once per device), as many warps per block as that holds, the options' B-spline; `launch`
// names it in an error.
Status launch_order(IcgnKernel cubic, IcgnKernel quintic, bool second_order, OncePerDevice& once,
                    const char* launch, const IcgnArgs& args, const dic::DicOptions& o,
                    cudaStream_t stream) {
  const cudaError_t opt_in = once([cubic, quintic] {
    const auto limit = static_cast<int>(max_shared_bytes_per_block());
    const cudaError_t e =
        cudaFuncSetAttribute(quintic, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    return e != cudaSuccess
               ? e
               : cudaFuncSetAttribute(cubic, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
  });
  XCORR_CUDA_TRY(opt_in);
  const int warps = icgn_warps(args.subset, second_order);
  XCORR_CHECK(warps > 0, "IC-GN subset checked against the device in register_frame");
  const auto smem = static_cast<int>(warps * icgn_warp_bytes(args.subset, second_order));
  const int blocks = (args.count + warps - 1) / warps;
  const IcgnKernel kernel = o.interpolation == dic::Interpolation::quintic ? quintic : cubic;
  kernel<<<blocks, 32 * warps, smem, stream>>>(args);
  XCORR_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), launch));
  return Status::ok();
}

}  // namespace

Status launch_icgn(const IcgnArgs& args, const dic::DicOptions& o, cudaStream_t stream) {
  if (o.shape == dic::ShapeFunction::second_order) {
    static OncePerDevice once2;
    return launch_order(&icgn2_kernel<3>, &icgn2_kernel<5>, true, once2, "launch of icgn2_kernel",
                        args, o, stream);
  }
  if (args.ref_value != nullptr) {
    static OncePerDevice once_table;
    XCORR_RETURN_IF_ERROR(launch_order(&icgn_kernel<3, true>, &icgn_kernel<5, true>, false,
                                       once_table, "launch of icgn_kernel", args, o, stream));
  } else {
    static OncePerDevice once;
    XCORR_RETURN_IF_ERROR(launch_order(&icgn_kernel<3, false>, &icgn_kernel<5, false>, false, once,
                                       "launch of icgn_kernel", args, o, stream));
  }
  constexpr int kThreads = 128;
  icgn_sigma_kernel<<<(args.count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(args);
  return cuda_status(cudaGetLastError(), "launch of icgn_sigma_kernel");
}

}  // namespace xcorr::gpu
