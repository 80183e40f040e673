#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace xcorr {
namespace {

TEST(ParallelFor, VisitsEveryIndexExactlyOnce) {
  for (Index n : {0, 1, 7, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    parallel_for(n, 3, [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ParallelFor, RethrowsTheWorkersException) {
  EXPECT_THROW(parallel_for(100, 1,
                            [](Index b, Index) {
                              if (b == 57) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
}

}  // namespace
}  // namespace xcorr
