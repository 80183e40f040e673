// The engine's view of each CUDA device (core/engine/device_info.hpp), read once per device:
// its properties, lowered by XCORR_GPU_PROFILE's emulated lab GPU, and whether this build's
// kernels load on it. Every grid size, shared-memory budget and cost prior in gpu/ reads these,
// never a constant of one GPU.
#pragma once

#include <string>

#include "core/engine/device_info.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

using engine::DeviceInfo;

// CUDA device `device` (0 .. count - 1); thread-safe, read on the first call.
const DeviceInfo& device_info(int device);
// The calling thread's current device.
const DeviceInfo& current_device();

// Bytes of dynamic shared memory a block may have on the current device (its opt-in limit).
long long max_shared_bytes_per_block();
// OK when `bytes` of dynamic shared memory per block fit the current device; else unsupported:
// "<who> needs N KiB of shared memory per block<context>; GPU 0 (NVIDIA T4) allows M KiB".
Status check_shared_bytes(const std::string& who, long long bytes, const std::string& context = "");
// The current device's SMs.
int sm_count();

// A cost prior's rate fitted on engine::reference_device(), scaled to the current device:
// compute-bound work by SMs x clock, memory-bound work by bandwidth (units as given).
double compute_rate(double reference_rate);
double memory_rate(double reference_rate);
// A rate of one SM's work (scaled by the clock alone).
double sm_rate(double reference_rate);

// The GPU code this build carries, e.g. "machine code for sm_75, sm_80; PTX for compute_75".
std::string built_architectures();

}  // namespace xcorr::gpu
