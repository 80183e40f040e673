// Result writers by extension (core/dic/result_writers.hpp): the lookup is case-insensitive, an
// unknown extension is refused naming the path and the accepted ones, and writing through the
// registry gives the same bytes as the CSV writer it registers, in one file or one per frame.
#include "core/dic/result_writers.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "core/io/read_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr::dic {
namespace {

DicResult small_result() {
  DicResult r;
  r.grid = make_grid(40, 50, 21, 10, Roi{}.render(40, 50));
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(-2, 2);
  for (Index f = 1; f <= 2; ++f) {
    FrameResult fr;
    fr.frame = f;
    for (const GridPoint& g : r.grid.points) {
      PointResult p;
      p.x = g.x, p.y = g.y, p.u = u(rng), p.v = u(rng), p.zncc = 0.9, p.iterations = 3;
      p.status = PointStatus::converged;
      fr.points.push_back(p);
    }
    r.frames.push_back(fr);
  }
  r.device = "cpu";
  r.guess_variant = "cpu_fft";
  return r;
}

TEST(ResultWriters, LookupByExtension) {
  ASSERT_TRUE(writer_for("out/dic.csv").is_ok());
  ASSERT_TRUE(writer_for("DIC.CSV").is_ok());
  EXPECT_EQ(writer_for("dic.CSV").value()->name, "CSV");
  const auto bad = writer_for("dic.xlsx");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::invalid_argument);
  EXPECT_NE(bad.status().message().find("'dic.xlsx' must end in .csv"), std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(writer_for("no_extension").is_ok());
}

class ResultWritersFiles : public testing::TempDirTest {};

TEST_F(ResultWritersFiles, SameBytesAsTheCsvWriter) {
  const DicResult r = small_result();
  const CsvContext c{"ref.tif",       {"a.tif", "b.tif"}, DicOptions{}, Roi{},
                     r.guess_variant, r.device,           {},           {}};
  const std::string via = (dir_ / "via.csv").string();
  const std::string direct = (dir_ / "direct.csv").string();
  auto written = write_results(via, false, r, c);
  ASSERT_TRUE(written.is_ok()) << written.status().message();
  ASSERT_EQ(written.value(), std::vector<std::string>{via});
  ASSERT_TRUE(write_dic_csv(direct, r, c).is_ok());
  EXPECT_EQ(io::read_file(via).value(), io::read_file(direct).value());

  auto frames = write_results((dir_ / "per.csv").string(), true, r, c);
  ASSERT_TRUE(frames.is_ok()) << frames.status().message();
  ASSERT_EQ(frames.value().size(), 2u);
  for (const std::string& f : frames.value()) EXPECT_TRUE(std::filesystem::exists(f)) << f;

  EXPECT_FALSE(write_results((dir_ / "x.txt").string(), false, r, c).is_ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.txt"));
}

}  // namespace
}  // namespace xcorr::dic
