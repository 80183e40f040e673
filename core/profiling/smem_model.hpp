// The shared-memory bank-conflict model (validated on an H200): a warp's access splits into
// phases: one of 32 lanes for 4-byte accesses, two of 16 lanes for 8- and 16-byte accesses; in a
// phase, the distinct 4-byte words touched are grouped by bank (word mod 32) and the phase costs
// the largest group (at least 1); wavefronts = sum over phases; ideal = sum over phases of the
// words it touches / 32 rounded up (at least 1); conflicts = wavefronts - ideal. Lanes reading
// the same word share it (broadcast). Each wavefront is one SM cycle of shared-memory throughput
// (warp shuffles share that path). Evidence: all 80 patterns measured with Nsight Compute in
// ../shared/data/h200-smem reproduced exactly (tests/core/profiling/smem_model_test.cpp). That
// data's README splits 16-byte accesses into four phases of 8 lanes, which fits those 80 rows
// equally well but predicts 4 wavefronts for a 16-byte load that every lane reads at one address;
// CUPTI measured 2.00 on the H200 (gpu_tiled's template loads, 0.83 M of them:
// docs/perf/profile-h200.md), which two phases of 16 lanes give.
#pragma once

#include <array>
#include <cstdint>

namespace xcorr::profiling {

struct SmemCost {
  int wavefronts = 0, ideal = 0, conflicts = 0;
};

inline constexpr int kWarp = 32;
inline constexpr int kBanks = 32;

// byte_address[lane] of each of the 32 lanes; width_bytes 4, 8 or 16; `active` bit i = lane i.
SmemCost smem_cost(int width_bytes, const std::array<std::uint32_t, kWarp>& byte_address,
                   std::uint32_t active = 0xffffffffu);

// The classic degree for a constant stride of `stride_words` 4-byte words between lanes
// (Baskaran et al., ICS'08, for 32 banks): gcd(stride, 32) wavefronts (1 for stride 0).
int stride_conflict_degree(int stride_words);

// A row-major 2-D array whose rows are `pitch_elements` elements of `width_bytes`, read by a
// warp across rows: lane l reads row l / lanes_per_row, column l % lanes_per_row
// (lanes_per_row = 1: down a column). The cost of that access, and the smallest padding in
// elements (0 ..) that makes it cost its ideal wavefronts, with the cost then.
SmemCost row_walk_cost(int pitch_elements, int width_bytes, int lanes_per_row = 1);
struct Padding {
  int pad_elements = 0;
  SmemCost cost;
};
Padding conflict_free_padding(int pitch_elements, int width_bytes, int lanes_per_row = 1);

}  // namespace xcorr::profiling
