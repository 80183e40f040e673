// Track statistics (core/tracking/track_stats.hpp) against hand-computed motions: a constant
// velocity (distance t v, speed v, MSD v^2 lag^2), a random walk's MSD against its definition in
// float64 on fresh random steps, the unit and the frame interval, a NaN sample left out, and a
// reference chosen later (time order).
#include "core/tracking/track_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace xcorr {
namespace {

Track track_of(std::vector<double> x, std::vector<double> y) {
  Track t;
  t.x = std::move(x);
  t.y = std::move(y);
  t.zncc.assign(t.x.size(), 1.0);
  return t;
}

TEST(TrackStats, ConstantVelocityInUnitsAndSeconds) {
  // 3 px right and 4 px down per frame: 5 px per frame; 0.5 um pixels, 2 s per frame.
  std::vector<double> x, y;
  for (int k = 0; k < 7; ++k) x.push_back(10 + 3.0 * k), y.push_back(20 + 4.0 * k);
  io::ImageScale scale;
  scale.pixel_x = scale.pixel_y = 0.5;
  scale.unit = "um";
  scale.frame_interval_s = 2;
  const TrackStats s = track_stats(track_of(x, y), scale, {});
  ASSERT_EQ(s.time.size(), 7u);
  for (std::size_t k = 0; k < 7; ++k) {
    EXPECT_DOUBLE_EQ(s.time[k], 2.0 * static_cast<double>(k));
    EXPECT_DOUBLE_EQ(s.distance[k], 2.5 * static_cast<double>(k));  // 5 px x 0.5 um
    if (k > 0) {
      EXPECT_DOUBLE_EQ(s.speed[k], 1.25) << k;  // 2.5 um / 2 s
    }
  }
  EXPECT_TRUE(std::isnan(s.speed[0]));
  EXPECT_DOUBLE_EQ(s.net, 15);
  EXPECT_DOUBLE_EQ(s.path, 15);
  EXPECT_DOUBLE_EQ(s.mean_speed, 1.25);
  ASSERT_EQ(s.msd.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    const double lag = static_cast<double>(k + 1);
    EXPECT_DOUBLE_EQ(s.lag_time[k], 2 * lag);
    EXPECT_NEAR(s.msd[k], 6.25 * lag * lag, 1e-9);
  }
}

TEST(TrackStats, RandomWalkMsdIsItsDefinitionAndPxFramesWithoutAScale) {
  std::mt19937 g(std::random_device{}());
  std::normal_distribution<double> step(0, 1.3);
  const int n = 61;  // odd, not a multiple of 32
  std::vector<double> x(1, 5.0), y(1, -3.0);
  for (int k = 1; k < n; ++k) x.push_back(x.back() + step(g)), y.push_back(y.back() + step(g));
  const TrackStats s = track_stats(track_of(x, y), {}, {});
  ASSERT_EQ(s.msd.size(), static_cast<std::size_t>(n - 1));
  for (int lag = 1; lag < n; ++lag) {
    long double sum = 0;
    for (int i = 0; i + lag < n; ++i) {
      const long double dx = x[i + lag] - x[i], dy = y[i + lag] - y[i];
      sum += dx * dx + dy * dy;
    }
    EXPECT_NEAR(s.msd[lag - 1], static_cast<double>(sum / (n - lag)), 1e-9 * (1 + s.msd[lag - 1]));
    EXPECT_DOUBLE_EQ(s.lag_time[lag - 1], lag) << "frames without an interval";
  }
  double path = 0;
  for (int k = 1; k < n; ++k) path += std::hypot(x[k] - x[k - 1], y[k] - y[k - 1]);
  EXPECT_NEAR(s.path, path, 1e-9);
  EXPECT_NEAR(s.mean_speed, path / (n - 1), 1e-9);
}

TEST(TrackStats, AMissingSampleIsLeftOutAndTimeOrderIsKept) {
  // Frame 2 matched on missing pixels (NaN).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const TrackStats s = track_stats(track_of({0, 1, nan, 3}, {0, 0, nan, 0}), {}, {});
  ASSERT_EQ(s.time.size(), 3u);
  EXPECT_DOUBLE_EQ(s.time[2], 3);
  EXPECT_DOUBLE_EQ(s.speed[2], 1) << "2 px over 2 frames";
  // A reference chosen later: frames 1 and 2 are earlier pages (steps -2, -1), frame 3 later.
  io::ImageScale scale;
  scale.frame_interval_s = 10;
  const TrackStats r = track_stats(track_of({4, 0, 2, 6}, {0, 0, 0, 0}), scale, {-2, -1, 1});
  ASSERT_EQ(r.time.size(), 4u);
  EXPECT_EQ(r.time, (std::vector<double>{-20, -10, 0, 10}));
  EXPECT_DOUBLE_EQ(r.distance.front(), 4) << "the earliest page, 4 px from the reference";
  EXPECT_DOUBLE_EQ(r.net, 6);
  EXPECT_DOUBLE_EQ(r.path, 6);
}

}  // namespace
}  // namespace xcorr
