#include "core/profiling/smem_model.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace xcorr::profiling {

SmemCost smem_cost(int width_bytes, const std::array<std::uint32_t, kWarp>& byte_address,
                   std::uint32_t active) {
  const int words_per_lane = std::max(1, width_bytes / 4);
  // 4-byte accesses: one phase of 32 lanes; 8- and 16-byte: two phases of 16 lanes (see header).
  const int lanes_per_phase = words_per_lane == 1 ? kWarp : kWarp / 2;
  SmemCost cost;
  for (int phase = 0; phase < kWarp / lanes_per_phase; ++phase) {
    std::array<std::uint32_t, 2 * kWarp> words{};  // 4-byte words touched in this phase (<= 64)
    int n = 0;
    for (int l = phase * lanes_per_phase; l < (phase + 1) * lanes_per_phase; ++l) {
      if (((active >> l) & 1u) == 0) continue;
      for (int w = 0; w < words_per_lane; ++w)
        words[static_cast<std::size_t>(n++)] =
            byte_address[static_cast<std::size_t>(l)] / 4 + static_cast<std::uint32_t>(w);
    }
    if (n == 0) continue;
    std::sort(words.begin(), words.begin() + n);
    std::array<int, kBanks> per_bank{};
    int worst = 1, distinct = 0;
    for (int k = 0; k < n; ++k) {
      if (k > 0 && words[static_cast<std::size_t>(k)] == words[static_cast<std::size_t>(k - 1)])
        continue;  // the same word: a broadcast, no extra wavefront
      ++distinct;
      worst = std::max(worst, ++per_bank[words[static_cast<std::size_t>(k)] % kBanks]);
    }
    cost.wavefronts += worst;
    cost.ideal += std::max(1, (distinct + kBanks - 1) / kBanks);
  }
  cost.conflicts = cost.wavefronts - cost.ideal;
  return cost;
}

int stride_conflict_degree(int stride_words) {
  return stride_words == 0 ? 1 : std::gcd(stride_words < 0 ? -stride_words : stride_words, kBanks);
}

SmemCost row_walk_cost(int pitch_elements, int width_bytes, int lanes_per_row) {
  lanes_per_row = std::clamp(lanes_per_row, 1, kWarp);
  std::array<std::uint32_t, kWarp> a{};
  for (int l = 0; l < kWarp; ++l)
    a[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(
        ((l / lanes_per_row) * pitch_elements + l % lanes_per_row) * width_bytes);
  return smem_cost(width_bytes, a);
}

Padding conflict_free_padding(int pitch_elements, int width_bytes, int lanes_per_row) {
  Padding best;
  for (int pad = 0; pad <= kBanks; ++pad) {
    const SmemCost c = row_walk_cost(pitch_elements + pad, width_bytes, lanes_per_row);
    if (pad == 0 || c.wavefronts < best.cost.wavefronts) best = {pad, c};
    if (c.conflicts == 0) return {pad, c};
  }
  return best;
}

}  // namespace xcorr::profiling
