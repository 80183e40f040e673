// Bicubic B-spline interpolation with precomputed coefficients (Unser's recursive prefilter,
// mirror boundaries): the interpolant passes through every pixel, is C2, and its gradient is exact
// for the interpolant. Coordinates in px (pixel centres at integers, x = column, y = row).
// Evaluation needs the 4x4 neighbourhood; points within 1 px of the border use mirrored
// coefficients; points outside [0, cols - 1] x [0, rows - 1] are not evaluated (callers check
// `inside`).
#pragma once

#include <vector>

#include "core/matrix.hpp"

namespace xcorr::dic {

class BSplineImage {
 public:
  BSplineImage() = default;
  explicit BSplineImage(MatrixView<const float> image);

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  // Whether (x, y) lies in [0, cols - 1] x [0, rows - 1] (math::inside_image).
  bool inside(double x, double y) const;
  double value(double x, double y) const;
  // Value and gradient (d/dx, d/dy in grey values per px).
  void value_gradient(double x, double y, double& v, double& gx, double& gy) const;
  const std::vector<double>& coefficients() const { return c_; }  // rows x cols, row-major

 private:
  Index rows_ = 0, cols_ = 0;
  std::vector<double> c_;
};

}  // namespace xcorr::dic
