// Correlation peak: the integer maximum and its sub-pixel refinement.
//  - parabolic:   3-point parabola per axis, offset = (f- - f+) / (2 (f- - 2 f0 + f+))
//  - gaussian:    the same on ln f (needs f > 0 at the three points; otherwise parabolic is used
//                 for that axis and `used` says so)
//  - quadratic2d: least-squares fit of a + bx + cy + dx^2 + exy + fy^2 to the 3x3 neighbourhood,
//                 peak where the gradient vanishes (needs a maximum: negative-definite Hessian)
// A peak on the border, or a fit whose offset leaves [-1, 1], is not refined (refined = false).
#pragma once

#include <optional>
#include <string_view>

#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr {

enum class SubpixelMethod { none, parabolic, gaussian, quadratic2d };
const char* to_string(SubpixelMethod m);
std::optional<SubpixelMethod> parse_subpixel_method(std::string_view s);

struct Peak {
  Index row = 0;  // integer position of the maximum
  Index col = 0;
  double value = 0;       // value at (row, col)
  double row_offset = 0;  // sub-pixel offsets (px) to add to row/col
  double col_offset = 0;
  bool refined = false;
  SubpixelMethod used = SubpixelMethod::none;
  double sub_row() const { return static_cast<double>(row) + row_offset; }
  double sub_col() const { return static_cast<double>(col) + col_offset; }
};

// The largest finite value (first in row-major order on ties), refined with `method`.
// Fails on an empty matrix or one without a finite value.
Result<Peak> find_peak(MatrixView<const float> m, SubpixelMethod method);

}  // namespace xcorr
