// The host's plan for gpu_zncc_tiled (core/profiling/zncc_tile_plan.hpp): one tile for DIC-sized
// searches with conflict-free main-loop loads, tiles for whole frames, a clear refusal when even
// the smallest tile does not fit.
#include "core/profiling/zncc_tile_plan.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "core/profiling/smem_model.hpp"

namespace xcorr {
namespace {

// Wavefronts of the main loop's window load (one template position) over the tile's warps.
int window_wavefronts(const smem::ZnccTilePlan& q, int& ideal) {
  int total = 0;
  ideal = 0;
  for (int w0 = 0; w0 < q.tile_threads(); w0 += 32) {
    std::array<std::uint32_t, 32> a{};
    std::uint32_t on = 0;
    for (int l = 0; l < 32 && w0 + l < q.tile_threads(); ++l) {
      a[l] = static_cast<std::uint32_t>(smem::zncc_s_slot(q, smem::zncc_group(q, w0 + l) * q.RY,
                                                          smem::zncc_col(q, w0 + l))) *
             4u;
      on |= 1u << l;
    }
    const profiling::SmemCost c = profiling::smem_cost(4, a, on);
    total += c.wavefronts;
    ideal += c.ideal;
  }
  return total;
}

// Default (measured on the H200, every RY timed): RY 7 for subsets 21 and 41 (three groups of 7
// rows: no row padding, conflict-free window loads), RY 8 for subset 31 (RY 7 would pad its 31
// template rows to 35; RY 8 pads them to 32 and its main loop measured fastest).
TEST(ZnccTilePlan, DicSearchIsOneTileWithTheMeasuredRowsPerThread) {
  for (int subset : {21, 31, 41}) {
    const int win = subset + 20;  // search radius 10
    const auto q = profiling::plan_zncc_tiles(subset, subset, win, win, 0, 200 * 1024);
    ASSERT_TRUE(q.is_ok()) << q.status().message();
    EXPECT_TRUE(q.value().single_tile());
    EXPECT_EQ(q.value().RY, subset == 31 ? 8 : 7) << "subset " << subset;
    EXPECT_EQ(q.value().TR, subset == 31 ? 24 : 21);
    EXPECT_EQ(q.value().TC, 21);
    EXPECT_EQ(q.value().threads, 64);
    EXPECT_GE(profiling::zncc_blocks_per_sm(q.value()), 5) << "subset " << subset;
    const auto r7 = profiling::plan_zncc_tiles(subset, subset, win, win, 7, 200 * 1024);
    ASSERT_TRUE(r7.is_ok());
    EXPECT_EQ(r7.value().TR, 21);
    EXPECT_EQ(r7.value().threads, 64);
    EXPECT_EQ(r7.value().sp % 2, 1);
    int ideal = 0;
    EXPECT_EQ(window_wavefronts(r7.value(), ideal), ideal) << "subset " << subset;
  }
}

TEST(ZnccTilePlan, WholeFramesUseTilesAndRowChoicesAreHonoured) {
  const auto q = profiling::plan_zncc_tiles(64, 64, 2048, 2048, 0, 200 * 1024);
  ASSERT_TRUE(q.is_ok()) << q.status().message();
  EXPECT_FALSE(q.value().single_tile());
  EXPECT_EQ(q.value().TC, 64);
  EXPECT_LE(q.value().threads, smem::kZnccMaxThreads);
  EXPECT_LE(4 * q.value().smem_floats, 200 * 1024);
  EXPECT_EQ(q.value().tiles_x, (1985 + 63) / 64);
  const auto r5 = profiling::plan_zncc_tiles(31, 31, 51, 51, 5, 200 * 1024);
  ASSERT_TRUE(r5.is_ok());
  EXPECT_EQ(r5.value().RY, 5);
  EXPECT_EQ(r5.value().TR, 25);
}

// Every shared-memory word the kernel touches (per the layout functions it uses) lies inside the
// plan's allocation and inside its own array: staging, the main loop's reads (rows up to
// g RY + n_iter + RY - 2, 16-byte template groups), the window sums, the ZNCC tile, reductions.
TEST(ZnccTilePlan, EveryAccessStaysInsideItsArray) {
  const int shapes[][4] = {{31, 31, 51, 51},     {21, 21, 41, 41}, {41, 41, 61, 61},
                           {7, 5, 33, 30},       {1, 5, 3, 17},    {17, 15, 120, 140},
                           {64, 64, 2048, 2048}, {13, 11, 40, 37}, {32, 32, 512, 512}};
  for (const auto& s : shapes) {
    for (int ry : {0, 4, 5, 6, 7, 8}) {
      const auto made = profiling::plan_zncc_tiles(s[0], s[1], s[2], s[3], ry, 200 * 1024);
      ASSERT_TRUE(made.is_ok()) << made.status().message();
      const smem::ZnccTilePlan& q = made.value();
      const std::string where = std::to_string(s[0]) + "x" + std::to_string(s[1]) + " in " +
                                std::to_string(s[2]) + "x" + std::to_string(s[3]) + " RY " +
                                std::to_string(q.RY);
      auto inside = [&](int slot, int width, int lo, int hi, const char* array) {
        ASSERT_GE(slot, lo) << array << " " << where;
        ASSERT_LE(slot + width, hi) << array << " " << where;
        ASSERT_LE(slot + width, q.smem_floats) << array << " " << where;
        ASSERT_EQ(slot * 4 % (4 * width), 0) << array << " alignment " << where;
      };
      for (int j = 0; j < q.w; ++j) {
        for (int i = 0; i < q.n_iter; i += q.RY) {
          for (int k = 0; k < q.tg; k += 4)
            inside(smem::zncc_t_slot(q, i, j) + k, 4, q.off_t, q.off_s, "template");
        }
      }
      for (int x = 0; x < q.s_cols; ++x) {
        for (int y = 0; y < q.s_rows; ++y)
          inside(smem::zncc_s_slot(q, y, x), 1, q.off_s, q.off_h, "window");
      }
      const int last_row = (q.groups() - 1) * q.RY + q.n_iter + q.RY - 2;
      EXPECT_LT(last_row, q.s_rows) << where;
      for (int c = 0; c < q.TC; ++c) {
        for (int y = 0; y < q.hs_rows(); ++y)
          inside(smem::zncc_h_slot(q, y, c), 2, q.off_h, q.off_z, "hs");
      }
      for (int r = 0; r < q.TR; ++r) {
        for (int c = 0; c < q.TC; ++c) inside(smem::zncc_z_slot(q, r, c), 1, q.off_z, q.off_r, "z");
      }
      for (int w = 0; w < q.warps(); ++w) {
        for (int k = 0; k < smem::kZnccReduce; ++k)
          inside(smem::zncc_r_slot(q, w, k), 2, q.off_r, q.smem_floats, "reduce");
      }
    }
  }
}

TEST(ZnccTilePlan, TooLargeATemplateIsRefusedByName) {
  const auto q = profiling::plan_zncc_tiles(200, 200, 210, 210, 0, 200 * 1024);
  ASSERT_FALSE(q.is_ok());
  EXPECT_EQ(q.status().code(), ErrorCode::unsupported);
  EXPECT_NE(q.status().message().find("200x200 template"), std::string::npos)
      << q.status().message();
}

}  // namespace
}  // namespace xcorr
