// Correlation peak: the integer maximum and its sub-pixel refinement (the fits and the packed
// record of the engine's peak output are in core/peak_fit.hpp, shared with the CUDA kernels).
// A peak on the border, or a fit whose offset leaves [-1, 1], is not refined (refined = false).
#pragma once

#include <optional>
#include <string_view>

#include "core/enum_labels.hpp"
#include "core/matrix.hpp"
#include "core/peak_fit.hpp"
#include "core/status.hpp"

namespace xcorr {

template <>
struct EnumLabels<SubpixelMethod> {
  static constexpr std::pair<SubpixelMethod, const char*> table[] = {
      {SubpixelMethod::none, "none"},
      {SubpixelMethod::parabolic, "parabolic"},
      {SubpixelMethod::gaussian, "gaussian"},
      {SubpixelMethod::quadratic2d, "quadratic2d"}};
};

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
Result<Peak> find_peak(MatrixView<const double> m, SubpixelMethod method);

// A peak output record (kPeakFields floats, core/peak_fit.hpp) as a Peak.
Peak decode_peak(const float* record);
// The record of a Peak (value rounded to float).
void encode_peak(float* record, const Peak& p);

}  // namespace xcorr
