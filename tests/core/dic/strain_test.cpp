// compute_strain: plane fits over window x window grid points give the gradients of a linear
// field exactly; Green-Lagrange and engineering strain from them; NaN where too few converged
// neighbours remain.
#include "core/dic/strain.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace xcorr::dic {
namespace {

Grid regular_grid(Index rows, Index cols, double step) {
  Grid g;
  g.rows = rows;
  g.cols = cols;
  for (Index r = 0; r < rows; ++r) {
    for (Index c = 0; c < cols; ++c)
      g.points.push_back({static_cast<double>(c) * step, static_cast<double>(r) * step, true});
  }
  return g;
}

TEST(Strain, LinearFieldGivesItsGradientsEverywhere) {
  const Grid g = regular_grid(9, 11, 4.0);
  const double ux = 0.02, uy = -0.01, vx = 0.005, vy = -0.03;
  std::vector<double> u, v;
  for (const GridPoint& p : g.points) {
    u.push_back(0.3 + ux * p.x + uy * p.y);
    v.push_back(-0.7 + vx * p.x + vy * p.y);
  }
  const auto eng = compute_strain(g, u, v, 5, StrainKind::engineering);
  const auto gl = compute_strain(g, u, v, 5, StrainKind::green_lagrange);
  ASSERT_EQ(eng.size(), g.points.size());
  for (std::size_t k = 0; k < g.points.size(); ++k) {
    EXPECT_NEAR(eng[k].exx, ux, 1e-12);
    EXPECT_NEAR(eng[k].eyy, vy, 1e-12);
    EXPECT_NEAR(eng[k].exy, (uy + vx) / 2, 1e-12);
    EXPECT_NEAR(gl[k].exx, ux + (ux * ux + vx * vx) / 2, 1e-12);
    EXPECT_NEAR(gl[k].eyy, vy + (uy * uy + vy * vy) / 2, 1e-12);
    EXPECT_NEAR(gl[k].exy, (uy + vx + ux * uy + vx * vy) / 2, 1e-12);
  }
}

TEST(Strain, TooFewConvergedNeighboursGiveNaN) {
  const Grid g = regular_grid(5, 5, 8.0);
  std::vector<double> u(25, 0.1), v(25, 0.2);
  for (std::size_t k = 0; k < 25; ++k) {
    if (k != 12 && k != 13 && k != 17 && k != 18) u[k] = v[k] = std::nan("");
  }
  const auto s = compute_strain(g, u, v, 3, StrainKind::engineering);
  EXPECT_TRUE(std::isnan(s[12].exx)) << "4 converged points in its 3x3 window: fewer than 6";
  EXPECT_TRUE(std::isnan(s[0].exx));
  const std::vector<double> all_u(25, 0.1), all_v(25, 0.2);
  const auto w3 = compute_strain(g, all_u, all_v, 3, StrainKind::engineering);
  const auto w5 = compute_strain(g, all_u, all_v, 5, StrainKind::engineering);
  EXPECT_TRUE(std::isnan(w3[0].exx)) << "a corner sees 2x2 points of a 3x3 window";
  EXPECT_NEAR(w3[1].exx, 0.0, 1e-12) << "an edge sees 2x3";
  EXPECT_NEAR(w5[0].exx, 0.0, 1e-12) << "a corner sees 3x3 of a 5x5 window";
}

}  // namespace
}  // namespace xcorr::dic
