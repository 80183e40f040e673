// Missing pixels in registration (core/register/missing_pixels.hpp): a pair made to lack alike
// loses the same content in both images (integer shifts: exactly the matching pixels), refuses
// to leave either unregistrable, and measured again, a hole in the frame no longer biases the
// shift: smooth random content (blobs) with a band-limited sub-pixel shift, a fresh random hole of
// 16 x 16 px per case.
#include "core/register/missing_pixels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/register/phase_correlation.hpp"
#include "tests/support/fourier_shift.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::reg {
namespace {

// Smooth content: 40 Gaussian blobs of 3-8 px sigma, 10-100 high, on 50, periodic on rows x cols.
Stack<float> blobs(Index rows, Index cols, std::mt19937_64& g) {
  std::uniform_real_distribution<double> ux(0, static_cast<double>(cols)),
      uy(0, static_cast<double>(rows)), us(3, 8), ua(10, 100);
  Stack<float> out(rows, cols, 1, 50.0f);
  for (int b = 0; b < 40; ++b) {
    const double cx = ux(g), cy = uy(g), s = us(g), a = ua(g);
    for (Index y = 0; y < rows; ++y)
      for (Index x = 0; x < cols; ++x) {
        double ddx = std::abs(static_cast<double>(x) - cx),
               ddy = std::abs(static_cast<double>(y) - cy);
        ddx = std::min(ddx, static_cast<double>(cols) - ddx);
        ddy = std::min(ddy, static_cast<double>(rows) - ddy);
        out[0](y, x) += static_cast<float>(a * std::exp(-(ddx * ddx + ddy * ddy) / (2 * s * s)));
      }
  }
  return out;
}

TEST(MissingPixels, APairLacksAlikeByName) {
  std::mt19937_64 g(testing::run_seed() ^ 0x51);
  constexpr Index kRows = 37, kCols = 53;
  const Stack<float> base = testing::random_stack(kRows + 8, kCols + 8, 1, 3, 0, 100);
  const Index dx = 3, dy = -2;  // frame(x + dx, y + dy) = reference(x, y)
  Stack<float> ref(kRows, kCols, 1), frame(kRows, kCols, 1);
  for (Index y = 0; y < kRows; ++y)
    for (Index x = 0; x < kCols; ++x) {
      ref[0](y, x) = base[0](y + 4, x + 4);
      frame[0](y, x) = base[0](y + 4 - dy, x + 4 - dx);
    }
  std::uniform_int_distribution<Index> ry(0, kRows - 6), rx(0, kCols - 6);
  const Index hy = ry(g), hx = rx(g), fy = ry(g), fx = rx(g);
  for (Index y = 0; y < 5; ++y)
    for (Index x = 0; x < 5; ++x) {
      ref[0](hy + y, hx + x) = NAN;
      frame[0](fy + y, fx + x) = std::numeric_limits<float>::infinity();
    }
  Stack<float> r = ref, f = frame;
  ASSERT_TRUE(lack_alike(r[0], f[0], dx, dy));
  long lost = 0;
  for (Index y = 0; y < kRows; ++y)
    for (Index x = 0; x < kCols; ++x) {
      ASSERT_TRUE(std::isfinite(r[0](y, x)) && std::isfinite(f[0](y, x)));
      const bool r_lost = r[0](y, x) != ref[0](y, x);  // filled: no longer the content
      lost += r_lost ? 1 : 0;
      const Index mx = x + dx, my = y + dy;  // its match in the frame
      if (mx < 0 || mx >= kCols || my < 0 || my >= kRows) continue;
      EXPECT_EQ(r_lost, f[0](my, mx) != frame[0](my, mx)) << "row " << y << ", column " << x;
    }
  EXPECT_GE(lost, 25);  // its own hole, and the frame's where it falls inside
  // Holes over most of the frame: refused, nothing changed.
  Stack<float> big = frame;
  for (Index y = 0; y < kRows; ++y)
    for (Index x = 0; x < kCols * 2 / 3; ++x) big[0](y, x) = NAN;
  Stack<float> r2 = ref, f2 = big;
  EXPECT_FALSE(lack_alike(r2[0], f2[0], dx, dy));
  EXPECT_TRUE(std::isnan(r2[0](hy, hx)));
  EXPECT_TRUE(std::isnan(f2[0](0, 0)));
}

TEST(MissingPixels, AHoleMeasuredLackingAlikeNoLongerBiasesTheShift) {
  std::mt19937_64 g(testing::run_seed() ^ 0x52);
  constexpr Index kSide = 96, kOut = 80, kHole = 16;
  std::uniform_real_distribution<double> shift(-3, 3);
  std::uniform_int_distribution<Index> at(8, kOut - kHole - 8);
  auto pc = PhaseCorrelator::create({kOut, kOut}, {100, true, false});
  ASSERT_TRUE(pc.is_ok());
  // As registration measures (the phase engine's 2 iterations): then with the window moved.
  const MeasurePairs twice = [&pc](const std::vector<const Stack<float>*>& f,
                                   const std::vector<const Stack<float>*>& r) {
    std::vector<Shift> out;
    for (std::size_t k = 0; k < f.size(); ++k) {
      auto rough = pc.value()->measure((*r[k])[0], (*f[k])[0]);
      if (!rough.is_ok()) return Result<std::vector<Shift>>(rough.status());
      auto fine = pc.value()->measure((*r[k])[0], (*f[k])[0], &rough.value());
      if (!fine.is_ok()) return Result<std::vector<Shift>>(fine.status());
      out.push_back(fine.value());
    }
    return Result<std::vector<Shift>>(std::move(out));
  };
  constexpr int kCases = 16;
  double whole = 0, filled = 0, alike = 0;  // mean shift errors (px)
  for (int k = 0; k < kCases; ++k) {
    const Stack<float> content = blobs(kSide, kSide, g);
    const double dx = shift(g), dy = shift(g);
    const Stack<float> moved = test::fourier_shift(content, dx, dy);
    Stack<float> ref(kOut, kOut, 1), frame(kOut, kOut, 1);
    for (Index y = 0; y < kOut; ++y)
      for (Index x = 0; x < kOut; ++x) {
        ref[0](y, x) = content[0](y + 8, x + 8);
        frame[0](y, x) = moved[0](y + 8, x + 8);
      }
    const auto error = [&](const Shift& s) { return std::hypot(s.dx - dx, s.dy - dy) / kCases; };
    auto w = twice({&frame}, {&ref});
    ASSERT_TRUE(w.is_ok());
    whole += error(w.value()[0]);
    const Index hy = at(g), hx = at(g);
    for (Index y = hy; y < hy + kHole; ++y)
      for (Index x = hx; x < hx + kHole; ++x) frame[0](y, x) = NAN;
    Stack<float> f = frame;
    ASSERT_TRUE(fill_missing(f[0]).why.empty());
    auto shifts = twice({&f}, {&ref});
    ASSERT_TRUE(shifts.is_ok());
    filled += error(shifts.value()[0]);
    ASSERT_TRUE(measure_lacking_alike({&frame}, {&ref}, shifts.value(), twice).is_ok());
    alike += error(shifts.value()[0]);
  }
  std::cout << "smooth content of 80 x 80 px, mean shift error over " << kCases << " cases: whole "
            << whole << " px; a 16 x 16 px hole filled " << filled << " px, lacking alike " << alike
            << " px\n";
  EXPECT_LE(alike, 0.5 * filled);
  EXPECT_LE(alike, 1.5 * whole + 0.01);
}

}  // namespace
}  // namespace xcorr::reg
