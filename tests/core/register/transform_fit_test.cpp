// Rigid, similarity and affine fits against transforms known in float64: the images are a
// texture defined at every point (a sum of random plane waves, periodic in nothing), sampled at
// the reference's pixels and at the pixels of the frame, whose content is the texture moved by a
// fresh random transform; nothing is interpolated to make them. Sizes odd, prime, tiny and not
// multiples of 32; rotations up to 10 degrees, scales 0.9-1.1, sub-pixel translations.
#include "core/register/transform_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tests/support/matrix_testing.hpp"
#include "tests/support/texture_transform.hpp"

namespace xcorr::reg {
namespace {

using test::Errors;
using test::errors;
using test::kDeg;
using test::random_transform;
using test::sample;
using test::Texture;

struct Case {
  Index rows, cols;
  double max_angle, max_shift;
  double angle_tol, shift_tol, matrix_tol, scale_tol;
};

void check_model(Transform model, const Case& c, int trials, std::uint64_t stream) {
  std::mt19937_64 g(testing::run_seed() + stream);
  for (int trial = 0; trial < trials; ++trial) {
    const Texture tex(g);
    const Affine truth = random_transform(model, c.rows, c.cols, c.max_angle, c.max_shift, g);
    // The reference shows the texture at its pixels; the frame shows at p what the reference
    // shows at truth^-1(p): a feature at q in the reference is at truth(q) in the frame.
    const Stack<float> ref = sample(tex, c.rows, c.cols, Affine{});
    const Stack<float> frame = sample(tex, c.rows, c.cols, truth.inverse());
    auto fitter = TransformFitter::create({c.rows, c.cols}, {model, 45});
    ASSERT_TRUE(fitter.is_ok()) << fitter.status().message();
    ASSERT_TRUE(fitter.value()->set_reference(ref[0]).is_ok());
    const Fit fit = fitter.value()->measure(frame[0]);
    SCOPED_TRACE(std::string(label(model)) + " " + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols) + " trial " + std::to_string(trial) + ": truth angle " +
                 std::to_string(truth.angle_degrees()) + ", scale " +
                 std::to_string(truth.scale()));
    ASSERT_EQ(fit.failed, "");
    const Errors e = errors(fit.map, truth, c.rows, c.cols);
    EXPECT_LT(e.angle, c.angle_tol);
    EXPECT_LT(e.shift, c.shift_tol);
    if (model != Transform::rigid) {
      EXPECT_LT(e.scale, c.scale_tol);
    }
    if (model == Transform::affine) {
      EXPECT_LT(e.matrix, c.matrix_tol);
    }
    // The same against an explicit reference (previous registration) gives the same fit.
    const Fit again = fitter.value()->measure(ref[0], frame[0]);
    for (int k = 0; k < 6; ++k)
      EXPECT_EQ(again.map.m[static_cast<std::size_t>(k)], fit.map.m[static_cast<std::size_t>(k)]);
  }
}

TEST(TransformFit, RigidSimilarityAndAffineOnOddAndPrimeSizes) {
  // Noise-free: the fits are within the bounds (0.01 degrees, 0.01 % of the scale,
  // 0.02 px RMS, 1e-4 of the matrix); the tiny size has its own test.
  const Case cases[] = {{97, 131, 10, 4, 0.01, 0.02, 1e-4, 1e-4},
                        {127, 127, 10, 3, 0.01, 0.02, 1e-4, 1e-4},
                        {61, 200, 6, 2, 0.01, 0.02, 1e-4, 1e-4}};
  std::uint64_t stream = 1;
  for (const Case& c : cases)
    for (const Transform m : {Transform::rigid, Transform::similarity, Transform::affine})
      check_model(m, c, 2, stream++);
}

// 13 x 17 px give a rotation little leverage (and the smoothing's border band takes a third):
// they converge, within 0.5 degrees, 0.1 px and 3 % of the scale.
TEST(TransformFit, TinyImagesStillFit) {
  const Case tiny{13, 17, 3, 0.5, 0.5, 0.1, 3e-2, 3e-2};
  check_model(Transform::rigid, tiny, 3, 100);
  check_model(Transform::similarity, tiny, 3, 200);
}

TEST(TransformFit, NoisyFramesStayWithinTheBounds) {
  std::mt19937_64 g(testing::run_seed() + 7);
  const Index rows = 151, cols = 149;
  const Texture tex(g);
  const Affine truth = random_transform(Transform::rigid, rows, cols, 10, 3, g);
  const Stack<float> ref = sample(tex, rows, cols, Affine{}, 0.2, &g);  // ~2 % of the range
  const Stack<float> frame = sample(tex, rows, cols, truth.inverse(), 0.2, &g);
  auto fitter = TransformFitter::create({rows, cols}, {Transform::rigid, 45});
  ASSERT_TRUE(fitter.is_ok());
  ASSERT_TRUE(fitter.value()->set_reference(ref[0]).is_ok());
  const Fit fit = fitter.value()->measure(frame[0]);
  ASSERT_EQ(fit.failed, "");
  const Errors e = errors(fit.map, truth, rows, cols);
  EXPECT_LT(e.angle, 0.01);
  EXPECT_LT(e.shift, 0.02);
}

TEST(TransformFit, EveryFitIsRightOrFailsByNameOnManySmallFrames) {
  // 60 fresh similarity maps (up to 10 degrees, scale 0.9-1.1) of a 101 x 89 px texture in one
  // call: no fit may be wrong without saying so. A Fourier-Mellin start that was wrong once led
  // IC-GN to a local optimum of ZNCC 0.35 (2.3 degrees for 9, 15 px off) that was kept; a weak
  // match now makes the fitter try the translation-only start too.
  std::mt19937_64 g(testing::run_seed() + 77);
  const Texture tex(g);
  const Shape s{101, 89};
  const Stack<float> ref = sample(tex, s.rows, s.cols, Affine{});
  std::vector<Affine> truth;
  std::vector<Stack<float>> frames;
  std::vector<MatrixView<const float>> views;
  for (int k = 0; k < 60; ++k) {
    truth.push_back(random_transform(Transform::similarity, s.rows, s.cols, 10, 3, g));
    frames.push_back(sample(tex, s.rows, s.cols, truth.back().inverse()));
  }
  for (const auto& f : frames) views.push_back(f[0]);
  auto fitter = TransformFitter::create(s, {Transform::similarity, 45});
  ASSERT_TRUE(fitter.is_ok());
  ASSERT_TRUE(fitter.value()->set_reference(ref[0]).is_ok());
  auto fits = fitter.value()->measure(views);
  ASSERT_TRUE(fits.is_ok());
  int fitted = 0;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Fit& f = fits.value()[k];
    if (!f.failed.empty()) continue;
    ++fitted;
    EXPECT_LT(errors(f.map, truth[k], s.rows, s.cols).shift, 0.01)
        << "frame " << k << ", ZNCC " << f.zncc << ": truth angle " << truth[k].angle_degrees()
        << ", fitted " << f.map.angle_degrees();
  }
  EXPECT_GE(fitted, 55);
}

// A frame whose Fourier-Mellin angle is wrong (0.9 degrees for a frame turned by -7.9: a fixed
// texture and map, found by the GPU test's random frames) and whose translation-only start
// leads IC-GN nowhere either: the angle search's start fits it. It did not converge before.
TEST(TransformFit, AWrongFourierMellinAngleIsRecoveredByTheAngleSearch) {
  std::mt19937_64 g(71384);
  const Texture tex(g);
  const Shape s{257, 263};
  Affine truth;
  for (int k = 0; k < 6; ++k) truth = random_transform(Transform::rigid, s.rows, s.cols, 10, 4, g);
  ASSERT_NEAR(truth.angle_degrees(), -7.921, 1e-3) << "the texture and map of the case";
  const Stack<float> ref = sample(tex, s.rows, s.cols, Affine{});
  const Stack<float> frame = sample(tex, s.rows, s.cols, truth.inverse());
  auto fitter = TransformFitter::create(s, {Transform::rigid, 45});
  ASSERT_TRUE(fitter.is_ok());
  ASSERT_TRUE(fitter.value()->set_reference(ref[0]).is_ok());
  const Fit fit = fitter.value()->measure(frame[0]);
  ASSERT_EQ(fit.failed, "");
  const Errors e = errors(fit.map, truth, s.rows, s.cols);
  EXPECT_LT(e.angle, 0.01);
  EXPECT_LT(e.shift, 0.02);
}

TEST(TransformFit, WhatCannotBeFittedFailsByName) {
  std::mt19937_64 g(testing::run_seed() + 11);
  const Index rows = 96, cols = 96;
  const Texture tex(g);
  const Stack<float> ref = sample(tex, rows, cols, Affine{});
  auto fitter = TransformFitter::create({rows, cols}, {Transform::rigid, 5});
  ASSERT_TRUE(fitter.is_ok());
  ASSERT_TRUE(fitter.value()->set_reference(ref[0]).is_ok());
  // Beyond the searched rotation (5 degrees): the fit finds it and refuses it.
  const Affine turned = Affine::about(47.5, 47.5, 0.3, -0.2, Affine::rotation(8 * kDeg));
  const Fit beyond = fitter.value()->measure(sample(tex, rows, cols, turned.inverse())[0]);
  EXPECT_NE(beyond.failed.find("beyond the searched +-5 degrees"), std::string::npos)
      << beyond.failed;
  // White noise: nothing to match (another smooth texture can reach ZNCC 0.3 under a free
  // rotation, which is a match, not a failure).
  const Stack<float> noise = testing::random_stack(rows, cols, 1, 12);
  const Fit unrelated = fitter.value()->measure(noise[0]);
  EXPECT_NE(unrelated.failed, "");
  // A frame of another size.
  const Stack<float> small(50, 50, 1, 1.0f);
  EXPECT_NE(fitter.value()->measure(small[0]).failed.find("px, not"), std::string::npos);
}

}  // namespace
}  // namespace xcorr::reg
