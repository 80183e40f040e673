// CUDA devices visible to this process. CUDA-free header: the same functions exist in a build
// without CUDA and report "not available", so callers never need #ifdef.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace xcorr::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t shared_memory_per_block_optin_bytes = 0;
  std::size_t shared_memory_per_multiprocessor_bytes = 0;
  int registers_per_multiprocessor = 0;
};

bool built_with_cuda();

// The devices, or why there are none ("built without CUDA", "no CUDA-capable device ...").
Result<std::vector<DeviceInfo>> list_devices();

}  // namespace xcorr::gpu
