// Template tracking through the engine: templates cut from the reference are found in a speckle
// stack with a known per-frame translation to sub-pixel accuracy; bad templates are refused by
// name; the CSV lists every frame of every template.
#include "core/tracking/tracking.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr {
namespace {

class Tracking : public testing::TempDirTest {};

TEST_F(Tracking, FindsTemplatesInEveryFrame) {
  synth::SpeckleOptions o;
  o.rows = 120;
  o.cols = 140;
  o.speckle_radius = 2.5;
  const Stack<float> all = synth::render_translation_stack(o, 5, 0.7, -0.45);  // dy, dx per frame
  const StackView<const float> frames{all[1].data, 120, 140, 4, 140, 120 * 140};
  const std::vector<TemplateRect> templates = {{20, 30, 32, 32}, {80, 50, 41, 27}};
  auto tracks = track_templates(testing::cpu_registry(), all[0], frames, templates, {});
  ASSERT_TRUE(tracks.is_ok()) << tracks.status().message();
  ASSERT_EQ(tracks.value().size(), 2u);
  for (const Track& t : tracks.value()) {
    ASSERT_EQ(t.x.size(), 5u);
    for (std::size_t k = 0; k < 5; ++k) {
      EXPECT_NEAR(t.x[k], static_cast<double>(t.rect.x) - 0.45 * static_cast<double>(k), 0.05);
      EXPECT_NEAR(t.y[k], static_cast<double>(t.rect.y) + 0.7 * static_cast<double>(k), 0.05);
      EXPECT_GT(t.zncc[k], 0.9);
    }
  }
  ASSERT_TRUE(write_tracks_csv(path("t.csv"), tracks.value(), "stack.tif[page 0]").is_ok());
  std::ifstream f(path("t.csv"));
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("frame,template,x,y,dx,dy,zncc\n"), std::string::npos);
  EXPECT_NE(text.str().find("\n4,2,"), std::string::npos) << text.str();
}

// Non-finite pixels are missing data: a match that touches them is no position (NaN), the other
// frames and templates are found as without them; a template drawn over them is refused by name.
// Failed before: the engine refused the whole run ("has a NaN").
TEST_F(Tracking, MissingPixelsLoseOnlyTheMatchesThatTouchThem) {
  synth::SpeckleOptions o;
  o.rows = 120;
  o.cols = 140;
  Stack<float> all = synth::render_translation_stack(o, 5, 0.7, -0.45);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  all[2](40, 30) = nan;  // inside template 1's match in frame 2 (x 20..52, y 31..63)
  all[3](5, 135) = std::numeric_limits<float>::infinity();  // far from both
  const StackView<const float> frames{all[1].data, 120, 140, 4, 140, 120 * 140};
  const std::vector<TemplateRect> templates = {{20, 30, 32, 32}, {80, 50, 41, 27}};
  auto tracks = track_templates(testing::cpu_registry(), all[0], frames, templates, {});
  ASSERT_TRUE(tracks.is_ok()) << tracks.status().message();
  for (std::size_t t = 0; t < 2; ++t) {
    const Track& tr = tracks.value()[t];
    for (std::size_t k = 0; k < 5; ++k) {
      if (t == 0 && k == 2) {
        EXPECT_TRUE(std::isnan(tr.x[k]) && std::isnan(tr.y[k]) && std::isnan(tr.zncc[k]));
        continue;
      }
      EXPECT_NEAR(tr.x[k], static_cast<double>(tr.rect.x) - 0.45 * static_cast<double>(k), 0.05)
          << t << " " << k;
      EXPECT_NEAR(tr.y[k], static_cast<double>(tr.rect.y) + 0.7 * static_cast<double>(k), 0.05);
    }
  }
  Stack<float> ref = all;
  ref[0](35, 25) = nan;
  auto refused = track_templates(testing::cpu_registry(), ref[0], frames, templates, {});
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().message(),
            "template 1 holds missing pixels (NaN or Inf, the first at x 25, y 35): draw it on "
            "finite pixels");
}

// With a pixel size and a frame interval the export adds physical positions, time and
// velocities (central differences in time order, one-sided at the ends).
TEST_F(Tracking, AKnownScaleAddsPositionsTimeAndVelocities) {
  Track t;
  t.rect = {10, 20, 8, 8};
  t.x = {10, 12, 8, 14};  // frame 0 is the reference; frames 1-3
  t.y = {20, 20, 20, 26};
  t.zncc = {1, 0.9, 0.9, 0.9};
  const io::ImageScale scale = io::apply_user_scale({}, "0.5um", "2s").value();
  // The reference is page 1 of a stack: frame 1 is page 0 (t = -2 s), frames 2, 3 pages 2, 3.
  ASSERT_TRUE(write_tracks_csv(path("v.csv"), {t}, "s.tif[page 1]", scale, {-1, 1, 2}).is_ok());
  std::ifstream f(path("v.csv"));
  std::stringstream text;
  text << f.rdbuf();
  const std::string csv = text.str();
  EXPECT_NE(csv.find("frame,template,x,y,dx,dy,zncc,x_um,y_um,dx_um,dy_um,time_s,vx_um_per_s,"
                     "vy_um_per_s\n"),
            std::string::npos)
      << csv;
  // In time order: frame 1 (-2 s, x 12), frame 0 (0 s, x 10), frame 2 (2 s, x 8), frame 3 (4 s).
  // vx of frame 0: (8 - 12) px * 0.5 um / 4 s = -0.5 um/s; of frame 1: (10 - 12) * 0.5 / 2.
  EXPECT_NE(csv.find("\n0,1,10.0000,20.0000,0.0000,0.0000,1.000000,5,10,0,0,0,-0.5,0\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n1,1,12.0000,20.0000,2.0000,0.0000,0.900000,6,10,1,0,-2,-0.5,0\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n3,1,14.0000,26.0000,4.0000,6.0000,0.900000,7,13,2,3,4,1.5,1.5\n"),
            std::string::npos)
      << csv;
}

TEST_F(Tracking, TemplatesOutsideTheImageAreRefusedByNumber) {
  const Stack<float> img(50, 60, 2, 1.0f);
  auto r = track_templates(testing::cpu_registry(), img[0], img.view(),
                           {{10, 10, 20, 20}, {45, 10, 20, 20}}, {});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find(
                "template 2 (45,10 20x20) must lie inside the 60 x 50 px (width x height) image"),
            std::string::npos)
      << r.status().message();
  EXPECT_FALSE(track_templates(testing::cpu_registry(), img[0], img.view(), {}, {}).is_ok());
}

}  // namespace
}  // namespace xcorr
