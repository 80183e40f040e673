// B-spline interpolation (cubic and quintic): it passes through every pixel, reproduces a smooth
// band-limited image between pixels, its gradient equals the derivative of its own values, and
// the Gaussian prefilter is the sampled Gaussian with mirror boundaries.
#include "core/dic/bspline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

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

constexpr Interpolation kBoth[] = {Interpolation::cubic, Interpolation::quintic};

TEST(BSplineImage, PassesThroughEveryPixel) {
  const Stack<float> img = smooth_image(37, 41);
  for (const Interpolation in : kBoth) {
    const BSplineImage b(img[0], in);
    for (Index y = 0; y < 37; ++y)
      for (Index x = 0; x < 41; ++x)
        ASSERT_NEAR(b.value(static_cast<double>(x), static_cast<double>(y)), img[0](y, x), 1e-4)
            << label(in) << " " << x << "," << y;
  }
}

// Away from the border the quintic spline is ~50x more accurate than the cubic; within a few px
// of it both are limited by the mirror boundary (the image is not symmetric there), the wider
// quintic more.
TEST(BSplineImage, ReproducesASmoothImageBetweenPixels) {
  const Stack<float> img = smooth_image(64, 64);
  for (const Interpolation in : kBoth) {
    const BSplineImage b(img[0], in);
    double inner = 0, band = 0;
    for (double y = 4.25; y < 59; y += 0.5)
      for (double x = 4.1; x < 59; x += 0.37) {
        const double e = std::abs(b.value(x, y) - smooth(x, y));
        double& worst = x > 16 && x < 47 && y > 16 && y < 47 ? inner : band;
        worst = std::max(worst, e);
      }
    std::printf(
        "%s: worst error %.5f inside, %.5f within 16 px of the border (grey values, "
        "amplitude ~25)\n",
        label(in), inner, band);
    EXPECT_LT(inner, in == Interpolation::quintic ? 5e-5 : 2e-3) << label(in);
    EXPECT_LT(band, in == Interpolation::quintic ? 0.08 : 0.02) << label(in);
  }
}

TEST(BSplineImage, TheGaussianPrefilterSmoothsWithMirrorBoundaries) {
  Stack<float> img(9, 11, 1);
  for (Index y = 0; y < 9; ++y)
    for (Index x = 0; x < 11; ++x) img[0](y, x) = static_cast<float>((x * 7 + y * 13) % 17);
  const double sigma = 0.8;
  const std::vector<double> s = smoothed(img[0], sigma);
  const auto mirror = [](Index i, Index n) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; };
  for (Index y = 0; y < 9; ++y)
    for (Index x = 0; x < 11; ++x) {
      double sum = 0, norm = 0;
      for (int j = -3; j <= 3; ++j)
        for (int i = -3; i <= 3; ++i) {
          const double w = std::exp(-(i * i + j * j) / (2 * sigma * sigma));
          sum += w * img[0](mirror(y + j, 9), mirror(x + i, 11));
          norm += w;
        }
      EXPECT_NEAR(s[static_cast<std::size_t>(y * 11 + x)], sum / norm, 1e-9) << x << "," << y;
    }
  // sigma 0: the image itself.
  EXPECT_EQ(smoothed(img[0], 0)[17], img[0](1, 6));
}

TEST(BSplineImage, GradientIsTheDerivativeOfTheInterpolant) {
  const Stack<float> img = smooth_image(30, 30);
  for (const Interpolation in : kBoth) {
    const BSplineImage b(img[0], in, 0.7);
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
}

}  // namespace
}  // namespace xcorr::dic
