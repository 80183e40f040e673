// Registration beyond translation: the rigid (rotation + translation), similarity (+ isotropic
// scale) or affine transform that maps an image (the reference) onto another (the frame).
//
// 1. A coarse start (Fourier-Mellin; Reddy and Chatterji, IEEE TIP 5, 1266, 1996): the
//    magnitude spectra of both images (mean removed, Hann window, binned to at most 256 px a
//    side) resampled on a log-polar grid, where a rotation is a shift along the angle and a
//    scale a shift along log-radius; phase correlation of the two grids gives angle (within
//    +-90 degrees) and scale, then phase correlation of the reference with the frame rotated
//    back gives the translation.
// 2. Refinement (the reference's gradients smoothed: FitOptions::smoothing): inverse-compositional
//    Gauss-Newton (IC-GN, Baker and Matthews 2004; the ZNSSD
//    criterion of DIC, Pan et al. 2013) over the transform's parameters on every pixel of the
//    image, first on the binned images, then on the full ones; the frame is interpolated with
//    the cubic B-spline (core/dic/icgn_math.hpp). Reference pixels whose match leaves the frame
//    are left out. When the Fourier-Mellin start does not converge, IC-GN starts again from no
//    rotation and the translation alone; when neither fits well, from the rotation (every 2
//    degrees within max_rotation) after which the translation's phase correlation peaks
//    highest. The best fit is kept. The starts are found on the
//    host's threads; IC-GN runs where the LevelFitter runs (transform_level.hpp: the host's
//    threads, or every frame of a block at once on the GPU).
// A frame that cannot be fitted says why (failed): no convergence, a poor match (ZNCC below
// kMinFitZncc), too little overlap, or a rotation beyond `max_rotation`.
// FFTW (the build without FFTW refuses, as the phase method does).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/enum_labels.hpp"
#include "core/matrix.hpp"
#include "core/register/affine.hpp"
#include "core/register/transform_level.hpp"
#include "core/status.hpp"

namespace xcorr {
template <>
struct EnumLabels<reg::Transform> {
  static constexpr std::pair<reg::Transform, const char*> table[] = {
      {reg::Transform::translation, "translation"},
      {reg::Transform::rigid, "rigid"},
      {reg::Transform::similarity, "similarity"},
      {reg::Transform::affine, "affine"}};
};
}  // namespace xcorr

namespace xcorr::reg {

inline constexpr double kMinFitZncc = 0.3;  // a fit below this ZNCC fails its frame

struct FitOptions {
  Transform transform = Transform::rigid;  // rigid, similarity or affine
  double max_rotation = 45;                // degrees each way; larger rotations fail the frame
  // Gaussian sigma (px) of the reference's gradients (0: none; empty: auto_smoothing of each
  // reference, auto_smoothing.hpp). IC-GN's Hessian comes from them: unsmoothed, a noisy
  // reference's noise gradients inflate it and the steps shrink (on cell.png with noise 2 % of
  // the range, 60 iterations crept 0.007 px each and never converged). The values compared stay
  // unsmoothed: at the true transform the residual is still 0, so the smoothing moves no fit of
  // noise-free images.
  std::optional<double> smoothing = std::nullopt;
};

struct Fit {
  Affine map;          // reference -> frame, in the images' pixel coordinates
  double zncc = 0;     // of the reference and the frame sampled through `map`, its overlap
  int iterations = 0;  // IC-GN's, over both levels
  std::string failed;  // why no transform fits (reads after "frame 3 "); "" when one does
};

class TransformFitter {
 public:
  // Images of `shape` px (at least 8 x 8); IC-GN by the fitter `fitters` makes for `device`
  // (a job's device option).
  static Result<std::unique_ptr<TransformFitter>> create(
      Shape shape, FitOptions o, const LevelFitterFactory& fitters = cpu_level_fitters,
      const std::string& device = "cpu");
  ~TransformFitter();
  TransformFitter(const TransformFitter&) = delete;
  TransformFitter& operator=(const TransformFitter&) = delete;

  std::string device() const;  // where IC-GN runs: "cpu" or "gpu"
  Status set_reference(MatrixView<const float> reference);
  // Each frame's transform from the set reference, or from (*references)[k] (`previous`
  // registration). An error only when the fitter fails (a device error); frames that cannot be
  // fitted say so in their Fit.
  Result<std::vector<Fit>> measure(
      const std::vector<MatrixView<const float>>& frames,
      const std::vector<MatrixView<const float>>* references = nullptr);
  // One frame (a device error reads as the frame's failure).
  Fit measure(MatrixView<const float> frame);
  Fit measure(MatrixView<const float> reference, MatrixView<const float> frame);

 private:
  TransformFitter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xcorr::reg
