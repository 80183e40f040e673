// The sub-pixel start of IC-GN from a point's integer guess, CPU and GPU alike: the ZNCC at the
// 3 x 3 displacements around the integer maximum, from the point's own pixels, refined by a
// least-squares quadratic fit (core/peak_fit.hpp, quadratic2d). IC-GN then needs fewer
// iterations (2.35 instead of 3.23 per point on the DIC benchmark: 2048^2, subset 31, step 4)
// and converges to the same field within its threshold.
//  - Not refined (offsets 0) where a neighbour leaves the point's search window (the maximum on
//    the range's border), or where the fit has no maximum within 1 px.
//  - Every value depends only on the point's pixels and its integer maximum, not on the search
//    that found it (any guess method; any split of a frame among GPUs).
//  - Sums are taken less the template's and the frame's pixel at the subset centre (well
//    conditioned in float32 on the GPU); a flat subset (sum of squares about its mean <=
//    kFlatRelative times that about the offset) gives ZNCC 0.
// The CPU's fit_guess sums in float64; the GPU's (gpu/dic_guess_fit.cuh) in float32 per lane
// and float64 across lanes, then the same neighbour_zncc and refine_peak.
#pragma once

#include <cmath>

#include "core/dic/guess_strips.hpp"
#include "core/hd.hpp"
#include "core/matrix.hpp"
#include "core/peak_fit.hpp"
#include "core/zncc_rule.hpp"

namespace xcorr::dic {

inline constexpr SubpixelMethod kGuessFit = SubpixelMethod::quadratic2d;

// The ZNCC of n template values t and window values w (each less any offset) from their sums:
// st = sum t, stt = sum t^2, sw, sww likewise, stw = sum t w. 0 when either side is flat. The
// formula of core/zncc_rule.hpp, but not its zncc_from_sums: that returns float32 (the fit wants
// the float64 value) and its flat-window rule needs the whole search window's variance, which
// the fit does not read; here a side is flat when its sum of squares about its mean is at most
// kFlatRelative times that about the offset.
XCORR_HD inline double neighbour_zncc(double n, double st, double stt, double sw, double sww,
                                      double stw) {
  const double tss = stt - st * st / n, wss = sww - sw * sw / n;
  if (!(tss > kFlatRelative * stt) || !(wss > kFlatRelative * sww)) return 0;
  const double z = (stw - st * sw / n) / sqrt(tss * wss);
  return z > 1 ? 1 : (z < -1 ? -1 : z);
}

// Whether the maximum (u, v) of point p's search (window x window px, subset S) has its 3 x 3
// neighbours inside the search window.
XCORR_HD inline bool fit_possible(const GuessWindow& p, int u, int v, int S, int window) {
  const int ix = p.x + u - S / 2 - p.wx, iy = p.y + v - S / 2 - p.wy, L = window - S + 1;
  return ix >= 1 && iy >= 1 && ix + 1 < L && iy + 1 < L;
}

// The offsets (px) to add to the integer maximum (u, v) of point p (float64 sums).
PeakFit fit_guess(MatrixView<const float> ref, MatrixView<const float> def, const GuessWindow& p,
                  int u, int v, int subset, int window);

}  // namespace xcorr::dic
