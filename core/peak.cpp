#include "core/peak.hpp"

#include <cmath>
#include <limits>

namespace xcorr {

const char* to_string(SubpixelMethod m) {
  return label(m);
}

std::optional<SubpixelMethod> parse_subpixel_method(std::string_view s) {
  return parse_label<SubpixelMethod>(s);
}

namespace {

template <class T>
Result<Peak> find_peak_in(MatrixView<const T> m, SubpixelMethod method) {
  if (m.rows < 1 || m.cols < 1)
    return Status{ErrorCode::invalid_argument, "cannot find a peak in an empty matrix"};
  Peak p;
  p.value = -std::numeric_limits<double>::infinity();
  bool found = false;
  for (Index r = 0; r < m.rows; ++r) {
    for (Index c = 0; c < m.cols; ++c) {
      const T v = m(r, c);
      if (std::isfinite(v) && (!found || v > p.value)) {
        p = Peak{r, c, static_cast<double>(v)};
        found = true;
      }
    }
  }
  if (!found)
    return Status{ErrorCode::invalid_argument, "the matrix has no finite value to find a peak in"};
  const bool interior = p.row > 0 && p.col > 0 && p.row + 1 < m.rows && p.col + 1 < m.cols;
  if (method == SubpixelMethod::none || !interior) return p;
  double n[3][3];
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) n[y][x] = static_cast<double>(m(p.row + y - 1, p.col + x - 1));
  }
  const PeakFit fit = refine_peak(n, method);
  p.row_offset = fit.row_offset;
  p.col_offset = fit.col_offset;
  p.refined = fit.refined;
  p.used = fit.used;
  return p;
}

}  // namespace

Result<Peak> find_peak(MatrixView<const float> m, SubpixelMethod method) {
  return find_peak_in(m, method);
}
Result<Peak> find_peak(MatrixView<const double> m, SubpixelMethod method) {
  return find_peak_in(m, method);
}

Peak decode_peak(const float* record) {
  Peak p;
  p.row = static_cast<Index>(record[0]);
  p.col = static_cast<Index>(record[1]);
  p.value = record[2];
  p.row_offset = record[3];
  p.col_offset = record[4];
  const int fit = static_cast<int>(record[5]);
  p.refined = fit != 0;
  p.used = static_cast<SubpixelMethod>(fit);
  return p;
}

void encode_peak(float* record, const Peak& p) {
  PeakFit fit;
  fit.row_offset = p.row_offset;
  fit.col_offset = p.col_offset;
  fit.refined = p.refined;
  fit.used = p.used;
  encode_peak(record, static_cast<int>(p.row), static_cast<int>(p.col), static_cast<float>(p.value),
              fit);
}

}  // namespace xcorr
