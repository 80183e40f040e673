// GPU tests skip (with the reason) where no usable CUDA device is present. Helpers they share.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "core/cpu/add_variants.hpp"
#include "core/registry.hpp"
#include "gpu/device.hpp"
#include "gpu/engine.hpp"

// A macro: GTEST_SKIP only leaves the function it is written in.
#define XCORR_SKIP_WITHOUT_GPU()                                        \
  do {                                                                  \
    const auto devices_ = ::xcorr::gpu::list_devices();                 \
    if (!devices_.is_ok()) GTEST_SKIP() << devices_.status().message(); \
  } while (false)

namespace xcorr::testing {

// The CPU variants and the GPU ones (built once per process).
inline const Registry& cpu_and_gpu_registry() {
  static const Registry r = [] {
    Registry reg;
    add_cpu_variants(reg);
    gpu::add_gpu_variants(reg);
    return reg;
  }();
  return r;
}

// Device lists to compare with one GPU: device 0 twice and three times (each listing gets its own
// copy of the work, so a one-GPU machine tests the split); with two GPUs or more, every GPU, in
// both orders.
inline std::vector<std::vector<int>> split_device_lists() {
  std::vector<std::vector<int>> lists = {{0, 0}, {0, 0, 0}};
  const auto devices = gpu::list_devices();
  if (devices.is_ok() && devices.value().size() > 1) {
    std::vector<int> all;
    for (const auto& d : devices.value()) all.push_back(d.index);
    lists.push_back(all);
    lists.emplace_back(all.rbegin(), all.rend());
  }
  return lists;
}

}  // namespace xcorr::testing
