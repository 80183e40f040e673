// parallel_for: split [0, n) into chunks of `grain` and run them on all hardware threads.
// Blocks until done; the first exception thrown by `body` is rethrown on the calling thread.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr {

int hardware_threads();  // the CPUs of the process's affinity mask (all where unknown), at least 1

void parallel_for(Index n, Index grain, const std::function<void(Index begin, Index end)>& body);

// The indexes k in [0, n) for which keep(k) holds, in increasing order, found in chunks of
// `grain` over all hardware threads.
template <class Keep>
std::vector<std::size_t> parallel_select(Index n, Index grain, const Keep& keep) {
  grain = grain < 1 ? 1 : grain;
  std::vector<std::vector<std::size_t>> parts(static_cast<std::size_t>((n + grain - 1) / grain));
  parallel_for(n, grain, [&](Index first, Index last) {
    std::vector<std::size_t>& part = parts[static_cast<std::size_t>(first / grain)];
    for (Index k = first; k < last; ++k)
      if (keep(k)) part.push_back(static_cast<std::size_t>(k));
  });
  std::vector<std::size_t> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// f(k) for every k in [0, n), one index per chunk, over all hardware threads (f returns
// Result<T>): the values in index order, or the first error in index order.
template <class T, class F>
Result<std::vector<T>> parallel_results(Index n, const F& f) {
  std::vector<T> out(static_cast<std::size_t>(n));
  std::vector<Status> errors(out.size());
  parallel_for(n, 1, [&](Index first, Index last) {
    for (Index k = first; k < last; ++k) {
      Result<T> r = f(k);
      if (r.is_ok())
        out[static_cast<std::size_t>(k)] = r.value();
      else
        errors[static_cast<std::size_t>(k)] = r.status();
    }
  });
  for (const Status& s : errors) XCORR_RETURN_IF_ERROR(s);
  return out;
}

}  // namespace xcorr
