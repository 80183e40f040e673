#include "core/peak.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace xcorr {
namespace {

// f(y, x) sampled on a rows x cols grid.
template <class F>
Stack<float> sample(Index rows, Index cols, F f) {
  Stack<float> s(rows, cols, 1);
  for (Index y = 0; y < rows; ++y) {
    for (Index x = 0; x < cols; ++x)
      s[0](y, x) = static_cast<float>(f(static_cast<double>(y), static_cast<double>(x)));
  }
  return s;
}

TEST(Peak, ParabolicRecoversASeparableParabolaExactly) {
  const double py = 4.3, px = 6.8;
  const Stack<float> s = sample(9, 11, [&](double y, double x) {
    return 100 - (y - py) * (y - py) - 2 * (x - px) * (x - px);
  });
  const Peak p = find_peak(s[0], SubpixelMethod::parabolic).value();
  EXPECT_TRUE(p.refined);
  EXPECT_NEAR(p.sub_row(), py, 1e-4);
  EXPECT_NEAR(p.sub_col(), px, 1e-4);
}

TEST(Peak, GaussianRecoversAGaussianExactly) {
  const double py = 5.41, px = 3.62;
  const Stack<float> s = sample(10, 8, [&](double y, double x) {
    return std::exp(-((y - py) * (y - py) + (x - px) * (x - px)) / 3.0);
  });
  const Peak g = find_peak(s[0], SubpixelMethod::gaussian).value();
  EXPECT_EQ(g.used, SubpixelMethod::gaussian);
  EXPECT_NEAR(g.sub_row(), py, 1e-4);
  EXPECT_NEAR(g.sub_col(), px, 1e-4);
  const Peak q = find_peak(s[0], SubpixelMethod::parabolic).value();
  EXPECT_GT(std::abs(q.sub_row() - py), 1e-3);  // the parabola is biased on a Gaussian
}

TEST(Peak, Quadratic2dRecoversARotatedQuadraticExactly) {
  const double py = 3.3, px = 4.6;
  const Stack<float> s = sample(8, 9, [&](double y, double x) {
    const double a = y - py, b = x - px;
    return 50 - 2 * a * a - 1.5 * b * b - 1.2 * a * b;
  });
  const Peak p = find_peak(s[0], SubpixelMethod::quadratic2d).value();
  ASSERT_TRUE(p.refined);
  EXPECT_NEAR(p.sub_row(), py, 1e-4);
  EXPECT_NEAR(p.sub_col(), px, 1e-4);
}

TEST(Peak, GaussianFallsBackToParabolicOnNonPositiveValues) {
  const Stack<float> s = sample(
      5, 5, [](double y, double x) { return 1 - (y - 2.2) * (y - 2.2) - (x - 1.9) * (x - 1.9); });
  const Peak p = find_peak(s[0], SubpixelMethod::gaussian).value();
  EXPECT_TRUE(p.refined);
  EXPECT_EQ(p.used, SubpixelMethod::parabolic);
  EXPECT_NEAR(p.sub_row(), 2.2, 1e-4);
}

TEST(Peak, BorderPeaksAreNotRefinedAndNanIsIgnored) {
  Stack<float> s(4, 4, 1, 0.0f);
  s[0](0, 2) = 5;
  s[0](3, 3) = std::numeric_limits<float>::quiet_NaN();
  const Peak p = find_peak(s[0], SubpixelMethod::parabolic).value();
  EXPECT_EQ(p.row, 0);
  EXPECT_EQ(p.col, 2);
  EXPECT_FALSE(p.refined);
  EXPECT_EQ(p.row_offset, 0.0);
}

TEST(Peak, EmptyOrAllNanIsAnError) {
  EXPECT_FALSE(find_peak(Stack<float>(0, 0, 1).view()[0], SubpixelMethod::none).is_ok());
  const Stack<float> nan(2, 2, 1, std::numeric_limits<float>::quiet_NaN());
  EXPECT_FALSE(find_peak(nan[0], SubpixelMethod::none).is_ok());
}

}  // namespace
}  // namespace xcorr

namespace xcorr {
namespace {

TEST(Peak, FindPeakOnFloat64MatchesFloat32) {
  const Stack<float> s = sample(9, 11, [](double y, double x) {
    return 10 - (y - 4.3) * (y - 4.3) - 0.5 * (x - 6.6) * (x - 6.6);
  });
  Stack<double> d(9, 11, 1);
  for (Index y = 0; y < 9; ++y) {
    for (Index x = 0; x < 11; ++x) d[0](y, x) = s[0](y, x);
  }
  const Peak a = find_peak(s[0], SubpixelMethod::quadratic2d).value();
  const Peak b = find_peak(MatrixView<const double>(d[0]), SubpixelMethod::quadratic2d).value();
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.col, b.col);
  EXPECT_NEAR(a.sub_row(), b.sub_row(), 1e-9);
  EXPECT_NEAR(a.sub_col(), b.sub_col(), 1e-9);
}

TEST(Peak, RecordRoundTrips) {
  Peak p;
  p.row = 17;
  p.col = 1234;
  p.value = 0.875;
  p.row_offset = -0.25;
  p.col_offset = 0.5;
  p.refined = true;
  p.used = SubpixelMethod::gaussian;
  float record[kPeakFields];
  encode_peak(record, p);
  const Peak q = decode_peak(record);
  EXPECT_EQ(q.row, 17);
  EXPECT_EQ(q.col, 1234);
  EXPECT_EQ(q.value, 0.875);
  EXPECT_EQ(q.row_offset, -0.25);
  EXPECT_EQ(q.col_offset, 0.5);
  EXPECT_TRUE(q.refined);
  EXPECT_EQ(q.used, SubpixelMethod::gaussian);
  p.refined = false;
  encode_peak(record, p);
  EXPECT_EQ(record[5], 0.0f) << "an unrefined peak records fit 0";
}

}  // namespace
}  // namespace xcorr
