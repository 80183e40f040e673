#include "core/tracking/track_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace xcorr {

TrackStats track_stats(const Track& track, const io::ImageScale& scale,
                       const std::vector<double>& frame_steps) {
  TrackStats s;
  const bool length = scale.has_length(), timed = scale.has_time();
  const double kx = length ? scale.pixel_x : 1, ky = length ? scale.pixel_y : 1;
  const std::size_t n = track.x.size();
  // The samples with a position, in time order.
  std::vector<std::size_t> order;
  std::vector<double> at(n);
  for (std::size_t k = 0; k < n; ++k) {
    at[k] =
        timed ? io::frame_time_s(scale, frame_steps, static_cast<long>(k))
              : (k > 0 && k - 1 < frame_steps.size() ? frame_steps[k - 1] : static_cast<double>(k));
    if (std::isfinite(track.x[k]) && std::isfinite(track.y[k])) order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&at](std::size_t a, std::size_t b) { return at[a] < at[b]; });
  if (order.empty()) return s;
  const auto step = [&](std::size_t a, std::size_t b) {
    return std::hypot((track.x[b] - track.x[a]) * kx, (track.y[b] - track.y[a]) * ky);
  };
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::size_t k = order[i];
    s.time.push_back(at[k]);
    s.distance.push_back(std::isfinite(track.x[0]) ? step(0, k)
                                                   : std::numeric_limits<double>::quiet_NaN());
    if (i == 0) {
      s.speed.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const double d = step(order[i - 1], k), dt = at[k] - at[order[i - 1]];
    s.path += d;
    s.speed.push_back(dt > 0 ? d / dt : std::numeric_limits<double>::quiet_NaN());
  }
  s.net = step(order.front(), order.back());
  const double duration = at[order.back()] - at[order.front()];
  s.mean_speed = duration > 0 ? s.path / duration : 0;
  // MSD over lags of k samples (evenly sampled: k frame intervals).
  const double interval = timed ? scale.frame_interval_s : 1.0;
  for (std::size_t lag = 1; lag < order.size(); ++lag) {
    double sum = 0;
    for (std::size_t i = 0; i + lag < order.size(); ++i) {
      const double d = step(order[i], order[i + lag]);
      sum += d * d;
    }
    s.lag_time.push_back(static_cast<double>(lag) * interval);
    s.msd.push_back(sum / static_cast<double>(order.size() - lag));
  }
  return s;
}

}  // namespace xcorr
