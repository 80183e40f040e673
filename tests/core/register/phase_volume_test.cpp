// 3-D phase correlation against shifts known in float64: volumes of a texture defined at every
// point (tests/support/wave_volume.hpp) sampled at the voxels, the frame showing the texture moved
// by a fresh random sub-voxel shift; sizes odd, prime, small and not multiples of 32.
#include "core/register/phase_volume.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tests/support/matrix_testing.hpp"
#include "tests/support/wave_volume.hpp"

namespace xcorr::reg {
namespace {

using test::wave_volume;
using test::Waves;

TEST(PhaseVolume, SubVoxelShiftsOnOddPrimeAndSmallSizes) {
  std::mt19937_64 g(testing::run_seed() + 3);
  std::uniform_real_distribution<double> u(-1, 1);
  const VolumeShape shapes[] = {
      {32, 96, 96}, {33, 97, 89}, {64, 128, 128}, {16, 40, 48}, {9, 33, 31}};
  for (const VolumeShape s : shapes) {
    const Waves w(g);
    // Shifts up to a sixteenth of each side (a tenth of 64 planes is the drift).
    const double dx = u(g) * static_cast<double>(s.cols) / 16,
                 dy = u(g) * static_cast<double>(s.rows) / 16,
                 dz = u(g) * static_cast<double>(s.depth) / 16;
    const auto ref = wave_volume(w, s, 0, 0, 0), moved = wave_volume(w, s, dx, dy, dz);
    auto c = VolumeCorrelator::create(s, 100);
    ASSERT_TRUE(c.is_ok()) << c.status().message();
    ASSERT_TRUE(c.value()->set_reference(ref.data()).is_ok());
    auto m = c.value()->measure(moved.data());
    ASSERT_TRUE(m.is_ok());
    SCOPED_TRACE(std::to_string(s.cols) + "x" + std::to_string(s.rows) + "x" +
                 std::to_string(s.depth) + " truth " + std::to_string(dx) + ", " +
                 std::to_string(dy) + ", " + std::to_string(dz));
    // Within 0.03 voxel on volumes of 32 planes and more; small ones see less of the texture
    // once the window and the shift cut it (measured: up to 0.18 voxel at 9 planes).
    const double tol = s.depth >= 32 ? 0.03 : 0.3;
    EXPECT_NEAR(m.value().dx, dx, tol);
    EXPECT_NEAR(m.value().dy, dy, tol);
    EXPECT_NEAR(m.value().dz, dz, tol);
    EXPECT_GT(m.value().peak, 0.3);
    // Against an explicit reference: the same numbers.
    auto again = c.value()->measure(ref.data(), moved.data());
    ASSERT_TRUE(again.is_ok());
    EXPECT_EQ(again.value().dx, m.value().dx);
    EXPECT_EQ(again.value().dz, m.value().dz);
  }
}

TEST(PhaseVolume, TooSmallIsRefusedByName) {
  auto c = VolumeCorrelator::create({1, 8, 8});
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("at least 2 x 2 x 2"), std::string::npos);
}

}  // namespace
}  // namespace xcorr::reg
