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

namespace xcorr::reg {
namespace {

constexpr double kDeg = 3.14159265358979323846 / 180;

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
Stack<float> sample(const Texture& t, Index rows, Index cols, const Affine& to_texture,
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
Affine random_transform(Transform t, Index rows, Index cols, double max_angle, double max_shift,
                        std::mt19937_64& g) {
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
Errors errors(const Affine& fit, const Affine& truth, Index rows, Index cols) {
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
