// gpu/device.hpp in a build without CUDA.
#include "gpu/device.hpp"

namespace xcorr::gpu {

bool built_with_cuda() {
  return false;
}

Result<std::vector<DeviceInfo>> list_devices() {
  return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
}

}  // namespace xcorr::gpu
