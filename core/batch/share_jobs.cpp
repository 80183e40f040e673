// share_jobs and share_batch (core/batch/batch_run.hpp): which processes run which job of a
// shared batch.
#include <algorithm>
#include <cmath>

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

std::vector<JobRanks> share_batch(const std::vector<Index>& frames, int ranks) {
  ranks = std::max(ranks, 1);
  const std::size_t n = frames.size();
  if (n == 0) return {};
  std::vector<Index> f(n);
  double total = 0;
  for (std::size_t k = 0; k < n; ++k)
    total += static_cast<double>(f[k] = std::max<Index>(frames[k], 1));
  const double per_rank = total / ranks;
  // Entities: each long job, then the pool (index n); their quotas of ranks.
  std::vector<std::size_t> longs, pool;
  for (std::size_t k = 0; k < n; ++k) {
    const bool is_long = ranks > 1 && static_cast<double>(f[k]) > per_rank;
    (is_long ? longs : pool).push_back(k);
  }
  std::vector<double> quota;
  for (const std::size_t k : longs) quota.push_back(static_cast<double>(f[k]) / per_rank);
  double pool_frames = 0;
  for (const std::size_t k : pool) pool_frames += static_cast<double>(f[k]);
  quota.push_back(pool_frames / per_rank);
  const std::size_t P = longs.size();  // the pool's entity
  const auto pool_cap = static_cast<int>(pool.size());
  std::vector<int> seats(quota.size());
  int given = 0;
  for (std::size_t e = 0; e < quota.size(); ++e) {
    seats[e] = static_cast<int>(std::floor(quota[e]));
    if (e == P) seats[e] = std::min(seats[e], pool_cap);
    given += seats[e];
  }
  // The rest by largest remainder (stable: earlier entities first among equals).
  std::vector<std::size_t> order(quota.size());
  for (std::size_t e = 0; e < order.size(); ++e) order[e] = e;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return quota[a] - std::floor(quota[a]) > quota[b] - std::floor(quota[b]);
  });
  for (std::size_t i = 0; given < ranks && !order.empty(); i = (i + 1) % order.size()) {
    const std::size_t e = order[i];
    if (e == P && seats[e] >= pool_cap) {
      if (P == 0) break;  // only the pool, and it has a rank per job: the rest stay idle
      continue;
    }
    ++seats[e];
    ++given;
  }
  if (!pool.empty() && seats[P] == 0) {  // the pool's one rank, from the largest long group
    const auto most = std::max_element(seats.begin(), seats.begin() + static_cast<long>(P));
    --*most;
    seats[P] = 1;
  }
  std::vector<JobRanks> out(n);
  int next = 0;
  for (std::size_t i = 0; i < P; ++i) {
    out[longs[i]] = {next, seats[i]};
    next += seats[i];
  }
  std::vector<Index> pool_f;
  for (const std::size_t k : pool) pool_f.push_back(f[k]);
  const std::vector<int> owner = share_jobs(pool_f, std::max(seats[P], 1));
  for (std::size_t i = 0; i < pool.size(); ++i) out[pool[i]] = {next + owner[i], 1};
  return out;
}

}  // namespace xcorr::batch
