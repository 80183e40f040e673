#include "core/dic/bspline.hpp"

#include <cmath>

namespace xcorr::dic {
namespace {

// In-place cubic B-spline prefilter of n samples spaced by `stride` (Unser 1999, mirror bounds).
void prefilter(double* s, Index n, Index stride) {
  if (n < 2) return;
  const double z = std::sqrt(3.0) - 2.0;
  const double lambda = (1 - z) * (1 - 1 / z);
  for (Index k = 0; k < n; ++k) s[k * stride] *= lambda;
  // Causal initialisation: sum of z^k s[k] until z^k is negligible (mirror-symmetric signal).
  const Index horizon =
      std::min<Index>(n, static_cast<Index>(std::ceil(std::log(1e-12) / std::log(std::abs(z)))));
  double zk = z, sum = s[0];
  for (Index k = 1; k < horizon; ++k, zk *= z) sum += zk * s[k * stride];
  s[0] = sum;
  for (Index k = 1; k < n; ++k) s[k * stride] += z * s[(k - 1) * stride];
  s[(n - 1) * stride] = (z / (z * z - 1)) * (s[(n - 1) * stride] + z * s[(n - 2) * stride]);
  for (Index k = n - 2; k >= 0; --k) s[k * stride] = z * (s[(k + 1) * stride] - s[k * stride]);
}

void weights(double t, double w[4]) {
  const double t2 = t * t, t3 = t2 * t, u = 1 - t;
  w[0] = u * u * u / 6;
  w[1] = (3 * t3 - 6 * t2 + 4) / 6;
  w[2] = (-3 * t3 + 3 * t2 + 3 * t + 1) / 6;
  w[3] = t3 / 6;
}

void derivative_weights(double t, double d[4]) {
  const double t2 = t * t, u = 1 - t;
  d[0] = -u * u / 2;
  d[1] = (3 * t2 - 4 * t) / 2;
  d[2] = (-3 * t2 + 2 * t + 1) / 2;
  d[3] = t2 / 2;
}

}  // namespace

BSplineImage::BSplineImage(MatrixView<const float> image)
    : rows_(image.rows), cols_(image.cols), c_(static_cast<std::size_t>(image.rows * image.cols)) {
  for (Index y = 0; y < rows_; ++y) {
    for (Index x = 0; x < cols_; ++x) c_[static_cast<std::size_t>(y * cols_ + x)] = image(y, x);
  }
  for (Index y = 0; y < rows_; ++y) prefilter(c_.data() + y * cols_, cols_, 1);
  for (Index x = 0; x < cols_; ++x) prefilter(c_.data() + x, rows_, cols_);
}

Index BSplineImage::mirror(Index i, Index n) const {
  if (n == 1) return 0;
  const Index period = 2 * (n - 1);
  i = ((i % period) + period) % period;
  return i < n ? i : period - i;
}

double BSplineImage::value(double x, double y) const {
  double v = 0, gx = 0, gy = 0;
  value_gradient(x, y, v, gx, gy);
  return v;
}

void BSplineImage::value_gradient(double x, double y, double& v, double& gx, double& gy) const {
  const double fx = std::floor(x), fy = std::floor(y);
  const auto ix = static_cast<Index>(fx), iy = static_cast<Index>(fy);
  double wx[4], wy[4], dx[4], dy[4];
  weights(x - fx, wx);
  weights(y - fy, wy);
  derivative_weights(x - fx, dx);
  derivative_weights(y - fy, dy);
  const bool interior = ix >= 1 && iy >= 1 && ix + 2 < cols_ && iy + 2 < rows_;
  v = gx = gy = 0;
  for (int a = 0; a < 4; ++a) {
    const Index r = interior ? iy - 1 + a : mirror(iy - 1 + a, rows_);
    const double* row = c_.data() + r * cols_;
    double sv = 0, sd = 0;
    for (int b = 0; b < 4; ++b) {
      const double c = row[interior ? ix - 1 + b : mirror(ix - 1 + b, cols_)];
      sv += wx[b] * c;
      sd += dx[b] * c;
    }
    v += wy[a] * sv;
    gx += wy[a] * sd;
    gy += dy[a] * sv;
  }
}

}  // namespace xcorr::dic
