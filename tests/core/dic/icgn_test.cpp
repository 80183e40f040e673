// icgn on one subset of a rendered speckle pair: a known sub-pixel translation and an affine
// deformation are recovered from an integer start; flat subsets are low_texture, subsets that
// leave the image outside_roi.
#include "core/dic/icgn.hpp"

#include <gtest/gtest.h>

#include "core/synth/speckle.hpp"

namespace xcorr::dic {
namespace {

synth::SpeckleOptions pattern() {
  synth::SpeckleOptions o;
  o.rows = 96;
  o.cols = 96;
  o.speckle_radius = 2.5;
  o.seed = 5;
  return o;
}

TEST(Icgn, RecoversASubPixelTranslationFromAnIntegerStart) {
  const auto ref = synth::render_speckle(pattern(), 0, 0);
  const auto def = synth::render_speckle(pattern(), 0.3, -0.45);  // (dy, dx): content moves
  const BSplineImage r(ref[0]), d(def[0]);
  const IcgnResult res = icgn(r, d, 48, 48, Warp{0, 0, 0, 0, 0, 0}, DicOptions{});
  ASSERT_EQ(res.status, PointStatus::converged);
  EXPECT_NEAR(res.p[0], -0.45, 0.01);  // u
  EXPECT_NEAR(res.p[3], 0.3, 0.01);    // v
  EXPECT_GT(res.zncc, 0.99);
  EXPECT_GT(res.iterations, 0);
}

TEST(Icgn, RecoversAnAffineDeformation) {
  const auto ref = synth::render_speckle(pattern(), 0, 0);
  const auto def = synth::render_speckle_field(
      pattern(), synth::affine_field(1.2, -0.6, 0.01, -0.004, 0.003, 0.008, 48, 48));
  const BSplineImage r(ref[0]), d(def[0]);
  const IcgnResult res = icgn(r, d, 48, 48, Warp{1, 0, 0, -1, 0, 0}, DicOptions{});
  ASSERT_EQ(res.status, PointStatus::converged);
  EXPECT_NEAR(res.p[0], 1.2, 0.01);
  EXPECT_NEAR(res.p[3], -0.6, 0.01);
  EXPECT_NEAR(res.p[1], 0.01, 0.002);   // ux
  EXPECT_NEAR(res.p[5], 0.008, 0.002);  // vy
}

TEST(Icgn, FlatSubsetsAreLowTextureAndEscapingOnesOutsideRoi) {
  Stack<float> flat(64, 64, 1, 1000.0f);
  const BSplineImage f(flat[0]);
  EXPECT_EQ(icgn(f, f, 32, 32, Warp{}, DicOptions{}).status, PointStatus::low_texture);
  const auto ref = synth::render_speckle(pattern(), 0, 0);
  const BSplineImage r(ref[0]);
  EXPECT_EQ(icgn(r, r, 10, 48, Warp{}, DicOptions{}).status, PointStatus::outside_roi)
      << "a 31 px subset at x = 10 leaves the image";
  EXPECT_EQ(icgn(r, r, 48, 48, Warp{40, 0, 0, 0, 0, 0}, DicOptions{}).status,
            PointStatus::outside_roi)
      << "the warped subset leaves the deformed image";
}

}  // namespace
}  // namespace xcorr::dic
