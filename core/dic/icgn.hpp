// Inverse-compositional Gauss-Newton (IC-GN) sub-pixel registration of one subset, first-order
// shape function, ZNSSD criterion (Pan et al. 2013; Ncorr, DICe, OpenCorr use the same scheme).
// p = (u, ux, uy, v, vx, vy): a reference point at offset (xi, eta) from the subset centre maps
// to centre + (xi + u + ux xi + uy eta, eta + v + vx xi + vy eta) in the deformed image (px).
// The reference subset is sampled from its B-spline at centre + (xi, eta) for integer xi, eta in
// [-h, h] (h = subset / 2), so the centre may be fractional (incremental mode).
#pragma once

#include <array>
#include <cmath>

#include "core/dic/bspline.hpp"
#include "core/dic/options.hpp"

namespace xcorr::dic {

// outside_image (after outside_roi, so the stored numbers of the others stay): the reference
// subset fits, but its match would leave the deformed image by 1 px or more.
// inconsistent: converged, but far from its neighbours even when registered again from them
// (core/dic/consistency.hpp).
// missing_data: the reference subset, or its match in the frame, touches a non-finite pixel
// (NaN, Inf: missing data, core/dic/session.hpp); no displacement is reported.
enum class PointStatus {
  converged,
  diverged,
  low_texture,
  outside_roi,
  outside_image,
  inconsistent,
  missing_data
};
const char* to_string(PointStatus s);

}  // namespace xcorr::dic

namespace xcorr {
template <>
struct EnumLabels<dic::PointStatus> {
  static constexpr std::pair<dic::PointStatus, const char*> table[] = {
      {dic::PointStatus::converged, "converged"},
      {dic::PointStatus::diverged, "diverged"},
      {dic::PointStatus::low_texture, "low_texture"},
      {dic::PointStatus::outside_roi, "outside_roi"},
      {dic::PointStatus::outside_image, "outside_image"},
      {dic::PointStatus::inconsistent, "inconsistent"},
      {dic::PointStatus::missing_data, "missing_data"}};
};
}  // namespace xcorr

namespace xcorr::dic {

using Warp = std::array<double, 6>;  // u, ux, uy, v, vx, vy (px, dimensionless)

struct IcgnResult {
  Warp p{};
  double zncc = 0;  // 1 - ZNSSD / 2 of the last iteration's samples (a step < convergence
                    // before the final warp; docs/dic.md)
  int iterations = 0;
  PointStatus status = PointStatus::diverged;
  // Noise-based standard uncertainty of u and v (px; math::noise_sigma), at the final warp;
  // NaN where the point has no final warp (outside, low texture).
  double sigma_u = NAN, sigma_v = NAN;
};

// Registers the subset centred at (x, y) of `ref` in `def`, starting from `start`.
// Statuses: converged (|dp| < convergence and ZNCC >= min_zncc); diverged (no convergence within
// max_iterations, ZNCC too low, a singular warp or a flat deformed subset); low_texture (the
// reference subset's intensity std < min_texture, or a singular Hessian); outside_roi (the
// subset leaves the reference image, or most of it lies in its border band); outside_image (the
// corners of its warped copy, under the warp's first-order part, reach more than half a pixel
// past the deformed image's pixel centres, math::inside_sampling). IC-GN uses the subset's
// pixels at least math::border_band px inside the reference (math::clipped_subset). `noise`: the
// images' noise model for sigma_u, sigma_v (noise_model() of the reference with the splines'
// settings).
IcgnResult icgn(const BSplineImage& ref, const BSplineImage& def, double x, double y,
                const Warp& start, const DicOptions& o, const math::NoiseModel& noise);

}  // namespace xcorr::dic
