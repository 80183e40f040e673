// icgn on one subset of a rendered speckle pair: a known sub-pixel translation and an affine
// deformation are recovered from an integer start; flat subsets are low_texture, subsets that
// leave the image outside_roi.
#include "core/dic/icgn.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/dic/icgn_math.hpp"
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
  const IcgnResult res =
      icgn(r, d, 48, 48, Warp{0, 0, 0, 0, 0, 0}, DicOptions{}, math::NoiseModel{});
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
  const IcgnResult res =
      icgn(r, d, 48, 48, Warp{1, 0, 0, -1, 0, 0}, DicOptions{}, math::NoiseModel{});
  ASSERT_EQ(res.status, PointStatus::converged);
  EXPECT_NEAR(res.p[0], 1.2, 0.01);
  EXPECT_NEAR(res.p[3], -0.6, 0.01);
  EXPECT_NEAR(res.p[1], 0.01, 0.002);   // ux
  EXPECT_NEAR(res.p[5], 0.008, 0.002);  // vy
}

TEST(Icgn, FlatSubsetsAreLowTextureAndEscapingOnesOutsideTheImage) {
  Stack<float> flat(64, 64, 1, 1000.0f);
  const BSplineImage f(flat[0]);
  EXPECT_EQ(icgn(f, f, 32, 32, Warp{}, DicOptions{}, math::NoiseModel{}).status,
            PointStatus::low_texture);
  const auto ref = synth::render_speckle(pattern(), 0, 0);
  const BSplineImage r(ref[0]);
  EXPECT_EQ(icgn(r, r, 10, 48, Warp{}, DicOptions{}, math::NoiseModel{}).status,
            PointStatus::outside_roi)
      << "a 31 px subset at x = 10 leaves the image";
  EXPECT_EQ(icgn(r, r, 48, 48, Warp{40, 0, 0, 0, 0, 0}, DicOptions{}, math::NoiseModel{}).status,
            PointStatus::outside_image)
      << "the warped subset leaves the deformed image";
}

// A subset touching the border whose match moves outward by up to half a pixel (within the
// border pixels' footprints) is measured, as well as inside: IC-GN leaves out the border band
// (math::border_band) where the spline sees the image's continuation; carried further out, it
// is outside_image. Each side of the image.
TEST(Icgn, ASubPixelExcursionPastTheBorderIsMeasured) {
  const auto ref = synth::render_speckle(pattern(), 0, 0);
  const BSplineImage r(ref[0]);
  const int h = DicOptions{}.subset / 2;  // 15: the subset at x = h touches column 0
  double worst = 0;
  struct Side {
    double x, y, dx, dy;  // subset centre; outward direction
  };
  for (const Side s :
       {Side{15, 48, -1, 0}, Side{80, 48, 1, 0}, Side{48, 15, 0, -1}, Side{48, 80, 0, 1}}) {
    ASSERT_TRUE(s.x - h == 0 || s.x + h == 95 || s.y - h == 0 || s.y + h == 95);
    for (const double d : {0.01, 0.05, 0.25, 0.45}) {
      const auto def = synth::render_speckle(pattern(), d * s.dy, d * s.dx);
      const BSplineImage dd(def[0]);
      const IcgnResult res = icgn(r, dd, s.x, s.y, Warp{}, DicOptions{}, math::NoiseModel{});
      ASSERT_EQ(res.status, PointStatus::converged) << s.x << "," << s.y << " moved " << d;
      worst = std::max({worst, std::abs(res.p[0] - d * s.dx), std::abs(res.p[3] - d * s.dy)});
      // Measured, noise-free: <= 0.0001 px at every excursion. Sampling the whole subset with
      // the spline's former mirror boundary cost up to 0.013 px at 0.45 px out; interior points
      // of this pattern: < 0.001 px.
      const double tol = 0.001;
      EXPECT_NEAR(res.p[0], d * s.dx, tol) << s.x << "," << s.y << " moved " << d;
      EXPECT_NEAR(res.p[3], d * s.dy, tol) << s.x << "," << s.y << " moved " << d;
      std::printf("[ border ] %g,%g moved %.2f px: error %.4f, %.4f px\n", s.x, s.y, d,
                  res.p[0] - d * s.dx, res.p[3] - d * s.dy);
    }
    const auto far = synth::render_speckle(pattern(), 0.7 * s.dy, 0.7 * s.dx);
    const BSplineImage fd(far[0]);
    EXPECT_EQ(icgn(r, fd, s.x, s.y, Warp{}, DicOptions{}, math::NoiseModel{}).status,
              PointStatus::outside_image)
        << s.x << "," << s.y << " moved 0.7 px";
  }
  std::printf("[ border ] worst error of a border subset moved outward 0.01-0.45 px: %.4f px\n",
              worst);
}

}  // namespace
}  // namespace xcorr::dic

namespace xcorr::dic {
namespace {

// kappa: white noise through the smoothing and the B-spline interpolant's gradient at the pixel
// centres, relative to the smoothed noise's variance. The cubic spline's, summed from its
// prefilter's impulse response, is the constant 6 sqrt(3) - 9; gradient_noise_gain() (what the
// uncertainty uses) against it and against a BSplineImage of white noise for every setting.
TEST(NoiseSigma, TheGradientNoiseGainIsTheSplinesOwn) {
  const double z = std::sqrt(3.0) - 2;
  const auto p = [z](int m) { return std::sqrt(3.0) * std::pow(z, std::abs(m)); };
  double kappa = 0;
  for (int m = -40; m <= 40; ++m) kappa += std::pow((p(m + 1) - p(m - 1)) / 2, 2);
  EXPECT_NEAR(kappa, math::kGradientNoiseGain, 1e-12);
  EXPECT_NEAR(gradient_noise_gain(Interpolation::cubic, 0), kappa, 1e-6);
  std::mt19937 g(7);
  std::normal_distribution<double> noise(0, 1);
  Stack<float> img(400, 400, 1);
  for (float& v : img.values()) v = static_cast<float>(noise(g));
  for (const Interpolation interp : {Interpolation::cubic, Interpolation::quintic})
    for (const double sigma : {0.0, 0.6, 1.0}) {
      const BSplineImage spline(img[0], interp, sigma);
      double sum = 0, var = 0;
      for (int y = 20; y < 380; ++y)
        for (int x = 20; x < 380; ++x) {
          double v = 0, gx = 0, gy = 0;
          spline.value_gradient(x, y, v, gx, gy);
          sum += gx * gx + gy * gy;
          var += 2 * v * v;
        }
      const double expected = gradient_noise_gain(interp, sigma);
      std::printf("kappa %s sigma %.1f: %.4f (measured %.4f)\n", label(interp), sigma, expected,
                  sum / var);
      EXPECT_NEAR(sum / var, expected, 0.02 * expected) << label(interp) << " " << sigma;
    }
}

}  // namespace
}  // namespace xcorr::dic

namespace xcorr::dic {
namespace {

// The closed-form basis moments against the sum over the subset, both shape functions.
TEST(NoiseSigma, TheBasisMomentsAreTheSumsOverTheSubset) {
  for (const int subset : {5, 21, 31, 41}) {
    const int h = subset / 2;
    double sum3[6] = {}, sum6[21] = {}, b3[6], b6[21];
    for (int j = -h; j <= h; ++j)
      for (int i = -h; i <= h; ++i) {
        const double b[6] = {1, double(i), double(j), i * i / 2.0, double(i * j), j * j / 2.0};
        for (int a = 0; a < 6; ++a)
          for (int c = 0; c <= a; ++c) {
            sum6[a * (a + 1) / 2 + c] += b[a] * b[c];
            if (a < 3) sum3[a * (a + 1) / 2 + c] += b[a] * b[c];
          }
      }
    math::basis_moments<3>(subset, b3);
    math::basis_moments<6>(subset, b6);
    for (int e = 0; e < 6; ++e) EXPECT_DOUBLE_EQ(b3[e], sum3[e]) << subset << " entry " << e;
    for (int e = 0; e < 21; ++e) EXPECT_DOUBLE_EQ(b6[e], sum6[e]) << subset << " entry " << e;
  }
}

}  // namespace
}  // namespace xcorr::dic
