// spline_row (IC-GN's value pass) against the float64 evaluation bspline_value<3, double> on fresh
// random coefficients: odd, prime and tiny sizes, runs at any angle that start inside, cross the
// border band and leave the image, and a poisoned output of which only the n values asked for
// change.
#include "core/register/spline_row.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/dic/icgn_math.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::reg {
namespace {

TEST(SplineRow, MatchesTheFloat64SplineInsideOnTheBorderAndPastIt) {
  std::mt19937_64 g(testing::run_seed() ^ 0x5b1);
  std::uniform_real_distribution<double> u(0, 1);
  for (const Shape s : {Shape{1, 1}, Shape{2, 3}, Shape{4, 4}, Shape{5, 7}, Shape{13, 17},
                        Shape{31, 97}, Shape{127, 61}, Shape{256, 255}}) {
    SCOPED_TRACE(to_string(s));
    // Grey values around 1000 with a contrast of 100, as a microscope's.
    std::vector<float> c(static_cast<std::size_t>(s.rows * s.cols));
    for (float& v : c) v = static_cast<float>(1000 + 100 * (u(g) - 0.5));
    const auto rows = static_cast<double>(s.rows), cols = static_cast<double>(s.cols);
    for (int run = 0; run < 40; ++run) {
      // A run from a random point (up to 3 px past the image) in a random direction, with a step
      // of 0.5 to 1.5 px (a scale), long enough to cross the image.
      const double angle = 2 * 3.14159265358979 * u(g), step = 0.5 + u(g);
      const double bx = -3 + (cols + 6) * u(g), by = -3 + (rows + 6) * u(g);
      const double mx = step * std::cos(angle), my = step * std::sin(angle);
      const double s0 = -10 * u(g);
      const Index n = 1 + static_cast<Index>((rows + cols) * u(g));
      constexpr Index kPad = 3;
      std::vector<float> out(static_cast<std::size_t>(n + 2 * kPad),
                             std::numeric_limits<float>::quiet_NaN());
      spline_row(c.data(), s.rows, s.cols, bx, mx, by, my, s0, n, out.data() + kPad);
      for (Index j = 0; j < n; ++j) {
        const double t = s0 + static_cast<double>(j);
        const double x = bx + mx * t, y = by + my * t;
        const double want = dic::math::bspline_value<3, double>(c.data(), s.rows, s.cols, x, y);
        // Float sums of 16 terms near 1000 (the continuation past the border doubles them).
        ASSERT_NEAR(out[static_cast<std::size_t>(j + kPad)], want, 2e-3)
            << "run " << run << " point " << j << " at (" << x << ", " << y << ")";
      }
      for (Index j = 0; j < kPad; ++j) {
        EXPECT_TRUE(std::isnan(out[static_cast<std::size_t>(j)]));
        EXPECT_TRUE(std::isnan(out[static_cast<std::size_t>(n + kPad + j)]));
      }
    }
  }
}

}  // namespace
}  // namespace xcorr::reg
