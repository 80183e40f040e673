// A whole image moved by a constant sub-pixel shift: out(x, y) = in(x + dx, y + dy) (px), so a
// frame whose content moved by (dx, dy) from the reference comes back onto the reference. Cubic
// B-spline interpolation (Unser's prefilter, mirror boundaries), separable: the same 4 weights
// for every pixel of a row pass and of a column pass. Output pixels whose source lies outside
// the image's pixel centres [0, cols - 1] x [0, rows - 1] get `fill`.
#pragma once

#include <vector>

#include "core/matrix.hpp"

namespace xcorr::reg {

void shift_image(MatrixView<const float> in, double dx, double dy, MatrixView<float> out,
                 float fill = 0);

// The same, a row at a time, so that a large frame is written without a second output frame:
// the construction interpolates along x and prefilters along y into one frame of its own; row()
// then gives any output row. Non-finite input pixels take `missing` before interpolation
// (registration's finite mean, missing_pixels.hpp), so that they do not spread.
class ShiftedImage {
 public:
  ShiftedImage(MatrixView<const float> in, double dx, double dy, float missing = 0);
  // Row r (0 <= r < rows) into out[0, cols).
  void row(Index r, float* out, float fill = 0) const;

 private:
  Index rows_ = 0, cols_ = 0, c0_ = 0, c1_ = 0, r0_ = 0, r1_ = 0, sy_ = 0;
  float fy_[4] = {};
  std::vector<float> tmp_;  // rows x cols: interpolated along x, prefiltered along y
};

}  // namespace xcorr::reg
