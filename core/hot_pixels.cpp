#include "core/hot_pixels.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace xcorr {

long suppress_hot_pixels(MatrixView<float> image) {
  const Index rows = image.rows, cols = image.cols;
  if (rows < 3 || cols < 3) return 0;
  // The median and the 99.9th percentile from at most ~65,536 samples.
  const Index n = rows * cols;
  const Index every = std::max<Index>(1, n / 65536);
  std::vector<float> sample;
  sample.reserve(static_cast<std::size_t>(n / every + 1));
  for (Index i = 0; i < n; i += every) sample.push_back(image(i / cols, i % cols));
  const auto at = [&sample](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(sample.size() - 1));
    std::nth_element(sample.begin(), sample.begin() + static_cast<long>(k), sample.end());
    return sample[k];
  };
  const float median = at(0.5), high = at(0.999);
  // Decided on the image as it came (a replaced pixel changes no other decision), then applied.
  std::vector<std::pair<Index, float>> replace;  // (y * cols + x, the value it takes)
  for (Index y = 0; y < rows; ++y) {
    for (Index x = 0; x < cols; ++x) {
      const float v = image(y, x);
      if (!(v > high)) continue;
      const float halfway = median + 0.5f * (v - median);
      int bright = 0;  // neighbours at least half way from the median to v
      float around = -std::numeric_limits<float>::infinity();  // the largest other neighbour
      for (Index yy = std::max<Index>(0, y - 1); yy <= std::min(rows - 1, y + 1); ++yy)
        for (Index xx = std::max<Index>(0, x - 1); xx <= std::min(cols - 1, x + 1); ++xx) {
          if (yy == y && xx == x) continue;
          const float u = image(yy, xx);
          if (u >= halfway)
            ++bright;
          else
            around = std::max(around, u);
        }
      if (bright <= kMaxHotNeighbours && around > -std::numeric_limits<float>::infinity())
        replace.emplace_back(y * cols + x, around);
    }
  }
  for (const auto& [i, value] : replace) image(i / cols, i % cols) = value;
  return static_cast<long>(replace.size());
}

}  // namespace xcorr
