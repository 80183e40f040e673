// ZNCC helpers of the CPU variants; the formula and flatness rule are core/zncc_rule.hpp, shared
// with the GPU kernels, so that every variant agrees on what "flat" means.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/matrix.hpp"
#include "core/zncc_rule.hpp"

namespace xcorr::cpu {

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
  return zncc_from_sums(numerator, t.sum_squares, t.flat, window_ss, window_area, search_variance);
}

}  // namespace xcorr::cpu
