// B-spline interpolation (cubic or quintic) with precomputed coefficients (Unser's recursive
// prefilter, point-symmetric boundaries), optionally of the image smoothed by a Gaussian first
// (DicOptions::prefilter): the interpolant passes through every (smoothed) pixel, is C2 or C4,
// and its gradient is exact for the interpolant. Coordinates in px (pixel centres at integers,
// x = column, y = row). Past the border the image continues point-symmetrically
// (math::point_mirror); callers check `inside` (or math::inside_sampling) before evaluating.
#pragma once

#include <vector>

#include "core/dic/icgn_math.hpp"
#include "core/dic/options.hpp"
#include "core/matrix.hpp"

namespace xcorr::dic {

class BSplineImage {
 public:
  BSplineImage() = default;
  // prefilter: Gaussian sigma in px (0: the image as it is).
  explicit BSplineImage(MatrixView<const float> image,
                        Interpolation interpolation = Interpolation::quintic, double prefilter = 0);

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  Interpolation interpolation() const { return interpolation_; }
  double prefilter() const { return prefilter_; }
  // Whether (x, y) lies in [0, cols - 1] x [0, rows - 1] (math::inside_image).
  bool inside(double x, double y) const;
  // px: the band along the border where values depend on the image's continuation
  // (math::border_band of this prefilter).
  double border_band() const;
  double value(double x, double y) const;
  // Value and gradient (d/dx, d/dy in grey values per px).
  void value_gradient(double x, double y, double& v, double& gx, double& gy) const;
  const std::vector<double>& coefficients() const { return c_; }  // rows x cols, row-major

 private:
  Index rows_ = 0, cols_ = 0;
  Interpolation interpolation_ = Interpolation::quintic;
  double prefilter_ = 0;
  std::vector<double> c_;
};

// The noise model of the uncertainty (math::NoiseModel) for images interpolated with these
// settings: kappa from the spectra of the smoothing, the spline's prefilter and its derivative
// (numerically integrated); gamma from the reference's gradients in up to 16 tiles of 96 px
// spread over the image (the texture decides how much of the noise's correlation the error
// sees).
math::NoiseModel noise_model(MatrixView<const float> reference, Interpolation interpolation,
                             double prefilter);
// kappa alone (math::NoiseModel::kappa).
double gradient_noise_gain(Interpolation interpolation, double prefilter);

// px: how far the window an image is cut to must extend past where the spline is evaluated so
// that its edge changes the coefficients there by less than 1e-8 (relative): the Gaussian's
// radius plus the prefilter's reach (its largest pole: cubic 0.27 in 14 px, quintic 0.43 in
// 22 px).
int spline_reach(Interpolation interpolation, double prefilter);

// px: how far a pixel's value reaches into what the spline interpolates, to within 2 %: the
// Gaussian's radius, the kernel's half-support (cubic 2, quintic 3) and 2 px of the prefilter's
// decay (quintic 0.43^4 < 0.04 of what a filled pixel is off by; cubic far less). A point whose
// subset lies farther from every missing pixel is measured as without them (core/dic/session).
int spline_support(Interpolation interpolation, double prefilter);

// The image smoothed by the Gaussian of `sigma` px (math::gaussian_taps; point-symmetric
// boundaries),
// in float64; the image itself for sigma 0.
std::vector<double> smoothed(MatrixView<const float> image, double sigma);

}  // namespace xcorr::dic
