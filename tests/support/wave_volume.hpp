// A texture defined at every point of space (120 random 3-D plane waves of periods 4-30 voxels,
// periodic in nothing) and volumes of it sampled at the voxels, moved by a known shift in float64:
// the truth for 3-D phase correlation tests.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "core/register/phase_volume.hpp"

namespace xcorr::test {

struct Waves {
  std::vector<double> fx, fy, fz, phase;
  explicit Waves(std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(0, 1);
    for (int k = 0; k < 120; ++k) {
      const double period = 4 + 26 * u(g), theta = 6.283185307179586 * u(g), cz = 2 * u(g) - 1,
                   sz = std::sqrt(1 - cz * cz);
      fx.push_back(sz * std::cos(theta) / period);
      fy.push_back(sz * std::sin(theta) / period);
      fz.push_back(cz / period);
      phase.push_back(6.283185307179586 * u(g));
    }
  }
  double at(double x, double y, double z) const {
    double v = 0;
    for (std::size_t k = 0; k < fx.size(); ++k)
      v += std::cos(6.283185307179586 * (fx[k] * x + fy[k] * y + fz[k] * z) + phase[k]);
    return v;
  }
};

inline std::vector<float> wave_volume(const Waves& w, reg::VolumeShape s, double dx, double dy,
                                      double dz) {
  std::vector<float> v(static_cast<std::size_t>(s.size()));
  for (Index z = 0; z < s.depth; ++z)
    for (Index r = 0; r < s.rows; ++r)
      for (Index c = 0; c < s.cols; ++c)
        v[static_cast<std::size_t>((z * s.rows + r) * s.cols + c)] = static_cast<float>(w.at(
            static_cast<double>(c) - dx, static_cast<double>(r) - dy, static_cast<double>(z) - dz));
  return v;
}

}  // namespace xcorr::test
