// A 2-D affine map of pixel coordinates (px; pixel centres at integers, x = column, y = row, y
// pointing down): (x, y) -> (m[0] x + m[1] y + m[2], m[3] x + m[4] y + m[5]). Registration's
// transforms map a point of the reference to where it is in the frame (the DIC convention of the
// drift table); the corrected frame samples the frame at m(x, y).
#pragma once

#include <array>
#include <cmath>

#include "core/hd.hpp"

namespace xcorr::reg {

struct Affine {
  std::array<double, 6> m{1, 0, 0, 0, 1, 0};

  static Affine translation(double dx, double dy) { return Affine{{1, 0, dx, 0, 1, dy}}; }
  // The linear part l = (l00, l01, l10, l11) about the point (cx, cy), which moves by (dx, dy):
  // p -> c + d + l (p - c).
  static Affine about(double cx, double cy, double dx, double dy, const std::array<double, 4>& l) {
    return Affine{
        {l[0], l[1], cx + dx - l[0] * cx - l[1] * cy, l[2], l[3], cy + dy - l[2] * cx - l[3] * cy}};
  }
  // Rotation by `angle` rad (positive: from +x towards +y, clockwise as an image is shown) and
  // isotropic `scale`, as a linear part.
  static std::array<double, 4> rotation(double angle, double scale = 1) {
    const double c = scale * std::cos(angle), s = scale * std::sin(angle);
    return {c, -s, s, c};
  }

  XCORR_HD double x(double px, double py) const { return m[0] * px + m[1] * py + m[2]; }
  XCORR_HD double y(double px, double py) const { return m[3] * px + m[4] * py + m[5]; }
  std::array<double, 4> linear() const { return {m[0], m[1], m[3], m[4]}; }
  XCORR_HD double determinant() const { return m[0] * m[4] - m[1] * m[3]; }
  bool is_translation() const { return m[0] == 1 && m[1] == 0 && m[3] == 0 && m[4] == 1; }

  // `next` after this: p -> next(this(p)).
  XCORR_HD Affine then(const Affine& next) const {
    const auto& a = next.m;
    return Affine{{a[0] * m[0] + a[1] * m[3], a[0] * m[1] + a[1] * m[4],
                   a[0] * m[2] + a[1] * m[5] + a[2], a[3] * m[0] + a[4] * m[3],
                   a[3] * m[1] + a[4] * m[4], a[3] * m[2] + a[4] * m[5] + a[5]}};
  }
  // The inverse map (the determinant must not be 0).
  XCORR_HD Affine inverse() const {
    const double d = determinant();
    const double i0 = m[4] / d, i1 = -m[1] / d, i3 = -m[3] / d, i4 = m[0] / d;
    return Affine{{i0, i1, -(i0 * m[2] + i1 * m[5]), i3, i4, -(i3 * m[2] + i4 * m[5])}};
  }
  // The rotation of the closest similarity (degrees) and the isotropic scale sqrt(|det|).
  double angle_degrees() const { return std::atan2(m[3] - m[1], m[0] + m[4]) * 57.29577951308232; }
  double scale() const { return std::sqrt(std::abs(determinant())); }
};

}  // namespace xcorr::reg
