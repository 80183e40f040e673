// Hot pixels: what registration and tracking measure on, not what they write.
#pragma once

#include "core/matrix.hpp"

namespace xcorr {

// Hot pixels (a camera's stuck or saturated pixels, cosmic rays: single pixels or small clusters
// far above everything around them) pull phase correlation towards no shift and add noise to it
// (0.2 px RMS on a real brightfield channel with 12 per 128^2 frame, against 0.005 px without;
// docs/registration.md); ZNCC template matching suffers alike. For measuring only, a pixel above
// the image's 99.9th percentile (estimated on a subsample) with at most kMaxHotNeighbours of its
// 8 neighbours at least half way from the median to it takes the largest of its other neighbours:
// clusters of up to 3 pixels go (two hot pixels side by side or diagonal, an L of three), while a
// bright object of 2 x 2 px or more, or its edge, stays. Decided on the image as it came. Finite
// images (after fill_missing). Returns how many were replaced. The corrected stack keeps every
// pixel as it was.
inline constexpr int kMaxHotNeighbours = 2;
long suppress_hot_pixels(MatrixView<float> image);

}  // namespace xcorr
