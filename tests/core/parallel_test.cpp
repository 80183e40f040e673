#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
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

// Loops of several host threads at once (the lanes of a multi-GPU frame) and loops inside a
// loop's body share the pool: every index of every loop is visited exactly once, and none waits
// forever.
TEST(ParallelFor, LoopsOfSeveralThreadsAndNestedLoopsEachVisitEveryIndexOnce) {
  constexpr int kThreads = 6, kRounds = 40;
  constexpr Index kOuter = 17, kInner = 301;
  std::vector<std::vector<std::atomic<int>>> hits(kThreads);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(kOuter * kInner);
  {
    std::vector<std::jthread> callers;
    for (int t = 0; t < kThreads; ++t) {
      callers.emplace_back([&hits, t] {
        for (int round = 0; round < kRounds; ++round) {
          parallel_for(kOuter, 1, [&](Index b, Index e) {
            for (Index i = b; i < e; ++i) {
              parallel_for(kInner, 7, [&](Index ib, Index ie) {
                for (Index j = ib; j < ie; ++j)
                  hits[static_cast<std::size_t>(t)][static_cast<std::size_t>(i * kInner + j)]++;
              });
            }
          });
        }
      });
    }
  }  // joins
  for (const auto& h : hits)
    for (const auto& count : h) ASSERT_EQ(count.load(), kRounds);
}

}  // namespace
}  // namespace xcorr
