// A texture defined at every point (a sum of random plane waves, periodic in nothing) and
// images of it under affine maps known in float64, for the transform fit tests (CPU and GPU):
// nothing is interpolated to make them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/matrix.hpp"
#include "core/register/affine.hpp"
#include "core/register/transform_level.hpp"

namespace xcorr::test {

using reg::Affine;
using reg::Transform;

inline constexpr double kDeg = 3.14159265358979323846 / 180;

// A smooth texture: 200 plane waves, periods 3-40 px, random directions and phases.
struct Texture {
  std::vector<double> fx, fy, phase, amp;
  explicit Texture(std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(0, 1);
    for (int k = 0; k < 200; ++k) {
      const double period = 3 + 37 * u(g), theta = 2 * 3.141592653589793 * u(g);
      fx.push_back(std::cos(theta) / period);
      fy.push_back(std::sin(theta) / period);
      phase.push_back(2 * 3.141592653589793 * u(g));
      amp.push_back(0.5 + u(g));
    }
  }
  double at(double x, double y) const {
    double v = 0;
    for (std::size_t k = 0; k < fx.size(); ++k)
      v += amp[k] * std::cos(2 * 3.141592653589793 * (fx[k] * x + fy[k] * y) + phase[k]);
    return v;
  }
};

// The texture at the pixels, each pixel p showing the texture at `to_texture`(p).
inline Stack<float> sample(const Texture& t, Index rows, Index cols, const Affine& to_texture,
                           double noise = 0, std::mt19937_64* g = nullptr) {
  Stack<float> s(rows, cols, 1);
  std::normal_distribution<double> n(0, noise > 0 ? noise : 1);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) {
      const double x = to_texture.x(static_cast<double>(c), static_cast<double>(r));
      const double y = to_texture.y(static_cast<double>(c), static_cast<double>(r));
      s[0](r, c) = static_cast<float>(t.at(x, y) + (noise > 0 ? noise * n(*g) : 0));
    }
  return s;
}

// A random transform of the model about the image's centre: rotation within +-max_angle
// degrees, scale 0.9-1.1 (similarity, affine), shear and anisotropy up to 3 % (affine),
// translation within +-max_shift px.
inline Affine random_transform(Transform t, Index rows, Index cols, double max_angle,
                               double max_shift, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  const double angle = max_angle * kDeg * u(g);
  const double scale = t == Transform::rigid ? 1 : 1 + 0.1 * u(g);
  auto l = Affine::rotation(angle, scale);
  if (t == Transform::affine)
    for (double& v : l) v += 0.03 * u(g);
  const double cx = (static_cast<double>(cols) - 1) / 2, cy = (static_cast<double>(rows) - 1) / 2;
  return Affine::about(cx, cy, max_shift * u(g), max_shift * u(g), l);
}

struct Errors {
  double angle = 0, scale = 0, shift = 0, matrix = 0;  // degrees, relative, px, entries
};
// The fit against the truth: angle and scale, the displacement over the image's pixels (RMS),
// and the largest difference of the linear part's entries.
inline Errors errors(const Affine& fit, const Affine& truth, Index rows, Index cols) {
  Errors e;
  e.angle = std::abs(fit.angle_degrees() - truth.angle_degrees());
  e.scale = std::abs(fit.scale() / truth.scale() - 1);
  double sq = 0;
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) {
      const auto x = static_cast<double>(c), y = static_cast<double>(r);
      sq += std::pow(fit.x(x, y) - truth.x(x, y), 2) + std::pow(fit.y(x, y) - truth.y(x, y), 2);
    }
  e.shift = std::sqrt(sq / static_cast<double>(rows * cols));
  const auto a = fit.linear(), b = truth.linear();
  for (int k = 0; k < 4; ++k)
    e.matrix = std::max(e.matrix,
                        std::abs(a[static_cast<std::size_t>(k)] - b[static_cast<std::size_t>(k)]));
  return e;
}

}  // namespace xcorr::test
