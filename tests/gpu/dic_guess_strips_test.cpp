// The strip search of the DIC integer guess (gpu/dic_guess_strips.cuh) against a float64 search
// on the host, on fresh random data (seed printed): speckle moved by a fraction of a pixel with
// camera noise, pure noise (near-equal maxima), flat patches (the flat rules), subsets of 7, 11
// and 31 px, radii 0..10, odd image sizes, windows clamped at the borders and predictions that
// differ from point to point. Every output starts poisoned. A point's result must not depend on
// how the points group into strips (the split of a frame among GPUs relies on it). IC-GN's start
// from each maximum (gpu/dic_guess_fit.cuh) against the CPU's float64 fit_guess on the same data.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/dic/guess_fit.hpp"
#include "core/dic/guess_strips.hpp"
#include "core/synth/speckle.hpp"
#include "core/zncc_rule.hpp"
#include "gpu/dic_guess.hpp"
#include "tests/support/gpu_testing.hpp"

namespace xcorr::gpu {
namespace {

// Every displacement's ZNCC (float64, core/zncc_rule.hpp), row-major L x L.
std::vector<double> zncc_surface(MatrixView<const float> ref, MatrixView<const float> def,
                                 const dic::GuessWindow& p, int S, int win) {
  const int h = S / 2, L = win - S + 1;
  const double n = static_cast<double>(S) * S;
  double ts = 0, ts2 = 0;
  for (int r = 0; r < S; ++r)
    for (int c = 0; c < S; ++c) {
      const double v = ref(p.y - h + r, p.x - h + c);
      ts += v, ts2 += v * v;
    }
  const double t_mean = ts / n, t_ss = std::max(0.0, ts2 - ts * ts / n);
  const bool t_flat = t_ss <= kFlatRelative * ts2;
  double ws = 0, ws2 = 0;
  for (int r = 0; r < win; ++r)
    for (int c = 0; c < win; ++c) {
      const double v = def(p.wy + r, p.wx + c);
      ws += v, ws2 += v * v;
    }
  const double area = static_cast<double>(win) * win;
  const double search_variance = std::max(0.0, ws2 - ws * ws / area) / area;
  std::vector<double> z(static_cast<std::size_t>(L) * L);
  for (int iy = 0; iy < L; ++iy)
    for (int ix = 0; ix < L; ++ix) {
      double num = 0, s = 0, s2 = 0;
      for (int r = 0; r < S; ++r)
        for (int c = 0; c < S; ++c) {
          const double d = def(p.wy + iy + r, p.wx + ix + c);
          num += (ref(p.y - h + r, p.x - h + c) - t_mean) * d;
          s += d, s2 += d * d;
        }
      z[static_cast<std::size_t>(iy) * L + ix] =
          zncc_from_sums(num, t_ss, t_flat, std::max(0.0, s2 - s * s / n), n, search_variance);
    }
  return z;
}

struct Case {
  std::string name;
  Stack<float> ref, def;  // one image each
  int S = 0, R = 0;
  std::vector<dic::GuessWindow> points;
  int win() const { return S + 2 * R; }
  bool moved = false;  // def is ref moved by (dx, dy) px
  double dx = 0, dy = 0;
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Grid rows of points (random steps and holes), windows around a prediction that varies
// smoothly with x plus a jitter, clamped into the frame.
std::vector<dic::GuessWindow> random_points(Index rows, Index cols, int S, int R,
                                            std::mt19937& rng) {
  const int h = S / 2, win = S + 2 * R;
  std::uniform_int_distribution<int> step(1, 5), hole(0, 7), jitter(-1, 1), shift(-2, 2);
  std::vector<dic::GuessWindow> g;
  for (int y = h; y + h < rows; y += step(rng)) {
    const int base = shift(rng);
    for (int x = h; x + h < cols; x += step(rng)) {
      if (hole(rng) == 0) continue;
      const int px = base + x / 40 + jitter(rng), py = jitter(rng);
      g.push_back({x, y, std::clamp(x + px - h - R, 0, static_cast<int>(cols) - win),
                   std::clamp(y + py - h - R, 0, static_cast<int>(rows) - win)});
    }
  }
  return g;
}

std::vector<Case> cases(std::mt19937& rng) {
  std::vector<Case> out;
  auto speckle = [&](Index rows, Index cols, double dy, double dx, double noise) {
    synth::SpeckleOptions o;
    o.rows = rows, o.cols = cols, o.noise_sigma = noise;
    o.seed = static_cast<std::uint32_t>(rng());
    return std::pair{render_speckle(o, 0, 0), render_speckle(o, dy, dx)};
  };
  {
    auto [r, d] = speckle(97, 131, 1.3, -2.6, 300);
    out.push_back({"speckle 97x131, S 11, R 4", r, d, 11, 4, {}, true, -2.6, 1.3});
  }
  {
    auto [r, d] = speckle(61, 89, 0.4, 0.7, 100);
    out.push_back({"speckle 61x89, S 7, R 0", r, d, 7, 0, {}});
  }
  {
    auto [r, d] = speckle(131, 127, -3.4, 5.5, 500);
    out.push_back({"speckle 131x127, S 31, R 10", r, d, 31, 10, {}, true, 5.5, -3.4});
  }
  {  // a subset wider than a warp (lanes take two columns)
    auto [r, d] = speckle(101, 149, 0.45, -1.35, 200);
    out.push_back({"speckle 101x149, S 41, R 3", r, d, 41, 3, {}, true, -1.35, 0.45});
  }
  {  // pure noise: maxima close to each other
    Stack<float> r(73, 83, 1), d(73, 83, 1);
    std::uniform_real_distribution<float> u(0, 1000);
    for (float& v : r.values()) v = u(rng);
    for (float& v : d.values()) v = u(rng);
    out.push_back({"noise 73x83, S 7, R 3", r, d, 7, 3, {}});
  }
  {  // flat patches in both images, speckle elsewhere
    auto [r, d] = speckle(89, 97, 0.5, 1.5, 50);
    for (Index i = 10; i < 40; ++i)
      for (Index j = 20; j < 60; ++j) r[0](i, j) = 5000, d[0](i, j) = 7000;
    out.push_back({"flat patches 89x97, S 11, R 5", r, d, 11, 5, {}});
  }
  for (Case& c : out) c.points = random_points(c.ref.rows(), c.ref.cols(), c.S, c.R, rng);
  return out;
}

// Fresh cases, and the seed they came from for the failure messages.
std::pair<std::vector<Case>, std::string> fresh_cases() {
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  return {cases(rng), "seed " + std::to_string(seed)};
}

TEST(DicGuessStrips, FindsTheFloat64MaximumWhateverTheStrips) {
  XCORR_SKIP_WITHOUT_GPU();
  const auto [all, seed] = fresh_cases();
  SCOPED_TRACE(seed);
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    const int S = c.S, win = c.win(), L = win - S + 1, h = S / 2;
    const auto one = dic::strip_smem_bytes(S, S, L, L);
    // The device's own strips, points one by one, and short strips without spread.
    std::vector<std::vector<std::array<int, 2>>> runs;
    for (auto [budget, span] : {std::pair{std::size_t{0}, dic::kStripSpan}, std::pair{one, 0},
                                std::pair{one + 6000, 0}}) {
      auto got = strip_guesses(c.ref[0], c.def[0], c.points, S, win, budget, span);
      ASSERT_TRUE(got.is_ok()) << got.status().message();
      runs.push_back(std::move(got).value());
    }
    ASSERT_EQ(runs[0].size(), c.points.size());
    int exact = 0, near = 0;
    for (std::size_t k = 0; k < c.points.size(); ++k) {
      const dic::GuessWindow& p = c.points[k];
      for (std::size_t r = 1; r < runs.size(); ++r)
        ASSERT_EQ(runs[r][k], runs[0][k]) << "point " << k << ", grouping " << r;
      const int ix = runs[0][k][0] - (p.wx - (p.x - h)), iy = runs[0][k][1] - (p.wy - (p.y - h));
      ASSERT_TRUE(ix >= 0 && ix < L && iy >= 0 && iy < L)
          << "point " << k << ": (" << runs[0][k][0] << ", " << runs[0][k][1]
          << ") is outside its search (poison left?)";
      const std::vector<double> z = zncc_surface(c.ref[0], c.def[0], p, S, win);
      const auto best = static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin());
      const double got = z[static_cast<std::size_t>(iy) * L + ix];
      if (iy * L + ix == best) {
        ++exact;
        continue;
      }
      // Another displacement only where float32 sums cannot tell them apart.
      ++near;
      EXPECT_GE(got, z[static_cast<std::size_t>(best)] - 2e-5)
          << "point " << k << " at (" << p.x << ", " << p.y << ")";
    }
    EXPECT_GE(exact, static_cast<int>(c.points.size() * 99 / 100)) << near << " near";
  }
}

// IC-GN's start on the device: from each point's integer maximum (the strip search's), the
// CPU's float64 fit within 1e-3 px (but where the fit is ill-conditioned: at most 1 %), never
// poison, never more than 1 px from the maximum, and closer to a known fractional shift.
TEST(DicGuessFit, TheDeviceStartIsTheFloat64Fit) {
  XCORR_SKIP_WITHOUT_GPU();
  const auto [all, seed] = fresh_cases();
  SCOPED_TRACE(seed);
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    const int S = c.S, win = c.win();
    auto peaks = strip_guesses(c.ref[0], c.def[0], c.points, S, win);
    ASSERT_TRUE(peaks.is_ok()) << peaks.status().message();
    auto starts = guess_starts(c.ref[0], c.def[0], c.points, peaks.value(), S, win);
    ASSERT_TRUE(starts.is_ok()) << starts.status().message();
    int refined = 0, off = 0, inside = 0;
    // Points whose true match lies at least 1 px inside their search range (the predictions
    // vary, so not all do): distances (px) of the maximum and the start from it.
    std::vector<double> peak_error, start_error;
    for (std::size_t k = 0; k < c.points.size(); ++k) {
      const auto [u, v] = peaks.value()[k];
      const auto [su, sv] = starts.value()[k];
      ASSERT_TRUE(std::abs(su - u) <= 1 && std::abs(sv - v) <= 1)
          << "point " << k << ": start (" << su << ", " << sv << ") for (" << u << ", " << v << ")";
      const PeakFit fit = dic::fit_guess(c.ref[0], c.def[0], c.points[k], u, v, S, win);
      if (std::abs(su - u - fit.col_offset) > 1e-3 || std::abs(sv - v - fit.row_offset) > 1e-3)
        ++off;
      const dic::GuessWindow& p = c.points[k];
      const double tx = p.x + c.dx - S / 2 - p.wx, ty = p.y + c.dy - S / 2 - p.wy;
      if (c.moved && tx >= 1 && ty >= 1 && tx <= win - S - 1 && ty <= win - S - 1) {
        ++inside;
        refined += fit.refined ? 1 : 0;
        peak_error.push_back(std::hypot(u - c.dx, v - c.dy));
        start_error.push_back(std::hypot(su - c.dx, sv - c.dy));
      }
    }
    EXPECT_LE(off, static_cast<int>(c.points.size() / 100)) << "of " << c.points.size();
    if (inside >= 20) {
      EXPECT_GT(refined, inside * 9 / 10);
      const double pe = median(peak_error), se = median(start_error);
      EXPECT_LT(se, 0.5 * pe) << "median distance from the shift; integer " << pe;
      if (S >= 31) {
        EXPECT_LT(se, 0.1);
      }
    }
  }
}

// A strip on a 2048-px grid row (the benchmark's shape): the same maxima as points one by one.
TEST(DicGuessStrips, AFullGridRowEqualsPointsOneByOne) {
  XCORR_SKIP_WITHOUT_GPU();
  synth::SpeckleOptions o;
  o.rows = 80, o.cols = 2048, o.noise_sigma = 200;
  o.seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(o.seed));
  const auto ref = render_speckle(o, 0, 0), def = render_speckle(o, 0.3, 0.7);
  const int S = 31, R = 10, h = S / 2, win = S + 2 * R, L = win - S + 1;
  std::vector<dic::GuessWindow> g;
  for (int y = 25; y <= 55; y += 4)
    for (int x = h + R; x + h + R < 2048; x += 4) g.push_back({x, y, x - h - R, y - h - R});
  const auto strips = strip_guesses(ref[0], def[0], g, S, win);
  const auto single =
      strip_guesses(ref[0], def[0], g, S, win, dic::strip_smem_bytes(S, S, L, L), 0);
  ASSERT_TRUE(strips.is_ok()) << strips.status().message();
  ASSERT_TRUE(single.is_ok()) << single.status().message();
  int moved = 0;
  for (std::size_t k = 0; k < g.size(); ++k) {
    ASSERT_EQ(strips.value()[k], single.value()[k]) << "point " << k;
    moved += strips.value()[k] == std::array<int, 2>{1, 0} ? 1 : 0;  // (0.7, 0.3) rounds to (1, 0)
  }
  EXPECT_GT(moved, static_cast<int>(g.size() * 9 / 10));
}

}  // namespace
}  // namespace xcorr::gpu
