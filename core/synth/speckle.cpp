#include "core/synth/speckle.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/parallel.hpp"

namespace xcorr::synth {
namespace {

struct Speckle {
  double y, x, amplitude;
};

std::vector<Speckle> make_speckles(const SpeckleOptions& o) {
  // Speckles cover a margin around the image so that moved frames stay filled.
  const double margin = 8 * o.speckle_radius + 64;
  const double area =
      (static_cast<double>(o.rows) + 2 * margin) * (static_cast<double>(o.cols) + 2 * margin);
  const auto n = static_cast<std::size_t>(o.density * area / (o.speckle_radius * o.speckle_radius));
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> ry(-margin, static_cast<double>(o.rows) + margin);
  std::uniform_real_distribution<double> rx(-margin, static_cast<double>(o.cols) + margin);
  std::uniform_real_distribution<double> ra(0.4, 1.0);
  std::vector<Speckle> s(n);
  for (auto& sp : s) sp = {ry(rng), rx(rng), ra(rng)};
  return s;
}

void render_into(const SpeckleOptions& o, const std::vector<Speckle>& speckles, double dy,
                 double dx, std::uint64_t noise_seed, MatrixView<float> out) {
  const double r2 = o.speckle_radius * o.speckle_radius;
  const Index reach = static_cast<Index>(std::ceil(4 * o.speckle_radius));  // exp(-16) ~ 1e-7
  std::vector<double> intensity(static_cast<std::size_t>(out.rows * out.cols), 0.0);
  for (const Speckle& s : speckles) {
    const double cy = s.y + dy, cx = s.x + dx;
    const Index y0 = std::max<Index>(0, static_cast<Index>(std::floor(cy)) - reach);
    const Index y1 = std::min<Index>(out.rows - 1, static_cast<Index>(std::floor(cy)) + reach);
    const Index x0 = std::max<Index>(0, static_cast<Index>(std::floor(cx)) - reach);
    const Index x1 = std::min<Index>(out.cols - 1, static_cast<Index>(std::floor(cx)) + reach);
    for (Index y = y0; y <= y1; ++y) {
      const double ey = (static_cast<double>(y) - cy) * (static_cast<double>(y) - cy);
      for (Index x = x0; x <= x1; ++x) {
        const double ex = (static_cast<double>(x) - cx) * (static_cast<double>(x) - cx);
        intensity[y * out.cols + x] += s.amplitude * std::exp(-(ey + ex) / r2);
      }
    }
  }
  std::mt19937_64 rng(noise_seed);
  std::normal_distribution<double> noise(0.0, o.noise_sigma > 0 ? o.noise_sigma : 1.0);
  for (Index y = 0; y < out.rows; ++y) {
    for (Index x = 0; x < out.cols; ++x) {
      double v = o.offset + o.gain * (1.0 - std::exp(-intensity[y * out.cols + x]));
      if (o.noise_sigma > 0) v += noise(rng);
      out(y, x) = static_cast<float>(v);
    }
  }
}

}  // namespace

Stack<float> render_speckle(const SpeckleOptions& o, double dy, double dx) {
  Stack<float> s(o.rows, o.cols, 1);
  render_into(o, make_speckles(o), dy, dx, o.seed * 7919u + 1, s[0]);
  return s;
}

Stack<float> render_translation_stack(const SpeckleOptions& o, Index frames, double dy, double dx) {
  Stack<float> s(o.rows, o.cols, frames);
  const std::vector<Speckle> speckles = make_speckles(o);
  parallel_for(frames, 1, [&](Index begin, Index end) {
    for (Index k = begin; k < end; ++k) {
      const auto kd = static_cast<double>(k);
      render_into(o, speckles, kd * dy, kd * dx, o.seed * 7919u + 1 + static_cast<std::uint64_t>(k),
                  s[k]);
    }
  });
  return s;
}

}  // namespace xcorr::synth
