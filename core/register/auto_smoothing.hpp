// The smoothing of a reference's gradients for the transform fit (transform_fit.hpp, FitOptions::
// smoothing), chosen from the reference itself. IC-GN's steepest-descent images come from the
// reference's gradients; where the reference's spectrum is below its noise they carry mostly
// noise, so the best weighting keeps the frequencies where signal beats noise and drops the rest
// (a Wiener filter's shape). A Gaussian of sigma s halves frequency f_c at s = sqrt(ln 2 / 2) /
// (pi f_c); f_c is where the signal's power in the reference's radially averaged power spectrum
// falls to kCutoffSignalToNoise of the noise's.
#pragma once

#include "core/matrix.hpp"

namespace xcorr::reg {

inline constexpr double kMinAutoSmoothing = 0.5;  // px
inline constexpr double kMaxAutoSmoothing = 3;    // px
inline constexpr Index kAutoSmoothingSide = 256;  // px: the centre crop the spectrum is taken on
// The signal's power over the noise's at f_c: chosen on the pystackreg comparison's noisy stacks
// (docs/registration.md; at 1, ihc.png took more smoothing than suits it: 0.0043 px at 1 px
// against 0.0041 px at 0.5-0.64 px).
inline constexpr double kCutoffSignalToNoise = 0.4;

// The Gaussian sigma (px, within [kMinAutoSmoothing, kMaxAutoSmoothing]) for `image`'s
// gradients: on the centre crop of at most kAutoSmoothingSide px a side (mean removed, Hann
// window), the noise's power N is the median power over 0.42 < |f| <= 0.5 cycles/px over ln 2 (a
// noise power's median is ln 2 of its mean); f_c is the first ring (0.01 cycles/px wide, or 5
// frequency samples on a crop under 500 px a side) from 0.02 on where the mean power over it and
// the next ring is under (1 + kCutoffSignalToNoise) N (0.5 when none is). Measured
// (docs/registration.md, 384^2 frames with 2 % noise): 0.69 px on ihc.png (a textured section), 2.4
// px on cell.png (a smooth phase image); kMinAutoSmoothing on both noise-free.
// Finite images (after fill_missing); kMinAutoSmoothing under 4 px a side.
double auto_smoothing(MatrixView<const float> image);

}  // namespace xcorr::reg
