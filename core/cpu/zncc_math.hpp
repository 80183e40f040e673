// ZNCC arithmetic shared by every CPU variant, so that all of them agree on what "flat" means.
//   zncc = sum(T' * S) / sqrt(sum(T'^2) * sum((S - mean_window(S))^2)),  T' = T - mean(T)
// A template is flat when sum(T'^2) <= kFlatRelative * sum(T^2); a window is flat when its
// variance <= kFlatRelative * (variance of the whole search matrix). Flat gives 0 (as OpenCV).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/matrix.hpp"

namespace xcorr::cpu {

inline constexpr double kFlatRelative = 1e-10;

struct ZeroMeanTemplate {
  std::vector<float> values;  // T - mean(T), row-major h x w (contiguous)
  double sum_squares = 0;     // sum((T - mean)^2), in float64
  bool flat = false;
};

inline ZeroMeanTemplate make_zero_mean_template(MatrixView<const float> t) {
  double sum = 0, sum_sq = 0;
  for (Index r = 0; r < t.rows; ++r) {
    for (Index c = 0; c < t.cols; ++c) sum += t(r, c);
  }
  const double mean = sum / static_cast<double>(t.rows * t.cols);
  ZeroMeanTemplate z;
  z.values.reserve(static_cast<std::size_t>(t.rows * t.cols));
  for (Index r = 0; r < t.rows; ++r) {
    for (Index c = 0; c < t.cols; ++c) {
      const double d = t(r, c) - mean;
      z.values.push_back(static_cast<float>(d));
      z.sum_squares += d * d;
      sum_sq += static_cast<double>(t(r, c)) * t(r, c);
    }
  }
  z.flat = z.sum_squares <= kFlatRelative * sum_sq;
  return z;
}

// Mean and variance of a whole matrix, two-pass in float64.
struct MeanVariance {
  double mean = 0;
  double variance = 0;
};
inline MeanVariance mean_variance(MatrixView<const float> m) {
  double sum = 0;
  for (Index r = 0; r < m.rows; ++r) {
    for (Index c = 0; c < m.cols; ++c) sum += m(r, c);
  }
  const double n = static_cast<double>(m.rows * m.cols);
  MeanVariance mv{sum / n, 0};
  for (Index r = 0; r < m.rows; ++r) {
    for (Index c = 0; c < m.cols; ++c) mv.variance += (m(r, c) - mv.mean) * (m(r, c) - mv.mean);
  }
  mv.variance /= n;
  return mv;
}

// numerator = sum(T' * S) over the window; window_ss = sum((S - window mean)^2).
inline float zncc_finish(double numerator, const ZeroMeanTemplate& t, double window_ss,
                         double window_area, double search_variance) {
  if (t.flat || window_ss <= kFlatRelative * window_area * search_variance) return 0.0f;
  const double v = numerator / std::sqrt(t.sum_squares * window_ss);
  return static_cast<float>(std::clamp(v, -1.0, 1.0));
}

}  // namespace xcorr::cpu
