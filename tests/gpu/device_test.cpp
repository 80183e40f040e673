// GPU device query (CTest label gpu): skips where no device is present.
#include "gpu/device.hpp"

#include <gtest/gtest.h>

namespace xcorr::gpu {
namespace {

TEST(Devices, ListedWithPlausibleProperties) {
  const auto devices = list_devices();
  if (!devices.is_ok()) GTEST_SKIP() << devices.status().message();
  ASSERT_FALSE(devices.value().empty());
  for (const DeviceInfo& d : devices.value()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_major, 5);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.global_memory_bytes, std::size_t{1} << 30);
    EXPECT_GE(d.shared_memory_per_block_optin_bytes, std::size_t{48} << 10);
    std::cout << "device " << d.index << ": " << d.name << " sm_" << d.compute_major
              << d.compute_minor << ", " << d.multiprocessors << " SMs, "
              << (d.shared_memory_per_block_optin_bytes >> 10) << " KiB smem/block\n";
  }
}

}  // namespace
}  // namespace xcorr::gpu
