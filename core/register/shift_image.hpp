// A whole image moved by a constant sub-pixel shift: out(x, y) = in(x + dx, y + dy) (px), so a
// frame whose content moved by (dx, dy) from the reference comes back onto the reference. Cubic
// B-spline interpolation (Unser's prefilter, mirror boundaries), separable: the same 4 weights
// for every pixel of a row pass and of a column pass. Output pixels whose source lies outside
// the image's pixel centres [0, cols - 1] x [0, rows - 1] get `fill`.
#pragma once

#include "core/matrix.hpp"

namespace xcorr::reg {

void shift_image(MatrixView<const float> in, double dx, double dy, MatrixView<float> out,
                 float fill = 0);

}  // namespace xcorr::reg
