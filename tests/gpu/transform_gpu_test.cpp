// The GPU's IC-GN of transforms (gpu/transform_gpu.hpp) inside TransformFitter, against the CPU's
// (the same arithmetic with float64 sums in another order) and against maps known in float64
// (tests/support/texture_transform.hpp, fresh random maps each run): rigid, similarity and
// affine; sizes odd, prime, tiny and not multiples of 32, and sizes whose coarse level bins by 2
// and 3; one reference or one per frame (`previous`); more frames than one device block. Frames
// that cannot be fitted fail by the same name on both. CTest label gpu; skips without a device.
#include "gpu/transform_gpu.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/register/transform_fit.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/texture_transform.hpp"

namespace xcorr::reg {
namespace {

using test::errors;
using test::random_transform;
using test::sample;
using test::Texture;

Result<std::unique_ptr<LevelFitter>> gpu_fitters(Shape shape, int bin, const std::string&) {
  return gpu::make_gpu_level_fitter(shape, bin);
}

struct Frames {
  Stack<float> reference;
  std::vector<Stack<float>> frames;
  std::vector<Affine> truth;
  std::vector<MatrixView<const float>> views() const {
    std::vector<MatrixView<const float>> v;
    for (const auto& f : frames) v.push_back(f[0]);
    return v;
  }
};

Frames transformed(Transform t, Shape s, int count, double max_angle, double max_shift,
                   std::uint64_t stream) {
  std::mt19937_64 g(testing::run_seed() + stream);
  const Texture tex(g);
  Frames f;
  f.reference = sample(tex, s.rows, s.cols, Affine{});
  for (int k = 0; k < count; ++k) {
    f.truth.push_back(random_transform(t, s.rows, s.cols, max_angle, max_shift, g));
    f.frames.push_back(sample(tex, s.rows, s.cols, f.truth.back().inverse()));
  }
  return f;
}

// px RMS from the truth: the fitter's bound (transform_fit_test.cpp's). It was 0.002 here, below
// what the cubic spline's interpolation leaves on these textures' 3 px waves: a 257 x 263 rigid
// frame came 0.0039 px from the truth on the GPU and the CPU alike (seed 2675450928438959363).
// What the GPU itself is held to is `agree`, its distance from the CPU's fit.
constexpr double kTruthTol = 0.02;

// Both fitters on the same frames: the same failures, maps within `agree` px RMS of each other,
// the GPU's within `tol` px RMS of the truth.
void check_against_cpu(Transform t, Shape s, int count, double max_angle, double max_shift,
                       double agree, double tol, std::uint64_t stream, bool previous = false) {
  const Frames f = transformed(t, s, count, max_angle, max_shift, stream);
  auto cpu = TransformFitter::create(s, {t, 45});
  auto gpu = TransformFitter::create(s, {t, 45}, gpu_fitters, "gpu");
  ASSERT_TRUE(cpu.is_ok()) << cpu.status().message();
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  EXPECT_EQ(gpu.value()->device(), "gpu");
  std::vector<MatrixView<const float>> refs(f.frames.size(), f.reference[0]);
  ASSERT_TRUE(cpu.value()->set_reference(f.reference[0]).is_ok());
  if (!previous) {
    ASSERT_TRUE(gpu.value()->set_reference(f.reference[0]).is_ok());
  }
  auto a = cpu.value()->measure(f.views());
  auto b = gpu.value()->measure(f.views(), previous ? &refs : nullptr);
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  for (int k = 0; k < count; ++k) {
    const Fit& c = a.value()[k];
    const Fit& d = b.value()[k];
    SCOPED_TRACE(std::string(label(t)) + " " + to_string(s) + " frame " + std::to_string(k) +
                 ": truth angle " + std::to_string(f.truth[k].angle_degrees()));
    ASSERT_EQ(c.failed, "");
    ASSERT_EQ(d.failed, "");
    EXPECT_LT(errors(d.map, c.map, s.rows, s.cols).shift, agree);
    EXPECT_LT(errors(d.map, f.truth[k], s.rows, s.cols).shift, tol);
    EXPECT_NEAR(d.zncc, c.zncc, 1e-6);
  }
}

TEST(GpuTransform, MatchesTheCpuFitterAndTheTruthOnEverySize) {
  XCORR_SKIP_WITHOUT_GPU();
  std::uint64_t stream = 0;
  for (const Transform t : {Transform::rigid, Transform::similarity, Transform::affine}) {
    check_against_cpu(t, {97, 131}, 3, 10, 3, 1e-4, kTruthTol, ++stream);
    check_against_cpu(t, {127, 127}, 3, 10, 3, 1e-4, kTruthTol, ++stream);
    check_against_cpu(t, {61, 200}, 2, 8, 2, 1e-4, kTruthTol, ++stream);
    check_against_cpu(t, {300, 613}, 2, 10, 5, 1e-4, kTruthTol, ++stream);  // coarse level: bin 3
  }
  // Tiny: 13 x 17 px, small rotations.
  check_against_cpu(Transform::rigid, {13, 17}, 3, 2, 0.4, 1e-3, 0.05, ++stream);
}

TEST(GpuTransform, OneReferencePerFrameAndMoreFramesThanABlock) {
  XCORR_SKIP_WITHOUT_GPU();
  check_against_cpu(Transform::rigid, {257, 263}, 40, 10, 4, 1e-4, kTruthTol, 100, false);  // bin 2
  check_against_cpu(Transform::similarity, {101, 89}, 35, 10, 3, 1e-4, kTruthTol, 101, true);
}

TEST(GpuTransform, FramesThatCannotBeFittedFailByTheSameName) {
  XCORR_SKIP_WITHOUT_GPU();
  const Shape s{96, 96};
  const Frames f = transformed(Transform::rigid, s, 1, 3, 1, 200);
  Stack<float> flat(s.rows, s.cols, 1);
  for (Index i = 0; i < s.area(); ++i) flat.data()[i] = 5;
  // A rotation beyond max_rotation 5: fitted, then failed by name.
  const Affine turned = Affine::about(47.5, 47.5, 0.3, -0.2, Affine::rotation(8 * test::kDeg));
  for (const char* device : {"cpu", "gpu"}) {
    auto fitter = TransformFitter::create(
        s, {Transform::rigid, 5},
        std::string(device) == "gpu" ? LevelFitterFactory(gpu_fitters) : cpu_level_fitters, device);
    ASSERT_TRUE(fitter.is_ok());
    ASSERT_TRUE(fitter.value()->set_reference(f.reference[0]).is_ok());
    auto r = fitter.value()->measure({flat[0], f.frames[0][0]});
    ASSERT_TRUE(r.is_ok());
    EXPECT_NE(r.value()[0].failed, "") << device;
    EXPECT_EQ(r.value()[1].failed, "") << device;
    std::mt19937_64 g(7);
    const Texture tex(g);
    ASSERT_TRUE(fitter.value()->set_reference(sample(tex, s.rows, s.cols, Affine{})[0]).is_ok());
    const Fit far = fitter.value()->measure(sample(tex, s.rows, s.cols, turned.inverse())[0]);
    EXPECT_NE(far.failed.find("beyond the searched +-5 degrees"), std::string::npos)
        << device << ": " << far.failed;
  }
}

TEST(GpuTransform, TheEngineFacadeGivesTheDeviceAsked) {
  XCORR_SKIP_WITHOUT_GPU();
  engine::install_gpu();
  for (const char* device : {"auto", "gpu", "cpu"}) {
    auto f = engine::make_level_fitter({64, 80}, 1, device);
    ASSERT_TRUE(f.is_ok()) << f.status().message();
    EXPECT_EQ(f.value()->device(), std::string(device) == "cpu" ? "cpu" : "gpu") << device;
  }
  EXPECT_EQ(gpu::make_gpu_level_fitter({4, 80}, 1).status().code(), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace xcorr::reg
