#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "gpu/device_model.cuh"

namespace xcorr::gpu {
namespace {

// An empty kernel: whether it loads on a device says whether this build has code for it (every
// translation unit is built for the same architectures).
__global__ void probe_kernel() {}

double read_clock_ghz(int device) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) != cudaSuccess) return 0;
  return khz * 1e-6;
}

double read_bandwidth_gbs(int device) {
  int khz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    return 0;
  }
  return 2.0 * khz * 1e3 * (bits / 8.0) * 1e-9;  // double data rate
}

// Whether this build's kernels load on `device`: an empty kernel's attributes, read with the
// device current. That creates the device's CUDA context (hundreds of MiB and a fraction of a
// second), so the answer is kept per compute capability: on a host of like GPUs only the first
// one probed gets a context, and a process that uses GPU 0 leaves the others untouched.
cudaError_t probe(int device, int major, int minor) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, cudaError_t> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find({major, minor}); it != known.end()) return it->second;
  int previous = 0;
  (void)cudaGetDevice(&previous);
  if (cudaSetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    return cudaErrorInvalidDevice;  // not kept: this device alone
  }
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, probe_kernel);
  if (e != cudaSuccess) (void)cudaGetLastError();
  (void)cudaSetDevice(previous);
  known[{major, minor}] = e;
  return e;
}

// Why this build's kernels cannot run on `d`; empty if they can.
std::string unusable(const DeviceInfo& d) {
  const cudaError_t e = probe(d.index, d.compute_major, d.compute_minor);
  if (e == cudaSuccess) return {};
  const std::string gpu =
      "GPU " + std::to_string(d.index) + ", " + d.name + " (" + d.arch() + "): ";
  if (e == cudaErrorInvalidDevice) return gpu + "cannot be made current";
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
    return gpu + "this build has no kernels for it (built for " + built_architectures() + ")";
  }
  if (e == cudaErrorUnsupportedPtxVersion) {
    return gpu + "its driver is too old for this build's PTX (update the NVIDIA driver)";
  }
  return gpu + "this build's kernels do not load on it: " + cudaGetErrorString(e);
}

DeviceInfo read(int device) {
  DeviceInfo d;
  d.index = device;
  cudaDeviceProp p{};
  if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) {
    (void)cudaGetLastError();
    d.name = "?";
    d.unusable = "GPU " + std::to_string(device) + ": its properties cannot be read (" +
                 cudaGetErrorString(e) + ")";
    return d;
  }
  d.name = p.name;
  d.compute_major = p.major, d.compute_minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.global_memory_bytes = p.totalGlobalMem;
  d.shared_memory_per_block_optin_bytes = p.sharedMemPerBlockOptin;
  d.shared_memory_per_multiprocessor_bytes = p.sharedMemPerMultiprocessor;
  d.reserved_shared_memory_per_block_bytes = p.reservedSharedMemPerBlock;
  d.registers_per_multiprocessor = p.regsPerMultiprocessor;
  d.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_multiprocessor = p.maxBlocksPerMultiProcessor;
  d.clock_ghz = read_clock_ghz(device);
  d.memory_bandwidth_gbs = read_bandwidth_gbs(device);
  d.unusable = unusable(d);
  auto seen = engine::emulate(d, engine::profile_from_environment());
  if (!seen.is_ok()) {
    d.unusable = seen.status().message();
    return d;
  }
  return seen.value();
}

constexpr int kMaxDevices = 64;

}  // namespace

const DeviceInfo& device_info(int device) {
  static std::once_flag once[kMaxDevices];
  static DeviceInfo info[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) {
    static const DeviceInfo none = [] {
      DeviceInfo d;
      d.unusable = "GPU number out of range";
      return d;
    }();
    return none;
  }
  std::call_once(once[device], [device] { info[device] = read(device); });
  return info[device];
}

const DeviceInfo& current_device() {
  int device = 0;
  (void)cudaGetDevice(&device);
  return device_info(device);
}

long long max_shared_bytes_per_block() {
  return static_cast<long long>(current_device().shared_memory_per_block_optin_bytes);
}

Status check_shared_bytes(const std::string& who, long long bytes, const std::string& context) {
  const DeviceInfo& d = current_device();
  const auto limit = static_cast<long long>(d.shared_memory_per_block_optin_bytes);
  if (bytes <= limit) return Status::ok();
  return {ErrorCode::unsupported, who + " needs " + std::to_string((bytes + 1023) >> 10) +
                                      " KiB of shared memory per block" + context + "; GPU " +
                                      std::to_string(d.index) + " (" +
                                      (d.profile.empty() ? d.name : "emulating " + d.profile) +
                                      ") allows " + std::to_string(limit >> 10) + " KiB"};
}

int sm_count() {
  return std::max(1, current_device().multiprocessors);
}

double compute_rate(double reference_rate) {
  return reference_rate * current_device().compute_scale();
}

double memory_rate(double reference_rate) {
  return reference_rate * current_device().bandwidth_scale();
}

double sm_rate(double reference_rate) {
  const double ghz = current_device().clock_ghz;
  return ghz > 0 ? reference_rate * ghz / engine::reference_device().clock_ghz : reference_rate;
}

std::string built_architectures() {
  return engine::describe_cuda_architectures(XCORR_CUDA_ARCHITECTURES);
}

}  // namespace xcorr::gpu
