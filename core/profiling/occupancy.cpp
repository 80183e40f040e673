#include "core/profiling/occupancy.hpp"

#include <algorithm>
#include <climits>

namespace xcorr::profiling {
namespace {

int round_up(int v, int unit) {
  return (v + unit - 1) / unit * unit;
}

}  // namespace

Occupancy theoretical_occupancy(const KernelResources& k, const SmLimits& sm) {
  Occupancy o;
  if (k.threads_per_block <= 0) return o;
  const int warps = (k.threads_per_block + 31) / 32;
  struct Limit {
    int blocks;
    const char* name;
  };
  Limit limits[4] = {{sm.max_warps / warps, "warps"},
                     {sm.max_blocks, "blocks"},
                     {INT_MAX, "registers"},
                     {INT_MAX, "shared memory"}};
  if (k.registers_per_thread > 0) {
    const int per_warp = round_up(k.registers_per_thread * 32, sm.register_unit);
    // Registers are allocated per warp; a block needs all its warps' registers on one SM.
    limits[2].blocks = (sm.registers / per_warp) / warps;
  }
  const int shared = round_up(
      k.static_shared_bytes + k.dynamic_shared_bytes + sm.reserved_shared_bytes, sm.shared_unit);
  limits[3].blocks = sm.shared_bytes / shared;
  const Limit* least =
      std::min_element(std::begin(limits), std::end(limits),
                       [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
  o.blocks_per_sm = std::max(0, least->blocks);
  o.warps_per_sm = o.blocks_per_sm * warps;
  o.fraction = static_cast<double>(o.warps_per_sm) / sm.max_warps;
  o.limiter = least->name;
  return o;
}

}  // namespace xcorr::profiling
