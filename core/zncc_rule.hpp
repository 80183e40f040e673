// The one ZNCC formula and flatness rule, shared by the CPU variants and the CUDA kernels
// (plain C++; XCORR_HD marks it __host__ __device__ when compiled by nvcc).
//   zncc = numerator / sqrt(template_ss * window_ss), clamped to [-1, 1]
//   numerator   = sum(T' * S) over the window, T' = T - mean(T)
//   template_ss = sum(T'^2);   window_ss = sum((S - window mean)^2)
// Flat template: template_ss <= kFlatRelative * sum(T^2). Flat window: window_ss <=
// kFlatRelative * area * (variance of the whole search matrix). Flat gives 0 (as OpenCV).
#pragma once

#include <cmath>

#include "core/hd.hpp"

namespace xcorr {

inline constexpr double kFlatRelative = 1e-10;

XCORR_HD inline float zncc_from_sums(double numerator, double template_ss, bool template_flat,
                                     double window_ss, double area, double search_variance) {
  if (template_flat || window_ss <= kFlatRelative * area * search_variance) return 0.0f;
  double v = numerator / sqrt(template_ss * window_ss);
  v = v > 1.0 ? 1.0 : (v < -1.0 ? -1.0 : v);
  return static_cast<float>(v);
}

}  // namespace xcorr
