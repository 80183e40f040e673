#include <cuda_runtime.h>

#include "gpu/device.hpp"

namespace xcorr::gpu {

Result<std::vector<DeviceInfo>> list_devices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of the failed query
    return Status{ErrorCode::unsupported,
                  std::string("no usable CUDA device: ") + cudaGetErrorString(err)};
  }
  if (count == 0) return Status{ErrorCode::unsupported, "no CUDA-capable device is present"};
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      return Status{ErrorCode::internal,
                    "cudaGetDeviceProperties failed for device " + std::to_string(i)};
    }
    devices.push_back({i, p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem,
                       p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor,
                       p.regsPerMultiprocessor});
  }
  return devices;
}

}  // namespace xcorr::gpu
