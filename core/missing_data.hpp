// Missing data: non-finite pixels (NaN, Inf: after background subtraction, flat-fielding or
// stitching) are not numbers to measure with. One convention for registration, DIC and tracking:
// what is measured has them filled with the image's finite mean (so that filters and transforms
// stay finite), and a result whose pixels touch one is not reported.
#pragma once

#include <vector>

#include "core/matrix.hpp"

namespace xcorr {

// Whether every pixel of `image` is finite (not NaN or Inf): the floats' exponent bits, in
// chunks of rows over the host's threads for large images.
bool all_finite(MatrixView<const float> image);

// Fills `image`'s non-finite pixels with the mean of its finite ones (0 when none is finite) and
// returns where they were, 1 each in row-major order; empty when there were none.
std::vector<char> fill_missing_with_mean(MatrixView<float> image);

// Whether the pixels [floor(x0), ceil(x1)] x [floor(y0), ceil(y1)] (clipped to rows x cols)
// hold a missing one of `missing` (fill_missing_with_mean's; empty: none). A non-finite corner
// touches.
bool touches_missing(const std::vector<char>& missing, Index rows, Index cols, double x0, double y0,
                     double x1, double y1);

}  // namespace xcorr
