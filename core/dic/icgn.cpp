#include "core/dic/icgn.hpp"

#include <cmath>
#include <vector>

namespace xcorr::dic {
namespace {

constexpr int kN = 6;

// Solves A x = b (kN x kN, symmetric positive definite) by Cholesky; false when A is not.
bool cholesky_solve(std::array<double, kN * kN> a, std::array<double, kN>& x) {
  for (int j = 0; j < kN; ++j) {
    double d = a[j * kN + j];
    for (int k = 0; k < j; ++k) d -= a[j * kN + k] * a[j * kN + k];
    if (!(d > 1e-12)) return false;
    d = std::sqrt(d);
    a[j * kN + j] = d;
    for (int i = j + 1; i < kN; ++i) {
      double s = a[i * kN + j];
      for (int k = 0; k < j; ++k) s -= a[i * kN + k] * a[j * kN + k];
      a[i * kN + j] = s / d;
    }
  }
  for (int i = 0; i < kN; ++i) {  // L y = b
    double s = x[i];
    for (int k = 0; k < i; ++k) s -= a[i * kN + k] * x[k];
    x[i] = s / a[i * kN + i];
  }
  for (int i = kN - 1; i >= 0; --i) {  // L^T x = y
    double s = x[i];
    for (int k = i + 1; k < kN; ++k) s -= a[k * kN + i] * x[k];
    x[i] = s / a[i * kN + i];
  }
  return true;
}

// Affine 3x3 (last row 0 0 1) as 6 numbers: [a b c; d e f].
struct Affine {
  double a, b, c, d, e, f;
};
Affine to_affine(const Warp& p) {
  return {1 + p[1], p[2], p[0], p[4], 1 + p[5], p[3]};
}
Warp to_warp(const Affine& m) {
  return {m.c, m.a - 1, m.b, m.f, m.d, m.e - 1};
}
Affine multiply(const Affine& m, const Affine& n) {
  return {m.a * n.a + m.b * n.d, m.a * n.b + m.b * n.e, m.a * n.c + m.b * n.f + m.c,
          m.d * n.a + m.e * n.d, m.d * n.b + m.e * n.e, m.d * n.c + m.e * n.f + m.f};
}
bool invert(const Affine& m, Affine& out) {
  const double det = m.a * m.e - m.b * m.d;
  if (!(std::abs(det) > 1e-12)) return false;
  out.a = m.e / det;
  out.b = -m.b / det;
  out.d = -m.d / det;
  out.e = m.a / det;
  out.c = -(out.a * m.c + out.b * m.f);
  out.f = -(out.d * m.c + out.e * m.f);
  return true;
}

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
  std::array<double, kN * kN> hess{};
  for (int k = 0; k < n; ++k) {
    const double* s = &sd[static_cast<std::size_t>(k) * kN];
    for (int a = 0; a < kN; ++a)
      for (int b = 0; b <= a; ++b) hess[a * kN + b] += s[a] * s[b];
  }
  for (int a = 0; a < kN; ++a)
    for (int b = a + 1; b < kN; ++b) hess[a * kN + b] = hess[b * kN + a];

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
    std::array<double, kN> b{};
    const double scale = df / dg;
    for (int k = 0; k < n; ++k) {
      const double e = f[static_cast<std::size_t>(k)] - scale * g[static_cast<std::size_t>(k)];
      const double* s = &sd[static_cast<std::size_t>(k) * kN];
      for (int a = 0; a < kN; ++a) b[a] += s[a] * e;
    }
    if (!cholesky_solve(hess, b)) {
      r.status = PointStatus::low_texture;
      return r;
    }
    Warp dp;
    for (int a = 0; a < kN; ++a) dp[a] = -b[a];
    Affine inv;
    if (!invert(to_affine(dp), inv)) return r;
    r.p = to_warp(multiply(to_affine(r.p), inv));
    const double norm =
        std::sqrt(dp[0] * dp[0] + dp[3] * dp[3] +
                  hd * hd * (dp[1] * dp[1] + dp[2] * dp[2] + dp[4] * dp[4] + dp[5] * dp[5]));
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
