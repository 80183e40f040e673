#include "core/register/missing_pixels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/missing_data.hpp"

namespace xcorr::reg {

MissingPixels fill_missing(MatrixView<float> image) {
  MissingPixels m;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (Index y = 0; y < image.rows; ++y) {
    for (Index x = 0; x < image.cols; ++x) {
      const double v = image(y, x);
      if (!std::isfinite(v)) {
        ++m.missing;
        continue;
      }
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
  if (m.missing > 0) (void)fill_missing_with_mean(image);
  return m;
}

float finite_mean(MatrixView<const float> image, char& missing) {
  double sum = 0;
  long finite = 0;
  for (Index y = 0; y < image.rows; ++y) {
    const float* row = image.row(y);
    for (Index x = 0; x < image.cols; ++x) {
      if (std::isfinite(row[x])) {
        sum += row[x];
        ++finite;
      }
    }
  }
  missing = finite < image.rows * image.cols ? 1 : 0;
  return finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
}

void mark_missing_row(MatrixView<const float> original, double dx, double dy, Index r, float* row) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double sy = static_cast<double>(r) + dy;
  // Source rows ym with |sy - ym| < 1, columns xm with |x + dx - xm| < 1.
  const auto y0 = static_cast<Index>(std::floor(sy - 1) + 1);
  for (Index ym = std::max<Index>(0, y0); ym < sy + 1 && ym < original.rows; ++ym) {
    const float* src = original.row(ym);
    for (Index xm = 0; xm < original.cols; ++xm) {
      if (std::isfinite(src[xm])) continue;
      const double cx = static_cast<double>(xm) - dx;  // output columns x in (cx - 1, cx + 1)
      for (auto x = static_cast<Index>(std::floor(cx - 1) + 1); x < cx + 1; ++x)
        if (x >= 0 && x < original.cols) row[x] = nan;
    }
  }
}

}  // namespace xcorr::reg
