// The engine facade (core/engine/engine.hpp) without a GPU backend: what a CPU-only program gets
// (a build without CUDA, or one that never calls install_gpu). The GPU side of the facade is
// tested on the device (tests/gpu: tuning, DIC registrar, profiles, counters).
#include "core/engine/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/dic/options.hpp"
#include "core/engine/gpu_backend.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::engine {
namespace {

TEST(EngineWithoutGpu, RegistryHoldsTheCpuVariantsOnly) {
  ASSERT_FALSE(registry().all().empty());
  for (const auto& v : registry().all()) {
    EXPECT_EQ(v->info().device, "cpu") << v->info().name;
    EXPECT_FALSE(is_gpu_variant(*v)) << v->info().name;
  }
  EXPECT_NE(registry().find("cpu_reference"), nullptr);
  EXPECT_FALSE(built_with_cuda());
}

TEST(EngineWithoutGpu, DevicesAndTimingSayWhy) {
  const auto d = devices();
  ASSERT_FALSE(d.is_ok());
  EXPECT_EQ(d.status().code(), ErrorCode::unsupported);
  EXPECT_NE(d.status().message().find("without CUDA"), std::string::npos) << d.status().message();
  const Stack<float> a = testing::random_stack(5, 5, 1, 1, 0, 1),
                     b = testing::random_stack(9, 9, 3, 2, 0, 1);
  const CorrelationProblem p{{Form::one_to_many, Mode::valid}, a.view(), b.view()};
  const auto t = time_on_gpu(*registry().find("cpu_reference"), p, 1, 1);
  EXPECT_FALSE(t.is_ok());
  const auto tuned = tuned_gpu_variant(registry(), p);
  ASSERT_FALSE(tuned.is_ok());
  EXPECT_NE(tuned.status().message().find("no GPU variant"), std::string::npos);
}

TEST(EngineWithoutGpu, DicDeviceChoice) {
  dic::DicOptions o;
  o.device = "auto";
  auto cpu = make_dic_registrar(o);
  ASSERT_TRUE(cpu.is_ok()) << cpu.status().message();
  EXPECT_LT(last_gpu_frame_seconds(*cpu.value()), 0) << "a CPU registrar has no GPU time";
  EXPECT_EQ(last_gpu_stage_seconds(*cpu.value()).icgn, 0);

  o.device = "gpu";
  auto gpu = make_dic_registrar(o);
  ASSERT_FALSE(gpu.is_ok()) << "device gpu must not fall back to the CPU";
  EXPECT_NE(gpu.status().message().find("without CUDA"), std::string::npos);

  o.device = "cpu";
  o.method = "no_such_variant";
  auto unknown = make_dic_registrar(o);
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.status().message().find("no_such_variant"), std::string::npos)
      << unknown.status().message();
}

TEST(EngineWithoutGpu, ABackendAfterTheRegistryIsRefused) {
  (void)registry();
  EXPECT_THROW(set_gpu_backend(GpuBackend{}), std::logic_error);
  EXPECT_EQ(gpu_backend(), nullptr);
}

TEST(EngineProfiles, CpuVariantsAreTimedAndRoundTripThroughJson) {
  ProfileRequest r;
  r.form = Form::one_to_many;
  r.mode = Mode::valid;
  r.norm = Normalization::zncc;
  r.rows = 23, r.cols = 19, r.m = 3, r.repeats = 5;
  int calls = 0;
  auto rows = profile_problem(r, [&](long long done, long long total) {
    ++calls;
    EXPECT_LE(done, total);
    return true;
  });
  ASSERT_TRUE(rows.is_ok()) << rows.status().message();
  ASSERT_FALSE(rows.value().empty());
  EXPECT_EQ(calls, static_cast<int>(rows.value().size()));
  for (const VariantProfile& v : rows.value()) {
    EXPECT_EQ(v.device, "cpu");
    EXPECT_EQ(v.norm, "zncc");
    EXPECT_EQ(v.m, 3);
    EXPECT_GT(v.median_ms, 0) << v.variant;
    EXPECT_LE(v.min_ms, v.median_ms);
    EXPECT_LE(v.median_ms, v.p90_ms);
    EXPECT_GT(v.gflops, 0);
    EXPECT_TRUE(v.kernels.empty()) << "CPU variants launch no kernels";
  }
  const std::string json = profile_to_json(rows.value());
  const auto back = profile_from_json(json);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(profile_to_json(back.value()), json);
  const std::string csv = profile_to_csv(rows.value());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'),
            static_cast<std::ptrdiff_t>(rows.value().size()) + 1);
  EXPECT_FALSE(profile_from_json("{\"not\": \"a list\"}").is_ok());
  EXPECT_FALSE(profile_from_json("[{\"device\": \"cpu\"}]").is_ok()) << "a row without a variant";
}

TEST(EngineProfiles, CancelStopsAfterTheFirstVariant) {
  ProfileRequest r;
  r.rows = 16, r.cols = 16, r.m = 2, r.repeats = 1;
  int calls = 0;
  auto rows = profile_problem(r, [&](long long, long long) { return ++calls < 1; });
  ASSERT_FALSE(rows.is_ok());
  EXPECT_EQ(rows.status().code(), ErrorCode::cancelled);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace xcorr::engine
