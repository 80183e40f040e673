// suppress_hot_pixels on a fresh random smooth background (waves) of prime size: single hot pixels
// and clusters of 2 and 3 (side by side, diagonal, an L, a line) all go and take a background
// value, every other pixel stays; bright objects of 2 x 2 px and more, and a disc, stay whole.
#include "core/hot_pixels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

constexpr Index kRows = 211, kCols = 257;  // 54,227 px: the 99.9th percentile leaves 54 above

// A smooth background in [10, 20]: 15 plus 4 random waves of periods 20-60 px (no pixel stands
// out from its neighbours: what is tested is what the hot pixels do).
Stack<float> background(std::mt19937_64& g) {
  std::uniform_real_distribution<double> period(20, 60), turn(0, 6.283185307179586);
  std::vector<std::array<double, 3>> waves;  // (kx, ky, phase) in radians per px
  for (int k = 0; k < 4; ++k) {
    const double w = 6.283185307179586 / period(g), a = turn(g);
    waves.push_back({w * std::cos(a), w * std::sin(a), turn(g)});
  }
  Stack<float> out(kRows, kCols, 1);
  for (Index y = 0; y < kRows; ++y)
    for (Index x = 0; x < kCols; ++x) {
      double v = 15;
      for (const auto& [kx, ky, p] : waves)
        v += 1.25 * std::sin(kx * static_cast<double>(x) + ky * static_cast<double>(y) + p);
      out[0](y, x) = static_cast<float>(v);
    }
  return out;
}

using Shape = std::vector<std::pair<Index, Index>>;  // (dy, dx) of each pixel

// Places `shapes` at random places at least 6 px apart (and from the border), `value` each.
std::vector<std::pair<Index, Index>> place(Stack<float>& image, const std::vector<Shape>& shapes,
                                           float value, std::mt19937_64& g) {
  std::vector<std::pair<Index, Index>> at;  // every placed pixel
  std::vector<std::pair<Index, Index>> origins;
  std::uniform_int_distribution<Index> ry(6, kRows - 10), rx(6, kCols - 10);
  for (const Shape& s : shapes) {
    Index y = 0, x = 0;
    do {
      y = ry(g), x = rx(g);
    } while (std::any_of(origins.begin(), origins.end(), [&](const auto& o) {
      return std::abs(o.first - y) < 12 && std::abs(o.second - x) < 12;
    }));
    origins.emplace_back(y, x);
    for (const auto& [dy, dx] : s) {
      image[0](y + dy, x + dx) = value;
      at.emplace_back(y + dy, x + dx);
    }
  }
  return at;
}

TEST(HotPixels, SinglesAndClustersOfUpToThreeGoAndNothingElseChanges) {
  std::mt19937_64 g(testing::run_seed() ^ 0x407);
  const Stack<float> clean = background(g);
  Stack<float> image = clean;
  const std::vector<Shape> kinds = {
      {{0, 0}},         {{0, 0}, {0, 1}},         {{0, 0}, {1, 0}},        {{0, 0}, {1, 1}},
      {{0, 1}, {1, 0}}, {{0, 0}, {0, 1}, {1, 0}}, {{0, 0}, {0, 1}, {0, 2}}};
  std::vector<Shape> shapes;
  for (int k = 0; k < 3; ++k) shapes.insert(shapes.end(), kinds.begin(), kinds.end());
  const auto hot = place(image, shapes, 80, g);  // 45 px, 4 x the background's maximum
  ASSERT_EQ(hot.size(), 45u);
  EXPECT_EQ(suppress_hot_pixels(image[0]), 45);
  std::vector<char> is_hot(static_cast<std::size_t>(kRows * kCols), 0);
  for (const auto& [y, x] : hot) {
    is_hot[static_cast<std::size_t>(y * kCols + x)] = 1;
    float top = 0;  // the background's largest value within 2 px (what a neighbour can give)
    for (Index yy = y - 2; yy <= y + 2; ++yy)
      for (Index xx = x - 2; xx <= x + 2; ++xx) top = std::max(top, clean[0](yy, xx));
    EXPECT_LE(image[0](y, x), top) << "hot pixel at row " << y << ", column " << x;
    EXPECT_GE(image[0](y, x), 10.0f);
  }
  for (Index i = 0; i < kRows * kCols; ++i) {
    if (!is_hot[static_cast<std::size_t>(i)]) {
      ASSERT_EQ(image.data()[i], clean.data()[i]) << "pixel " << i << " changed";
    }
  }
}

TEST(HotPixels, BrightObjectsOfTwoByTwoAndMoreStay) {
  std::mt19937_64 g(testing::run_seed() ^ 0x408);
  Stack<float> image = background(g);
  Shape disc;  // radius 2.5 px: 21 px
  for (Index dy = -2; dy <= 2; ++dy)
    for (Index dx = -2; dx <= 2; ++dx)
      if (dy * dy + dx * dx <= 6) disc.emplace_back(dy + 2, dx + 2);
  const std::vector<Shape> shapes = {
      {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}, disc};
  (void)place(image, shapes, 80, g);  // 31 px, all above the 99.9th percentile
  const Stack<float> before = image;
  EXPECT_EQ(suppress_hot_pixels(image[0]), 0);
  for (Index i = 0; i < kRows * kCols; ++i)
    ASSERT_EQ(image.data()[i], before.data()[i]) << "pixel " << i << " changed";
}

TEST(HotPixels, TinyImages) {
  Stack<float> two(2, 2, 1, 1.0f);
  two[0](0, 0) = 100;
  EXPECT_EQ(suppress_hot_pixels(two[0]), 0);  // no pixel has 8 neighbours
  EXPECT_EQ(two[0](0, 0), 100);
  Stack<float> three(3, 3, 1, 1.0f);
  three[0](1, 1) = 100;
  EXPECT_EQ(suppress_hot_pixels(three[0]), 1);
  EXPECT_EQ(three[0](1, 1), 1);
}

}  // namespace
}  // namespace xcorr
