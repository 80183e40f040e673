#include "core/register/warp_image.hpp"

#include <cmath>

#include "core/dic/icgn_math.hpp"

namespace xcorr::reg {

WarpedImage::WarpedImage(MatrixView<const float> in, const Affine& map, float missing,
                         bool mark_missing)
    : in_(in), map_(map), mark_(mark_missing), c_(static_cast<std::size_t>(in.rows * in.cols)) {
  for (Index r = 0; r < in.rows; ++r)
    for (Index c = 0; c < in.cols; ++c) {
      const float v = in(r, c);
      c_[static_cast<std::size_t>(r * in.cols + c)] = std::isfinite(v) ? v : missing;
    }
  float* c = c_.data();
  for (Index r = 0; r < in.rows; ++r) dic::math::bspline_prefilter<3>(c + r * in.cols, in.cols, 1);
  for (Index k = 0; k < in.cols; ++k) dic::math::bspline_prefilter<3>(c + k, in.rows, in.cols);
}

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
