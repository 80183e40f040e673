// The desktop app's project model without widgets (core/project/studio_project.hpp): the job it
// makes, saving, a new stack clearing the old results, finding a frame's results when one failed,
// and exports that refuse, by what is missing, without writing anything.
#include "core/project/studio_project.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/dic/job.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr {
namespace {

namespace fs = std::filesystem;

class Project : public testing::TempDirTest {};

StudioProject with_results() {
  StudioProject p;
  p.adopt_stack("/data/stack.tif", {}, "stack.tif[page 0]",
                {"stack.tif[page 1]", "stack.tif[page 2]", "stack.tif[page 3]"});
  dic::DicResult r;
  r.grid.rows = 1;
  r.grid.cols = 1;
  r.grid.points.resize(1);
  r.device = "cpu";
  r.guess_variant = "cpu_fft";
  for (Index f : {1, 3}) {  // frame 2 failed
    dic::FrameResult fr;
    fr.frame = f;
    fr.points.resize(1);
    fr.points[0].u = 0.25 * static_cast<double>(f);
    r.frames.push_back(fr);
  }
  p.results = r;
  p.failed.push_back({2, "stack.tif[page 2]", "NaN pixels"});
  return p;
}

TEST_F(Project, MakesTheJobAndSavesItBesideItsCsv) {
  StudioProject p;
  EXPECT_FALSE(p.save(path("none.json")).is_ok()) << "no stack yet";
  EXPECT_FALSE(fs::exists(path("none.json")));
  p.adopt_stack(path("stack.tif"), {}, "stack.tif[page 0]", {"stack.tif[page 1]"});
  p.roi.shapes.push_back(dic::parse_roi_shape("rect:1,2,30,40").value());
  p.options.subset = 25;
  p.templates = {{3, 4, 10, 12}};
  const dic::DicJob job = p.job();
  EXPECT_EQ(job.reference, path("stack.tif"));
  EXPECT_TRUE(job.out.empty()) << "the window's run writes nothing";
  EXPECT_EQ(job.templates, p.templates);
  ASSERT_TRUE(p.save(path("project.json")).is_ok());
  auto back = dic::read_dic_job(path("project.json"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(fs::path(back.value().out).filename(), "project.csv");
  EXPECT_EQ(back.value().options.subset, 25);
  EXPECT_EQ(back.value().templates, p.templates);
  EXPECT_EQ(back.value().roi.shapes.size(), 1u);
}

TEST_F(Project, AFailedFrameHasNoResultsAndExportsSaySo) {
  StudioProject p = with_results();
  ASSERT_NE(p.result_of(3), nullptr);
  EXPECT_DOUBLE_EQ(p.result_of(3)->points[0].u, 0.75);
  EXPECT_EQ(p.result_of(2), nullptr);
  EXPECT_EQ(p.result_of(0), nullptr) << "the reference";
  const Status failed = p.export_frame_csv(path("f2.csv"), 2);
  EXPECT_NE(failed.message().find("frame 2 has no results (it failed)"), std::string::npos)
      << failed.message();
  EXPECT_FALSE(fs::exists(path("f2.csv")));
  ASSERT_TRUE(p.export_frame_csv(path("f3.csv"), 3).is_ok());
  EXPECT_TRUE(fs::exists(path("f3.csv")));
  ASSERT_TRUE(p.export_csv(path("all.csv"), false).is_ok());
}

TEST_F(Project, ANewStackClearsTheOldRunsAndExportsRefuse) {
  StudioProject p = with_results();
  p.templates = {{1, 1, 5, 5}};
  p.tracks.resize(1);
  p.adopt_stack("/data/other.tif", {}, "other.tif[page 0]", {"other.tif[page 1]"});
  EXPECT_FALSE(p.results.has_value());
  EXPECT_TRUE(p.failed.empty());
  EXPECT_TRUE(p.templates.empty());
  EXPECT_TRUE(p.tracks.empty());
  const Status dic = p.export_csv(path("none.csv"), false);
  EXPECT_NE(dic.message().find("run DIC first"), std::string::npos) << dic.message();
  const Status tracks = p.export_tracks_csv(path("tracks.csv"));
  EXPECT_NE(tracks.message().find("run tracking first"), std::string::npos) << tracks.message();
  EXPECT_FALSE(fs::exists(path("none.csv")));
  EXPECT_FALSE(fs::exists(path("tracks.csv")));
}

}  // namespace
}  // namespace xcorr
