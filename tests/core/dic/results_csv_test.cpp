// The DIC CSV: the header block (software, images, units, every setting, ROI, what ran), the
// column line, one row per grid point and frame with NaN for points without a value, and one
// file per frame on request.
#include "core/dic/results_csv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "tests/support/temp_dir.hpp"

namespace xcorr::dic {
namespace {

class ResultsCsv : public testing::TempDirTest {};

DicResult two_frames() {
  DicResult r;
  r.grid.rows = 1;
  r.grid.cols = 2;
  r.grid.points = {{15, 15, true}, {23, 15, false}};
  for (Index f = 1; f <= 2; ++f) {
    FrameResult fr;
    fr.frame = f;
    PointResult ok;
    ok.x = 15, ok.y = 15, ok.u = 0.25 * static_cast<double>(f), ok.v = -0.5, ok.exx = 0.001;
    ok.eyy = -0.002, ok.exy = 0.0005, ok.zncc = 0.998, ok.iterations = 4;
    ok.status = PointStatus::converged;
    ok.sigma_u = 0.003, ok.sigma_v = 0.004;
    PointResult out;
    out.x = 23, out.y = 15, out.u = out.v = out.exx = out.eyy = out.exy = out.zncc = std::nan("");
    out.sigma_u = out.sigma_v = std::nan("");
    out.status = PointStatus::outside_roi;
    fr.points = {ok, out};
    r.frames.push_back(fr);
  }
  r.guess_variant = "cpu_fft";
  r.device = "cpu";
  return r;
}

std::string read(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST_F(ResultsCsv, HeaderColumnsAndRows) {
  const CsvContext ctx{"ref.tif",    {"a.tif", "b.tif"},
                       DicOptions{}, Roi{{parse_roi_shape("rect:0,0,30,30").value()}},
                       "cpu_fft",    "cpu",
                       {},           {}};
  ASSERT_TRUE(write_dic_csv(path("r.csv"), two_frames(), ctx).is_ok());
  const std::string text = read(path("r.csv"));
  for (const char* line :
       {"# xcorr DIC results\n", "# reference: ref.tif\n", "# frame 1: a.tif\n",
        "# frame 2: b.tif\n", "# settings: subset=31 px, step=8 px", "# roi: rect:0,0,30,30\n",
        "ran cpu_fft\n", "# registered on: cpu\n",
        "frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,sigma_u,sigma_v\n",
        "1,15.0,15.0,0.250000,-0.500000,0.00100000,-0.00200000,0.00050000,0.998000,4,converged,"
        "0.003000,0.004000\n",
        "roi_only=on",
        "# scale: pixel size not known (px only); frame interval not known (frame numbers "
        "only)\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  EXPECT_EQ(text.find("outside_roi"), std::string::npos) << "roi_only: the ROI's points only";
  CsvContext all = ctx;
  all.options.roi_only = OnOff::off;
  ASSERT_TRUE(write_dic_csv(path("all.csv"), two_frames(), all).is_ok());
  EXPECT_NE(
      read(path("all.csv")).find("2,23.0,15.0,nan,nan,nan,nan,nan,nan,0,outside_roi,nan,nan\n"),
      std::string::npos);
}

// With a known scale the pixel columns stay first and unchanged; the physical columns and the
// frame's time follow, and the header says where the scale came from.
TEST_F(ResultsCsv, AKnownScaleAddsPhysicalColumnsAfterThePixelOnes) {
  CsvContext ctx{"ref.tif", {"a.tif", "b.tif"}, DicOptions{}, Roi{}, "cpu_fft", "cpu", {}, {}};
  ctx.scale = io::apply_user_scale({}, "0.5x0.25um", "2s").value();
  ctx.frame_steps = {3, -1};  // frame 1 is 3 intervals after the reference, frame 2 one before
  ASSERT_TRUE(write_dic_csv(path("s.csv"), two_frames(), ctx).is_ok());
  const std::string text = read(path("s.csv"));
  for (const char* line :
       {"# scale: pixel 0.5 x 0.25 um (user); frame interval 2 s (user)\n",
        "frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,sigma_u,sigma_v,x_um,y_um,u_um,v_um,"
        "sigma_u_um,sigma_v_um,time_s\n",
        "1,15.0,15.0,0.250000,-0.500000,0.00100000,-0.00200000,0.00050000,0.998000,4,converged,"
        "0.003000,0.004000,7.5,3.75,0.125,-0.125,0.0015,0.001,6\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  EXPECT_NE(text.find(",-2\n"), std::string::npos) << "frame 2's time: -1 interval";
  ctx.scale = io::apply_user_scale({}, "", "2s").value();  // time only
  ASSERT_TRUE(write_dic_csv(path("t.csv"), two_frames(), ctx).is_ok());
  EXPECT_NE(read(path("t.csv")).find("status,sigma_u,sigma_v,time_s\n"), std::string::npos);
}

// printf's "%.<d>f" / "%.<d>g" of v, "nan" for NaN: the characters every row had before the rows
// were written with std::to_chars.
std::string printf_form(const char* form, double v) {
  if (std::isnan(v)) return "nan";
  char buf[512];
  std::snprintf(buf, sizeof buf, form, v);
  return buf;
}

// Every number of every row is printf's characters (fixed with 1, 6 and 8 decimals, %.9g in
// units), for random values over many magnitudes and the cases rounding trips on: halfway
// values, -0, subnormals, infinities, NaN, huge numbers. The rows of 40 frames are written on
// several threads and must still come in frame order.
TEST_F(ResultsCsv, RowsHavePrintfsCharactersForRandomAndEdgeValues) {
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-12, 12);
  const double edge[] = {0.0,
                         -0.0,
                         0.05,
                         0.25,
                         -0.5,
                         0.0000005,
                         2.5e-9,
                         0.125,
                         1234567.8949999999,
                         std::numeric_limits<double>::denorm_min(),
                         -std::numeric_limits<double>::min(),
                         1e300,
                         -1e300,
                         std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         std::nan("")};
  std::size_t next_edge = 0;
  const auto value = [&]() {
    if (rng() % 4 == 0) return edge[next_edge++ % std::size(edge)];
    return mantissa(rng) * std::pow(10.0, exponent(rng));
  };
  DicResult r;
  r.grid.rows = 1;
  r.grid.cols = 25;
  r.grid.points.assign(25, {15, 15, true});
  std::string expected;
  CsvContext ctx{"ref.tif", {}, DicOptions{}, Roi{}, "cpu_fft", "cpu", {}, {}};
  ctx.scale = io::apply_user_scale({}, "0.3x0.7um", "").value();
  for (Index f = 1; f <= 40; ++f) {
    FrameResult fr;
    fr.frame = f;
    for (int k = 0; k < 25; ++k) {
      PointResult p;
      p.x = value(), p.y = value(), p.u = value(), p.v = value(), p.exx = value();
      p.eyy = value(), p.exy = value(), p.zncc = value(), p.sigma_u = value();
      p.sigma_v = value();
      p.iterations = k;
      p.status = PointStatus::converged;
      fr.points.push_back(p);
      expected += std::to_string(f) + "," + printf_form("%.1f", p.x) + "," +
                  printf_form("%.1f", p.y) + "," + printf_form("%.6f", p.u) + "," +
                  printf_form("%.6f", p.v) + "," + printf_form("%.8f", p.exx) + "," +
                  printf_form("%.8f", p.eyy) + "," + printf_form("%.8f", p.exy) + "," +
                  printf_form("%.6f", p.zncc) + "," + std::to_string(k) + ",converged," +
                  printf_form("%.6f", p.sigma_u) + "," + printf_form("%.6f", p.sigma_v);
      for (const double u :
           {p.x * 0.3, p.y * 0.7, p.u * 0.3, p.v * 0.7, p.sigma_u * 0.3, p.sigma_v * 0.7})
        expected += "," + printf_form("%.9g", u);
      expected += "\n";
    }
    r.frames.push_back(fr);
  }
  ASSERT_TRUE(write_dic_csv(path("edge.csv"), r, ctx).is_ok());
  const std::string text = read(path("edge.csv"));
  const std::size_t rows = text.find("\n1,");
  ASSERT_NE(rows, std::string::npos) << text;
  EXPECT_EQ(text.substr(rows + 1), expected);
}

TEST_F(ResultsCsv, OneFilePerFrame) {
  const CsvContext ctx{"ref.tif", {"a.tif", "b.tif"}, DicOptions{}, Roi{}, "cpu_fft", "cpu", {},
                       {}};
  const auto files = write_dic_csv_per_frame(path("r.csv"), two_frames(), ctx);
  ASSERT_TRUE(files.is_ok()) << files.status().message();
  ASSERT_EQ(files.value().size(), 2u);
  EXPECT_EQ(files.value()[1].filename(), "r_frame0002.csv");
  const std::string second = read(files.value()[1].string());
  EXPECT_NE(second.find("\n2,15.0,15.0,0.500000"), std::string::npos) << second;
  EXPECT_EQ(second.find("\n1,15.0"), std::string::npos) << "frame 1's rows belong to its file";
  EXPECT_NE(second.find("# roi: whole image"), std::string::npos);
}

}  // namespace
}  // namespace xcorr::dic
