// The GPU volume engine against the CPU one (VolumeCorrelator, the same arithmetic with float64
// sums in another order) and against shifts known in float64 (tests/support/wave_volume.hpp,
// fresh random sub-voxel shifts each run): sizes odd, prime, tiny and not multiples of 32;
// upsample 1, 20 and 100; one reference or one per volume (`previous`); more volumes than one
// device block, and blocks measured one after another (a stale result would show). Bad input is
// refused by name. CTest label gpu; skips without a device.
#include "gpu/volume_gpu.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/engine/engine.hpp"
#include "core/register/volume_engine.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/wave_volume.hpp"

namespace xcorr::reg {
namespace {

struct Volumes {
  std::vector<float> reference;
  std::vector<std::vector<float>> moved;
  std::vector<double> dx, dy, dz;
  std::vector<const float*> pointers() const {
    std::vector<const float*> p;
    for (const auto& v : moved) p.push_back(v.data());
    return p;
  }
};

// `count` volumes of `s` moved by random shifts up to a sixteenth of each side (cumulative
// when `walk`: a random walk, as drift over time is).
Volumes shifted_volumes(VolumeShape s, int count, std::uint64_t stream, bool walk = false) {
  std::mt19937_64 g(testing::run_seed() + stream);
  std::uniform_real_distribution<double> u(-1, 1);
  const test::Waves w(g);
  Volumes v;
  v.reference = test::wave_volume(w, s, 0, 0, 0);
  double x = 0, y = 0, z = 0;
  for (int k = 0; k < count; ++k) {
    const double ax = u(g) * static_cast<double>(s.cols) / 16,
                 ay = u(g) * static_cast<double>(s.rows) / 16,
                 az = u(g) * static_cast<double>(s.depth) / 16;
    x = walk ? x + ax / 2 : ax, y = walk ? y + ay / 2 : ay, z = walk ? z + az / 2 : az;
    v.dx.push_back(x), v.dy.push_back(y), v.dz.push_back(z);
    v.moved.push_back(test::wave_volume(w, s, x, y, z));
  }
  return v;
}

std::string describe(VolumeShape s, int upsample) {
  return std::to_string(s.cols) + "x" + std::to_string(s.rows) + "x" + std::to_string(s.depth) +
         " upsample " + std::to_string(upsample);
}

TEST(GpuVolume, MatchesTheCpuEngineAndTheKnownShiftsOnEverySize) {
  XCORR_SKIP_WITHOUT_GPU();
  const VolumeShape shapes[] = {{3, 5, 7}, {9, 33, 31}, {16, 40, 48}, {13, 17, 19}, {33, 97, 89}};
  std::uint64_t stream = 1;
  for (const VolumeShape s : shapes) {
    const Volumes v = shifted_volumes(s, 3, stream++);
    for (const int upsample : {1, 20, 100}) {
      const std::string what = describe(s, upsample);
      auto cpu = make_cpu_volume_engine(s, upsample);
      auto gpu = gpu::make_gpu_volume_engine(s, upsample);
      ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
      ASSERT_TRUE(cpu.value()->set_reference(v.reference.data()).is_ok());
      ASSERT_TRUE(gpu.value()->set_reference(v.reference.data()).is_ok());
      auto c = cpu.value()->measure(v.pointers());
      auto g = gpu.value()->measure(v.pointers());
      ASSERT_TRUE(g.is_ok()) << g.status().message();
      ASSERT_EQ(g.value().size(), v.moved.size());
      for (std::size_t k = 0; k < v.moved.size(); ++k) {
        // The same search, its float sums in another order: the same result, or one a step of
        // the finest grid away where two points of the pattern nearly tie.
        const double step = 1.0 / upsample + 1e-6;
        EXPECT_NEAR(g.value()[k].dx, c.value()[k].dx, step) << what << " volume " << k;
        EXPECT_NEAR(g.value()[k].dy, c.value()[k].dy, step) << what << " volume " << k;
        EXPECT_NEAR(g.value()[k].dz, c.value()[k].dz, step) << what << " volume " << k;
        EXPECT_NEAR(g.value()[k].peak, c.value()[k].peak, 1e-3) << what << " volume " << k;
        if (s.depth >= 32 && upsample == 100) {  // phase_volume_test's bound at 32 planes
          EXPECT_NEAR(g.value()[k].dx, v.dx[k], 0.03) << what << " volume " << k;
          EXPECT_NEAR(g.value()[k].dy, v.dy[k], 0.03) << what << " volume " << k;
          EXPECT_NEAR(g.value()[k].dz, v.dz[k], 0.03) << what << " volume " << k;
        }
      }
    }
  }
}

TEST(GpuVolume, OneReferencePerVolumeAndMoreVolumesThanABlock) {
  XCORR_SKIP_WITHOUT_GPU();
  const VolumeShape s{32, 41, 37};
  const Volumes v = shifted_volumes(s, 11, 100, true);  // > 8 volumes: two blocks
  auto cpu = make_cpu_volume_engine(s, 100);
  auto gpu = gpu::make_gpu_volume_engine(s, 100);
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  // `previous`: volume k against volume k - 1.
  const std::vector<const float*> volumes = v.pointers();
  std::vector<const float*> refs{v.reference.data()};
  for (std::size_t k = 0; k + 1 < volumes.size(); ++k) refs.push_back(volumes[k]);
  auto c = cpu.value()->measure(volumes, &refs);
  auto g = gpu.value()->measure(volumes, &refs);
  ASSERT_TRUE(g.is_ok()) << g.status().message();
  for (std::size_t k = 0; k < volumes.size(); ++k) {
    EXPECT_NEAR(g.value()[k].dx, c.value()[k].dx, 0.0101) << k;
    EXPECT_NEAR(g.value()[k].dy, c.value()[k].dy, 0.0101) << k;
    EXPECT_NEAR(g.value()[k].dz, c.value()[k].dz, 0.0101) << k;
    EXPECT_NEAR(g.value()[k].dz, v.dz[k] - (k > 0 ? v.dz[k - 1] : 0.0), 0.05) << k;
  }
  // The set reference, block after block of different volumes: every result is its own.
  ASSERT_TRUE(gpu.value()->set_reference(v.reference.data()).is_ok());
  for (std::size_t first = 0; first < 6; first += 3) {
    const std::vector<const float*> part(volumes.begin() + static_cast<long>(first),
                                         volumes.begin() + static_cast<long>(first) + 3);
    auto one = gpu.value()->measure(part);
    ASSERT_TRUE(one.is_ok());
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(one.value()[k].dx, v.dx[first + k], 0.05) << first + k;
      EXPECT_NEAR(one.value()[k].dz, v.dz[first + k], 0.05) << first + k;
    }
  }
}

TEST(GpuVolume, TheDeviceResidentTimingMeasuresTheSameShifts) {
  XCORR_SKIP_WITHOUT_GPU();
  // 3 volumes, 20 measured (volume k is volumes[k % 3]; blocks of 8 cross the wrap).
  const VolumeShape s{32, 40, 44};
  const Volumes v = shifted_volumes(s, 3, 200);
  auto t = gpu::time_volumes_on_gpu(v.reference.data(), v.pointers(), s, 20, 100);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  ASSERT_EQ(t.value().shifts.size(), 20u);
  EXPECT_GT(t.value().seconds, 0);
  auto gpu = gpu::make_gpu_volume_engine(s, 100);
  ASSERT_TRUE(gpu.is_ok());
  ASSERT_TRUE(gpu.value()->set_reference(v.reference.data()).is_ok());
  auto direct = gpu.value()->measure(v.pointers());
  ASSERT_TRUE(direct.is_ok());
  // The same search (its float64 sums added by blocks in any order): within a step of the
  // finest grid.
  for (std::size_t k = 0; k < 20; ++k) {
    EXPECT_NEAR(t.value().shifts[k].dx, direct.value()[k % 3].dx, 0.0101) << k;
    EXPECT_NEAR(t.value().shifts[k].dy, direct.value()[k % 3].dy, 0.0101) << k;
    EXPECT_NEAR(t.value().shifts[k].dz, direct.value()[k % 3].dz, 0.0101) << k;
  }
}

TEST(GpuVolume, TheEngineFacadeGivesTheDeviceAsked) {
  XCORR_SKIP_WITHOUT_GPU();
  engine::install_gpu();
  for (const char* device : {"auto", "gpu", "cpu"}) {
    auto e = engine::make_volume_engine({4, 20, 30}, 100, device);
    ASSERT_TRUE(e.is_ok()) << e.status().message();
    EXPECT_EQ(e.value()->device(), std::string(device) == "cpu" ? "cpu" : "gpu") << device;
  }
}

TEST(GpuVolume, BadInputIsRefusedByName) {
  XCORR_SKIP_WITHOUT_GPU();
  EXPECT_EQ(gpu::make_gpu_volume_engine({1, 10, 10}, 100).status().message(),
            "3-D phase correlation needs volumes of at least 2 x 2 x 2 voxels, not 10 x 10 x 1");
  EXPECT_FALSE(gpu::make_gpu_volume_engine({4, 10, 10}, 0).is_ok());
  auto e = gpu::make_gpu_volume_engine({4, 10, 12}, 100);
  ASSERT_TRUE(e.is_ok());
  const std::vector<float> volume(4 * 10 * 12, 1.0f);
  EXPECT_EQ(e.value()->measure({volume.data()}).status().code(), ErrorCode::invalid_argument)
      << "no reference yet";
  const std::vector<const float*> two{volume.data(), volume.data()}, one{volume.data()};
  EXPECT_EQ(e.value()->measure(two, &one).status().code(), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace xcorr::reg
