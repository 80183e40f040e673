// Sub-pixel refinement of a correlation peak from its 3x3 neighbourhood, and the packed peak
// record of the engine's peak output (Output::peak). Plain C++, XCORR_HD: the CPU's find_peak and
// the CUDA peak kernels share this one implementation.
//  - parabolic:   3-point parabola per axis, offset = (f- - f+) / (2 (f- - 2 f0 + f+))
//  - gaussian:    the same on ln f (needs f > 0 at the three points of an axis; otherwise the
//                 parabola is used for that axis and `used` says parabolic)
//  - quadratic2d: least-squares fit of a + bx + cy + dx^2 + exy + fy^2 to the 3x3 neighbourhood,
//                 peak where the gradient vanishes (needs a maximum: negative-definite Hessian)
// A fit whose offset leaves [-1, 1] (or that has no maximum) is not used: refined = false.
#pragma once

#include <cmath>

#include "core/hd.hpp"

namespace xcorr {

enum class SubpixelMethod { none = 0, parabolic = 1, gaussian = 2, quadratic2d = 3 };

struct PeakFit {
  double row_offset = 0, col_offset = 0;  // px, to add to the integer position
  bool refined = false;
  SubpixelMethod used = SubpixelMethod::none;
};

namespace peak_detail {

// Vertex of the parabola through (-1, fm), (0, f0), (1, fp); false if not a maximum.
XCORR_HD inline bool parabola_vertex(double fm, double f0, double fp, double& offset) {
  const double curvature = fm - 2 * f0 + fp;
  if (!(curvature < 0)) return false;
  offset = (fm - fp) / (2 * curvature);
  return true;
}

// One axis: `gaussian` is set when the fit ran on ln f.
XCORR_HD inline bool fit_axis(double fm, double f0, double fp, SubpixelMethod method,
                              double& offset, bool& gaussian) {
  gaussian = method == SubpixelMethod::gaussian && fm > 0 && f0 > 0 && fp > 0;
  if (gaussian) return parabola_vertex(log(fm), log(f0), log(fp), offset);
  return parabola_vertex(fm, f0, fp, offset);
}

}  // namespace peak_detail

// n[dy + 1][dx + 1] = the values around an interior maximum n[1][1].
XCORR_HD inline PeakFit refine_peak(const double n[3][3], SubpixelMethod method) {
  PeakFit fit;
  if (method == SubpixelMethod::none) return fit;
  if (method == SubpixelMethod::quadratic2d) {
    double s0 = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    XCORR_UNROLL
    for (int y = -1; y <= 1; ++y) {
      XCORR_UNROLL
      for (int x = -1; x <= 1; ++x) {
        const double f = n[y + 1][x + 1];
        s0 += f;
        sx += x * f;
        sy += y * f;
        sxx += x * x * f;
        syy += y * y * f;
        sxy += x * y * f;
      }
    }
    // Normal equations of the 9-point design decouple: b = sx/6, c = sy/6, e = sxy/4, and
    // [9 6 6; 6 6 4; 6 4 6] [a d f]^T = [s0 sxx syy]^T gives d = sxx/2 - s0/3, f = syy/2 - s0/3.
    const double b = sx / 6, c = sy / 6, e = sxy / 4;
    const double d = sxx / 2 - s0 / 3, f = syy / 2 - s0 / 3;
    const double det = 4 * d * f - e * e;  // Hessian [2d e; e 2f]
    if (!(d < 0 && det > 0)) return fit;
    const double dx = (-2 * f * b + e * c) / det;
    const double dy = (-2 * d * c + e * b) / det;
    if (fabs(dy) <= 1 && fabs(dx) <= 1) {
      fit.row_offset = dy;
      fit.col_offset = dx;
      fit.refined = true;
      fit.used = SubpixelMethod::quadratic2d;
    }
    return fit;
  }
  double oy = 0, ox = 0;
  bool gy = false, gx = false;
  const bool y_ok = peak_detail::fit_axis(n[0][1], n[1][1], n[2][1], method, oy, gy);
  const bool x_ok = peak_detail::fit_axis(n[1][0], n[1][1], n[1][2], method, ox, gx);
  if (y_ok && x_ok && fabs(oy) <= 1 && fabs(ox) <= 1) {
    fit.row_offset = oy;
    fit.col_offset = ox;
    fit.refined = true;
    fit.used = (gy && gx) ? SubpixelMethod::gaussian : SubpixelMethod::parabolic;
  }
  return fit;
}

// The engine's peak output: per (left, right) pair one row of kPeakFields floats,
//   [0] row, [1] col   integer position of the maximum of the valid-mode surface (first in
//                      row-major order on ties; the template's top-left corner in the window)
//   [2] value          the surface value there (ZNCC in [-1, 1] for norm zncc)
//   [3] row_offset, [4] col_offset   sub-pixel offsets (px) from refine_peak; 0 when not refined
//   [5] fit            the SubpixelMethod used (0 = none: not refined, on the border or no fit)
// A peak on the surface's border is not refined (no 3x3 neighbourhood).
inline constexpr int kPeakFields = 6;

XCORR_HD inline void encode_peak(float* out, int row, int col, float value, const PeakFit& fit) {
  out[0] = static_cast<float>(row);
  out[1] = static_cast<float>(col);
  out[2] = value;
  out[3] = static_cast<float>(fit.row_offset);
  out[4] = static_cast<float>(fit.col_offset);
  out[5] = static_cast<float>(fit.refined ? static_cast<int>(fit.used) : 0);
}

}  // namespace xcorr
