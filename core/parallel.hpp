// parallel_for: split [0, n) into chunks of `grain` and run them on all hardware threads.
// Blocks until done; the first exception thrown by `body` is rethrown on the calling thread.
#pragma once

#include <functional>

#include "core/matrix.hpp"

namespace xcorr {

int hardware_threads();  // std::thread::hardware_concurrency(), at least 1

void parallel_for(Index n, Index grain, const std::function<void(Index begin, Index end)>& body);

}  // namespace xcorr
