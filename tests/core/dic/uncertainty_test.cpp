// The per-point uncertainty (sigma_u, sigma_v) against the scatter it predicts: synthetic speckle
// pairs (analytic rendering, so the truth is exact) at three noise levels, each image with its
// own noise, moved by a fresh random sub-pixel translation each run (seed printed); subsets that
// do not overlap (step = subset), so the points' errors are independent samples. Each point's
// error about the bias, divided by its reported sigma, must scatter with a standard deviation
// of 1 within 20 % (robust: 1.4826 MAD, so that a rare false match, which the consistency
// check (core/dic/consistency.hpp) is for, does not decide it), and fewer than 1 % may lie beyond 5
// sigma; first- and second-order shape functions. Prints the table docs/dic.md quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/dic/dic.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::dic {
namespace {

struct Spread {
  int points = 0;
  double measured = 0;  // px: robust SD of the error about its mean (1.4826 MAD), u and v pooled
  double reported = 0;  // px: median of the reported sigma
  double z_scale =
      0;  // robust SD of the standardised errors (error - mean) / sigma: 1 if calibrated
  double outliers = 0;  // fraction with |z| > 5
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}
double robust_sd(const std::vector<double>& v) {  // about 0
  std::vector<double> a;
  for (double x : v) a.push_back(std::abs(x));
  return 1.4826 * median(a);
}

// Every converged point's u and v errors, each about its axis' median error (the bias), and
// divided by the point's reported sigma.
Spread spread_of(const DicResult& r, double tu, double tv) {
  std::vector<double> eu, ev, sigma;
  std::vector<const PointResult*> pts;
  for (const PointResult& p : r.frames[0].points) {
    if (p.status != PointStatus::converged) continue;
    eu.push_back(p.u - tu);
    ev.push_back(p.v - tv);
    pts.push_back(&p);
  }
  const double bu = median(eu), bv = median(ev);
  std::vector<double> e, z;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    e.push_back(eu[k] - bu);
    e.push_back(ev[k] - bv);
    z.push_back(e[2 * k] / pts[k]->sigma_u);
    z.push_back(e[2 * k + 1] / pts[k]->sigma_v);
    sigma.push_back(pts[k]->sigma_u);
    sigma.push_back(pts[k]->sigma_v);
  }
  Spread s;
  s.points = static_cast<int>(pts.size());
  s.measured = robust_sd(e);
  s.reported = median(sigma);
  s.z_scale = robust_sd(z);
  s.outliers = static_cast<double>(
                   std::count_if(z.begin(), z.end(), [](double x) { return std::abs(x) > 5; })) /
               static_cast<double>(z.size());
  return s;
}

TEST(Uncertainty, TheReportedSigmaMatchesTheScatterAtThreeNoiseLevels) {
  std::mt19937_64 rng(testing::run_seed());
  std::uniform_real_distribution<double> shift(-0.5, 0.5);
  const double tu = 1 + shift(rng), tv = -2 + shift(rng);
  std::printf("translation (%.4f, %.4f) px\n", tu, tv);
  std::printf(
      "| shape | noise sd (grey, of 50,000) | points | measured sd (px) | reported "
      "sigma, median (px) | sd of error / sigma | beyond 5 sigma |\n"
      "|---|---:|---:|---:|---:|---:|---:|\n");
  for (const ShapeFunction shape : {ShapeFunction::first_order, ShapeFunction::second_order}) {
    for (const double noise : {250.0, 750.0, 2000.0}) {
      synth::SpeckleOptions s;
      s.rows = s.cols = 640;
      s.speckle_radius = 2.5;
      s.noise_sigma = noise;
      s.seed = static_cast<std::uint32_t>(rng());
      const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 1);
      const Stack<float> def = synth::render_speckle_field(s, synth::translation_field(tu, tv), 2);
      DicOptions o;
      if (shape == ShapeFunction::first_order && noise == 250.0) {
        const math::NoiseModel m = noise_model(ref[0], o.interpolation, o.prefilter);
        std::printf("noise model (quintic, prefilter %.1f px): kappa %.3f, c_u %.2f, c_v %.2f\n",
                    o.prefilter, m.kappa, m.scale_u, m.scale_v);
      }
      o.subset = 21;
      o.step = 21;
      o.shape = shape;
      auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, o);
      ASSERT_TRUE(r.is_ok()) << r.status().message();
      const Spread sp = spread_of(r.value(), tu, tv);
      std::printf("| %s | %.0f | %d | %.5f | %.5f | %.3f | %.1f %% |\n", to_string(shape), noise,
                  sp.points, sp.measured, sp.reported, sp.z_scale, 100 * sp.outliers);
      ASSERT_GT(sp.points, 400);
      EXPECT_NEAR(sp.z_scale, 1.0, 0.2) << to_string(shape) << " noise " << noise;
      EXPECT_LT(sp.outliers, 0.01) << to_string(shape) << " noise " << noise;
    }
  }
}

}  // namespace
}  // namespace xcorr::dic
