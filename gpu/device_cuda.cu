#include <cuda_runtime.h>
#include <dlfcn.h>

#include "gpu/device.hpp"
#include "gpu/device_model.cuh"

namespace xcorr::gpu {
namespace {

// Whether an NVIDIA driver (libcuda) is installed: CUDA reports "insufficient driver" both when
// there is none and when it is too old.
bool driver_installed() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h == nullptr) return false;
  dlclose(h);
  return true;
}

}  // namespace

Result<std::vector<DeviceInfo>> list_devices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of the failed query
    if (err == cudaErrorInsufficientDriver && driver_installed()) {
      return Status{ErrorCode::unsupported,
                    std::string("no usable CUDA device: the NVIDIA driver is older than this "
                                "build's CUDA ") +
                        std::to_string(CUDART_VERSION / 1000) + "." +
                        std::to_string(CUDART_VERSION % 1000 / 10) + " runtime needs"};
    }
    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
      // CUDA's own words ("driver version is insufficient") for a machine without any NVIDIA
      // driver or GPU say nothing to a user.
      return Status{ErrorCode::unsupported,
                    "no NVIDIA GPU: this machine has no NVIDIA driver "
                    "(libcuda.so.1) and no CUDA device"};
    }
    return Status{ErrorCode::unsupported,
                  std::string("no usable CUDA device: ") + cudaGetErrorString(err)};
  }
  if (count == 0) return Status{ErrorCode::unsupported, "no CUDA-capable device is present"};
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < count; ++i) devices.push_back(device_info(i));
  return devices;
}

namespace {

Status run_with_device(int device, const std::function<Status()>& f) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return Status{ErrorCode::unsupported,
                  std::string("no usable CUDA device: ") +
                      (e != cudaSuccess ? cudaGetErrorString(e) : "none found")};
  }
  if (device < 0 || device >= count) {
    return Status{ErrorCode::invalid_argument,
                  "GPU " + std::to_string(device) + " does not exist: this process sees " +
                      std::to_string(count) + " (0-" + std::to_string(count - 1) + ")"};
  }
  if (const std::string& why = device_info(device).unusable; !why.empty()) {
    return Status{ErrorCode::unsupported, why};
  }
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    (void)cudaGetLastError();
    return Status{ErrorCode::unsupported,
                  "cannot use GPU " + std::to_string(device) + ": " + cudaGetErrorString(e)};
  }
  return f();
}

}  // namespace

std::future<Status> on_device(int device, std::function<Status()> f) {
  return std::async(std::launch::async,
                    [device, f = std::move(f)] { return run_with_device(device, f); });
}

}  // namespace xcorr::gpu
