// The GPU phase engine against the CPU one (PhaseCorrelator, the float64-summed reference of the
// same arithmetic) and against shifts known exactly (periodic Fourier shifts computed in float64,
// fresh random shifts each run): sizes odd, prime, tiny and not multiples of 32; every option
// (window, whitening, upsample 1 / 20 / 100, 1 and 2 iterations); one reference or one per
// frame (`previous`); more frames than one device block; blocks measured one after another
// (a stale result would show). Bad input is refused by name. CTest label gpu; skips without a
// device.
#include "gpu/phase_gpu.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/engine/engine.hpp"
#include "core/register/phase_engine.hpp"
#include "tests/support/fourier_shift.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::reg {
namespace {

struct Frames {
  Stack<float> reference;
  std::vector<Stack<float>> moved;
  std::vector<double> dx, dy;
};

Frames shifted_frames(Index rows, Index cols, int count, std::uint64_t stream) {
  std::mt19937_64 rng(testing::run_seed() + stream);
  std::uniform_real_distribution<double> d(-0.2 * static_cast<double>(std::min(rows, cols)),
                                           0.2 * static_cast<double>(std::min(rows, cols)));
  Frames f;
  f.reference = test::random_image(rows, cols, static_cast<unsigned>(stream) + 11);
  for (int k = 0; k < count; ++k) {
    f.dx.push_back(d(rng));
    f.dy.push_back(d(rng));
    f.moved.push_back(test::fourier_shift(f.reference, f.dx.back(), f.dy.back()));
  }
  return f;
}

std::vector<MatrixView<const float>> views(const std::vector<Stack<float>>& s) {
  std::vector<MatrixView<const float>> v;
  for (const Stack<float>& m : s) v.push_back(m[0]);
  return v;
}

std::string describe(Shape s, const PhaseOptions& o, int iterations) {
  return to_string(s) + " upsample " + std::to_string(o.upsample) + " window " +
         std::to_string(o.window) + " whiten " + std::to_string(o.whiten) + " iterations " +
         std::to_string(iterations);
}

TEST(GpuPhase, MatchesTheCpuEngineAndTheKnownShiftsOnEverySizeAndOption) {
  XCORR_SKIP_WITHOUT_GPU();
  const Shape shapes[] = {{9, 11}, {17, 13}, {61, 47}, {33, 100}, {97, 128}, {128, 96}};
  std::uint64_t stream = 1;
  for (const Shape shape : shapes) {
    const Frames f = shifted_frames(shape.rows, shape.cols, 5, stream++);
    for (const int upsample : {1, 20, 100})
      for (const bool window : {true, false})
        for (const bool whiten : {false, true})
          for (const int iterations : {1, 2}) {
            const PhaseOptions o{upsample, window, whiten};
            const std::string what = describe(shape, o, iterations);
            auto cpu = make_cpu_phase_engine(shape, o, iterations);
            auto gpu = gpu::make_gpu_phase_engine(shape, o, iterations);
            ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
            ASSERT_TRUE(cpu.value()->set_reference(f.reference[0]).is_ok());
            ASSERT_TRUE(gpu.value()->set_reference(f.reference[0]).is_ok());
            auto c = cpu.value()->measure(views(f.moved));
            auto g = gpu.value()->measure(views(f.moved));
            ASSERT_TRUE(g.is_ok()) << g.status().message();
            ASSERT_EQ(g.value().size(), f.moved.size());
            for (std::size_t k = 0; k < f.moved.size(); ++k) {
              // The same search, its float sums in another order: the same result, or one a
              // step of the finest grid away where two points of the pattern nearly tie.
              const double step = 1.0 / upsample + 1e-6;
              EXPECT_NEAR(g.value()[k].dx, c.value()[k].dx, step) << what << " frame " << k;
              EXPECT_NEAR(g.value()[k].dy, c.value()[k].dy, step) << what << " frame " << k;
              // Whitened, the frequencies the image lacks (the binomial's zero at Nyquist) are
              // the two FFTs' rounding noise made unit-sized: each counts 1/N in the peak.
              EXPECT_NEAR(g.value()[k].peak, c.value()[k].peak, whiten ? 2e-2 : 1e-3)
                  << what << " frame " << k;
              if (!window) {  // periodic shifts: exact up to the grid (upsample 1: the rounded
                              // parabola through the integer peak, within a pixel)
                const double tol = upsample == 1 ? 1.0 : 1.0 / upsample;
                EXPECT_NEAR(g.value()[k].dx, f.dx[k], tol) << what << " frame " << k;
                EXPECT_NEAR(g.value()[k].dy, f.dy[k], tol) << what << " frame " << k;
              }
            }
          }
  }
}

TEST(GpuPhase, OneReferencePerFrameAndMoreFramesThanABlock) {
  XCORR_SKIP_WITHOUT_GPU();
  const Shape shape{37, 41};
  const Frames f = shifted_frames(shape.rows, shape.cols, 45, 100);  // > 32 frames: two blocks
  const PhaseOptions o{100, false, true};
  auto cpu = make_cpu_phase_engine(shape, o, 2);
  auto gpu = gpu::make_gpu_phase_engine(shape, o, 2);
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  // `previous`: frame k against frame k - 1.
  std::vector<MatrixView<const float>> frames = views(f.moved), refs;
  refs.push_back(f.reference[0]);
  for (std::size_t k = 0; k + 1 < frames.size(); ++k) refs.push_back(frames[k]);
  auto c = cpu.value()->measure(frames, &refs);
  auto g = gpu.value()->measure(frames, &refs);
  ASSERT_TRUE(g.is_ok()) << g.status().message();
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const double tx = f.dx[k] - (k > 0 ? f.dx[k - 1] : 0.0);
    const double ty = f.dy[k] - (k > 0 ? f.dy[k - 1] : 0.0);
    EXPECT_NEAR(g.value()[k].dx, c.value()[k].dx, 0.0101) << k;
    EXPECT_NEAR(g.value()[k].dy, c.value()[k].dy, 0.0101) << k;
    EXPECT_NEAR(g.value()[k].dx, tx, 0.01) << k;
    EXPECT_NEAR(g.value()[k].dy, ty, 0.01) << k;
  }
  // The set reference again, block after block of different frames: every result is its own.
  ASSERT_TRUE(gpu.value()->set_reference(f.reference[0]).is_ok());
  for (std::size_t first = 0; first < 6; first += 3) {
    const std::vector<MatrixView<const float>> part(frames.begin() + static_cast<long>(first),
                                                    frames.begin() + static_cast<long>(first) + 3);
    auto s = gpu.value()->measure(part);
    ASSERT_TRUE(s.is_ok());
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(s.value()[k].dx, f.dx[first + k], 0.01) << first + k;
      EXPECT_NEAR(s.value()[k].dy, f.dy[first + k], 0.01) << first + k;
    }
  }
}

TEST(GpuPhase, TheDeviceResidentTimingMeasuresTheSameShifts) {
  XCORR_SKIP_WITHOUT_GPU();
  // 5 frames (not a divisor of the 32-frame block), 75 measured: frame k is frames[k % 5].
  const Frames f = shifted_frames(64, 80, 5, 200);
  Stack<float> frames(64, 80, 5);
  for (Index k = 0; k < 5; ++k)
    std::copy_n(f.moved[static_cast<std::size_t>(k)].data(), 64 * 80, frames[k].data);
  const PhaseOptions o{100, false, false};
  auto t = gpu::time_phase_on_gpu(f.reference[0], frames.view(), 75, o, 2);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  ASSERT_EQ(t.value().shifts.size(), 75u);
  EXPECT_GT(t.value().seconds, 0);
  for (std::size_t k = 0; k < 75; ++k) {
    EXPECT_NEAR(t.value().shifts[k].dx, f.dx[k % 5], 0.01) << k;
    EXPECT_NEAR(t.value().shifts[k].dy, f.dy[k % 5], 0.01) << k;
  }
}

TEST(GpuPhase, TheEngineFacadeGivesTheDeviceAsked) {
  XCORR_SKIP_WITHOUT_GPU();
  engine::install_gpu();
  for (const char* device : {"auto", "gpu", "cpu"}) {
    auto e = engine::make_phase_engine({20, 30}, {}, 2, device);
    ASSERT_TRUE(e.is_ok()) << e.status().message();
    EXPECT_EQ(e.value()->device(), std::string(device) == "cpu" ? "cpu" : "gpu") << device;
  }
}

TEST(GpuPhase, BadInputIsRefusedByName) {
  XCORR_SKIP_WITHOUT_GPU();
  EXPECT_EQ(gpu::make_gpu_phase_engine({1, 10}, {}, 1).status().message(),
            "phase correlation needs a region of at least 2 x 2 px, not 1x10");
  EXPECT_FALSE(gpu::make_gpu_phase_engine({10, 10}, {0, true, false}, 1).is_ok());
  auto e = gpu::make_gpu_phase_engine({10, 12}, {}, 2);
  ASSERT_TRUE(e.is_ok());
  const Stack<float> frame(10, 12, 1, 1.0f), wrong(12, 10, 1, 1.0f);
  EXPECT_EQ(e.value()->measure({frame[0]}).status().code(), ErrorCode::invalid_argument)
      << "no reference yet";
  ASSERT_TRUE(e.value()->set_reference(frame[0]).is_ok());
  EXPECT_EQ(e.value()->measure({wrong[0]}).status().code(), ErrorCode::size_mismatch);
  EXPECT_EQ(e.value()->set_reference(wrong[0]).code(), ErrorCode::size_mismatch);
}

}  // namespace
}  // namespace xcorr::reg
