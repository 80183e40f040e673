// Hot pixels: what registration and tracking measure on, not what they write.
#pragma once

#include "core/matrix.hpp"

namespace xcorr {

// Hot pixels (a camera's stuck or saturated pixels, cosmic rays: single pixels far above all
// their neighbours) pull phase correlation towards no shift and add noise to it (0.2 px RMS on a
// real brightfield channel with 12 per 128^2 frame, against 0.005 px without; docs/
// registration.md); ZNCC template matching suffers alike. For measuring only, a pixel above the
// image's 99.9th percentile (estimated on a subsample) whose 8 neighbours all stay below half way
// from the median to it takes their largest value. Finite images (after fill_missing). Returns how
// many were replaced. The corrected stack keeps every pixel as it was.
long suppress_hot_pixels(MatrixView<float> image);

}  // namespace xcorr
