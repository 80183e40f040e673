// Theoretical occupancy of a kernel launch from its resources (our own calculator; a GPU test
// checks it against cudaOccupancyMaxActiveBlocksPerMultiprocessor for every variant's kernels).
// The limits are the device's (engine::DeviceInfo::sm_limits()); sm_90's (H100/H200) are the
// documented default for tests; the blocks per SM are the minimum of the warp, block,
// register and shared-memory limits, and the smallest one is reported as the limiter.
#pragma once

#include <string>

namespace xcorr::profiling {

struct SmLimits {                                                               // sm_90
  int max_warps = 64, max_blocks = 32, registers = 65536, register_unit = 256;  // per warp alloc
  int max_registers_per_thread = 255;
  int shared_bytes = 233472;         // per SM (228 KiB)
  int shared_unit = 128;             // allocation granularity (bytes)
  int reserved_shared_bytes = 1024;  // per block, used by the system
};

struct KernelResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int static_shared_bytes = 0, dynamic_shared_bytes = 0;
};

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double fraction = 0;  // active warps / max warps
  std::string limiter;  // "warps", "blocks", "registers" or "shared memory"
};

Occupancy theoretical_occupancy(const KernelResources& k, const SmLimits& sm = {});

}  // namespace xcorr::profiling
