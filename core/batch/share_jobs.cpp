// share_jobs (core/batch/batch_run.hpp): which process runs which job of a shared batch.
#include <algorithm>

#include "core/batch/batch_run.hpp"

namespace xcorr::batch {

std::vector<int> share_jobs(const std::vector<Index>& frames, int ranks) {
  std::vector<std::size_t> order(frames.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t c) { return frames[a] > frames[c]; });
  std::vector<Index> load(static_cast<std::size_t>(std::max(ranks, 1)), 0);
  std::vector<int> owner(frames.size(), 0);
  for (std::size_t k : order) {
    const auto least = std::min_element(load.begin(), load.end());  // first of equals
    owner[k] = static_cast<int>(least - load.begin());
    *least += std::max<Index>(frames[k], 1);
  }
  return owner;
}

}  // namespace xcorr::batch
