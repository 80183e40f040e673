// The per-kernel shared-memory models (core/profiling/kernel_smem.hpp) against counts worked out
// by hand for small launches, and the per-array gcd degree and padding. The models' agreement
// with the hardware is checked on the GPU against CUPTI (tests/gpu/counters_test.cpp).
#include "core/profiling/kernel_smem.hpp"

#include <gtest/gtest.h>

#include "core/smem/warp_per_shift_layout.hpp"

namespace xcorr::profiling {
namespace {

TEST(KernelSmem, BlockPerShiftIsFourSingleLaneStoresAndOneLoadPerOutput) {
  const KernelSmemModel m = model_block_per_shift(1000);
  EXPECT_EQ(m.traffic.store_instructions, 4000);
  EXPECT_EQ(m.traffic.store_wavefronts, 4000);
  EXPECT_EQ(m.traffic.load_instructions, 1000);  // thread 0 reads the four partials as one float4
  EXPECT_EQ(m.traffic.load_wavefronts, 1000);
  EXPECT_EQ(m.traffic.load_conflicts(), 0);
}

// A 16-byte load every lane makes at one address: 2 wavefronts, no conflict (CUPTI, H200).
TEST(KernelSmem, SixteenByteBroadcastIsTwoPhases) {
  std::array<std::uint32_t, kWarp> a{};
  a.fill(256);
  const SmemCost c = smem_cost(16, a);
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.ideal, 2);
}

// Valid mode, 8x8 template over 16x16 (9x9 outputs), 4x1 tiles: one block. Per pair:
// template staging 12 rows (8 + 4 zero rows) x 1 chunk, window 27 rows x 2 chunks = 66 stores,
// all conflict-free (template stride 12 words over 8 lanes meets 8 distinct banks);
// warps 0..2 compute (warp 3 starts at row 12 >= 9): per template column 3 preload loads and
// 2 steps of (one 16-byte broadcast + 4 window loads) = 13 loads, 8 columns, 3 warps = 312
// loads; wavefronts: window loads 1 each (88 per warp), 16-byte broadcasts 2 each (two phases
// of 16 lanes, as CUPTI measured on the H200; 32 per warp) = 360.
TEST(KernelSmem, TiledValidSmallCountsByHand) {
  const smem::TiledGeometry g{false, 8, 8, 16, 16, 9, 9};
  const KernelSmemModel m = model_tiled(g, 4, 1, 3);
  EXPECT_EQ(m.traffic.store_instructions, 3 * 66);
  EXPECT_EQ(m.traffic.store_wavefronts, 3 * 66);
  EXPECT_EQ(m.traffic.load_instructions, 3 * 312);
  EXPECT_EQ(m.traffic.load_wavefronts, 3 * 360);
  EXPECT_EQ(m.traffic.load_conflicts(), 0);
}

// Full mode 64x64, 8x1: the column-major template's pitch is 72 floats; a warp storing along a
// template row hits gcd(72, 32) = 8 words per bank; one float of padding removes it.
TEST(KernelSmem, TiledTemplateStagingConflictsAndTheirPadding) {
  const smem::TiledGeometry g{true, 64, 64, 64, 64, 127, 127};
  const KernelSmemModel m = model_tiled(g, 8, 1, 16);
  EXPECT_GT(m.traffic.store_conflicts(), 0);
  EXPECT_EQ(m.traffic.load_conflicts(), 0);
  ASSERT_EQ(m.arrays.size(), 2u);
  EXPECT_EQ(m.arrays[0].pitch_elements, 72);
  EXPECT_EQ(m.arrays[0].gcd_degree, 8);
  EXPECT_EQ(m.arrays[0].wavefronts, 8);
  EXPECT_EQ(m.arrays[0].pad_elements, 1);
  EXPECT_EQ(m.arrays[0].padded_wavefronts, 1);
  EXPECT_EQ(m.arrays[1].wavefronts, 1);  // window rows: consecutive lanes
}

// Valid mode, 4x4 template over 5x5 (2x2 outputs), one pair: staging 1 store of the left (16
// lanes) and 1 of the 5x5 right; each output one step of 16 lanes (its 4 x 4 overlap as one
// sequence): 2 loads, conflict-free (right rows 5 words apart: 16 distinct banks).
TEST(KernelSmem, WarpPerShiftSharedSmallCountsByHand) {
  WarpPerShiftSharedLaunch l;
  l.full = false;
  l.h = l.w = 4;
  l.H = l.W = 5;
  l.out_rows = l.out_cols = 2;
  l.group_cols = 2;
  l.rights_per_group = {{1, 1}};
  const KernelSmemModel m = model_warp_per_shift_shared(l);
  EXPECT_EQ(m.traffic.store_instructions, 2);
  EXPECT_EQ(m.traffic.load_instructions, 8);
  EXPECT_EQ(m.traffic.load_wavefronts, 8);
  // Three blocks per group stage three times; two groups of two rights add their rights' loads.
  l.blocks_per_group = 3;
  l.rights_per_group = {{2, 2}};
  const KernelSmemModel m2 = model_warp_per_shift_shared(l);
  EXPECT_EQ(m2.traffic.store_instructions, 2 * 3 * (1 + 2));
  EXPECT_EQ(m2.traffic.load_instructions, 2 * 2 * 8);
}

// The warp-per-shift kernels' walk (the kernel steps without dividing; the model divides): every
// lane's k-th element is element lane + 32 k of the row-major overlap, for widths below, at
// and above the warp, including widths that divide 32 and primes.
TEST(KernelSmem, OverlapWalkVisitsTheRowMajorSequence) {
  for (int ow : {1, 2, 3, 5, 7, 16, 31, 32, 33, 47, 64, 100}) {
    for (int lane = 0; lane < 32; ++lane) {
      smem::OverlapWalk at = smem::overlap_walk(lane, ow);
      for (int e = lane; e < 40 * 32; e += 32, at.next()) {
        ASSERT_EQ(at.row, e / ow) << "ow " << ow << " lane " << lane << " element " << e;
        ASSERT_EQ(at.col, e % ow) << "ow " << ow << " lane " << lane << " element " << e;
      }
    }
  }
}

// A 16-wide template: lanes cover 2 rows x 16 columns of the staged right; its pitch decides
// the conflicts: 31 floats overlap the two rows in 15 banks (2 wavefronts), 48 (= 16 mod 32)
// interleaves them; the padding found makes the pitch 16 mod 32.
TEST(KernelSmem, TwoRowAccessPaddingGoesToHalfTheBanks) {
  const SmemArray a = describe_array("r", "2 x 16", 31, 4, 16);
  EXPECT_EQ(a.wavefronts, 2);
  EXPECT_EQ(a.gcd_degree, 1);  // the classic column degree misses this conflict
  EXPECT_EQ((31 + a.pad_elements) % 32, 16);
  EXPECT_EQ(a.padded_wavefronts, 1);
  EXPECT_EQ(describe_array("r", "2 x 16", 48, 4, 16).wavefronts, 1);
}

}  // namespace
}  // namespace xcorr::profiling
