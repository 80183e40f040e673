// A whole image resampled through an affine map: out(x, y) = in(m(x, y)) (px), so that a frame
// whose content moved by the transform m from the reference comes back onto the reference.
// Cubic B-spline interpolation (the prefilter of core/dic/icgn_math.hpp, point-symmetric
// boundaries); output pixels whose source lies outside the image's pixel centres
// [0, cols - 1] x [0, rows - 1] get `fill`. A row at a time, as ShiftedImage does for
// translations (shift_image.hpp).
#pragma once

#include <vector>

#include "core/matrix.hpp"
#include "core/register/affine.hpp"

namespace xcorr::reg {

// The cubic B-spline interpolation coefficients of `in` (rows x cols, row-major), its
// non-finite pixels taking `missing` first (the prefilter of icgn_math.hpp's BSpline<3>, each
// pass run on every line of the image at once, in cache order).
std::vector<float> cubic_coefficients(MatrixView<const float> in, float missing = 0);

class WarpedImage {
 public:
  // Non-finite input pixels take `missing` before interpolation (missing_pixels.hpp); with
  // `mark_missing`, output pixels whose source lies within 1 px along both axes of a non-finite
  // input pixel are NaN (what the filled values were interpolated from is missing there). `in`
  // must outlive the object when mark_missing is set.
  WarpedImage(MatrixView<const float> in, const Affine& map, float missing = 0,
              bool mark_missing = false);
  // Row r (0 <= r < rows) into out[0, cols).
  void row(Index r, float* out, float fill = 0) const;

 private:
  MatrixView<const float> in_;
  Affine map_;
  bool mark_ = false;
  std::vector<float> c_;  // rows x cols interpolation coefficients
};

// The image of `out`'s size: out(x, y) = in(m(x, y)), `fill` where no source.
void warp_image(MatrixView<const float> in, const Affine& map, MatrixView<float> out,
                float fill = 0);

}  // namespace xcorr::reg
