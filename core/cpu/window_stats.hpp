// Sums of a search matrix and of its squares over every h x w window, from float64 integral
// images. The matrix is shifted by its own mean first (ZNCC does not change, precision does).
#pragma once

#include <vector>

#include "core/cpu/zncc_math.hpp"

namespace xcorr::cpu {

class WindowStats {
 public:
  // `s` is the search matrix; windows are t_rows x t_cols.
  WindowStats(MatrixView<const float> s, Index t_rows, Index t_cols);

  double mean() const { return mv_.mean; }          // of the whole matrix
  double variance() const { return mv_.variance; }  // of the whole matrix
  // sum((S - window mean)^2) over the window whose top-left corner is (k, l).
  double window_ss(Index k, Index l) const;

 private:
  double at(const std::vector<double>& v, Index r, Index c) const { return v[r * (cols_ + 1) + c]; }
  double box(const std::vector<double>& v, Index k, Index l) const {
    return at(v, k + t_rows_, l + t_cols_) - at(v, k, l + t_cols_) - at(v, k + t_rows_, l) +
           at(v, k, l);
  }
  MeanVariance mv_;
  Index cols_ = 0, t_rows_ = 0, t_cols_ = 0;
  std::vector<double> sum_, sum_sq_;  // (rows+1) x (cols+1) integral images of S - mean
};

// Turns numerators sum(T' * (S - mean)) in rows [r0, r1) of `out` into ZNCC values.
inline void normalize_zncc_rows(const WindowStats& stats, const ZeroMeanTemplate& t,
                                Shape template_shape, MatrixView<float> out, Index r0, Index r1) {
  const double area = static_cast<double>(template_shape.area());
  for (Index k = r0; k < r1; ++k) {
    for (Index l = 0; l < out.cols; ++l) {
      out(k, l) = zncc_finish(out(k, l), t, stats.window_ss(k, l), area, stats.variance());
    }
  }
}

inline WindowStats::WindowStats(MatrixView<const float> s, Index t_rows, Index t_cols)
    : mv_(mean_variance(s)), cols_(s.cols), t_rows_(t_rows), t_cols_(t_cols) {
  const auto n = static_cast<std::size_t>((s.rows + 1) * (s.cols + 1));
  sum_.assign(n, 0.0);
  sum_sq_.assign(n, 0.0);
  for (Index r = 0; r < s.rows; ++r) {
    double row_sum = 0, row_sq = 0;
    for (Index c = 0; c < s.cols; ++c) {
      const double v = s(r, c) - mv_.mean;
      row_sum += v;
      row_sq += v * v;
      sum_[(r + 1) * (cols_ + 1) + c + 1] = sum_[r * (cols_ + 1) + c + 1] + row_sum;
      sum_sq_[(r + 1) * (cols_ + 1) + c + 1] = sum_sq_[r * (cols_ + 1) + c + 1] + row_sq;
    }
  }
}

inline double WindowStats::window_ss(Index k, Index l) const {
  const double n = static_cast<double>(t_rows_ * t_cols_);
  const double sum = box(sum_, k, l);
  return std::max(0.0, box(sum_sq_, k, l) - sum * sum / n);
}

}  // namespace xcorr::cpu
