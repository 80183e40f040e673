// The engine's view of a GPU without a GPU (core/engine/device_info.hpp): the emulated lab
// profiles only ever lower the present device's numbers, the priors' scales follow them, and
// the planners read them (the zncc tile plan fits a T4's 64 KiB; the occupancy follows its
// 1024 threads per SM). The same profiles run the whole GPU suite on the GPU machine.
#include "core/engine/device_info.hpp"

#include <gtest/gtest.h>

#include "core/profiling/zncc_tile_plan.hpp"

namespace xcorr::engine {
namespace {

TEST(DeviceInfo, EveryProfileLowersTheReferenceAndNeverRaisesIt) {
  const DeviceInfo h200 = reference_device();
  ASSERT_EQ(lab_profiles().size(), 5u);
  for (const LabProfile& p : lab_profiles()) {
    const auto seen = emulate(h200, p.name);
    ASSERT_TRUE(seen.is_ok()) << p.name;
    const DeviceInfo& d = seen.value();
    EXPECT_EQ(d.profile, p.name);
    EXPECT_EQ(d.name, h200.name) << "the device keeps its own name";
    EXPECT_EQ(d.multiprocessors, std::min(h200.multiprocessors, p.device.multiprocessors));
    EXPECT_EQ(d.shared_memory_per_block_optin_bytes, p.device.shared_memory_per_block_optin_bytes)
        << p.name << ": every lab GPU has less than the H200's 227 KiB";
    EXPECT_LE(d.shared_memory_per_multiprocessor_bytes,
              h200.shared_memory_per_multiprocessor_bytes);
    EXPECT_LE(d.max_threads_per_multiprocessor, h200.max_threads_per_multiprocessor);
    EXPECT_LE(d.clock_ghz, h200.clock_ghz);
    EXPECT_LE(d.compute_scale(), 1.0) << p.name;
    EXPECT_LT(d.bandwidth_scale(), 1.0) << p.name;
  }
  // The RTX 5090 has more SMs (170) than the H200: the emulation keeps the present 132.
  EXPECT_EQ(emulate(h200, "rtx5090").value().multiprocessors, 132);
  EXPECT_DOUBLE_EQ(h200.compute_scale(), 1.0);
  EXPECT_DOUBLE_EQ(h200.bandwidth_scale(), 1.0);
}

TEST(DeviceInfo, PublishedNumbers) {
  const auto t4 = emulate(reference_device(), "t4").value();
  EXPECT_EQ(t4.multiprocessors, 40);
  EXPECT_EQ(t4.shared_memory_per_block_optin_bytes, 64u << 10);
  EXPECT_EQ(t4.max_threads_per_multiprocessor, 1024);
  EXPECT_NEAR(t4.compute_scale(), 40 * 1.59 / (132 * 1.98), 1e-12);
  EXPECT_NEAR(t4.bandwidth_scale(), 320.0 / 4800, 1e-12);
  const auto a100 = emulate(reference_device(), "a100").value();
  EXPECT_EQ(a100.shared_memory_per_block_optin_bytes, 163u << 10);
  EXPECT_EQ(a100.multiprocessors, 108);
  for (const char* consumer : {"rtx3090", "rtx4090", "rtx5090"}) {
    const auto d = emulate(reference_device(), consumer).value();
    EXPECT_EQ(d.shared_memory_per_block_optin_bytes, 99u << 10) << consumer;
    EXPECT_EQ(d.max_threads_per_multiprocessor, 1536) << consumer;
  }
}

TEST(DeviceInfo, AnUnknownProfileIsRefusedByName) {
  const auto bad = emulate(reference_device(), "gtx1080");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().message(),
            "XCORR_GPU_PROFILE='gtx1080' is not a known GPU profile (t4, a100, rtx3090, rtx4090, "
            "rtx5090)");
  EXPECT_TRUE(emulate(reference_device(), "").is_ok());
}

TEST(DeviceInfo, OccupancyFollowsTheDevicesLimits) {
  const profiling::KernelResources k{256, 32, 0, 0};
  EXPECT_EQ(profiling::theoretical_occupancy(k, reference_device().sm_limits()).blocks_per_sm, 8);
  const auto t4 = emulate(reference_device(), "t4").value();
  EXPECT_EQ(profiling::theoretical_occupancy(k, t4.sm_limits()).blocks_per_sm, 4);
  const auto rtx = emulate(reference_device(), "rtx4090").value();
  EXPECT_EQ(profiling::theoretical_occupancy(k, rtx.sm_limits()).blocks_per_sm, 6);
  // 40 KiB blocks: 5 on the H200's 228 KiB, 2 on 100 KiB, 1 on the T4's 64 KiB.
  const profiling::KernelResources big{128, 32, 0, 40 << 10};
  EXPECT_EQ(profiling::theoretical_occupancy(big, reference_device().sm_limits()).blocks_per_sm, 5);
  EXPECT_EQ(profiling::theoretical_occupancy(big, rtx.sm_limits()).blocks_per_sm, 2);
  EXPECT_EQ(profiling::theoretical_occupancy(big, t4.sm_limits()).blocks_per_sm, 1);
}

TEST(DeviceInfo, TheZnccPlanFitsTheDevicesSharedMemory) {
  const auto t4 = emulate(reference_device(), "t4").value();
  const auto limit = static_cast<long long>(t4.shared_memory_per_block_optin_bytes);
  for (int s : {21, 31, 41, 64}) {
    const auto p =
        profiling::plan_zncc_tiles(s, s, 2 * s + 20, 2 * s + 20, 0, limit, t4.sm_limits());
    ASSERT_TRUE(p.is_ok()) << s << ": " << p.status().message();
    EXPECT_LE(4LL * p.value().smem_floats, limit) << s;
    EXPECT_GE(profiling::zncc_blocks_per_sm(p.value(), t4.sm_limits()), 1);
  }
  // A template that needs more than a T4 block holds is refused, not launched.
  EXPECT_FALSE(profiling::plan_zncc_tiles(120, 120, 130, 130, 0, limit, t4.sm_limits()).is_ok());
  EXPECT_TRUE(profiling::plan_zncc_tiles(120, 120, 130, 130, 0, 227 << 10).is_ok());
}

TEST(DeviceInfo, ArchitecturesInWords) {
  EXPECT_EQ(describe_cuda_architectures("90"), "machine code for sm_90; PTX for compute_90");
  EXPECT_EQ(describe_cuda_architectures("75-real;80-real;90-real;120-real;75-virtual"),
            "machine code for sm_75, sm_80, sm_90, sm_120; PTX for compute_75");
  EXPECT_EQ(describe_cuda_architectures("80-real"), "machine code for sm_80");
  EXPECT_EQ(describe_cuda_architectures(""), "no GPU code");
}

}  // namespace
}  // namespace xcorr::engine
