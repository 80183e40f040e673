#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace xcorr {

int hardware_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(Index n, Index grain, const std::function<void(Index, Index)>& body) {
  if (n <= 0) return;
  grain = std::max<Index>(1, grain);
  const Index chunks = (n + grain - 1) / grain;
  const int threads = static_cast<int>(std::min<Index>(hardware_threads(), chunks));
  if (threads <= 1) {
    body(0, n);
    return;
  }
  std::atomic<Index> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (;;) {
      const Index chunk = next.fetch_add(1);
      if (chunk >= chunks) return;
      try {
        body(chunk * grain, std::min(n, (chunk + 1) * grain));
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(chunks);  // stop handing out work
      }
    }
  };
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
}

}  // namespace xcorr
