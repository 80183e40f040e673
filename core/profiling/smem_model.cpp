#include "core/profiling/smem_model.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace xcorr::profiling {

SmemCost smem_cost(int width_bytes, const std::array<std::uint32_t, kWarp>& byte_address,
                   std::uint32_t active) {
  const int words_per_lane = std::max(1, width_bytes / 4);
  const int lanes_per_phase = kWarp / words_per_lane;
  SmemCost cost;
  for (int phase = 0; phase < kWarp / lanes_per_phase; ++phase) {
    std::vector<std::uint32_t> words;  // distinct 4-byte words touched in this phase
    bool any = false;
    for (int l = phase * lanes_per_phase; l < (phase + 1) * lanes_per_phase; ++l) {
      if (((active >> l) & 1u) == 0) continue;
      any = true;
      for (int w = 0; w < words_per_lane; ++w)
        words.push_back(byte_address[static_cast<std::size_t>(l)] / 4 +
                        static_cast<std::uint32_t>(w));
    }
    if (!any) continue;
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::array<int, kBanks> per_bank{};
    for (const std::uint32_t w : words) ++per_bank[w % kBanks];
    cost.wavefronts += std::max(1, *std::max_element(per_bank.begin(), per_bank.end()));
    ++cost.ideal;
  }
  cost.conflicts = cost.wavefronts - cost.ideal;
  return cost;
}

int stride_conflict_degree(int stride_words) {
  return stride_words == 0 ? 1 : std::gcd(stride_words < 0 ? -stride_words : stride_words, kBanks);
}

Padding conflict_free_padding(int pitch_elements, int width_bytes) {
  Padding best;
  for (int pad = 0; pad <= kBanks; ++pad) {
    std::array<std::uint32_t, kWarp> a{};
    for (int l = 0; l < kWarp; ++l)
      a[static_cast<std::size_t>(l)] =
          static_cast<std::uint32_t>(l * (pitch_elements + pad) * width_bytes);
    const SmemCost c = smem_cost(width_bytes, a);
    if (pad == 0 || c.wavefronts < best.cost.wavefronts) best = {pad, c};
    if (c.conflicts == 0) return {pad, c};
  }
  return best;
}

}  // namespace xcorr::profiling
