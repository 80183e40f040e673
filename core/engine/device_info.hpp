// What the engine knows of a GPU (CUDA-free): the numbers every grid size, shared-memory budget,
// occupancy and cost prior reads, taken from the device once (gpu/device_model.cuh), lowered by
// an emulated lab GPU when XCORR_GPU_PROFILE names one, and the reason when this build cannot
// run on it. Units: bytes, GHz, GB/s (10^9 bytes per second).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/profiling/occupancy.hpp"
#include "core/status.hpp"

namespace xcorr::engine {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t shared_memory_per_block_optin_bytes = 0;  // a block's dynamic opt-in limit
  std::size_t shared_memory_per_multiprocessor_bytes = 0;
  std::size_t reserved_shared_memory_per_block_bytes = 0;  // the system's share of each block
  int registers_per_multiprocessor = 0;
  int max_threads_per_multiprocessor = 0;
  int max_blocks_per_multiprocessor = 0;
  double clock_ghz = 0;             // the SMs' peak clock
  double memory_bandwidth_gbs = 0;  // peak: 2 x memory clock x bus width
  std::string profile;   // the emulated lab GPU (XCORR_GPU_PROFILE), empty for the device itself
  std::string unusable;  // why this build cannot run on it; empty when it can

  // "sm_86"
  std::string arch() const;
  // The occupancy calculator's limits for this device.
  profiling::SmLimits sm_limits() const;
  // This device's SMs x clock, and its memory bandwidth, over those of the device the cost
  // priors were fitted on (reference_device()): what a prior's rate is multiplied by.
  double compute_scale() const;
  double bandwidth_scale() const;
};

// The device the engine's cost priors were fitted on (docs/perf/gpu-engine.md, docs/perf/dic.md):
// an NVIDIA H200 (sm_90, 132 SMs, 1.98 GHz, 4.8 TB/s, 227 KiB of shared memory per block).
// Also the documented default of tests that need a device's numbers without a device.
// Built once: every cost prior's scale reads it.
const DeviceInfo& reference_device();

// A lab GPU the engine can pretend the present one is (fewer SMs, less shared memory per block
// and per SM, fewer threads and blocks per SM, lower clock and bandwidth; never more): the
// published numbers of NVIDIA's data sheets and the CUDA programming guide's table of compute
// capabilities.
struct LabProfile {
  std::string name;  // "t4", "a100", "rtx3090", "rtx4090", "rtx5090"
  DeviceInfo device;
};
const std::vector<LabProfile>& lab_profiles();

// `actual` seen as the profile `name` (each number the lower of the two; the name, arch and
// memory stay the device's own, `profile` is set); an error naming the known profiles for an
// unknown name. An empty name returns `actual`.
Result<DeviceInfo> emulate(const DeviceInfo& actual, std::string_view name);

// CMake's CUDA_ARCHITECTURES list ("75-real;86-real;75-virtual", "90"; commas too) in words:
// "machine code for sm_75, sm_86; PTX for compute_75" (a plain number carries both).
std::string describe_cuda_architectures(std::string_view cmake_list);

// The profile named by the environment variable XCORR_GPU_PROFILE (empty when unset).
std::string profile_from_environment();

}  // namespace xcorr::engine
