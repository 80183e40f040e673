// GPU device query (CTest label gpu): skips where no device is present. Run as each lab profile
// on the GPU machine (XCORR_GPU_PROFILE, scripts/gpu/support.sh): the engine sees the profile's
// numbers, and what does not fit them is refused before any launch.
#include "gpu/device.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "core/engine/engine.hpp"
#include "gpu/device_model.cuh"

namespace xcorr::gpu {
namespace {

TEST(Devices, ListedWithPlausibleProperties) {
  const auto devices = list_devices();
  if (!devices.is_ok()) GTEST_SKIP() << devices.status().message();
  ASSERT_FALSE(devices.value().empty());
  for (const DeviceInfo& d : devices.value()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_major, 7);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.global_memory_bytes, std::size_t{1} << 30);
    EXPECT_GE(d.shared_memory_per_block_optin_bytes, std::size_t{48} << 10);
    EXPECT_GT(d.clock_ghz, 0.5);
    EXPECT_GT(d.memory_bandwidth_gbs, 100);
    EXPECT_GE(d.max_threads_per_multiprocessor, 1024);
    EXPECT_TRUE(d.unusable.empty()) << d.unusable;
    std::cout << "device " << d.index << ": " << d.name << " " << d.arch() << ", "
              << d.multiprocessors << " SMs, " << (d.shared_memory_per_block_optin_bytes >> 10)
              << " KiB smem/block, " << d.max_threads_per_multiprocessor << " threads/SM, "
              << d.clock_ghz << " GHz, " << d.memory_bandwidth_gbs << " GB/s"
              << (d.profile.empty() ? "" : " (emulating " + d.profile + ")") << "\n";
  }
}

// The engine's numbers are the device's, lowered to the profile's where one is set; never more.
TEST(Devices, TheEngineSeesTheProfilesNumbers) {
  const auto devices = list_devices();
  if (!devices.is_ok()) GTEST_SKIP() << devices.status().message();
  const DeviceInfo& d = devices.value().front();
  cudaDeviceProp p{};
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  const std::string profile = engine::profile_from_environment();
  EXPECT_EQ(d.profile, profile);
  EXPECT_LE(d.multiprocessors, p.multiProcessorCount);
  EXPECT_LE(d.shared_memory_per_block_optin_bytes, p.sharedMemPerBlockOptin);
  EXPECT_LE(d.max_threads_per_multiprocessor, p.maxThreadsPerMultiProcessor);
  if (profile.empty()) {
    EXPECT_EQ(d.multiprocessors, p.multiProcessorCount);
    EXPECT_EQ(d.shared_memory_per_block_optin_bytes, p.sharedMemPerBlockOptin);
    return;
  }
  for (const engine::LabProfile& lab : engine::lab_profiles()) {
    if (lab.name != profile) continue;
    EXPECT_EQ(d.multiprocessors, std::min(p.multiProcessorCount, lab.device.multiprocessors));
    EXPECT_EQ(d.shared_memory_per_block_optin_bytes,
              std::min(p.sharedMemPerBlockOptin, lab.device.shared_memory_per_block_optin_bytes));
  }
}

// gpu_fft_shared's 128-point transform needs 129.5 KiB per block: run on the H200 (227 KiB),
// refused by name as a 99 KiB or 64 KiB GPU, and then `auto` never picks it.
TEST(Devices, WhatDoesNotFitTheDeviceIsRefusedByName) {
  const auto devices = list_devices();
  if (!devices.is_ok()) GTEST_SKIP() << devices.status().message();
  static const bool installed = (engine::install_gpu(), true);
  (void)installed;
  const Registry& r = engine::registry();
  const Correlator* shared = r.find("gpu_fft_shared");
  ASSERT_NE(shared, nullptr);
  const Stack<float> t(40, 40, 1, 1.0f), w(128, 128, 1, 1.0f);
  const CorrelationProblem p{{Form::one_to_one, Mode::valid}, t.view(), w.view()};
  const Status s = shared->can_implement(p);
  const bool fits = devices.value().front().shared_memory_per_block_optin_bytes >= 132608;
  EXPECT_EQ(s.is_ok(), fits) << s.message();
  if (!fits) {
    EXPECT_EQ(s.code(), ErrorCode::unsupported);
    EXPECT_NE(s.message().find("KiB of shared memory per block"), std::string::npos) << s.message();
    auto chosen = choose_variant(r, p, "auto", "gpu");
    ASSERT_TRUE(chosen.is_ok()) << chosen.status().message();
    EXPECT_NE(chosen.value()->info().name, "gpu_fft_shared");
  }
}

}  // namespace
}  // namespace xcorr::gpu
