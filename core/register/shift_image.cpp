#include "core/register/shift_image.hpp"

#include <cmath>
#include <vector>

namespace xcorr::reg {
namespace {

// Cubic B-spline coefficients of a line in place (Unser 1999, mirror boundaries).
void prefilter(std::vector<double>& c) {
  const auto n = static_cast<Index>(c.size());
  if (n < 2) return;
  const double z = std::sqrt(3.0) - 2.0;
  for (double& v : c) v *= 6.0;
  // Causal initialisation: sum over the mirrored line, truncated where z^k is negligible.
  const Index horizon = std::min<Index>(n, 30);
  double sum = c[0], zk = z;
  for (Index k = 1; k < horizon; ++k, zk *= z) sum += zk * c[static_cast<std::size_t>(k)];
  c[0] = sum;
  for (Index k = 1; k < n; ++k)
    c[static_cast<std::size_t>(k)] += z * c[static_cast<std::size_t>(k - 1)];
  c[static_cast<std::size_t>(n - 1)] =
      (z / (z * z - 1.0)) *
      (c[static_cast<std::size_t>(n - 1)] + z * c[static_cast<std::size_t>(n - 2)]);
  for (Index k = n - 2; k >= 0; --k)
    c[static_cast<std::size_t>(k)] =
        z * (c[static_cast<std::size_t>(k + 1)] - c[static_cast<std::size_t>(k)]);
}

Index mirror(Index k, Index n) {
  if (n == 1) return 0;
  const Index period = 2 * (n - 1);
  k %= period;
  if (k < 0) k += period;
  return k < n ? k : period - k;
}

// out[x] = line(x + d) for x in [0, n): B-spline coefficients `c`; NaN outside [0, n - 1].
void shift_line(const std::vector<double>& c, double d, std::vector<double>& out) {
  const auto n = static_cast<Index>(c.size());
  const double base = std::floor(d);
  const double t = d - base;
  const double w[4] = {(1 - t) * (1 - t) * (1 - t) / 6, (3 * t * t * t - 6 * t * t + 4) / 6,
                       (-3 * t * t * t + 3 * t * t + 3 * t + 1) / 6, t * t * t / 6};
  const auto shift = static_cast<Index>(base);
  for (Index x = 0; x < n; ++x) {
    const double at = static_cast<double>(x) + d;
    if (at < -1e-9 || at > static_cast<double>(n - 1) + 1e-9) {
      out[static_cast<std::size_t>(x)] = std::nan("");
      continue;
    }
    const Index i = x + shift;
    double v = 0;
    for (int k = 0; k < 4; ++k) v += w[k] * c[static_cast<std::size_t>(mirror(i - 1 + k, n))];
    out[static_cast<std::size_t>(x)] = v;
  }
}

}  // namespace

void shift_image(MatrixView<const float> in, double dx, double dy, MatrixView<float> out,
                 float fill) {
  const Index rows = in.rows, cols = in.cols;
  std::vector<double> tmp(static_cast<std::size_t>(rows * cols));  // rows shifted in x
  std::vector<double> line(static_cast<std::size_t>(cols)), shifted(static_cast<std::size_t>(cols));
  for (Index r = 0; r < rows; ++r) {
    for (Index c = 0; c < cols; ++c) line[static_cast<std::size_t>(c)] = in(r, c);
    prefilter(line);
    shift_line(line, dx, shifted);
    std::copy(shifted.begin(), shifted.end(), tmp.begin() + r * cols);
  }
  std::vector<double> column(static_cast<std::size_t>(rows)), moved(static_cast<std::size_t>(rows));
  for (Index c = 0; c < cols; ++c) {
    bool outside = false;
    for (Index r = 0; r < rows; ++r) {
      column[static_cast<std::size_t>(r)] = tmp[static_cast<std::size_t>(r * cols + c)];
      outside = outside || std::isnan(column[static_cast<std::size_t>(r)]);
    }
    if (outside) {  // the whole column's source lies outside in x
      for (Index r = 0; r < rows; ++r) out(r, c) = fill;
      continue;
    }
    prefilter(column);
    shift_line(column, dy, moved);
    for (Index r = 0; r < rows; ++r) {
      const double v = moved[static_cast<std::size_t>(r)];
      out(r, c) = std::isnan(v) ? fill : static_cast<float>(v);
    }
  }
}

}  // namespace xcorr::reg
