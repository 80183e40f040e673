// The occupancy calculator on hand-computed sm_90 cases (the GPU test compares it with CUDA's
// occupancy API on every kernel).
#include "core/profiling/occupancy.hpp"

#include <gtest/gtest.h>

namespace xcorr::profiling {
namespace {

TEST(Occupancy, LimitersOnSm90) {
  // 256 threads, 32 registers, no shared memory: 8 blocks by warps (64 / 8), 100 %.
  Occupancy o = theoretical_occupancy({256, 32, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  // 128 registers per thread: 4096 per warp -> 16 warps -> 4 blocks of 4 warps (128 threads).
  o = theoretical_occupancy({128, 128, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  // 100 KB of shared memory per block: 2 blocks in 228 KB.
  o = theoretical_occupancy({128, 32, 0, 100 * 1024});
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "shared memory");
  // Tiny blocks: 32 threads -> the 32-blocks limit.
  o = theoretical_occupancy({32, 16, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, "blocks");
}

}  // namespace
}  // namespace xcorr::profiling
