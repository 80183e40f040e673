// share_jobs and share_batch: which ranks of a shared batch run which job
// (core/batch/batch_run.hpp).
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

TEST(ShareBatch, OneLongJobGetsEveryRank) {
  EXPECT_EQ(share_batch({200}, 3), (std::vector<JobRanks>{{0, 3}}));
  EXPECT_EQ(share_batch({200}, 1), (std::vector<JobRanks>{{0, 1}}));
}

TEST(ShareBatch, ShortJobsKeepARankOfTheirOwn) {
  // 210 frames, 70 per rank: the long job's quota 2.86 rounds to 3, but the pool keeps a rank.
  EXPECT_EQ(share_batch({200, 10}, 3), (std::vector<JobRanks>{{0, 2}, {2, 1}}));
  // 1040 frames on 4 ranks (260 each): the long job 3 ranks, the four short ones share the last.
  EXPECT_EQ(share_batch({10, 1000, 10, 10, 10}, 4),
            (std::vector<JobRanks>{{3, 1}, {0, 3}, {3, 1}, {3, 1}, {3, 1}}));
}

TEST(ShareBatch, EqualJobsAreSharedWholeAsShareJobsDoes) {
  const std::vector<Index> frames{5, 5, 5, 5};
  for (int ranks : {1, 2, 3, 4}) {
    const std::vector<int> owner = share_jobs(frames, ranks);
    const std::vector<JobRanks> got = share_batch(frames, ranks);
    for (std::size_t k = 0; k < frames.size(); ++k)
      EXPECT_EQ(got[k], (JobRanks{owner[k], 1})) << ranks << " ranks, job " << k;
  }
  // A rank more than jobs: each job is longer than the 4 frames per rank, the first gets two.
  EXPECT_EQ(share_batch(frames, 5), (std::vector<JobRanks>{{0, 2}, {2, 1}, {3, 1}, {4, 1}}));
}

TEST(ShareBatch, TwoLongJobsSplitTheRanksTiesToTheEarlierJob) {
  EXPECT_EQ(share_batch({150, 150}, 3), (std::vector<JobRanks>{{0, 2}, {2, 1}}));
  EXPECT_EQ(share_batch({150, 150}, 4), (std::vector<JobRanks>{{0, 2}, {2, 2}}));
}

TEST(ShareBatch, RandomBatchesUseEveryRankAtMostOnceAndGroupsOnlyLongJobs) {
  std::mt19937 rng(20261125);
  for (int trial = 0; trial < 500; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 9);
    const std::size_t n = rng() % 12;
    std::vector<Index> frames(n);
    Index total = 0;
    for (std::size_t k = 0; k < n; ++k) {
      frames[k] = rng() % 4 == 0 ? 1 + static_cast<Index>(rng() % 2000)
                                 : 1 + static_cast<Index>(rng() % 50);
      total += frames[k];
    }
    const std::vector<JobRanks> got = share_batch(frames, ranks);
    ASSERT_EQ(got.size(), n);
    EXPECT_EQ(got, share_batch(frames, ranks)) << "the same on every rank";
    std::vector<int> group_of(static_cast<std::size_t>(ranks), -1);  // rank -> job of its group
    std::vector<char> pool_rank(static_cast<std::size_t>(ranks), 0);
    for (std::size_t k = 0; k < n; ++k) {
      const JobRanks& g = got[k];
      ASSERT_GE(g.first, 0);
      ASSERT_GE(g.count, 1);
      ASSERT_LE(g.first + g.count, ranks);
      if (g.count == 1 && group_of[static_cast<std::size_t>(g.first)] < 0) {
        pool_rank[static_cast<std::size_t>(g.first)] = 1;
        continue;
      }
      // A group: a job longer than the frames per rank, on ranks no other job uses.
      EXPECT_GT(static_cast<double>(frames[k]) * ranks, static_cast<double>(total));
      for (int r = g.first; r < g.first + g.count; ++r) {
        EXPECT_EQ(group_of[static_cast<std::size_t>(r)], -1) << "rank " << r << " in two groups";
        EXPECT_EQ(pool_rank[static_cast<std::size_t>(r)], 0) << "rank " << r;
        group_of[static_cast<std::size_t>(r)] = static_cast<int>(k);
      }
    }
  }
}

}  // namespace
}  // namespace xcorr::batch
