#include "core/dic/icgn.hpp"

#include <array>
#include <cmath>
#include <vector>

#include "core/dic/icgn_math.hpp"

namespace xcorr::dic {
namespace {

// The two shape functions: N parameters, the map of a subset offset (i, j), the steepest-descent
// basis, the inverse-compositional update and the step norm. First order: p = (u, ux, uy, v, vx,
// vy); second order: q = (u, ux, uy, uxx, uxy, uyy, v, vx, vy, vxx, vxy, vyy).
struct FirstOrder {
  static constexpr int N = 6, kV = 3;  // kV: v's index
  static void from_warp(const Warp& w, double* p) { std::copy(w.begin(), w.end(), p); }
  static Warp to_warp(const double* p) { return {p[0], p[1], p[2], p[3], p[4], p[5]}; }
  static void map(const double* p, double i, double j, double& dx, double& dy) {
    dx = i + p[0] + p[1] * i + p[2] * j;
    dy = j + p[3] + p[4] * i + p[5] * j;
  }
  static void steepest(double gx, double gy, double i, double j, double* s) {
    s[0] = gx, s[1] = gx * i, s[2] = gx * j, s[3] = gy, s[4] = gy * i, s[5] = gy * j;
  }
  static bool update(double* p, const double* dp) { return math::compose_inverse(p, dp); }
  static double norm(const double* dp, double h) { return math::warp_step_norm(dp, h); }
};

struct SecondOrder {
  static constexpr int N = 12, kV = 6;
  static void from_warp(const Warp& w, double* q) {
    const double v[12] = {w[0], w[1], w[2], 0, 0, 0, w[3], w[4], w[5], 0, 0, 0};
    std::copy(v, v + 12, q);
  }
  static Warp to_warp(const double* q) { return {q[0], q[1], q[2], q[6], q[7], q[8]}; }
  static void map(const double* q, double i, double j, double& dx, double& dy) {
    const double ii = i * i / 2, ij = i * j, jj = j * j / 2;
    dx = i + q[0] + q[1] * i + q[2] * j + q[3] * ii + q[4] * ij + q[5] * jj;
    dy = j + q[6] + q[7] * i + q[8] * j + q[9] * ii + q[10] * ij + q[11] * jj;
  }
  static void steepest(double gx, double gy, double i, double j, double* s) {
    const double b[6] = {1, i, j, i * i / 2, i * j, j * j / 2};
    for (int k = 0; k < 6; ++k) s[k] = gx * b[k], s[6 + k] = gy * b[k];
  }
  static bool update(double* q, const double* dq) { return math::compose_inverse_quadratic(q, dq); }
  static double norm(const double* dq, double h) { return math::quadratic_step_norm(dq, h); }
};

template <class Shape>
IcgnResult icgn_with(const BSplineImage& ref, const BSplineImage& def, double x, double y,
                     const Warp& start, const DicOptions& o, const math::NoiseModel& noise) {
  constexpr int kN = Shape::N;
  IcgnResult r;
  r.p = start;
  double p[kN];
  Shape::from_warp(start, p);
  const int h = o.subset / 2;
  const auto hd = static_cast<double>(h);
  // The subset clipped to the pixels away from the reference's border band.
  math::SubsetRect rect;
  if (!math::reference_subset_rect(x, y, h, ref.rows(), ref.cols(), ref.border_band(), rect)) {
    r.status = PointStatus::outside_roi;
    return r;
  }
  std::vector<std::array<int, 2>> used;
  for (int j = rect.j0; j <= rect.j1; ++j)
    for (int i = rect.i0; i <= rect.i1; ++i) used.push_back({i, j});
  const int n = static_cast<int>(used.size());
  // Reference subset: values, zero-mean values, steepest-descent images and Hessian.
  std::vector<double> f(static_cast<std::size_t>(n)), sd(static_cast<std::size_t>(n) * kN);
  double fm = 0;
  for (int k = 0; k < n; ++k) {
    const auto [i, j] = used[static_cast<std::size_t>(k)];
    double v = 0, gx = 0, gy = 0;
    ref.value_gradient(x + i, y + j, v, gx, gy);
    f[static_cast<std::size_t>(k)] = v;
    fm += v;
    Shape::steepest(gx, gy, i, j, &sd[static_cast<std::size_t>(k) * kN]);
  }
  fm /= n;
  double df = 0;
  for (double& v : f) {
    v -= fm;
    df += v * v;
  }
  df = std::sqrt(df);
  if (df / std::sqrt(static_cast<double>(n)) < o.min_texture) {
    r.status = PointStatus::low_texture;
    return r;
  }
  double hess[kN * (kN + 1) / 2] = {};  // lower triangle, packed (math::cholesky)
  for (int k = 0; k < n; ++k) {
    const double* s = &sd[static_cast<std::size_t>(k) * kN];
    for (int a = 0; a < kN; ++a)
      for (int b = 0; b <= a; ++b) hess[a * (a + 1) / 2 + b] += s[a] * s[b];
  }
  if (!math::cholesky<kN>(hess)) {
    r.status = PointStatus::low_texture;
    return r;
  }

  std::vector<double> g(static_cast<std::size_t>(n));
  // Samples the deformed subset's used pixels at the current warp; false when it is carried out
  // of the deformed image (status outside_image: math::inside_sampling; while iterating, a pixel
  // of the whole subset further than kIterationReach past the pixel centres; at the end, a
  // corner of it under the warp's first-order part further than kFootprintReach: the second
  // order's curvature terms are too uncertain at the corners to decide it) or it is flat
  // (diverged).
  double gm = 0, dg = 0;
  auto inside_footprint = [&] {
    const Warp w = Shape::to_warp(p);
    for (const double i : {-hd, hd})
      for (const double j : {-hd, hd})
        if (!math::inside_sampling(x + i + w[0] + w[1] * i + w[2] * j,
                                   y + j + w[3] + w[4] * i + w[5] * j, def.rows(), def.cols())) {
          r.status = PointStatus::outside_image;
          return false;
        }
    return true;
  };
  auto sample = [&](bool final) {
    if (final) {
      if (!inside_footprint()) return false;
    } else {
      for (int j = -h; j <= h; ++j)
        for (int i = -h; i <= h; ++i) {
          double dx = 0, dy = 0;
          Shape::map(p, i, j, dx, dy);
          if (!math::inside_sampling(x + dx, y + dy, def.rows(), def.cols(),
                                     math::kIterationReach)) {
            r.status = PointStatus::outside_image;
            return false;
          }
        }
    }
    gm = 0;
    for (int k = 0; k < n; ++k) {
      const auto [i, j] = used[static_cast<std::size_t>(k)];
      double dx = 0, dy = 0;
      Shape::map(p, i, j, dx, dy);
      g[static_cast<std::size_t>(k)] = def.value(x + dx, y + dy);
      gm += g[static_cast<std::size_t>(k)];
    }
    gm /= n;
    dg = 0;
    for (double& v : g) {
      v -= gm;
      dg += v * v;
    }
    dg = std::sqrt(dg);
    r.status = PointStatus::diverged;
    return dg > 0;
  };

  for (r.iterations = 1; r.iterations <= o.max_iterations; ++r.iterations) {
    if (!sample(false)) {
      r.p = Shape::to_warp(p);
      return r;
    }
    double b[kN] = {};
    const double scale = df / dg;
    for (int k = 0; k < n; ++k) {
      const double e = f[static_cast<std::size_t>(k)] - scale * g[static_cast<std::size_t>(k)];
      const double* s = &sd[static_cast<std::size_t>(k) * kN];
      for (int a = 0; a < kN; ++a) b[a] += s[a] * e;
    }
    math::cholesky_solve<kN>(hess, b);
    double dp[kN];
    for (int a = 0; a < kN; ++a) dp[a] = -b[a];
    const double norm = Shape::norm(dp, hd);
    if (!Shape::update(p, dp) || !std::isfinite(norm)) {
      r.status = PointStatus::diverged;
      r.p = Shape::to_warp(p);
      return r;
    }
    if (norm < o.convergence) {
      r.status = PointStatus::converged;
      break;
    }
  }
  r.p = Shape::to_warp(p);
  if (r.iterations > o.max_iterations) r.iterations = o.max_iterations;
  // The final warp's footprint, and the ZNCC of the samples in g: the last iteration's
  // (IcgnResult::zncc); without iterations, one pass at the start.
  const PointStatus reached = r.status;
  if (!(o.max_iterations >= 1 ? inside_footprint() : sample(true))) return r;
  r.status = reached;
  double znssd = 0;
  for (int k = 0; k < n; ++k) {
    const double d = f[static_cast<std::size_t>(k)] / df - g[static_cast<std::size_t>(k)] / dg;
    znssd += d * d;
  }
  r.zncc = 1 - znssd / 2;
  {
    double b[kN / 2 * (kN / 2 + 1) / 2] = {};
    math::basis_moments<kN / 2>(rect, b);
    math::noise_sigma<kN>(hess, b, df, r.zncc, n, 0, Shape::kV, noise, r.sigma_u, r.sigma_v);
  }
  if (r.status == PointStatus::converged && r.zncc < o.min_zncc) r.status = PointStatus::diverged;
  return r;
}

}  // namespace

const char* to_string(PointStatus s) {
  return label(s);
}

IcgnResult icgn(const BSplineImage& ref, const BSplineImage& def, double x, double y,
                const Warp& start, const DicOptions& o, const math::NoiseModel& noise) {
  return o.shape == ShapeFunction::second_order
             ? icgn_with<SecondOrder>(ref, def, x, y, start, o, noise)
             : icgn_with<FirstOrder>(ref, def, x, y, start, o, noise);
}

}  // namespace xcorr::dic
