#include "core/dic/bspline.hpp"

#include "core/dic/icgn_math.hpp"

namespace xcorr::dic {

BSplineImage::BSplineImage(MatrixView<const float> image)
    : rows_(image.rows), cols_(image.cols), c_(static_cast<std::size_t>(image.rows * image.cols)) {
  for (Index y = 0; y < rows_; ++y) {
    for (Index x = 0; x < cols_; ++x) c_[static_cast<std::size_t>(y * cols_ + x)] = image(y, x);
  }
  for (Index y = 0; y < rows_; ++y) math::bspline_prefilter(c_.data() + y * cols_, cols_, 1);
  for (Index x = 0; x < cols_; ++x) math::bspline_prefilter(c_.data() + x, rows_, cols_);
}

bool BSplineImage::inside(double x, double y) const {
  return math::inside_image(x, y, rows_, cols_);
}

double BSplineImage::value(double x, double y) const {
  return math::bspline_value(c_.data(), rows_, cols_, x, y);
}

void BSplineImage::value_gradient(double x, double y, double& v, double& gx, double& gy) const {
  math::bspline_value_gradient(c_.data(), rows_, cols_, x, y, v, gx, gy);
}

}  // namespace xcorr::dic
