// B-spline interpolation (cubic and quintic): it passes through every pixel, reproduces a smooth
// band-limited image between pixels, its gradient equals the derivative of its own values, the
// Gaussian prefilter is the sampled Gaussian, and past the border both continue the image
// point-symmetrically (a linear ramp continues as itself), also through coefficients padded with
// their continuation (the GPU IC-GN's frame).
#include "core/dic/bspline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "core/dic/icgn_math.hpp"

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
// of it both are limited by the point-symmetric continuation (the image is not odd about its
// border either).
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
    EXPECT_LT(band, 0.004) << label(in);
  }
}

TEST(BSplineImage, TheGaussianPrefilterSmoothsWithPointSymmetricBoundaries) {
  Stack<float> img(9, 11, 1);
  for (Index y = 0; y < 9; ++y)
    for (Index x = 0; x < 11; ++x) img[0](y, x) = static_cast<float>((x * 7 + y * 13) % 17);
  const double sigma = 0.8;
  const std::vector<double> s = smoothed(img[0], sigma);
  // The image continued: I(-k) = 2 I(0) - I(k) and I(n - 1 + k) = 2 I(n - 1) - I(n - 1 - k),
  // rows then columns.
  std::function<double(Index, Index)> at = [&](Index y, Index x) -> double {
    if (y < 0) return 2 * at(0, x) - at(-y, x);
    if (y > 8) return 2 * at(8, x) - at(16 - y, x);
    if (x < 0) return 2 * at(y, 0) - at(y, -x);
    if (x > 10) return 2 * at(y, 10) - at(y, 20 - x);
    return img[0](y, x);
  };
  for (Index y = 0; y < 9; ++y)
    for (Index x = 0; x < 11; ++x) {
      double sum = 0, norm = 0;
      for (int j = -3; j <= 3; ++j)
        for (int i = -3; i <= 3; ++i) {
          const double w = std::exp(-(i * i + j * j) / (2 * sigma * sigma));
          sum += w * at(y + j, x + i);
          norm += w;
        }
      EXPECT_NEAR(s[static_cast<std::size_t>(y * 11 + x)], sum / norm, 1e-9) << x << "," << y;
    }
  // sigma 0: the image itself.
  EXPECT_EQ(smoothed(img[0], 0)[17], img[0](1, 6));
}

// A linear ramp continues as itself past the border, smoothed or not: the values and gradients
// a border subset samples within the border pixels' outer halves (math::inside_sampling) are the
// ramp's. The whole-sample mirror this replaced gave I(-0.5) = I(0.5), 0.7 off here.
TEST(BSplineImage, ContinuesALinearRampPastTheBorder) {
  constexpr Index kRows = 13, kCols = 17;
  const auto ramp = [](double x, double y) { return 3 + 0.7 * x - 0.4 * y; };
  Stack<float> img(kRows, kCols, 1);
  for (Index y = 0; y < kRows; ++y)
    for (Index x = 0; x < kCols; ++x)
      img[0](y, x) = static_cast<float>(ramp(static_cast<double>(x), static_cast<double>(y)));
  for (const Interpolation in : kBoth)
    for (const double prefilter : {0.0, 0.6}) {
      const BSplineImage b(img[0], in, prefilter);
      double worst = 0;
      for (double y = -0.5; y <= kRows - 0.5; y += 0.25)
        for (double x = -0.5; x <= kCols - 0.5; x += 0.3) {
          double v = 0, gx = 0, gy = 0;
          b.value_gradient(x, y, v, gx, gy);
          worst = std::max({worst, std::abs(v - ramp(x, y)), std::abs(b.value(x, y) - ramp(x, y)),
                            std::abs(gx - 0.7), std::abs(gy + 0.4)});
        }
      EXPECT_LT(worst, 2e-5) << label(in) << " prefilter " << prefilter;
    }
}

TEST(BSplineImage, GradientIsTheDerivativeOfTheInterpolant) {
  const Stack<float> img = smooth_image(30, 30);
  for (const Interpolation in : kBoth) {
    const BSplineImage b(img[0], in, 0.7);
    const double e = 1e-5;
    for (double y = -0.45; y < 29.5; y += 1.7) {  // past the border too
      for (double x = -0.4; x < 29.5; x += 1.3) {
        double v = 0, gx = 0, gy = 0;
        b.value_gradient(x, y, v, gx, gy);
        EXPECT_NEAR(gx, (b.value(x + e, y) - b.value(x - e, y)) / (2 * e), 1e-4);
        EXPECT_NEAR(gy, (b.value(x, y + e) - b.value(x, y - e)) / (2 * e), 1e-4);
      }
    }
  }
}

// The GPU's IC-GN samples the frame through coefficients padded with pad continued ones
// (math::continued_coefficient) by the interior sum alone: within 2 px past the pixel centres
// (its reach) that must equal the spline's own continuation (math::bspline_value), on fresh random
// coefficients of odd and tiny sizes.
template <int D>
void expect_padded_equals_continued(long long rows, long long cols, std::mt19937& rng) {
  constexpr int kPad = 6, L = math::BSpline<D>::kLeft;
  std::uniform_real_distribution<double> grey(-500, 3000);
  std::vector<double> c(static_cast<std::size_t>(rows * cols));
  for (double& v : c) v = grey(rng);
  const long long pc = cols + 2 * kPad;
  std::vector<double> padded(static_cast<std::size_t>((rows + 2 * kPad) * pc));
  for (long long y = -kPad; y < rows + kPad; ++y)
    for (long long x = -kPad; x < cols + kPad; ++x)
      padded[static_cast<std::size_t>((y + kPad) * pc + x + kPad)] =
          math::continued_coefficient(c.data(), rows, cols, y, x);
  std::uniform_real_distribution<double> px(-2.0, static_cast<double>(cols) + 1.0),
      py(-2.0, static_cast<double>(rows) + 1.0);
  double worst = 0;
  for (int k = 0; k < 400; ++k) {
    const double x = px(rng), y = py(rng);
    const double fx = std::floor(x), fy = std::floor(y);
    const auto ix = static_cast<long long>(fx), iy = static_cast<long long>(fy);
    ASSERT_GE(std::min(ix, iy) - L + kPad, 0);
    const double want = math::bspline_value<D>(c.data(), rows, cols, x, y);
    const double got = math::bspline_interior_value<D, double>(padded.data(), pc, ix + kPad,
                                                               iy + kPad, x - fx, y - fy);
    worst = std::max(worst, std::abs(got - want) / 3000);
  }
  EXPECT_LT(worst, 1e-12) << "degree " << D << ", " << rows << " x " << cols;
}

TEST(BSplineImage, PaddedCoefficientsAreTheContinuation) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (const auto& [rows, cols] :
       {std::pair<long long, long long>{1, 1}, {2, 3}, {7, 5}, {13, 31}, {37, 41}}) {
    expect_padded_equals_continued<3>(rows, cols, rng);
    expect_padded_equals_continued<5>(rows, cols, rng);
  }
}

}  // namespace
}  // namespace xcorr::dic
