// CUDA devices visible to this process (CUDA-free header; the engine facade's devices() when the
// GPU backend is installed).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

using engine::DeviceInfo;  // core/engine/engine.hpp

// The devices, or why there are none ("built without CUDA", "no CUDA-capable device ...").
Result<std::vector<DeviceInfo>> list_devices();

// `f()` on the calling thread with CUDA device `device` made current; an error naming the device
// when it does not exist or cannot be used.
Status run_on_device(int device, const std::function<Status()>& f);

}  // namespace xcorr::gpu
