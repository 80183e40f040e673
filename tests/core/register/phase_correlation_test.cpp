// Phase correlation against shifts known exactly: a random image moved by a periodic (Fourier)
// shift computed in float64 by the test, on sizes odd, prime, tiny and not multiples of 32;
// integer shifts are exact, sub-pixel ones within 1 / upsample px; scikit-image's sign is the
// opposite of ours (checked against the convention, not against a copy of the code). And the
// image shift used to correct frames: integer shifts copy pixels, sub-pixel shifts of a smooth
// image match it, what has no source is filled.
#include "core/register/phase_correlation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "core/register/shift_image.hpp"
#include "tests/support/fourier_shift.hpp"

namespace xcorr::reg {
namespace {

using test::fourier_shift;
using test::random_image;

TEST(PhaseCorrelation, SubPixelShiftsOnOddPrimeAndSmallSizes) {
  struct Case {
    Index rows, cols;
    double dx, dy;
  };
  const Case cases[] = {{64, 64, 3.37, -5.81}, {61, 47, -2.5, 1.25},   {17, 13, 0.4, -0.3},
                        {97, 128, 7.93, 0.07}, {33, 100, -0.51, 4.49}, {9, 11, 1.2, -0.7}};
  unsigned seed = 1;
  for (const Case& c : cases) {
    const Stack<float> ref = random_image(c.rows, c.cols, seed++);
    const Stack<float> moved = fourier_shift(ref, c.dx, c.dy);
    // Periodic shifts: without a window, whitened (phase correlation) or not.
    for (const bool whiten : {true, false}) {
      auto pc = PhaseCorrelator::create({c.rows, c.cols}, {100, false, whiten});
      ASSERT_TRUE(pc.is_ok());
      ASSERT_TRUE(pc.value()->set_reference(ref[0]).is_ok());
      auto s = pc.value()->measure(moved[0]);
      ASSERT_TRUE(s.is_ok());
      EXPECT_NEAR(s.value().dx, c.dx, 0.01) << c.rows << "x" << c.cols << " whiten " << whiten;
      EXPECT_NEAR(s.value().dy, c.dy, 0.01) << c.rows << "x" << c.cols << " whiten " << whiten;
      EXPECT_GT(s.value().peak, 0.9) << c.rows << "x" << c.cols << " whiten " << whiten;
      EXPECT_LE(s.value().peak, 1.0 + 1e-6);
    }
  }
}

TEST(PhaseCorrelation, IntegerShiftsAreExactAndUpsampleOneGivesIntegers) {
  const Stack<float> ref = random_image(45, 38, 9);
  Stack<float> moved(45, 38, 1);
  for (Index r = 0; r < 45; ++r)
    for (Index c = 0; c < 38; ++c) moved[0](r, c) = ref[0]((r - 7 + 45) % 45, (c + 4) % 38);
  for (int upsample : {1, 100}) {
    auto pc = PhaseCorrelator::create({45, 38}, {upsample, false, true});
    ASSERT_TRUE(pc.value()->set_reference(ref[0]).is_ok());
    auto s = pc.value()->measure(moved[0]);
    const double tolerance = upsample == 1 ? 0 : 0.005;  // exact, or within half of 1 / upsample
    EXPECT_NEAR(s.value().dx, -4, tolerance) << upsample;
    EXPECT_NEAR(s.value().dy, 7, tolerance) << upsample;
    // Below 1 only by the frequencies without energy (the binomial's zero at Nyquist).
    EXPECT_GT(s.value().peak, 0.97) << upsample;
  }
  // The opposite of scikit-image's shift: it returns (dy, dx) = (-7, 4) for this pair.
}

TEST(PhaseCorrelation, IdenticalImagesPeakAtOneInEveryMode) {
  const Stack<float> img = random_image(40, 51, 3);
  for (const bool window : {true, false})
    for (const bool whiten : {true, false}) {
      auto pc = PhaseCorrelator::create({40, 51}, {100, window, whiten});
      ASSERT_TRUE(pc.value()->set_reference(img[0]).is_ok());
      auto s = pc.value()->measure(img[0]);
      EXPECT_NEAR(s.value().dx, 0, 1e-3) << window << whiten;
      EXPECT_NEAR(s.value().dy, 0, 1e-3) << window << whiten;
      EXPECT_NEAR(s.value().peak, 1.0, 0.02) << window << whiten;
    }
}

TEST(PhaseCorrelation, BadInputIsRefusedByName) {
  EXPECT_EQ(PhaseCorrelator::create({1, 10}, {}).status().message(),
            "phase correlation needs a region of at least 2 x 2 px, not 1x10");
  EXPECT_FALSE(PhaseCorrelator::create({10, 10}, {0, true, false}).is_ok());
  auto pc = PhaseCorrelator::create({10, 12}, {});
  EXPECT_FALSE(pc.value()->measure(Stack<float>(10, 12, 1)[0]).is_ok()) << "no reference yet";
  ASSERT_TRUE(pc.value()->set_reference(Stack<float>(10, 12, 1, 1.0f)[0]).is_ok());
  EXPECT_EQ(pc.value()->measure(Stack<float>(12, 10, 1)[0]).status().code(),
            ErrorCode::size_mismatch);
}

// The plans a registration hands to other processes: FFTW's wisdom after a correlator is made,
// which this build takes back; text that is not wisdom is refused, and no plans are no change.
TEST(PhaseCorrelation, FftwPlansTravelAsTextAndOtherTextIsRefused) {
  auto c = PhaseCorrelator::create({48, 40}, {});
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  const std::string plans = fftw_plans();
  EXPECT_FALSE(plans.empty());
  EXPECT_TRUE(use_fftw_plans(plans));
  EXPECT_TRUE(use_fftw_plans(""));
  EXPECT_FALSE(use_fftw_plans("not wisdom"));
}

TEST(ShiftImage, IntegerShiftsCopyAndSubPixelShiftsFollowASmoothImage) {
  const Index rows = 31, cols = 37;
  Stack<float> smooth(rows, cols, 1);
  const auto f = [](double x, double y) {
    return 100 + 40 * std::sin(0.3 * x) * std::cos(0.2 * y);
  };
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c)
      smooth[0](r, c) = static_cast<float>(f(static_cast<double>(c), static_cast<double>(r)));
  Stack<float> out(rows, cols, 1, -1.0f);
  shift_image(smooth[0], 3, -2, out[0], -7);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) {
      const bool inside = c + 3 <= cols - 1 && r - 2 >= 0;
      EXPECT_FLOAT_EQ(out[0](r, c), inside ? smooth[0](r - 2, c + 3) : -7.0f) << r << " " << c;
    }
  shift_image(smooth[0], 0.37, 1.62, out[0], 0);
  for (Index r = 3; r < rows - 4; ++r)
    for (Index c = 3; c < cols - 4; ++c)
      EXPECT_NEAR(out[0](r, c), f(static_cast<double>(c) + 0.37, static_cast<double>(r) + 1.62),
                  0.1)
          << r << " " << c;
  for (Index c = 0; c < cols; ++c) EXPECT_EQ(out[0](rows - 1, c), 0.0f) << "no source below";
}

}  // namespace
}  // namespace xcorr::reg
