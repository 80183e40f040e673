#include "core/register/warp_image.hpp"

#include <algorithm>
#include <cmath>

#include "core/dic/icgn_math.hpp"

namespace xcorr::reg {

namespace {

// out (cols x rows) = in (rows x cols) transposed, in tiles of 32 x 32.
void transpose(const float* in, Index rows, Index cols, float* out) {
  constexpr Index kTile = 32;
  for (Index r0 = 0; r0 < rows; r0 += kTile)
    for (Index c0 = 0; c0 < cols; c0 += kTile)
      for (Index r = r0; r < std::min(rows, r0 + kTile); ++r)
        for (Index c = c0; c < std::min(cols, c0 + kTile); ++c)
          out[c * rows + r] = in[r * cols + c];
}

// The cubic prefilter (icgn_math.hpp's BSpline<3>::prefilter: the gain, one causal and one
// anti-causal pass for the pole z, point-symmetric continuation) along the rows of s (n rows of
// `width` values): every column at once, so that the passes' recursions run side by side.
void prefilter_along_rows(float* s, Index n, Index width) {
  if (n < 2) return;
  const double z = std::sqrt(3.0) - 2.0, lambda = (1 - z) * (1 - 1 / z);
  const auto w = static_cast<std::size_t>(width);
  for (Index i = 0; i < n * width; ++i) s[i] = static_cast<float>(s[i] * lambda);
  const float* first = s;
  std::vector<float> last(s + (n - 1) * width, s + n * width);
  std::vector<double> sum(first, first + w);
  const Index horizon = std::min<Index>(21, 2 * (n - 1));
  double zk = z;
  for (Index k = 1; k < horizon; ++k, zk *= z) {
    const bool inside = k < n;
    const float* far = inside ? s + k * width : s + (2 * (n - 1) - k) * width;
    for (std::size_t c = 0; c < w; ++c) {
      const double f = inside ? far[c] : 2.0 * last[c] - far[c];
      sum[c] += zk * (2.0 * first[c] - f);
    }
  }
  for (std::size_t c = 0; c < w; ++c) s[c] = static_cast<float>(sum[c]);
  const auto zf = static_cast<float>(z);
  for (Index k = 1; k < n; ++k) {
    float* row = s + k * width;
    const float* before = row - width;
    for (std::size_t c = 0; c < w; ++c) row[c] += zf * before[c];
  }
  const auto end_gain = static_cast<float>(-z / ((1 - z) * (1 - z)));
  float* end = s + (n - 1) * width;
  for (std::size_t c = 0; c < w; ++c) end[c] = end_gain * last[c];
  for (Index k = n - 2; k >= 0; --k) {
    float* row = s + k * width;
    const float* after = row + width;
    for (std::size_t c = 0; c < w; ++c) row[c] = zf * (after[c] - row[c]);
  }
}

}  // namespace

std::vector<float> cubic_coefficients(MatrixView<const float> in, float missing) {
  const Index rows = in.rows, cols = in.cols;
  std::vector<float> c(static_cast<std::size_t>(rows * cols)), t(c.size());
  for (Index r = 0; r < rows; ++r) {
    const float* src = in.row(r);
    float* dst = c.data() + r * cols;
    for (Index k = 0; k < cols; ++k) dst[k] = std::isfinite(src[k]) ? src[k] : missing;
  }
  prefilter_along_rows(c.data(), rows, cols);  // along y
  transpose(c.data(), rows, cols, t.data());
  prefilter_along_rows(t.data(), cols, rows);  // along x
  transpose(t.data(), cols, rows, c.data());
  return c;
}

WarpedImage::WarpedImage(MatrixView<const float> in, const Affine& map, float missing,
                         bool mark_missing)
    : in_(in), map_(map), mark_(mark_missing), c_(cubic_coefficients(in, missing)) {}

void WarpedImage::row(Index r, float* out, float fill) const {
  const double last_x = static_cast<double>(in_.cols - 1),
               last_y = static_cast<double>(in_.rows - 1);
  constexpr double kEdge = 1e-6;  // px: a source this close to the border is on it
  for (Index k = 0; k < in_.cols; ++k) {
    double x = map_.x(static_cast<double>(k), static_cast<double>(r));
    double y = map_.y(static_cast<double>(k), static_cast<double>(r));
    if (x < -kEdge || y < -kEdge || x > last_x + kEdge || y > last_y + kEdge) {
      out[k] = fill;
      continue;
    }
    x = std::min(std::max(x, 0.0), last_x), y = std::min(std::max(y, 0.0), last_y);
    out[k] = static_cast<float>(dic::math::bspline_value<3>(c_.data(), in_.rows, in_.cols, x, y));
    if (!mark_) continue;
    const auto x0 = static_cast<Index>(std::floor(x)), y0 = static_cast<Index>(std::floor(y));
    for (Index yy = y0; yy <= std::min(y0 + 1, in_.rows - 1); ++yy)
      for (Index xx = x0; xx <= std::min(x0 + 1, in_.cols - 1); ++xx)
        if (!std::isfinite(in_(yy, xx))) out[k] = NAN;
  }
}

void warp_image(MatrixView<const float> in, const Affine& map, MatrixView<float> out, float fill) {
  const WarpedImage w(in, map);
  std::vector<float> row(static_cast<std::size_t>(in.cols));
  for (Index r = 0; r < out.rows; ++r) {
    w.row(r, row.data(), fill);
    for (Index c = 0; c < out.cols; ++c) out(r, c) = row[static_cast<std::size_t>(c)];
  }
}

}  // namespace xcorr::reg
