// Template tracking through the engine: templates cut from the reference are found in a speckle
// stack with a known per-frame translation to sub-pixel accuracy; bad templates are refused by
// name; the CSV lists every frame of every template.
#include "core/tracking.hpp"

#include <gtest/gtest.h>

#include <fstream>
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

TEST_F(Tracking, TemplatesOutsideTheImageAreRefusedByNumber) {
  const Stack<float> img(50, 60, 2, 1.0f);
  auto r = track_templates(testing::cpu_registry(), img[0], img.view(),
                           {{10, 10, 20, 20}, {45, 10, 20, 20}}, {});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(
      r.status().message().find("template 2 (45,10 20x20) must lie inside the 50x60 px image"),
      std::string::npos)
      << r.status().message();
  EXPECT_FALSE(track_templates(testing::cpu_registry(), img[0], img.view(), {}, {}).is_ok());
}

}  // namespace
}  // namespace xcorr
