#include "core/io/natural_sort.hpp"

#include <gtest/gtest.h>

namespace xcorr::io {
namespace {

TEST(NaturalSort, NumbersCompareByValue) {
  std::vector<std::string> v = {"img10.tif", "img2.tif", "img1.tif",  "Img3.tif",
                                "img02.tif", "a.tif",    "img100.tif"};
  natural_sort(v);
  const std::vector<std::string> expected = {"a.tif",    "img1.tif",  "img2.tif",  "img02.tif",
                                             "Img3.tif", "img10.tif", "img100.tif"};
  EXPECT_EQ(v, expected);
}

TEST(NaturalSort, IsAStrictWeakOrder) {
  EXPECT_FALSE(natural_less("x1", "x1"));
  EXPECT_TRUE(natural_less("x1", "x1a"));
  EXPECT_FALSE(natural_less("x1a", "x1"));
  EXPECT_TRUE(natural_less("frame_9_b", "frame_10_a"));
}

}  // namespace
}  // namespace xcorr::io
