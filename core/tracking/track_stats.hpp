// What a track says of motion, for the Trajectories tab's table and plots: the distance from the
// start, the speed between frames and the mean squared displacement (MSD) against the lag, in the
// stack's length unit (px without one) and seconds (frames without a frame interval). Samples
// are taken in time order (a reference chosen later in the stack puts earlier pages first at
// negative times); positions that are NaN (a match on missing pixels) are left out.
#pragma once

#include <vector>

#include "core/io/scale.hpp"
#include "core/tracking/tracking.hpp"

namespace xcorr {

struct TrackStats {
  std::vector<double> time;      // each sample's time after the reference (s, or frames)
  std::vector<double> distance;  // |r - r(reference)| (unit)
  std::vector<double> speed;     // |r_k - r_(k-1)| / (t_k - t_(k-1)) (unit/s or unit/frame);
                                 // the first sample's is NaN
  // MSD(lag k) = mean over i of |r_(i+k) - r_i|^2 (unit^2), for k = 1 .. n-1 samples of a stack
  // sampled evenly; lag_time[k-1] = k frame intervals (s, or frames).
  std::vector<double> lag_time, msd;
  double net = 0;         // |r(last) - r(first)| (unit)
  double path = 0;        // the summed steps (unit)
  double mean_speed = 0;  // path / duration (unit/s or unit/frame); 0 for one sample
};

// frame_steps: as io::frame_time_s takes them (the stack's frame order in frame intervals).
TrackStats track_stats(const Track& track, const io::ImageScale& scale,
                       const std::vector<double>& frame_steps);

}  // namespace xcorr
