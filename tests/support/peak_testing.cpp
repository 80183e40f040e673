#include "tests/support/peak_testing.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/cpu/cpu_variants.hpp"
#include "core/peak.hpp"

namespace xcorr::testing {

::testing::AssertionResult peaks_near(StackView<const float> actual, const CorrelationProblem& p,
                                      double value_tol, double offset_tol, double tie) {
  if (p.request.output != Output::peak || actual.cols != kPeakFields || actual.rows != 1 ||
      actual.count != p.output_count())
    return ::testing::AssertionFailure() << "not a peak output of the request's shape";
  CorrelationProblem surface = p;
  surface.request.output = Output::surface;
  const Stack<double> surfaces = cpu::correlate_reference(surface);
  const Stack<double> ref = cpu::correlate_reference(p);
  std::ostringstream bad;
  int failures = 0;
  for (Index t = 0; t < p.output_count(); ++t) {
    const float* a = actual[t].row(0);
    const double* e = ref[t].row(0);
    std::ostringstream why;
    for (int k = 0; k < kPeakFields; ++k) {
      if (!std::isfinite(a[k])) why << " field " << k << " is not finite (" << a[k] << ");";
    }
    // The two largest values of the reference surface: a near tie makes either position right.
    double first = -INFINITY, second = -INFINITY;
    const MatrixView<const double> s = surfaces[t];
    for (Index r = 0; r < s.rows; ++r) {
      for (Index c = 0; c < s.cols; ++c) {
        const double v = s(r, c);
        if (v > first) {
          second = first;
          first = v;
        } else if (v > second) {
          second = v;
        }
      }
    }
    const double scale = std::max(1.0, std::abs(first));  // zncc: absolute; else relative
    const bool tied = first - second < tie * scale;
    if (!tied && (a[0] != e[0] || a[1] != e[1]))
      why << " position (" << a[0] << ", " << a[1] << "), expected (" << e[0] << ", " << e[1]
          << ");";
    if (std::abs(a[2] - e[2]) > value_tol * scale)
      why << " value " << a[2] << ", expected " << e[2] << ";";
    if (!tied && a[0] == e[0] && a[1] == e[1]) {
      if (a[5] != e[5]) why << " fit " << a[5] << ", expected " << e[5] << ";";
      if (std::abs(a[3] - e[3]) > offset_tol || std::abs(a[4] - e[4]) > offset_tol)
        why << " offsets (" << a[3] << ", " << a[4] << "), expected (" << e[3] << ", " << e[4]
            << ");";
    }
    if (!why.str().empty() && ++failures <= 5) bad << "\n  result " << t << ":" << why.str();
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << failures << " of " << p.output_count() << " peak records differ" << bad.str();
}

}  // namespace xcorr::testing
