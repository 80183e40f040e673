#include "core/dic/strain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/parallel.hpp"

namespace xcorr::dic {

std::vector<StrainValues> compute_strain(const Grid& g, const std::vector<double>& u,
                                         const std::vector<double>& v, int window,
                                         StrainKind kind) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<StrainValues> out(g.points.size(), {nan, nan, nan});
  const Index half = window / 2;
  parallel_for(
      g.rows, std::max<Index>(1, 16384 / std::max<Index>(1, g.cols)), [&](Index r0, Index r1) {
        for (Index r = r0; r < r1; ++r) {
          for (Index c = 0; c < g.cols; ++c) {
            const auto centre = static_cast<std::size_t>(r * g.cols + c);
            if (std::isnan(u[centre]) || std::isnan(v[centre])) continue;
            // Normal equations of the plane fit in coordinates relative to the centre point.
            double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
            double su = 0, sxu = 0, syu = 0, sv = 0, sxv = 0, syv = 0;
            for (Index dr = -half; dr <= half; ++dr) {
              for (Index dc = -half; dc <= half; ++dc) {
                const Index rr = r + dr, cc = c + dc;
                if (rr < 0 || cc < 0 || rr >= g.rows || cc >= g.cols) continue;
                const auto k = static_cast<std::size_t>(rr * g.cols + cc);
                if (std::isnan(u[k]) || std::isnan(v[k])) continue;
                const double x = g.points[k].x - g.points[centre].x;
                const double y = g.points[k].y - g.points[centre].y;
                n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
                su += u[k], sxu += x * u[k], syu += y * u[k];
                sv += v[k], sxv += x * v[k], syv += y * v[k];
              }
            }
            if (n < 6) continue;
            // Solve [n sx sy; sx sxx sxy; sy sxy syy] [a b c]^T = rhs by Cramer's rule.
            const double det = n * (sxx * syy - sxy * sxy) - sx * (sx * syy - sxy * sy) +
                               sy * (sx * sxy - sxx * sy);
            if (!(std::abs(det) > 1e-9)) continue;
            auto slopes = [&](double s0, double s1, double s2, double& b, double& cc) {
              b = (n * (s1 * syy - sxy * s2) - s0 * (sx * syy - sxy * sy) +
                   sy * (sx * s2 - s1 * sy)) /
                  det;
              cc = (n * (sxx * s2 - s1 * sxy) - sx * (sx * s2 - s1 * sy) +
                    s0 * (sx * sxy - sxx * sy)) /
                   det;
            };
            double ux = 0, uy = 0, vx = 0, vy = 0;
            slopes(su, sxu, syu, ux, uy);
            slopes(sv, sxv, syv, vx, vy);
            if (kind == StrainKind::green_lagrange) {
              out[centre] = {ux + 0.5 * (ux * ux + vx * vx), vy + 0.5 * (uy * uy + vy * vy),
                             0.5 * (uy + vx + ux * uy + vx * vy)};
            } else {
              out[centre] = {ux, vy, 0.5 * (uy + vx)};
            }
          }
        }
      });
  return out;
}

}  // namespace xcorr::dic
