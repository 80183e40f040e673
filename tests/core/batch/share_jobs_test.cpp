// share_jobs: which rank of a shared batch runs which job (core/batch/batch_run.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/batch/batch_run.hpp"

namespace xcorr::batch {
namespace {

std::vector<Index> loads(const std::vector<Index>& frames, const std::vector<int>& owner,
                         int ranks) {
  std::vector<Index> l(static_cast<std::size_t>(ranks), 0);
  for (std::size_t k = 0; k < frames.size(); ++k)
    l[static_cast<std::size_t>(owner[k])] += frames[k];
  return l;
}

TEST(ShareJobs, OneRankRunsEverything) {
  EXPECT_EQ(share_jobs({5, 1, 9}, 1), (std::vector<int>{0, 0, 0}));
}

TEST(ShareJobs, LongestJobsFirstToTheLeastLoadedRank) {
  // 10 -> rank 0; 8 -> 1; 6 -> 2; 5 -> 2 (6 < 8 < 10); 3 -> 1 (8 < 10 < 11)
  EXPECT_EQ(share_jobs({5, 10, 3, 8, 6}, 3), (std::vector<int>{2, 0, 1, 1, 2}));
}

TEST(ShareJobs, MoreRanksThanJobsLeavesRanksIdleAndTiesGoToTheLowerRank) {
  EXPECT_EQ(share_jobs({4, 4}, 5), (std::vector<int>{0, 1}));
  EXPECT_EQ(share_jobs({}, 3), (std::vector<int>{}));
  EXPECT_EQ(share_jobs({0, 0, 0}, 2), (std::vector<int>{0, 1, 0}));  // empty jobs count as one
}

TEST(ShareJobs, RandomBatchesAreSharedCompletelyAndWithinTheLongestJobOfBalance) {
  std::mt19937 rng(20261125);
  for (int trial = 0; trial < 200; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 7);
    std::vector<Index> frames(rng() % 40);
    for (Index& f : frames) f = 1 + static_cast<Index>(rng() % 1000);
    const std::vector<int> owner = share_jobs(frames, ranks);
    ASSERT_EQ(owner.size(), frames.size());
    for (int o : owner) ASSERT_TRUE(o >= 0 && o < ranks);
    EXPECT_EQ(owner, share_jobs(frames, ranks)) << "the same on every rank";
    if (frames.empty()) continue;
    const std::vector<Index> l = loads(frames, owner, ranks);
    const Index longest = *std::max_element(frames.begin(), frames.end());
    EXPECT_LE(*std::max_element(l.begin(), l.end()) - *std::min_element(l.begin(), l.end()),
              longest);
  }
}

}  // namespace
}  // namespace xcorr::batch
