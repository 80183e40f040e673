// The whole path on real microscope images through the real `xcorr` executable
// (tests/support/real_images.hpp: ihc.png's three channels made into a drifting hyperstack with
// noise, hot pixels and NaN blocks): registered on each channel, the RMS error against the known
// drift per channel; measured on one channel and applied to all, every channel stands still.
// A fresh random walk each run (the seed is printed).
#include "tests/support/real_images.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/xcorr_cli.hpp"

namespace xcorr {
namespace {

using testing::run_xcorr;

// The drift table's dx, dy per frame (NaN for failed frames).
std::vector<std::pair<double, double>> drift(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::pair<double, double>> rows;
  std::size_t dx = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> v;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) v.push_back(c);
    if (line[0] == 'f') {
      dx = static_cast<std::size_t>(std::find(v.begin(), v.end(), "dx") - v.begin());
      continue;
    }
    const auto num = [](const std::string& s) { return s == "nan" ? NAN : std::stod(s); };
    rows.emplace_back(num(v[dx]), num(v[dx + 1]));
  }
  return rows;
}

class RealImages : public testing::TempDirTest {};

TEST_F(RealImages, RegisteredOnEachChannelAndAppliedToAll) {
  const auto seed = static_cast<unsigned>(testing::run_seed());  // XCORR_TEST_SEED reproduces it
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string stack = path("ihc_drift.tif");
  auto made = testing::write_real_hyperstack(stack, 10, seed);
  ASSERT_TRUE(made.is_ok()) << made.status().message();
  const testing::DriftingHyperstack& h = made.value();
  const char* names[] = {"red", "green", "blue"};
  for (int c = 0; c < 3; ++c) {
    const std::string csv = path("d" + std::to_string(c) + ".csv");
    const auto r =
        run_xcorr("register " + stack + " --channel " + std::to_string(c) + " --drift " + csv);
    ASSERT_EQ(r.code, 0) << r.output;
    const auto d = drift(csv);
    ASSERT_EQ(d.size(), 10u);
    double sum = 0, worst = 0;
    for (std::size_t t = 0; t < 10; ++t) {
      const double ex = d[t].first - h.dx[t], ey = d[t].second - h.dy[t];
      sum += ex * ex + ey * ey;
      worst = std::max({worst, std::abs(ex), std::abs(ey)});
    }
    const double rms = std::sqrt(sum / 20);
    std::cout << "real ihc.png hyperstack, channel " << c << " (" << names[c] << "): RMS error "
              << rms << " px, worst " << worst << " px (seed " << seed << ")\n";
    RecordProperty(std::string("rms_px_channel_") + names[c], std::to_string(rms));
    EXPECT_LE(rms, 0.02) << names[c];
    EXPECT_LE(worst, 0.06) << names[c];
  }
  // Measured on channel 1 and applied to all, on the same acquisition without the defects (hot
  // pixels, NaN: resampled, they would smear into what the check measures): every channel of
  // the output stands still (cropped to the area every frame covers: padded borders would move
  // against the content).
  ASSERT_TRUE(testing::write_real_hyperstack(path("clean.tif"), 10, seed, false).is_ok());
  ASSERT_EQ(run_xcorr("register " + stack + " --channel 1 --drift " + path("d.csv")).code, 0);
  const auto applied = run_xcorr("register --apply " + path("d.csv") + " " + path("clean.tif") +
                                 " --crop --out " + path("c.tif"));
  ASSERT_EQ(applied.code, 0) << applied.output;
  for (int c = 0; c < 3; ++c) {
    const std::string csv = path("still" + std::to_string(c) + ".csv");
    ASSERT_EQ(run_xcorr("register " + path("c.tif") + " --channel " + std::to_string(c) +
                        " --drift " + csv)
                  .code,
              0);
    double residual = 0;  // the largest drift measured on the corrected stack (px)
    for (const auto& [dx, dy] : drift(csv))
      residual = std::max({residual, std::abs(dx), std::abs(dy)});
    std::cout << "measured on channel 1 and applied, channel " << c << " (" << names[c]
              << ") measured again: largest drift " << residual << " px\n";
    EXPECT_LE(residual, 0.06) << names[c];
  }
}

// cell.png (quantitative phase) as a drifting z-stack of 3 planes (the deeper ones defocused):
// measured on one plane, or on the max or mean over z, every plane moved.
TEST_F(RealImages, AZStackIsMeasuredOnAPlaneOrAProjection) {
  const auto seed = static_cast<unsigned>(testing::run_seed());  // XCORR_TEST_SEED reproduces it
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string stack = path("cell_drift.tif");
  auto made = testing::write_real_zstack(stack, 10, seed);
  ASSERT_TRUE(made.is_ok()) << made.status().message();
  const testing::DriftingHyperstack& h = made.value();
  for (const std::string how : {"--z 0", "--z 2", "--z-projection max", "--z-projection mean"}) {
    const std::string csv = path("z.csv");
    const auto r = run_xcorr("register " + stack + " " + how + " --drift " + csv);
    ASSERT_EQ(r.code, 0) << r.output;
    const auto d = drift(csv);
    ASSERT_EQ(d.size(), 10u) << how;
    double sum = 0;
    for (std::size_t t = 0; t < 10; ++t)
      sum += std::pow(d[t].first - h.dx[t], 2) + std::pow(d[t].second - h.dy[t], 2);
    const double rms = std::sqrt(sum / 20);
    std::cout << "real cell.png z-stack, " << how << ": RMS error " << rms << " px (seed " << seed
              << ")\n";
    // 0.005-0.031 px every way over 16 fresh seeds (2026-11-27). The defocused plane and the max
    // over z reached 0.156 px before two hot pixels side by side in the reference were
    // suppressed (XCORR_TEST_SEED=896719519; docs/registration.md).
    EXPECT_LE(rms, 0.05) << how;
  }
  const auto whole = run_xcorr("register " + stack + " --z-projection max --out " + path("c.tif"));
  ASSERT_EQ(whole.code, 0) << whole.output;
  auto meta = io::read_stack_metadata(path("c.tif"));
  ASSERT_TRUE(meta.is_ok());
  EXPECT_EQ(meta.value().layout.slices, 3);
  EXPECT_EQ(meta.value().layout.frames, 10);
  EXPECT_EQ(meta.value().spacing_z, 0.5);
}

}  // namespace
}  // namespace xcorr
