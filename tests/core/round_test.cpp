// round_half_away against std::lround: halves, the largest double below 0.5, negatives, and
// fresh random values (a third of them on exact halves).
#include "core/round.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace xcorr {
namespace {

TEST(RoundHalfAway, MatchesLround) {
  for (double x : {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
                   -0.49999999999999994, 2047.5, -2047.4999999999998, 1e9 + 0.5}) {
    EXPECT_EQ(round_half_away(x), std::lround(x)) << x;
  }
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int i = 0; i < 1000000; ++i) {
    double x = u(rng);
    if (i % 3 == 0) x = std::round(2 * x) / 2;
    ASSERT_EQ(round_half_away(x), std::lround(x)) << x;
  }
}

}  // namespace
}  // namespace xcorr
