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

// Shared tone mapping and noise of every renderer.
void finish(const SpeckleOptions& o, const std::vector<double>& intensity, std::uint64_t noise_seed,
            MatrixView<float> out) {
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
  finish(o, intensity, noise_seed, out);
}

}  // namespace

Stack<float> render_speckle_field(const SpeckleOptions& o, const DisplacementField& field,
                                  std::uint64_t noise_stream) {
  Stack<float> s(o.rows, o.cols, 1);
  MatrixView<float> out = s[0];
  const double r2 = o.speckle_radius * o.speckle_radius;
  std::vector<double> intensity(static_cast<std::size_t>(o.rows * o.cols), 0.0);
  for (const Speckle& sp : make_speckles(o)) {
    const FieldSample f = field(sp.x, sp.y);
    const double cx = sp.x + f.u, cy = sp.y + f.v;
    // Deformed speckle: exp(-|F^-1 (p - c)|^2 / r^2), F = [[1 + ux, uy], [vx, 1 + vy]].
    const double a = 1 + f.ux, b = f.uy, c = f.vx, d = 1 + f.vy, det = a * d - b * c;
    const double ia = d / det, ib = -b / det, ic = -c / det, id = a / det;
    const double stretch = std::max({std::abs(a), std::abs(b), std::abs(c), std::abs(d), 1.0});
    const auto reach = static_cast<Index>(std::ceil(4 * o.speckle_radius * stretch));
    const Index y0 = std::max<Index>(0, static_cast<Index>(std::floor(cy)) - reach);
    const Index y1 = std::min<Index>(o.rows - 1, static_cast<Index>(std::floor(cy)) + reach);
    const Index x0 = std::max<Index>(0, static_cast<Index>(std::floor(cx)) - reach);
    const Index x1 = std::min<Index>(o.cols - 1, static_cast<Index>(std::floor(cx)) + reach);
    for (Index y = y0; y <= y1; ++y) {
      for (Index x = x0; x <= x1; ++x) {
        const double px = static_cast<double>(x) - cx, py = static_cast<double>(y) - cy;
        const double qx = ia * px + ib * py, qy = ic * px + id * py;
        intensity[y * o.cols + x] += sp.amplitude * std::exp(-(qx * qx + qy * qy) / r2);
      }
    }
  }
  finish(o, intensity, o.seed * 7919u + 1 + noise_stream, out);
  return s;
}

Stack<float> render_speckle_volume(const SpeckleOptions& o, Index depth, double radius_z, double dz,
                                   double dy, double dx, std::uint64_t noise_stream) {
  const double r = o.speckle_radius, margin = 4 * r + 16, margin_z = 4 * radius_z + 16;
  const auto rows = static_cast<double>(o.rows), cols = static_cast<double>(o.cols),
             planes = static_cast<double>(depth);
  const auto n = static_cast<std::size_t>(o.density * (rows + 2 * margin) * (cols + 2 * margin) *
                                          (planes + 2 * margin_z) / (r * r * radius_z));
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> ux(-margin, cols + margin), uy(-margin, rows + margin),
      uz(-margin_z, planes + margin_z), ua(0.4, 1.0);
  const auto reach = static_cast<Index>(std::ceil(3.5 * r)),
             reach_z = static_cast<Index>(std::ceil(3.5 * radius_z));
  const Index plane = o.rows * o.cols;
  std::vector<double> intensity(static_cast<std::size_t>(plane * depth), 0.0);
  std::vector<double> gx(static_cast<std::size_t>(2 * reach + 1)), gy(gx.size()),
      gz(static_cast<std::size_t>(2 * reach_z + 1));
  // The separable Gaussian of one speckle along an axis, from sample `first`.
  const auto along = [](double centre, Index first, double radius, std::vector<double>& g) {
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double d = (static_cast<double>(first) + static_cast<double>(i) - centre) / radius;
      g[i] = std::exp(-d * d);
    }
  };
  for (std::size_t k = 0; k < n; ++k) {
    const double cx = ux(rng) + dx, cy = uy(rng) + dy, cz = uz(rng) + dz, a = ua(rng);
    const Index x0 = static_cast<Index>(std::floor(cx)) - reach,
                y0 = static_cast<Index>(std::floor(cy)) - reach,
                z0 = static_cast<Index>(std::floor(cz)) - reach_z;
    const Index xs = std::max<Index>(0, x0), xe = std::min(o.cols - 1, x0 + 2 * reach);
    const Index ys = std::max<Index>(0, y0), ye = std::min(o.rows - 1, y0 + 2 * reach);
    const Index zs = std::max<Index>(0, z0), ze = std::min(depth - 1, z0 + 2 * reach_z);
    if (xs > xe || ys > ye || zs > ze) continue;
    along(cx, x0, r, gx), along(cy, y0, r, gy), along(cz, z0, radius_z, gz);
    for (Index z = zs; z <= ze; ++z)
      for (Index y = ys; y <= ye; ++y) {
        const double w =
            a * gz[static_cast<std::size_t>(z - z0)] * gy[static_cast<std::size_t>(y - y0)];
        double* row = intensity.data() + z * plane + y * o.cols;
        for (Index x = xs; x <= xe; ++x) row[x] += w * gx[static_cast<std::size_t>(x - x0)];
      }
  }
  Stack<float> s(o.rows, o.cols, depth);
  std::vector<double> one(static_cast<std::size_t>(plane));
  for (Index z = 0; z < depth; ++z) {
    std::copy_n(intensity.data() + z * plane, plane, one.data());
    finish(o, one, (o.seed * 7919u + 1 + noise_stream) * 65537u + static_cast<std::uint64_t>(z),
           s[z]);
  }
  return s;
}

DisplacementField translation_field(double u, double v) {
  return [u, v](double, double) { return FieldSample{u, v, 0, 0, 0, 0}; };
}

DisplacementField affine_field(double u, double v, double ux, double uy, double vx, double vy,
                               double x0, double y0) {
  return [=](double x, double y) {
    const double dx = x - x0, dy = y - y0;
    return FieldSample{u + ux * dx + uy * dy, v + vx * dx + vy * dy, ux, uy, vx, vy};
  };
}

DisplacementField sinusoid_field(double amplitude, double period) {
  return [=](double x, double) {
    const double w = 2 * 3.14159265358979323846 / period;
    return FieldSample{amplitude * std::sin(w * x), 0, amplitude * w * std::cos(w * x), 0, 0, 0};
  };
}

Stack<float> render_speckle(const SpeckleOptions& o, double dy, double dx) {
  Stack<float> s(o.rows, o.cols, 1);
  render_into(o, make_speckles(o), dy, dx, o.seed * 7919u + 1, s[0]);
  return s;
}

Stack<float> uniform_noise(Index rows, Index cols, Index count, std::uint32_t seed) {
  Stack<float> s(rows, cols, count);
  std::uint32_t x = seed * 2654435761u + 1;
  for (float& v : s.values()) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v = static_cast<float>(x >> 8) / 16777216.0f;
  }
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
