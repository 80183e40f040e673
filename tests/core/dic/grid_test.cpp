// make_grid: points every `step` px from half a subset in, as long as the subset fits; valid
// where the centre lies in the ROI mask.
#include "core/dic/grid.hpp"

#include <gtest/gtest.h>

namespace xcorr::dic {
namespace {

TEST(Grid, PointsStepFromHalfASubsetWhileTheSubsetFits) {
  const Index rows = 60, cols = 45;
  const Grid g = make_grid(rows, cols, 11, 7, Roi{}.render(rows, cols));
  // x = 5, 12, ..., while x + 5 <= 44: 5..33 -> 5 points; y = 5 .. 54 -> 8 points.
  EXPECT_EQ(g.cols, 5);
  EXPECT_EQ(g.rows, 8);
  ASSERT_EQ(g.points.size(), 40u);
  EXPECT_EQ(g.points[0].x, 5);
  EXPECT_EQ(g.points[0].y, 5);
  EXPECT_EQ(g.points[6].x, 12) << "row-major: index 6 is row 1, column 1";
  EXPECT_EQ(g.points[6].y, 12);
  for (const GridPoint& p : g.points) {
    EXPECT_TRUE(p.valid);
    EXPECT_LE(p.x + 5, cols - 1);
    EXPECT_LE(p.y + 5, rows - 1);
  }
}

TEST(Grid, OnlyCentresInsideTheRoiAreValid) {
  const Roi roi{{parse_roi_shape("rect:20,20,10,10").value()}};
  const Grid g = make_grid(64, 64, 9, 4, roi.render(64, 64));
  int valid = 0;
  for (const GridPoint& p : g.points) {
    const bool inside = p.x >= 20 && p.x < 30 && p.y >= 20 && p.y < 30;
    EXPECT_EQ(p.valid, inside) << p.x << "," << p.y;
    valid += p.valid;
  }
  EXPECT_EQ(valid, 9) << "x, y in {20, 24, 28}";
}

}  // namespace
}  // namespace xcorr::dic
