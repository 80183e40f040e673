// DIC Challenge 1.0 images (../shared/data/dic-challenge): sample 5 (0.1 px translation and the
// noise-only pair) and sample 14 (0.1 px sinusoidal chirp, L1/L3/L5), scored as the challenge
// does. Prints a table (bias, noise, RMSE, spatial resolution) and checks the bounds:
// sample 5 |bias| <= 0.0005 px and std <= 0.0032 px (subset 31, step 8; docs/dic.md); sample 14
// (subset 35, step 10) bias and RMSE guards near what was measured. Skips when the shared data is
// absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/io/image_io.hpp"
#include "tests/support/cpu_registry.hpp"

namespace xcorr::dic {
namespace {

const std::filesystem::path kData =
    std::filesystem::path(XCORR_SOURCE_DIR) / ".." / "shared" / "data" / "dic-challenge";

#define XCORR_SKIP_WITHOUT_DATA()                                                            \
  do {                                                                                       \
    if (!std::filesystem::exists(kData)) GTEST_SKIP() << "no " << kData << " (shared data)"; \
  } while (false)

Stack<float> load(const std::filesystem::path& p) {
  auto s = io::read_matrices(p);
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return s.is_ok() ? std::move(s).value() : Stack<float>{};
}

struct Score {
  double bias = 0, noise = 0, rmse = 0;
  int points = 0;
};

Score score(const std::vector<double>& errors) {
  Score s;
  s.points = static_cast<int>(errors.size());
  for (double e : errors) s.bias += e;
  s.bias /= s.points;
  for (double e : errors) {
    s.noise += (e - s.bias) * (e - s.bias);
    s.rmse += e * e;
  }
  s.noise = std::sqrt(s.noise / (s.points - 1));
  s.rmse = std::sqrt(s.rmse / s.points);
  return s;
}

// Sample 5's pairs and their truth (u = v, px).
const std::vector<std::pair<std::string, double>> kSample5Pairs = {{"x0.00_y0.00.tif", 0.0},
                                                                   {"x0.10_y0.10.tif", 0.1}};
Result<DicResult> run_sample5(const Stack<float>& ref, const std::string& pair,
                              const DicOptions& o) {
  const Stack<float> def = load(kData / "sample5" / pair);
  return run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, o);
}

// Errors of the outermost ring of points (subset within one step of the image's edge) apart
// from the interior's: docs/dic.md wants every point whose subset fits measured, the ring within
// 1.2x the interior's RMSE. Beside the errors, the errors divided by each point's reported sigma:
// where an image's texture is weaker near its edges (sample 14), the ring's errors are larger
// because its subsets hold less information, which sigma accounts for; the border's own share is
// what is left (tests/core/dic/border_test.cpp measures it on uniform texture).
struct Ring {
  std::vector<double> ring, interior, ring_z, interior_z;
  void add(const PointResult& p, double error, double sigma, const DicOptions& o, Index rows,
           Index cols) {
    const double h = o.subset / 2;
    const double edge = std::min({p.x - h, p.y - h, static_cast<double>(cols - 1) - (p.x + h),
                                  static_cast<double>(rows - 1) - (p.y + h)});
    (edge < o.step ? ring : interior).push_back(error);
    (edge < o.step ? ring_z : interior_z).push_back(error / sigma);
  }
  static double rms(const std::vector<double>& v) {
    double s = 0;
    for (double e : v) s += e * e;
    return std::sqrt(s / static_cast<double>(v.size()));
  }
  double ratio() const { return rms(ring) / rms(interior); }
  double ratio_z() const { return rms(ring_z) / rms(interior_z); }
  void print(const std::string& what) const {
    std::printf(
        "%s: ring %zu points RMSE %.5f px, interior %zu points RMSE %.5f px, ratio %.2f; error / "
        "sigma ratio %.2f\n",
        what.c_str(), ring.size(), rms(ring), interior.size(), rms(interior), ratio(), ratio_z());
  }
};

TEST(DicChallenge, Sample5TranslationAndNoiseFloor) {
  XCORR_SKIP_WITHOUT_DATA();
  const Stack<float> ref = load(kData / "sample5" / "reference.tif");
  DicOptions o;  // subset 31, step 8
  std::printf("| sample 5 pair | truth (u, v) px | points | bias u | std u | bias v | std v |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  for (const auto& [name, truth] : kSample5Pairs) {
    auto r = run_sample5(ref, name, o);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    std::vector<double> eu, ev;
    int valid = 0;
    Ring ring;
    for (const PointResult& p : r.value().frames[0].points) {
      if (p.status == PointStatus::outside_roi) continue;
      ++valid;
      if (p.status != PointStatus::converged) continue;
      eu.push_back(p.u - truth);
      ev.push_back(p.v - truth);
      ring.add(p, p.u - truth, p.sigma_u, o, ref.rows(), ref.cols());
      ring.add(p, p.v - truth, p.sigma_v, o, ref.rows(), ref.cols());
    }
    ring.print("sample 5 " + name);
    EXPECT_LE(ring.ratio(), 1.2) << name;
    const Score su = score(eu), sv = score(ev);
    std::printf("| %s | %.2f, %.2f | %d/%d | %+.5f | %.5f | %+.5f | %.5f |\n", name.c_str(), truth,
                truth, su.points, valid, su.bias, su.noise, sv.bias, sv.noise);
    EXPECT_EQ(su.points, valid) << name << ": every point whose subset fits";
    // DIC accuracy (docs/dic.md): |bias| <= 0.0005 px without raising the noise floor (sd <= 0.0032
    // px); the challenge's own bounds are 0.005 and 0.01.
    EXPECT_LE(std::abs(su.bias), 0.0005) << name;
    EXPECT_LE(std::abs(sv.bias), 0.0005) << name;
    EXPECT_LE(su.noise, 0.0032) << name;
    EXPECT_LE(sv.noise, 0.0032) << name;
  }
}

// The per-point uncertainty on real noise: the noise-only pair (truth 0) and the 0.1 px pair,
// subsets that do not overlap (subset 31, step 31): the errors about their median, divided by
// each point's sigma, scatter with a robust SD (1.4826 MAD) of 1 within 20 % (docs/dic.md).
TEST(DicChallenge, Sample5UncertaintyMatchesTheScatter) {
  XCORR_SKIP_WITHOUT_DATA();
  const Stack<float> ref = load(kData / "sample5" / "reference.tif");
  DicOptions o;
  o.step = 31;
  const auto robust_sd = [](std::vector<double> v) {
    for (double& x : v) x = std::abs(x);
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return 1.4826 * v[v.size() / 2];
  };
  for (const auto& [name, truth] : kSample5Pairs) {
    auto r = run_sample5(ref, name, o);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    std::vector<double> eu, ev;
    std::vector<const PointResult*> pts;
    for (const PointResult& p : r.value().frames[0].points) {
      if (p.status != PointStatus::converged) continue;
      eu.push_back(p.u - truth);
      ev.push_back(p.v - truth);
      pts.push_back(&p);
    }
    ASSERT_GT(pts.size(), 200u) << name;
    std::vector<double> su = eu, sv = ev, e, z, sigma;
    std::nth_element(su.begin(), su.begin() + static_cast<long>(su.size() / 2), su.end());
    std::nth_element(sv.begin(), sv.begin() + static_cast<long>(sv.size() / 2), sv.end());
    const double bu = su[su.size() / 2], bv = sv[sv.size() / 2];
    for (std::size_t k = 0; k < pts.size(); ++k) {
      e.push_back(eu[k] - bu);
      e.push_back(ev[k] - bv);
      z.push_back((eu[k] - bu) / pts[k]->sigma_u);
      z.push_back((ev[k] - bv) / pts[k]->sigma_v);
      sigma.push_back(pts[k]->sigma_u);
      sigma.push_back(pts[k]->sigma_v);
    }
    std::nth_element(sigma.begin(), sigma.begin() + static_cast<long>(sigma.size() / 2),
                     sigma.end());
    std::printf(
        "sample 5 %s: %zu points, measured sd %.5f px, median sigma %.5f px, sd of "
        "error / sigma %.3f\n",
        name.c_str(), pts.size(), robust_sd(e), sigma[sigma.size() / 2], robust_sd(z));
    EXPECT_NEAR(robust_sd(z), 1.0, 0.2) << name;
  }
}

// truth.csv: x, then (u px, exx microstrain) for L1, L3, L5.
std::vector<std::vector<double>> read_truth() {
  std::ifstream f(kData / "sample14" / "truth.csv");
  std::string line;
  std::getline(f, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::vector<double> row;
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

// Spatial resolution as the challenge defines it: scanning half periods of the truth from the
// slowest to the fastest, the first period whose measured amplitude (row-averaged u over that
// half period) falls under 90 % of the truth's. 0 when it never does.
double spatial_resolution(const std::vector<double>& truth_u, const Grid& g,
                          const std::vector<double>& mean_u_per_col) {
  std::vector<int> zeros;  // truth sign changes
  for (std::size_t x = 1; x < truth_u.size(); ++x) {
    if ((truth_u[x - 1] <= 0) != (truth_u[x] <= 0) &&
        std::abs(truth_u[x]) + std::abs(truth_u[x - 1]) > 1e-9)
      zeros.push_back(static_cast<int>(x));
  }
  for (std::size_t i = 1; i < zeros.size(); ++i) {
    double t_amp = 0, m_amp = 0;
    for (int x = zeros[i - 1]; x < zeros[i]; ++x) t_amp = std::max(t_amp, std::abs(truth_u[x]));
    bool any = false;
    for (Index c = 0; c < g.cols; ++c) {
      const double x = g.points[static_cast<std::size_t>(c)].x;
      if (x >= zeros[i - 1] && x < zeros[i] && !std::isnan(mean_u_per_col[c])) {
        m_amp = std::max(m_amp, std::abs(mean_u_per_col[c]));
        any = true;
      }
    }
    if (any && t_amp > 0.05 && m_amp < 0.9 * t_amp) return 2.0 * (zeros[i] - zeros[i - 1]);
  }
  return 0;
}

TEST(DicChallenge, Sample14Chirp) {
  XCORR_SKIP_WITHOUT_DATA();
  const Stack<float> ref = load(kData / "sample14" / "reference.tif");
  const auto truth = read_truth();
  ASSERT_EQ(truth.size(), static_cast<std::size_t>(ref.cols()));
  std::printf(
      "| sample 14 | subset px | points | bias u px | noise u px | RMSE u px | spatial "
      "resolution px |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  const char* names[] = {"L1", "L3", "L5"};
  for (const int subset : {35, 41})
    for (int level = 0; level < 3; ++level) {
      DicOptions o;
      o.subset = subset;
      o.step = 10;
      const Stack<float> def = load(kData / "sample14" / (std::string(names[level]) + ".tif"));
      auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, o);
      ASSERT_TRUE(r.is_ok()) << r.status().message();
      const Grid& g = r.value().grid;
      std::vector<double> truth_u(truth.size()), errors;
      for (std::size_t x = 0; x < truth.size(); ++x) truth_u[x] = truth[x][1 + 2 * level];
      std::vector<double> sum(static_cast<std::size_t>(g.cols), 0),
          n(static_cast<std::size_t>(g.cols), 0);
      Ring ring;
      int valid = 0;
      for (const PointResult& p : r.value().frames[0].points) {
        valid += p.status != PointStatus::outside_roi;
        if (p.status != PointStatus::converged) continue;
        const auto x = static_cast<std::size_t>(std::lround(p.x));
        errors.push_back(p.u - truth_u[x]);
        ring.add(p, p.u - truth_u[x], p.sigma_u, o, ref.rows(), ref.cols());
        const auto c = static_cast<std::size_t>((x - static_cast<std::size_t>(o.subset / 2)) /
                                                static_cast<std::size_t>(o.step));
        sum[c] += p.u;
        n[c] += 1;
      }
      std::vector<double> mean(sum.size());
      for (std::size_t c = 0; c < sum.size(); ++c) mean[c] = n[c] > 0 ? sum[c] / n[c] : NAN;
      const Score s = score(errors);
      const double res = spatial_resolution(truth_u, g, mean);
      std::printf("| %s | %d | %d/%d | %+.5f | %.5f | %.5f | %.0f |\n", names[level], subset,
                  s.points, valid, s.bias, s.noise, s.rmse, res);
      ring.print(std::string("sample 14 ") + names[level] + " subset " + std::to_string(subset));
      EXPECT_EQ(s.points, valid) << names[level] << ": every point whose subset fits";
      // The image's texture is weaker near its top and right edges (docs/dic.md, "Border"): the
      // raw ratio is 1.2-1.4; relative to each point's sigma the ring is as good as the inside.
      EXPECT_LE(ring.ratio_z(), 1.2) << names[level] << " subset " << subset;
      // The goal (docs/dic.md) is L1 RMSE <= 0.01 px. At subset 35 the error is the images' noise
      // (0.0119 px; v, whose truth is 0, scatters as much: docs/dic.md); subset 41 reaches it, at a
      // cost in spatial resolution the table shows. Guards for the rest:
      EXPECT_LE(std::abs(s.bias), 0.002) << names[level];
      if (subset == 41 && level == 0) {
        EXPECT_LE(s.rmse, 0.010) << names[level];
      } else {
        EXPECT_LE(s.rmse, level == 0 ? 0.013 : 0.015) << names[level];
      }
    }
}

}  // namespace
}  // namespace xcorr::dic
