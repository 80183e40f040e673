// CUDA devices visible to this process. CUDA-free header: the same functions exist in a build
// without CUDA and report "not available", so callers never need #ifdef.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

using engine::DeviceInfo;  // core/engine/engine.hpp

bool built_with_cuda();

// The devices, or why there are none ("built without CUDA", "no CUDA-capable device ...").
Result<std::vector<DeviceInfo>> list_devices();

}  // namespace xcorr::gpu
