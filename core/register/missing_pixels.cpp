#include "core/register/missing_pixels.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace xcorr::reg {

MissingPixels fill_missing(MatrixView<float> image) {
  MissingPixels m;
  double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (Index y = 0; y < image.rows; ++y) {
    for (Index x = 0; x < image.cols; ++x) {
      const double v = image(y, x);
      if (!std::isfinite(v)) {
        ++m.missing;
        continue;
      }
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  const long n = static_cast<long>(image.rows * image.cols);
  const long finite = n - m.missing;
  char text[200];
  if (n == 0 || static_cast<double>(finite) < kMinFiniteShare * static_cast<double>(n)) {
    std::snprintf(text, sizeof text,
                  "has %ld finite pixel(s) of %ld (the rest NaN or Inf): too few to register (at "
                  "least %.0f %%)",
                  finite, n, 100 * kMinFiniteShare);
    m.why = text;
    return m;
  }
  if (std::max(std::abs(lo), std::abs(hi)) > kMaxRegistrableValue) {
    std::snprintf(text, sizeof text,
                  "has values up to %.3g: beyond what float32 transforms correlate (at most %.0e)",
                  std::max(std::abs(lo), std::abs(hi)), kMaxRegistrableValue);
    m.why = text;
    return m;
  }
  if (hi <= lo) {
    std::snprintf(text, sizeof text, "is flat (every finite pixel %.9g): nothing to register", lo);
    m.why = text;
    return m;
  }
  if (m.missing == 0) return m;
  const auto mean = static_cast<float>(sum / static_cast<double>(finite));
  for (Index y = 0; y < image.rows; ++y)
    for (Index x = 0; x < image.cols; ++x)
      if (!std::isfinite(image(y, x))) image(y, x) = mean;
  return m;
}

void mark_missing(MatrixView<const float> original, double dx, double dy,
                  MatrixView<float> moved) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Index ym = 0; ym < original.rows; ++ym) {
    for (Index xm = 0; xm < original.cols; ++xm) {
      if (std::isfinite(original(ym, xm))) continue;
      // Output pixels x with |x + dx - xm| < 1: x in (xm - dx - 1, xm - dx + 1).
      const double cx = static_cast<double>(xm) - dx, cy = static_cast<double>(ym) - dy;
      for (auto y = static_cast<Index>(std::floor(cy - 1) + 1); y < cy + 1; ++y) {
        for (auto x = static_cast<Index>(std::floor(cx - 1) + 1); x < cx + 1; ++x) {
          if (y >= 0 && x >= 0 && y < moved.rows && x < moved.cols) moved(y, x) = nan;
        }
      }
    }
  }
}

}  // namespace xcorr::reg
