// CUDA devices visible to this process (CUDA-free header; the engine facade's devices() when the
// GPU backend is installed).
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

using engine::DeviceInfo;  // core/engine/engine.hpp

// The devices, or why there are none ("built without CUDA", "no CUDA-capable device ...").
Result<std::vector<DeviceInfo>> list_devices();

// `f()` on a host thread of its own with CUDA device `device` made current (the caller's current
// device is untouched); an error naming the device when it does not exist or cannot be used.
std::future<Status> on_device(int device, std::function<Status()> f);

}  // namespace xcorr::gpu
