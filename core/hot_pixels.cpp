#include "core/hot_pixels.hpp"

#include <algorithm>
#include <limits>
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
  long replaced = 0;
  for (Index y = 0; y < rows; ++y) {
    for (Index x = 0; x < cols; ++x) {
      const float v = image(y, x);
      if (!(v > high)) continue;
      float around = -std::numeric_limits<float>::infinity();  // the neighbours inside
      for (Index yy = std::max<Index>(0, y - 1); yy <= std::min(rows - 1, y + 1); ++yy)
        for (Index xx = std::max<Index>(0, x - 1); xx <= std::min(cols - 1, x + 1); ++xx)
          if (yy != y || xx != x) around = std::max(around, image(yy, xx));
      if (around < median + 0.5f * (v - median)) {
        image(y, x) = around;
        ++replaced;
      }
    }
  }
  return replaced;
}

}  // namespace xcorr
