// Bicubic B-spline interpolation: it passes through every pixel, reproduces a smooth band-limited
// image between pixels, and its gradient equals the derivative of its own values.
#include "core/dic/bspline.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace xcorr::dic {
namespace {

double smooth(double x, double y) {
  return 100 + 20 * std::sin(0.3 * x + 0.1) * std::cos(0.23 * y - 0.4) +
         5 * std::sin(0.11 * x * 1.3 + 0.17 * y);
}

Stack<float> smooth_image(Index rows, Index cols) {
  Stack<float> s(rows, cols, 1);
  for (Index y = 0; y < rows; ++y)
    for (Index x = 0; x < cols; ++x)
      s[0](y, x) = static_cast<float>(smooth(static_cast<double>(x), static_cast<double>(y)));
  return s;
}

TEST(BSplineImage, PassesThroughEveryPixel) {
  const Stack<float> img = smooth_image(37, 41);
  const BSplineImage b(img[0]);
  for (Index y = 0; y < 37; ++y)
    for (Index x = 0; x < 41; ++x)
      ASSERT_NEAR(b.value(static_cast<double>(x), static_cast<double>(y)), img[0](y, x), 1e-4)
          << x << "," << y;
}

TEST(BSplineImage, ReproducesASmoothImageBetweenPixels) {
  const Stack<float> img = smooth_image(64, 64);
  const BSplineImage b(img[0]);
  double worst = 0;
  for (double y = 4.25; y < 59; y += 0.5)
    for (double x = 4.1; x < 59; x += 0.37)
      worst = std::max(worst, std::abs(b.value(x, y) - smooth(x, y)));
  EXPECT_LT(worst, 0.02) << "grey values, on an image of amplitude ~25";
}

TEST(BSplineImage, GradientIsTheDerivativeOfTheInterpolant) {
  const Stack<float> img = smooth_image(30, 30);
  const BSplineImage b(img[0]);
  const double e = 1e-5;
  for (double y = 0.3; y < 29; y += 1.7) {
    for (double x = 0.2; x < 29; x += 1.3) {
      double v = 0, gx = 0, gy = 0;
      b.value_gradient(x, y, v, gx, gy);
      EXPECT_NEAR(gx, (b.value(x + e, y) - b.value(x - e, y)) / (2 * e), 1e-4);
      EXPECT_NEAR(gy, (b.value(x, y + e) - b.value(x, y - e)) / (2 * e), 1e-4);
    }
  }
}

}  // namespace
}  // namespace xcorr::dic
