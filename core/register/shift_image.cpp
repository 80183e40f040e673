#include "core/register/shift_image.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace xcorr::reg {
namespace {

constexpr int kHorizon = 24;  // z^24 < 1e-13: the causal initialisation's truncated sum

double pole() {
  return std::sqrt(3.0) - 2.0;
}

Index mirror(Index k, Index n) {
  if (n == 1) return 0;
  const Index period = 2 * (n - 1);
  k %= period;
  if (k < 0) k += period;
  return k < n ? k : period - k;
}

// Cubic B-spline coefficients of one line in place (Unser 1999, mirror boundaries).
void prefilter_line(float* c, Index n) {
  if (n < 2) return;
  const double z = pole();
  double sum = 0, zk = 1;
  for (Index k = 0; k < std::min<Index>(n, kHorizon); ++k, zk *= z) sum += zk * c[k];
  double prev = 6 * sum;
  c[0] = static_cast<float>(prev);
  for (Index k = 1; k < n; ++k) {
    prev = 6.0 * c[k] + z * prev;
    c[k] = static_cast<float>(prev);
  }
  double next = (z / (z * z - 1.0)) * (c[n - 1] + z * c[n - 2]);
  c[n - 1] = static_cast<float>(next);
  for (Index k = n - 2; k >= 0; --k) {
    next = z * (next - c[k]);
    c[k] = static_cast<float>(next);
  }
}

// The same along y for every column at once (rows of `cols` floats, row stride `cols`).
void prefilter_columns(float* c, Index rows, Index cols) {
  if (rows < 2) return;
  const auto w = static_cast<std::size_t>(cols);
  const float z = static_cast<float>(pole());
  std::vector<double> sum(w, 0.0);
  double zk = 1;
  for (Index k = 0; k < std::min<Index>(rows, kHorizon); ++k, zk *= pole()) {
    const float* row = c + static_cast<std::size_t>(k) * w;
    for (std::size_t i = 0; i < w; ++i) sum[i] += zk * row[i];
  }
  for (std::size_t i = 0; i < w; ++i) c[i] = static_cast<float>(6 * sum[i]);
  for (Index k = 1; k < rows; ++k) {
    float* row = c + static_cast<std::size_t>(k) * w;
    const float* above = row - w;
    for (std::size_t i = 0; i < w; ++i) row[i] = 6 * row[i] + z * above[i];
  }
  float* last = c + static_cast<std::size_t>(rows - 1) * w;
  const float* before = last - w;
  const float k_end = static_cast<float>(pole() / (pole() * pole() - 1.0));
  for (std::size_t i = 0; i < w; ++i) last[i] = k_end * (last[i] + z * before[i]);
  for (Index k = rows - 2; k >= 0; --k) {
    float* row = c + static_cast<std::size_t>(k) * w;
    const float* below = row + w;
    for (std::size_t i = 0; i < w; ++i) row[i] = z * (below[i] - row[i]);
  }
}

// The 4 weights of taps floor(d) - 1 .. floor(d) + 2 for a shift d.
void weights(double d, double w[4]) {
  const double t = d - std::floor(d);
  w[0] = (1 - t) * (1 - t) * (1 - t) / 6;
  w[1] = (3 * t * t * t - 6 * t * t + 4) / 6;
  w[2] = (-3 * t * t * t + 3 * t * t + 3 * t + 1) / 6;
  w[3] = t * t * t / 6;
}

// The output positions whose source position + d lies within [0, n - 1].
void valid_range(double d, Index n, Index& first, Index& last) {
  first = std::max<Index>(0, static_cast<Index>(std::ceil(-d - 1e-9)));
  last =
      std::min<Index>(n - 1, static_cast<Index>(std::floor(static_cast<double>(n - 1) - d + 1e-9)));
}

}  // namespace

ShiftedImage::ShiftedImage(MatrixView<const float> in, double dx, double dy, float missing)
    : rows_(in.rows), cols_(in.cols) {
  const Index rows = rows_, cols = cols_;
  valid_range(dx, cols, c0_, c1_);
  valid_range(dy, rows, r0_, r1_);
  if (c0_ > c1_ || r0_ > r1_) return;
  const auto w = static_cast<std::size_t>(cols);
  // Along x, row by row, into tmp (only the valid columns are needed later).
  tmp_.assign(static_cast<std::size_t>(rows) * w, 0.0f);
  std::vector<float> line(w);
  double wx[4], wy[4];
  weights(dx, wx);
  weights(dy, wy);
  const auto sx = static_cast<Index>(std::floor(dx));
  sy_ = static_cast<Index>(std::floor(dy));
  const float fx[4] = {static_cast<float>(wx[0]), static_cast<float>(wx[1]),
                       static_cast<float>(wx[2]), static_cast<float>(wx[3])};
  for (int k = 0; k < 4; ++k) fy_[k] = static_cast<float>(wy[k]);
  for (Index r = 0; r < rows; ++r) {
    std::copy_n(in.row(r), cols, line.data());
    for (float& v : line)
      if (!std::isfinite(v)) v = missing;
    prefilter_line(line.data(), cols);
    float* t = tmp_.data() + static_cast<std::size_t>(r) * w;
    for (Index c = c0_; c <= c1_; ++c) {
      const Index i = c + sx - 1;  // the first tap
      if (i >= 0 && i + 3 < cols) {
        const float* p = line.data() + i;
        t[c] = fx[0] * p[0] + fx[1] * p[1] + fx[2] * p[2] + fx[3] * p[3];
      } else {
        float v = 0;
        for (int k = 0; k < 4; ++k)
          v += fx[k] * line[static_cast<std::size_t>(mirror(i + k, cols))];
        t[c] = v;
      }
    }
  }
  // Along y, every column at once.
  prefilter_columns(tmp_.data(), rows, cols);
}

void ShiftedImage::row(Index r, float* o, float fill) const {
  std::fill_n(o, cols_, fill);
  if (c0_ > c1_ || r < r0_ || r > r1_) return;
  const auto w = static_cast<std::size_t>(cols_);
  const float* src[4];
  for (int k = 0; k < 4; ++k)
    src[k] = tmp_.data() + static_cast<std::size_t>(mirror(r + sy_ - 1 + k, rows_)) * w;
  for (Index c = c0_; c <= c1_; ++c)
    o[c] = fy_[0] * src[0][c] + fy_[1] * src[1][c] + fy_[2] * src[2][c] + fy_[3] * src[3][c];
}

void shift_image(MatrixView<const float> in, double dx, double dy, MatrixView<float> out,
                 float fill) {
  const ShiftedImage shifted(in, dx, dy);
  for (Index r = 0; r < in.rows; ++r) shifted.row(r, out.row(r), fill);
}

}  // namespace xcorr::reg
