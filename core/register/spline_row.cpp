#include "core/register/spline_row.hpp"

#include <cmath>
#include <cstring>

#include "core/clones.hpp"
#include "core/dic/icgn_math.hpp"

namespace xcorr::reg {
namespace {

using Float4 = float __attribute__((vector_size(16)));

XCORR_INLINE Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);  // unaligned
  return v;
}

// dic::math::BSpline<3>::weights, as one vector.
XCORR_INLINE Float4 cubic_weights(float t) {
  const float t2 = t * t, t3 = t2 * t, u = 1 - t;
  const Float4 w{u * u * u, 3 * t3 - 6 * t2 + 4, -3 * t3 + 3 * t2 + 3 * t + 1, t3};
  return w * (1.0f / 6);
}

}  // namespace

XCORR_CLONES void spline_row(const float* c, Index rows, Index cols, double bx, double mx,
                             double by, double my, double s0, Index n, float* out) {
  for (Index j = 0; j < n; ++j) {
    const double s = s0 + static_cast<double>(j);
    const double x = bx + mx * s, y = by + my * s;
    const double fx = std::floor(x), fy = std::floor(y);
    const auto ix = static_cast<Index>(fx), iy = static_cast<Index>(fy);
    if (ix < 1 || iy < 1 || ix + 3 > cols || iy + 3 > rows) {
      out[j] = static_cast<float>(dic::math::bspline_value<3, float>(c, rows, cols, x, y));
      continue;
    }
    const Float4 wx = cubic_weights(static_cast<float>(x - fx));
    const Float4 wy = cubic_weights(static_cast<float>(y - fy));
    const float* p = c + (iy - 1) * cols + (ix - 1);
    const Float4 column = wy[0] * load4(p) + wy[1] * load4(p + cols) + wy[2] * load4(p + 2 * cols) +
                          wy[3] * load4(p + 3 * cols);
    const Float4 v = column * wx;
    out[j] = (v[0] + v[1]) + (v[2] + v[3]);
  }
}

}  // namespace xcorr::reg
