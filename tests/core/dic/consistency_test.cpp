// No gross errors (docs/dic.md): fields that carry the image 5-15 px toward a border, and stretch
// it by up to 5 %, so that the border points' true matches leave the image and their clamped
// integer search can only find a wrong peak. Every point that is reported converged must be
// within 0.1 px of the truth, for independent points (the consistency check) and reliability-
// guided propagation, first- and second-order shape functions; fresh random fields each run
// (seed printed). And the check itself: a linear field with large gradients makes no suspect,
// one outlier does, with the neighbours' median warp.
#include "core/dic/consistency.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "core/dic/dic.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::dic {
namespace {

TEST(Consistency, ALinearFieldMakesNoSuspectAndAnOutlierIsFound) {
  Grid g;
  g.rows = 5, g.cols = 6;
  std::vector<IcgnResult> pts(static_cast<std::size_t>(g.rows * g.cols));
  std::vector<char> active(pts.size(), 1);
  std::vector<double> cx(pts.size()), cy(pts.size());
  for (Index r = 0; r < g.rows; ++r)
    for (Index c = 0; c < g.cols; ++c) {
      const auto k = static_cast<std::size_t>(r * g.cols + c);
      cx[k] = 8.0 * static_cast<double>(c), cy[k] = 8.0 * static_cast<double>(r);
      IcgnResult& q = pts[k];
      q.status = PointStatus::converged;
      // 8 px apart, gradients of 10 %: neighbours differ by 0.8 px, twice the limit (and the
      // edge points' neighbours all lie on one side).
      q.p = {2 + 0.8 * static_cast<double>(c), 0.1, 0, -0.8 * static_cast<double>(r), 0, -0.1};
    }
  EXPECT_TRUE(find_suspects(g, cx, cy, active, pts, 0.4).empty());
  pts[14].p[3] += 5;  // r 2, c 2
  pts[3].status = PointStatus::diverged;
  const auto s = find_suspects(g, cx, cy, active, pts, 0.4);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].index, 14u);
  EXPECT_NEAR(s[0].median[0], 2 + 0.8 * 2, 1e-12);
  EXPECT_NEAR(s[0].median[3], -0.8 * 2, 1e-12);
  active[14] = 0;
  EXPECT_TRUE(find_suspects(g, cx, cy, active, pts, 0.4).empty())
      << "inactive points are not checked";
}

// A converged point whose 1 - ZNCC is more than 10x the frame's median (and above 0.05) is an
// outlier; one merely worse than its neighbours is not, nor are inactive or failed points.
TEST(Consistency, AZnccFarBelowTheFramesIsAnOutlier) {
  std::vector<IcgnResult> pts(50);
  std::vector<char> active(50, 1);
  for (std::size_t k = 0; k < pts.size(); ++k) {
    pts[k].status = PointStatus::converged;
    pts[k].zncc = 0.997 - 0.0001 * static_cast<double>(k % 7);
  }
  pts[10].zncc = 0.62;  // a false match above min_zncc
  pts[20].zncc = 0.96;  // over 10x the median loss (0.0033), but under the 0.05 floor
  pts[30].zncc = 0.5;
  pts[30].status = PointStatus::diverged;
  pts[40].zncc = 0.3;
  active[40] = 0;
  EXPECT_EQ(find_zncc_outliers(active, pts), std::vector<std::size_t>{10});
}

// The checks run in chunks over the host's threads: on a grid of many chunks (fresh random
// statuses and ZNCC each run), the same points in the same order as a plain loop over the grid.
TEST(Consistency, ChunkedChecksFindWhatAPlainLoopFinds) {
  std::mt19937_64 rng(testing::run_seed() + 404);
  Grid g;
  g.rows = 301;
  g.cols = 307;
  const auto n = static_cast<std::size_t>(g.rows * g.cols);
  std::vector<IcgnResult> pts(n);
  std::vector<char> active(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t k = 0; k < n; ++k) {
    active[k] = u(rng) < 0.95;
    pts[k].status = u(rng) < 0.5 ? PointStatus::converged : PointStatus::diverged;
    pts[k].zncc = u(rng) < 0.01 ? 0.5 + 0.3 * u(rng) : 0.99 + 0.009 * u(rng);
  }
  // Plain loops.
  std::vector<double> loss;
  for (std::size_t k = 0; k < n; ++k)
    if (active[k] && pts[k].status == PointStatus::converged) loss.push_back(1 - pts[k].zncc);
  std::nth_element(loss.begin(), loss.begin() + static_cast<long>(loss.size() / 2), loss.end());
  const double limit = std::max(kZnccOutlierFactor * loss[loss.size() / 2], kZnccOutlierFloor);
  std::vector<std::size_t> outliers, isolated;
  for (std::size_t k = 0; k < n; ++k) {
    if (!active[k] || pts[k].status != PointStatus::converged) continue;
    if (1 - pts[k].zncc > limit) outliers.push_back(k);
    const Index r = static_cast<Index>(k) / g.cols, c = static_cast<Index>(k) % g.cols;
    int registered = 0, converged = 0;
    for (Index dr = -1; dr <= 1; ++dr)
      for (Index dc = -1; dc <= 1; ++dc) {
        const Index nr = r + dr, nc = c + dc;
        if ((dr == 0 && dc == 0) || nr < 0 || nc < 0 || nr >= g.rows || nc >= g.cols) continue;
        const auto q = static_cast<std::size_t>(nr * g.cols + nc);
        if (!active[q]) continue;
        ++registered;
        converged += pts[q].status == PointStatus::converged;
      }
    if (registered > 0 && converged == 0) isolated.push_back(k);
  }
  EXPECT_GT(outliers.size(), 100u);
  EXPECT_GT(isolated.size(), 0u);
  EXPECT_EQ(find_zncc_outliers(active, pts), outliers);
  EXPECT_EQ(find_isolated(g, active, pts), isolated);
}

TEST(Consistency, NoConvergedPointIsAGrossErrorWhenTheMotionLeavesTheImage) {
  std::mt19937_64 rng(testing::run_seed());
  std::uniform_real_distribution<double> amount(5, 15), angle(0, 6.283185307179586),
      stretch(0.02, 0.05);
  synth::SpeckleOptions s;
  s.rows = 200, s.cols = 240;
  s.speckle_radius = 2.5;
  s.noise_sigma = 150;
  s.seed = static_cast<std::uint32_t>(rng());
  const double cx = (s.cols - 1) / 2.0, cy = (s.rows - 1) / 2.0;
  const double a = angle(rng), d = amount(rng), e = stretch(rng);
  struct Case {
    const char* name;
    synth::DisplacementField field;
  };
  const Case cases[] = {
      {"translation", synth::translation_field(d * std::cos(a), d * std::sin(a))},
      {"stretch", synth::affine_field(0, 0, e, 0, 0, e, cx, cy)},
      {"translation and stretch",
       synth::affine_field(0.5 * d * std::cos(a), 0.5 * d * std::sin(a), e, 0, 0, -e, cx, cy)}};
  std::printf("translation %.2f px at %.0f deg, stretch %.3f\n", d, a * 57.29577951308232, e);
  const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 1);
  for (const Case& c : cases) {
    const Stack<float> def = synth::render_speckle_field(s, c.field, 2);
    for (const Propagation prop : {Propagation::independent, Propagation::reliability_guided})
      for (const ShapeFunction shape : {ShapeFunction::first_order, ShapeFunction::second_order}) {
        DicOptions o;
        o.search_radius = 18;
        o.propagation = prop;
        o.shape = shape;
        auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, o);
        ASSERT_TRUE(r.is_ok()) << r.status().message();
        int counts[6] = {}, worst_index = -1;
        double worst = 0;
        const auto& pts = r.value().frames[0].points;
        for (std::size_t k = 0; k < pts.size(); ++k) {
          const PointResult& p = pts[k];
          ++counts[static_cast<int>(p.status)];
          if (p.status != PointStatus::converged) continue;
          const synth::FieldSample t = c.field(p.x, p.y);
          const double err = std::max(std::abs(p.u - t.u), std::abs(p.v - t.v));
          if (err > worst) worst = err, worst_index = static_cast<int>(k);
        }
        std::printf(
            "%-24s %-12s %-7s converged %4d, outside_image %3d, inconsistent %3d, diverged "
            "%3d; worst converged error %.4f px\n",
            c.name, label(prop), label(shape), counts[0], counts[4], counts[5], counts[1], worst);
        EXPECT_GT(counts[0], 100) << c.name;
        EXPECT_LE(worst, 0.1) << c.name << " " << label(prop) << " " << label(shape) << ": point "
                              << worst_index << " at (" << pts[std::size_t(worst_index)].x << ", "
                              << pts[std::size_t(worst_index)].y << "): u "
                              << pts[std::size_t(worst_index)].u << ", v "
                              << pts[std::size_t(worst_index)].v << ", ZNCC "
                              << pts[std::size_t(worst_index)].zncc;
      }
  }
}

// The fast paths of the check against plain ones on fresh random data (seed printed): the k-th
// smallest value against std::nth_element (sizes tiny, odd, prime and past the bucketed path's
// 65,536; negative values, duplicates, every value in one bucket, +inf), and the suspects against
// medians taken by std::sort (grids of 1 x 1 to 101 x 103, random statuses, warps with ties).
TEST(Consistency, TheFastPathsEqualPlainOnes) {
  std::mt19937_64 rng(testing::run_seed() + 405);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{31},
                              std::size_t{65537}, std::size_t{100003}, std::size_t{300007}}) {
    for (int form = 0; form < 4; ++form) {
      std::vector<double> v(n);
      for (double& x : v) {
        if (form == 0) x = unit(rng) * 2 - 0.01;             // 1 - ZNCC: a few negative
        if (form == 1) x = std::round(unit(rng) * 50) / 64;  // duplicates
        if (form == 2) x = 0.003 + unit(rng) * 1e-6;         // one bucket
        if (form == 3) {                                     // the points that do not count: +inf
          x = unit(rng) < 0.3 ? std::numeric_limits<double>::infinity() : unit(rng) * 0.01;
        }
      }
      for (const std::size_t k : {std::size_t{0}, n / 2, n - 1,
                                  static_cast<std::size_t>(unit(rng) * static_cast<double>(n))}) {
        if (k >= n) continue;
        std::vector<double> plain = v;
        std::nth_element(plain.begin(), plain.begin() + static_cast<std::ptrdiff_t>(k),
                         plain.end());
        ASSERT_EQ(kth_smallest(v, k), plain[k]) << "n " << n << ", form " << form << ", k " << k;
      }
    }
  }
  const auto sorted_median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    const std::size_t n = x.size();
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  };
  for (const auto& size : std::vector<std::pair<Index, Index>>{
           {1, 1}, {1, 7}, {2, 2}, {13, 17}, {31, 33}, {101, 103}}) {
    const Index rows = size.first, cols = size.second;
    Grid g;
    g.rows = rows, g.cols = cols;
    const auto n = static_cast<std::size_t>(rows * cols);
    std::vector<IcgnResult> pts(n);
    std::vector<char> active(n);
    std::vector<double> cx(n), cy(n);
    for (std::size_t k = 0; k < n; ++k) {
      cx[k] = 5.0 * static_cast<double>(k % static_cast<std::size_t>(cols)) + unit(rng);
      cy[k] = 5.0 * static_cast<double>(k / static_cast<std::size_t>(cols)) + unit(rng);
      active[k] = unit(rng) < 0.9;
      pts[k].status = unit(rng) < 0.8 ? PointStatus::converged : PointStatus::diverged;
      for (double& w : pts[k].p) w = std::round(unit(rng) * 8) / 4 - 1;  // ties
      pts[k].p[1] /= 10, pts[k].p[2] /= 10, pts[k].p[4] /= 10, pts[k].p[5] /= 10;
    }
    const double limit = 0.2 + unit(rng);
    std::vector<Suspect> plain;
    const auto ok = [&](Index r, Index c) {
      if (r < 0 || c < 0 || r >= rows || c >= cols) return false;
      const auto k = static_cast<std::size_t>(r * cols + c);
      return active[k] != 0 && pts[k].status == PointStatus::converged;
    };
    for (Index r = 0; r < rows; ++r)
      for (Index c = 0; c < cols; ++c) {
        if (!ok(r, c)) continue;
        const auto k = static_cast<std::size_t>(r * cols + c);
        std::vector<std::size_t> nb;
        std::vector<double> u, v;
        for (Index dr = -1; dr <= 1; ++dr)
          for (Index dc = -1; dc <= 1; ++dc) {
            if ((dr == 0 && dc == 0) || !ok(r + dr, c + dc)) continue;
            const auto m = static_cast<std::size_t>((r + dr) * cols + c + dc);
            const Warp& w = pts[m].p;
            const double dx = cx[k] - cx[m], dy = cy[k] - cy[m];
            nb.push_back(m);
            u.push_back(w[0] + w[1] * dx + w[2] * dy);
            v.push_back(w[3] + w[4] * dx + w[5] * dy);
          }
        if (nb.empty()) continue;
        Suspect s;
        s.index = k;
        s.median[0] = sorted_median(u);
        s.median[3] = sorted_median(v);
        if (std::abs(pts[k].p[0] - s.median[0]) <= limit &&
            std::abs(pts[k].p[3] - s.median[3]) <= limit)
          continue;
        for (const std::size_t i : {1, 2, 4, 5}) {
          std::vector<double> gi;
          for (const std::size_t m : nb) gi.push_back(pts[m].p[i]);
          s.median[i] = sorted_median(gi);
        }
        plain.push_back(s);
      }
    const std::vector<Suspect> fast = find_suspects(g, cx, cy, active, pts, limit);
    ASSERT_EQ(fast.size(), plain.size()) << rows << " x " << cols;
    for (std::size_t i = 0; i < fast.size(); ++i) {
      EXPECT_EQ(fast[i].index, plain[i].index);
      for (int e = 0; e < 6; ++e) {
        EXPECT_EQ(fast[i].median[e], plain[i].median[e]) << i << ", " << e;
      }
    }
    if (rows * cols > 100) {
      EXPECT_GT(plain.size(), 0u) << "the data makes suspects";
    }
  }
}

}  // namespace
}  // namespace xcorr::dic
