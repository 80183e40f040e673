#include "core/missing_data.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/parallel.hpp"

namespace xcorr {

bool all_finite(MatrixView<const float> image) {
  std::atomic<bool> finite{true};
  parallel_for(image.rows, std::max<Index>(1, 262144 / std::max<Index>(1, image.cols)),
               [&](Index first, Index last) {
                 std::uint32_t worst = 0;
                 for (Index y = first; y < last; ++y) {
                   const float* row = image.row(y);
                   for (Index x = 0; x < image.cols; ++x) {
                     std::uint32_t bits;
                     std::memcpy(&bits, row + x, sizeof bits);
                     worst = std::max(worst, bits & 0x7f800000u);  // all ones: Inf or NaN
                   }
                 }
                 if (worst == 0x7f800000u) finite.store(false);
               });
  return finite.load();
}

std::vector<char> fill_missing_with_mean(MatrixView<float> image) {
  if (all_finite(image)) return {};
  double sum = 0;
  long finite = 0;
  for (Index y = 0; y < image.rows; ++y)
    for (Index x = 0; x < image.cols; ++x)
      if (std::isfinite(image(y, x))) sum += image(y, x), ++finite;
  if (finite == image.rows * image.cols) return {};
  const float mean = finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
  std::vector<char> missing(static_cast<std::size_t>(image.rows * image.cols), 0);
  for (Index y = 0; y < image.rows; ++y) {
    for (Index x = 0; x < image.cols; ++x) {
      if (std::isfinite(image(y, x))) continue;
      image(y, x) = mean;
      missing[static_cast<std::size_t>(y * image.cols + x)] = 1;
    }
  }
  return missing;
}

bool touches_missing(const std::vector<char>& missing, Index rows, Index cols, double x0, double y0,
                     double x1, double y1) {
  if (missing.empty()) return false;
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1))
    return true;
  const Index c0 = std::max<Index>(0, static_cast<Index>(std::floor(x0)));
  const Index c1 = std::min<Index>(cols - 1, static_cast<Index>(std::ceil(x1)));
  const Index r0 = std::max<Index>(0, static_cast<Index>(std::floor(y0)));
  const Index r1 = std::min<Index>(rows - 1, static_cast<Index>(std::ceil(y1)));
  for (Index r = r0; r <= r1; ++r)
    for (Index c = c0; c <= c1; ++c)
      if (missing[static_cast<std::size_t>(r * cols + c)]) return true;
  return false;
}

}  // namespace xcorr
