// CUDA devices visible to this process (CUDA-free header; the engine facade's devices() when the
// GPU backend is installed).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

using engine::DeviceInfo;  // core/engine/engine.hpp

// The devices, or why there are none ("built without CUDA", "no CUDA-capable device ...").
Result<std::vector<DeviceInfo>> list_devices();

}  // namespace xcorr::gpu
