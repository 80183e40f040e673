// Non-finite pixels (NaN, +-Inf: after background subtraction, flat-fielding or stitching) are
// missing data, not numbers. Registration measures on the finite pixels: the missing ones take
// the mean of the finite ones, so that once each image loses its mean (phase_correlation.hpp)
// they add nothing to the cross-power spectrum; the corrected stack keeps them missing (NaN at
// the moved place). An image that cannot be registered is named with the reason.
#pragma once

#include <string>

#include "core/matrix.hpp"

namespace xcorr::reg {

// Finite values of larger magnitude overflow the float32 transforms (their squares pass 1e38).
inline constexpr double kMaxRegistrableValue = 1e18;
// An image needs at least this share of finite pixels to be registered.
inline constexpr double kMinFiniteShare = 0.5;

struct MissingPixels {
  long missing = 0;  // non-finite pixels, now holding the finite mean
  std::string why;   // why the image cannot be registered; "" when it can
};

// Fills `image`'s non-finite pixels with the mean of its finite pixels and says whether what is
// left can be registered: at least kMinFiniteShare finite, not flat (max > min), every finite
// value within kMaxRegistrableValue. `why` reads after "frame 3 ", e.g. "is flat (every pixel
// 0)".
MissingPixels fill_missing(MatrixView<float> image);

// The mean of `image`'s finite pixels (0 when none); `missing` says whether any pixel is not.
float finite_mean(MatrixView<const float> image, char& missing);

// Marks as NaN the pixels of row r of the moved image (shift_image(original, dx, dy)) whose
// source point (x + dx, r + dy) lies within 1 px along both axes of a non-finite pixel of
// `original`: what the filled values were interpolated from is missing there.
void mark_missing_row(MatrixView<const float> original, double dx, double dy, Index r, float* row);

}  // namespace xcorr::reg
