// ROI masks: shapes added and subtracted in order, pixel centres decide, and bad shapes are
// refused with a message that names them.
#include "core/dic/roi.hpp"

#include <gtest/gtest.h>

namespace xcorr::dic {
namespace {

int count(const Mask& m) {
  int n = 0;
  for (unsigned char c : m) n += c;
  return n;
}

TEST(Roi, EmptyMeansTheWholeImage) {
  EXPECT_EQ(count(Roi{}.render(10, 12)), 120);
}

TEST(Roi, AddsAndSubtractsInOrder) {
  Roi roi;
  roi.shapes.push_back(parse_roi_shape("rect:0,0,10,10").value());  // 100 px
  roi.shapes.push_back(parse_roi_shape("-rect:2,2,3,3").value());   // -9
  roi.shapes.push_back(parse_roi_shape("rect:3,3,1,1").value());    // +1 back
  const Mask m = roi.render(20, 20);
  EXPECT_EQ(count(m), 92);
  EXPECT_EQ(m[3 * 20 + 3], 1);
  EXPECT_EQ(m[2 * 20 + 2], 0);
  EXPECT_EQ(m[15 * 20 + 15], 0);
}

TEST(Roi, EllipseAndPolygon) {
  Roi e{{parse_roi_shape("ellipse:10,10,5,3").value()}};
  const Mask me = e.render(21, 21);
  EXPECT_EQ(me[10 * 21 + 15], 1);  // on the x semi-axis
  EXPECT_EQ(me[10 * 21 + 16], 0);
  EXPECT_EQ(me[13 * 21 + 10], 1);
  EXPECT_EQ(me[14 * 21 + 10], 0);
  Roi t{{parse_roi_shape("poly:0,0,10,0,0,10").value()}};  // triangle, area 50
  const int n = count(t.render(12, 12));
  EXPECT_GE(n, 45);
  EXPECT_LE(n, 66);
  EXPECT_EQ(t.render(12, 12)[1 * 12 + 1], 1);
  EXPECT_EQ(t.render(12, 12)[8 * 12 + 8], 0);
}

TEST(Roi, BadShapesAreRefusedByName) {
  EXPECT_EQ(parse_roi_shape("rect:0,0,0,5").status().message(),
            "ROI shape 1 (rect:0,0,0,5): width and height must be > 0");
  EXPECT_NE(parse_roi_shape("circle:1,2,3").status().message().find("expected rect:"),
            std::string::npos);
  EXPECT_NE(parse_roi_shape("rect:1,x,3,4").status().message().find("not a list of numbers"),
            std::string::npos);
  EXPECT_FALSE(parse_roi_shape("poly:0,0,1,1").is_ok());
  EXPECT_EQ(to_string(parse_roi_shape("-ellipse:1.5,2,3,4").value()), "-ellipse:1.5,2,3,4");
}

}  // namespace
}  // namespace xcorr::dic
