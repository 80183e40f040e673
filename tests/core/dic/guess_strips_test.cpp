// plan_strips: every guess lands in exactly one strip, in order; a strip is consecutive guesses of
// one subset row with x increasing, at most kStripMaxPoints, its displacements cover each point's
// and span at most max_span more, and its shared memory fits the budget.
#include "core/dic/guess_strips.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace xcorr::dic {
namespace {

void expect_valid(const std::vector<GuessWindow>& g, const std::vector<GuessStrip>& strips, int S,
                  int win, std::size_t budget, int max_span) {
  const int h = S / 2, L = win - S + 1;
  int next = 0;
  for (const GuessStrip& s : strips) {
    ASSERT_EQ(s.first, next);
    ASSERT_GE(s.count, 1);
    ASSERT_LE(s.count, kStripMaxPoints);
    next += s.count;
    int lo_x = 1 << 30, hi_x = -(1 << 30), lo_y = lo_x, hi_y = hi_x;
    for (int i = s.first; i < s.first + s.count; ++i) {
      if (i > s.first) {
        EXPECT_EQ(g[i].y, g[i - 1].y) << "strip at " << s.first;
        EXPECT_GT(g[i].x, g[i - 1].x) << "strip at " << s.first;
      }
      const int ox = g[i].wx - (g[i].x - h), oy = g[i].wy - (g[i].y - h);
      lo_x = std::min(lo_x, ox), hi_x = std::max(hi_x, ox);
      lo_y = std::min(lo_y, oy), hi_y = std::max(hi_y, oy);
    }
    EXPECT_EQ(s.ox, lo_x);
    EXPECT_EQ(s.oy, lo_y);
    EXPECT_EQ(s.ex, hi_x - lo_x + L);
    EXPECT_EQ(s.ey, hi_y - lo_y + L);
    if (s.count > 1) {
      EXPECT_LE(s.ex - L, max_span);
      EXPECT_LE(s.ey - L, max_span);
      const int width = g[s.first + s.count - 1].x - g[s.first].x + S;
      EXPECT_LE(strip_smem_bytes(S, width, s.ex, s.ey), budget);
    }
  }
  EXPECT_EQ(next, static_cast<int>(g.size()));
}

TEST(GuessStrips, CoverEveryGuessInRowsWithinTheLimits) {
  std::mt19937 rng(std::random_device{}());
  const unsigned seed = rng();
  SCOPED_TRACE("seed " + std::to_string(seed));
  rng.seed(seed);
  for (int S : {7, 21, 31}) {
    for (int R : {0, 3, 10}) {
      const int win = S + 2 * R, h = S / 2;
      std::vector<GuessWindow> g;
      std::uniform_int_distribution<int> step(1, 9), jitter(-3, 3), skip(0, 9);
      for (int y = h; y < h + 40; y += step(rng)) {
        for (int x = h; x < h + 300; x += step(rng)) {
          if (skip(rng) == 0) continue;  // a hole in the grid
          g.push_back({x, y, x - h - R + jitter(rng), y - h - R + jitter(rng)});
        }
      }
      for (std::size_t budget : {std::size_t{20000}, std::size_t{76800}, std::size_t{1} << 20}) {
        for (int max_span : {0, 4, 8}) {
          std::vector<GuessStrip> strips;
          const bool fits = plan_strips(g.data(), 0, static_cast<int>(g.size()), S, win, budget,
                                        max_span, strips);
          const int L = win - S + 1;
          ASSERT_EQ(fits, strip_smem_bytes(S, S, L, L) <= budget) << S << " " << R;
          if (!fits) {
            EXPECT_TRUE(strips.empty());
            continue;
          }
          expect_valid(g, strips, S, win, budget, max_span);
        }
      }
    }
  }
}

TEST(GuessStrips, AGridRowOfEqualWindowsMakesFullStrips) {
  // Reference mode's grid: subset 31, step 4, R 10, every window centred on its subset.
  const int S = 31, R = 10, win = S + 2 * R, h = S / 2;
  std::vector<GuessWindow> g;
  for (int y = 100; y <= 104; y += 4)
    for (int x = h; x + h < 2048; x += 4) g.push_back({x, y, x - h - R, y - h - R});
  std::vector<GuessStrip> strips;
  ASSERT_TRUE(plan_strips(g.data(), 0, static_cast<int>(g.size()), S, win, std::size_t{1} << 20,
                          kStripSpan, strips));
  expect_valid(g, strips, S, win, std::size_t{1} << 20, kStripSpan);
  // 505 points a row: 15 strips of 32 and one of 25, per row.
  ASSERT_EQ(strips.size(), 32u);
  EXPECT_EQ(strips[0].count, 32);
  EXPECT_EQ(strips[15].count, 25);
  EXPECT_EQ(strips[0].ex, 21);
  EXPECT_EQ(strips[0].ey, 21);
}

}  // namespace
}  // namespace xcorr::dic
