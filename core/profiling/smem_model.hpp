// The shared-memory bank-conflict model (validated on an H200: ../shared/data/h200-smem, all 80
// measured patterns reproduced exactly by tests/core/profiling/smem_model_test.cpp):
// a warp's load splits into phases of 32 lanes (4-byte accesses), 16 (8-byte) or 8 (16-byte);
// in a phase, the distinct 4-byte words touched are grouped by bank (word mod 32) and the phase
// costs the largest group (at least 1); wavefronts = sum over phases, ideal = active phases,
// conflicts = wavefronts - ideal. Lanes reading the same word share it (broadcast). Each
// wavefront is one SM cycle of shared-memory throughput (warp shuffles share that path).
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

// A row-major 2-D array whose rows are `pitch_elements` elements of `width_bytes`, read down a
// column (lane i reads row i): the smallest padding in elements (0 ..) that makes that access
// cost its ideal wavefronts, and the cost with it.
struct Padding {
  int pad_elements = 0;
  SmemCost cost;
};
Padding conflict_free_padding(int pitch_elements, int width_bytes);

}  // namespace xcorr::profiling
