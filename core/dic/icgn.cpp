#include "core/dic/icgn.hpp"

#include <cmath>
#include <vector>

#include "core/dic/icgn_math.hpp"

namespace xcorr::dic {
namespace {

constexpr int kN = 6;

}  // namespace

const char* to_string(PointStatus s) {
  switch (s) {
    case PointStatus::converged:
      return "converged";
    case PointStatus::diverged:
      return "diverged";
    case PointStatus::low_texture:
      return "low_texture";
    case PointStatus::outside_roi:
      return "outside_roi";
  }
  return "?";
}

IcgnResult icgn(const BSplineImage& ref, const BSplineImage& def, double x, double y,
                const Warp& start, const DicOptions& o) {
  IcgnResult r;
  r.p = start;
  const int h = o.subset / 2;
  const auto hd = static_cast<double>(h);
  if (!ref.inside(x - hd, y - hd) || !ref.inside(x + hd, y + hd)) {
    r.status = PointStatus::outside_roi;
    return r;
  }
  // Reference subset: values, zero-mean values, steepest-descent images and Hessian.
  const int n = o.subset * o.subset;
  std::vector<double> f(static_cast<std::size_t>(n)), sd(static_cast<std::size_t>(n) * kN);
  double fm = 0;
  for (int k = 0, j = -h; j <= h; ++j) {
    for (int i = -h; i <= h; ++i, ++k) {
      double v = 0, gx = 0, gy = 0;
      ref.value_gradient(x + i, y + j, v, gx, gy);
      f[static_cast<std::size_t>(k)] = v;
      fm += v;
      double* s = &sd[static_cast<std::size_t>(k) * kN];
      s[0] = gx, s[1] = gx * i, s[2] = gx * j, s[3] = gy, s[4] = gy * i, s[5] = gy * j;
    }
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
  double hess[21] = {};  // lower triangle, packed (math::cholesky6)
  for (int k = 0; k < n; ++k) {
    const double* s = &sd[static_cast<std::size_t>(k) * kN];
    for (int a = 0; a < kN; ++a)
      for (int b = 0; b <= a; ++b) hess[a * (a + 1) / 2 + b] += s[a] * s[b];
  }
  if (!math::cholesky6(hess)) {
    r.status = PointStatus::low_texture;
    return r;
  }

  std::vector<double> g(static_cast<std::size_t>(n));
  // Samples the deformed subset at warp p; false when it leaves the deformed image (status
  // outside_roi) or is flat (diverged).
  auto sample = [&](const Warp& p, double& gm, double& dg) {
    gm = 0;
    for (int k = 0, j = -h; j <= h; ++j) {
      for (int i = -h; i <= h; ++i, ++k) {
        const double X = x + i + p[0] + p[1] * i + p[2] * j;
        const double Y = y + j + p[3] + p[4] * i + p[5] * j;
        if (!def.inside(X, Y)) {
          r.status = PointStatus::outside_roi;
          return false;
        }
        g[static_cast<std::size_t>(k)] = def.value(X, Y);
        gm += g[static_cast<std::size_t>(k)];
      }
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

  double gm = 0, dg = 0;
  for (r.iterations = 1; r.iterations <= o.max_iterations; ++r.iterations) {
    if (!sample(r.p, gm, dg)) return r;
    double b[kN] = {};
    const double scale = df / dg;
    for (int k = 0; k < n; ++k) {
      const double e = f[static_cast<std::size_t>(k)] - scale * g[static_cast<std::size_t>(k)];
      const double* s = &sd[static_cast<std::size_t>(k) * kN];
      for (int a = 0; a < kN; ++a) b[a] += s[a] * e;
    }
    math::cholesky6_solve(hess, b);
    double dp[kN];
    for (int a = 0; a < kN; ++a) dp[a] = -b[a];
    if (!math::compose_inverse(r.p.data(), dp)) {
      r.status = PointStatus::diverged;
      return r;
    }
    const double norm = math::warp_step_norm(dp, hd);
    if (!std::isfinite(norm)) {
      r.status = PointStatus::diverged;
      return r;
    }
    if (norm < o.convergence) {
      r.status = PointStatus::converged;
      break;
    }
  }
  if (r.iterations > o.max_iterations) r.iterations = o.max_iterations;
  const PointStatus reached = r.status;
  if (!sample(r.p, gm, dg)) return r;
  r.status = reached;
  double znssd = 0;
  for (int k = 0; k < n; ++k) {
    const double d = f[static_cast<std::size_t>(k)] / df - g[static_cast<std::size_t>(k)] / dg;
    znssd += d * d;
  }
  r.zncc = 1 - znssd / 2;
  if (r.status == PointStatus::converged && r.zncc < o.min_zncc) r.status = PointStatus::diverged;
  return r;
}

}  // namespace xcorr::dic
