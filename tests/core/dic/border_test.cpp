// The border ring (docs/dic.md): every point whose subset fits in the image is measured, and
// the outermost ring of points (subset within one step of the image's edge) errs no more than
// 1.2x the interior. Synthetic speckle with uniform texture (analytic rendering, so the truth is
// exact; fresh patterns, noise and motion each run, seed printed), moved by a sub-pixel
// translation plus a 0.1 % expansion about the centre, so that each side of the ring moves up to
// 0.37 px toward or away from the border: sub-pixel excursions past the border pixels' centres
// must be measured (math::inside_sampling; at 0.45 px the noise of a second-order warp's gradient
// terms carried a corner past the 0.5 px limit in 1 of 24 runs). First- and second-order shape
// functions.
// - Noise-free: what is left is the border's own systematic error. IC-GN leaves out the band
//   where the prefilter and the spline see the image's continuation (math::border_band); with
//   every pixel used the ring erred by 0.0022-0.0036 px RMSE (0.00007 inside).
// - Noisy (grey sd 500 of 50,000, three pairs pooled): the ring against the interior, 1.2x.
//
// On the DIC Challenge's sample 14 the raw ring/interior ratio is above 1.2 because that image's
// texture is weaker near its top and right edges (its mean squared x gradient is 86 within 35 px
// of the right edge against 195 inside); DicChallenge.Sample14Chirp checks the ring's errors
// divided by each point's sigma.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::dic {
namespace {

struct RingErrors {
  std::vector<double> ring, interior;  // px, u and v errors of converged points
  int valid = 0, converged = 0;
};

double rms(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e * e;
  return std::sqrt(s / static_cast<double>(v.size()));
}

// One pair: a fresh pattern moved by (tu, tv) px plus a 0.1 % expansion about the centre.
void add_pair(std::mt19937_64& rng, double noise, ShapeFunction shape, RingErrors& e) {
  std::uniform_real_distribution<double> shift(-0.12, 0.12);
  const double tu = shift(rng), tv = shift(rng), strain = 0.001;
  synth::SpeckleOptions s;
  s.rows = 420;
  s.cols = 500;
  s.speckle_radius = 2.0;
  s.noise_sigma = noise;
  s.seed = static_cast<std::uint32_t>(rng());
  const double cx = (s.cols - 1) / 2.0, cy = (s.rows - 1) / 2.0;
  const auto field = synth::affine_field(tu, tv, strain, 0, 0, strain, cx, cy);
  const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 1);
  const Stack<float> def = synth::render_speckle_field(s, field, 2);
  DicOptions o;  // subset 31
  o.step = 10;
  o.shape = shape;
  auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const double h = o.subset / 2;
  for (const PointResult& p : r.value().frames[0].points) {
    if (p.status == PointStatus::outside_roi) continue;
    ++e.valid;
    if (p.status != PointStatus::converged) {
      ADD_FAILURE() << to_string(shape) << ": point " << p.x << "," << p.y << " is "
                    << to_string(p.status) << " (translation " << tu << ", " << tv << ")";
      continue;
    }
    ++e.converged;
    const synth::FieldSample t = field(p.x, p.y);
    const double edge = std::min({p.x - h, p.y - h, static_cast<double>(s.cols - 1) - (p.x + h),
                                  static_cast<double>(s.rows - 1) - (p.y + h)});
    auto& to = edge < o.step ? e.ring : e.interior;
    to.push_back(p.u - t.u);
    to.push_back(p.v - t.v);
  }
}

void print(const char* what, ShapeFunction shape, const RingErrors& e) {
  std::printf(
      "%s, %s: %d/%d points converged; ring %zu errors RMSE %.5f px, interior %zu "
      "RMSE %.5f px, ratio %.3f\n",
      what, to_string(shape), e.converged, e.valid, e.ring.size(), rms(e.ring), e.interior.size(),
      rms(e.interior), rms(e.ring) / rms(e.interior));
}

TEST(Border, TheRingIsMeasuredAsWellAsTheInterior) {
  std::mt19937_64 rng(testing::run_seed());
  for (const ShapeFunction shape : {ShapeFunction::first_order, ShapeFunction::second_order}) {
    RingErrors clean;
    add_pair(rng, 0, shape, clean);
    print("noise-free", shape, clean);
    EXPECT_EQ(clean.converged, clean.valid)
        << to_string(shape) << ": every point whose subset fits";
    EXPECT_LE(rms(clean.ring), 0.0005) << to_string(shape);
    EXPECT_LE(rms(clean.ring), 2 * rms(clean.interior)) << to_string(shape);

    RingErrors noisy;
    for (int pair = 0; pair < 3; ++pair) add_pair(rng, 500, shape, noisy);
    print("noisy, 3 pairs", shape, noisy);
    EXPECT_EQ(noisy.converged, noisy.valid) << to_string(shape);
    ASSERT_GT(noisy.ring.size(), 900u);
    EXPECT_LE(rms(noisy.ring), 1.2 * rms(noisy.interior)) << to_string(shape);
  }
}

}  // namespace
}  // namespace xcorr::dic
