// Real-data trust through the real `xcorr` executable: non-finite pixels are missing data, frames
// that cannot be registered fail by name (never a silent drift 0), and a folder of multi-page
// TIFFs contributes every page (docs/reliability.md, "Trust on real data").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/tiff_writer.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_tags.hpp"
#include "tests/support/tiff_writing.hpp"
#include "tests/support/xcorr_cli.hpp"

namespace xcorr {
namespace {

namespace fs = std::filesystem;
using testing::run_xcorr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

class DataTrust : public testing::TempDirTest {
 protected:
  // 5 frames of 128 x 128 float32 speckle moving by (0.4, -0.3) px a frame.
  static Stack<float> drifting() {
    synth::SpeckleOptions o;
    o.rows = o.cols = 128;
    o.seed = 7;
    return synth::render_translation_stack(o, 5, -0.3, 0.4);
  }
  std::string write(const std::string& name, const Stack<float>& s) const {
    EXPECT_TRUE(io::write_image_stack(path(name), s.view(), io::PixelType::f32).is_ok());
    return path(name);
  }
  // The drift table's rows: frame -> {dx, dy} (NaN for failed frames).
  static std::vector<std::pair<double, double>> drift(const std::string& file) {
    std::ifstream in(file);
    std::vector<std::pair<double, double>> rows;
    std::size_t dx = 0;  // the dx column (dy follows it)
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::stringstream cs(line);
      std::vector<std::string> v;
      for (std::string c; std::getline(cs, c, ',');) v.push_back(c);
      if (line[0] == 'f') {
        dx = static_cast<std::size_t>(std::find(v.begin(), v.end(), "dx") - v.begin());
        continue;
      }
      rows.emplace_back(v[dx] == "nan" ? kNan : std::stod(v[dx]),
                        v[dx + 1] == "nan" ? kNan : std::stod(v[dx + 1]));
    }
    return rows;
  }
};

// Failed before: one NaN pixel in frame 0 gave dx = dy = -0 for every frame, peak nan, an all-NaN
// corrected frame 0 and exit 0.
TEST_F(DataTrust, RegistrationMeasuresOnTheFinitePixels) {
  const Stack<float> clean = drifting();
  Stack<float> holes = clean;
  holes[0](100, 100) = static_cast<float>(kNan);
  for (Index y = 20; y < 30; ++y)
    for (Index x = 40; x < 52; ++x) holes[2](y, x) = static_cast<float>(kNan);
  holes[3](5, 7) = std::numeric_limits<float>::infinity();
  write("clean.tif", clean);
  write("holes.tif", holes);
  ASSERT_EQ(run_xcorr("register " + path("clean.tif") + " --drift " + path("clean.csv")).code, 0);
  const auto r = run_xcorr("register " + path("holes.tif") + " --drift " + path("holes.csv") +
                           " --out " + path("holes_corrected.tif"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto want = drift(path("clean.csv")), got = drift(path("holes.csv"));
  ASSERT_EQ(got.size(), 5u);
  for (std::size_t k = 1; k < 5; ++k) {
    EXPECT_NEAR(want[k].first, 0.4 * static_cast<double>(k), 0.02) << "frame " << k;
    EXPECT_NEAR(got[k].first, want[k].first, 0.01) << "frame " << k;
    EXPECT_NEAR(got[k].second, want[k].second, 0.01) << "frame " << k;
  }
  // The corrected stack keeps the missing pixels missing, and only those (and neighbours).
  auto out = io::read_image_stack(path("holes_corrected.tif"));
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  ASSERT_EQ(out.value().frames.count(), 5);
  const auto nans = [&](Index k) {
    long n = 0;
    const MatrixView<const float> f = std::as_const(out.value().frames)[k];
    for (Index y = 0; y < f.rows; ++y)
      for (Index x = 0; x < f.cols; ++x) n += std::isnan(f(y, x)) ? 1 : 0;
    return n;
  };
  EXPECT_TRUE(std::isnan(std::as_const(out.value().frames)[0](100, 100)));
  EXPECT_EQ(nans(0), 1) << "frame 0 is not moved: its one missing pixel stays alone";
  EXPECT_EQ(nans(1), 0);
  EXPECT_GE(nans(2), 120);
  EXPECT_LE(nans(2), 13 * 11);
  EXPECT_GE(nans(3), 1);
  EXPECT_LE(nans(3), 4);
}

// Failed before: "reference image matrix 0 has a NaN at row 100, column 100" refused the frame
// for one NaN far from the ROI's points. Now only the points whose subset touches a missing pixel
// are missing_data; the rest converge; exit 0.
TEST_F(DataTrust, DicMarksOnlyThePointsThatTouchMissingPixels) {
  synth::SpeckleOptions o;
  o.rows = o.cols = 160;
  o.seed = 5;
  Stack<float> s = synth::render_translation_stack(o, 3, 0.25, 0.5);
  s[0](150, 150) = static_cast<float>(kNan);  // far from the ROI's subsets
  s[2](60, 60) = static_cast<float>(kNan);    // under a few subsets in frame 2
  write("nan.tif", s);
  const auto r = run_xcorr("dic --reference " + path("nan.tif") +
                           " --roi rect:30,30,70,70 --subset 21 --step 10 --out " + path("d.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(path("d.csv"));
  int missing = 0, converged = 0, points_per_frame = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == 'f') continue;
    std::vector<std::string> v;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) v.push_back(c);
    const long frame = std::stol(v[0]);
    if (frame == 1 && v[10] != "outside_roi") ++points_per_frame;
    const double x = std::stod(v[1]), y = std::stod(v[2]);
    if (v[10] == "missing_data") {
      ++missing;
      EXPECT_EQ(frame, 2) << line;
      EXPECT_LE(std::max(std::abs(x - 60), std::abs(y - 60)), 10 + 7 + 1.5) << line;
      EXPECT_EQ(v[3], "nan") << line;
    } else if (v[10] == "converged") {
      ++converged;
      EXPECT_NEAR(std::stod(v[3]), 0.5 * static_cast<double>(frame), 0.02) << line;
    }
  }
  EXPECT_GE(missing, 4);
  EXPECT_EQ(converged + missing, 2 * points_per_frame) << "every other point converged";
}

// Failed before: flat frames, frames of 3.4e38 and frames of NaN got drift 0 and peak 0, exit 0.
TEST_F(DataTrust, FramesThatCannotBeRegisteredFailByName) {
  Stack<float> s = drifting();
  std::fill(s[1].data, s[1].data + 128 * 128, 700.0f);
  for (Index i = 0; i < 128 * 128; ++i) s[2].data[i] *= 6.5e33f;  // up to about 3.4e38
  for (Index i = 0; i < 128 * 100; ++i) s[3].data[i] = static_cast<float>(kNan);
  write("bad.tif", s);
  const auto r = run_xcorr("register " + path("bad.tif") + " --drift " + path("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("frame 1 failed: it is flat (every finite pixel 700): nothing to "
                          "register"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("frame 2 failed: it has values up to"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("frame 3 failed: it has 3584 finite pixel(s) of 16384"),
            std::string::npos)
      << r.output;
  const auto rows = drift(path("bad.csv"));
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t k = 1; k <= 3; ++k) EXPECT_TRUE(std::isnan(rows[k].first)) << k;
  EXPECT_NEAR(rows[4].first, 1.6, 0.02);
  // A flat reference ends the job before any work.
  Stack<float> flat_ref = drifting();
  std::fill(flat_ref[0].data, flat_ref[0].data + 128 * 128, 3.0f);
  write("flat_ref.tif", flat_ref);
  const auto f = run_xcorr("register " + path("flat_ref.tif") + " --drift " + path("f.csv"));
  EXPECT_EQ(f.code, 2) << f.output;
  EXPECT_NE(f.output.find("the reference frame 0 is flat"), std::string::npos) << f.output;
  EXPECT_FALSE(fs::exists(path("f.csv")));
}

// Failed before: 2 frames from a folder of two 8-page TIFFs in register, dic and run.
TEST_F(DataTrust, AFolderOfMultiPageTiffsGivesEveryPage) {
  fs::create_directories(path("folder"));
  for (const char* name : {"folder/a.tif", "folder/b.tif"})
    ASSERT_EQ(run_xcorr("speckle --out " + path(name) +
                        " --size 96,96 --frames 8 --shift 0.1,0.25 --seed 4")
                  .code,
              0);
  const auto reg = run_xcorr("register " + path("folder") + " --drift " + path("d.csv"));
  ASSERT_EQ(reg.code, 0) << reg.output;
  const auto rows = drift(path("d.csv"));
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_NEAR(rows[7].first, 7 * 0.25, 0.02) << "a.tif's last page";
  EXPECT_NEAR(rows[9].first, 0.25, 0.02) << "b.tif's page 1";
  const auto frames_in = [](const std::string& csv) {
    std::ifstream in(csv);
    long last = -1;
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#' && line[0] != 'f') last = std::stol(line);
    return last;
  };
  const std::string roi = " --roi rect:30,30,36,36 --subset 21 --step 8";
  ASSERT_EQ(run_xcorr("dic --reference " + path("folder") + roi + " --out " + path("dic.csv") +
                      " --save-job " + path("job.json"))
                .code,
            0);
  ASSERT_EQ(run_xcorr("dic --reference " + path("folder") + roi + " --out " + path("dic.csv")).code,
            0);
  EXPECT_EQ(frames_in(path("dic.csv")), 15);
  ASSERT_EQ(run_xcorr("run --quiet " + path("job.json")).code, 0);
  EXPECT_EQ(frames_in(path("dic.csv")), 15);
}

// Failed before: OME DimensionOrder "XYZZT" gave the same pages for channels 0 and 1; ImageJ
// channels=3 on 8 pages dropped pages 6-7; OME SizeT=3 on 8 pages had its metadata ignored.
TEST_F(DataTrust, MetadataThatDoesNotFitThePagesIsRefusedByName) {
  const auto stack = [this](const std::string& name, const char* description) {
    EXPECT_EQ(run_xcorr("speckle --out " + path(name) + " --size 64,64 --frames 8 --seed 2").code,
              0);
    EXPECT_TRUE(testing::set_tiff_description(path(name), description));
    return path(name);
  };
  const auto ome = [](const std::string& order, int c, int z, int t) {
    return "<?xml version=\"1.0\"?><OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/"
           "2016-06\"><Image ID=\"Image:0\"><Pixels ID=\"Pixels:0\" DimensionOrder=\"" +
           order + "\" Type=\"uint16\" SizeX=\"64\" SizeY=\"64\" SizeC=\"" + std::to_string(c) +
           "\" SizeZ=\"" + std::to_string(z) + "\" SizeT=\"" + std::to_string(t) +
           "\"/></Image></OME>";
  };
  const auto refused = [this](const std::string& file, const std::string& message) {
    for (const std::string& args :
         {"register " + file + " --drift " + path("d.csv"),
          "dic --reference " + file + " --roi rect:20,20,24,24 --out " + path("o.csv")}) {
      const auto r = run_xcorr(args);
      EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
      EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
      EXPECT_FALSE(fs::exists(path("d.csv")) || fs::exists(path("o.csv")));
    }
  };
  const struct {
    const char* file;
    std::string description, message;
  } cases[] = {
      {"zz.tif", ome("XYZZT", 2, 1, 4),
       "'zz.tif': its OME-XML DimensionOrder 'XYZZT' is not XY followed by C, Z and T once each: "
       "the file is refused"},
      {"ij3.tif", "ImageJ=1.54f\nimages=8\nchannels=3\nhyperstack=true\n",
       "'ij3.tif' has 8 pages but its ImageJ description says 3 channels x 1 z-plane: a whole "
       "number of time points of 3 pages: the metadata does not fit the pages"},
      {"t3.tif", ome("XYCZT", 1, 1, 3),
       "'t3.tif' has 8 pages but its OME-XML says 1 channel x 1 z-plane x 3 time points = 3 pages"},
      {"ijt.tif", "ImageJ=1.54f\nimages=8\nchannels=2\nframes=3\nhyperstack=true\n",
       "'ijt.tif' has 8 pages but its ImageJ description says 2 channels x 1 z-plane x 3 time "
       "points = 6 pages"},
  };
  for (const auto& c : cases) refused(stack(c.file, c.description.c_str()), c.message);
  // Metadata that fits is used: 2 channels x 4 time points.
  const std::string fits =
      stack("ok.tif", "ImageJ=1.54f\nimages=8\nchannels=2\nframes=4\nhyperstack=true\n");
  const auto r = run_xcorr("register " + fits + " --channel 1 --drift " + path("ok.csv"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(drift(path("ok.csv")).size(), 4u);
}

// A 16-bit planar RGB stack (PlanarConfiguration 2): dic and run read the same grey values (the
// CSVs are the same bytes) and DIC finds the stack's shift. Failed before: wrong grey values.
TEST_F(DataTrust, PlanarColourStacksReadTheSameEverywhere) {
  synth::SpeckleOptions o;
  o.rows = o.cols = 80;
  o.gain = 20000;
  const Stack<float> grey = synth::render_translation_stack(o, 3, 0.0, 0.5);
  std::vector<testing::TiffPageSpec> pages;
  for (Index k = 0; k < 3; ++k) {
    testing::TiffPageSpec p{80, 80, 16, SAMPLEFORMAT_UINT, 3, 0, 8, {}, true};
    for (Index i = 0; i < 80 * 80; ++i) {
      const double v = std::round(grey[k].data[i]);
      p.values.insert(p.values.end(), {v, std::round(0.5 * v), std::round(0.25 * v + 1000)});
    }
    pages.push_back(std::move(p));
  }
  testing::write_tiff(path("rgb.tif"), pages);
  const std::string dic = "dic --reference " + path("rgb.tif") +
                          " --roi rect:20,20,40,40 --subset 21 --step 10 --out " + path("a.csv");
  ASSERT_EQ(run_xcorr(dic + " --save-job " + path("job.json")).code, 0);
  const auto r = run_xcorr(dic);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("     2 "), std::string::npos) << r.output;
  std::ifstream a(path("a.csv"));
  const std::string first((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  // frame 2 moved by 1.0 px along x: every converged point's u within 0.02 px.
  std::istringstream rows(first);
  int checked = 0;
  for (std::string line; std::getline(rows, line);) {
    if (line.empty() || line[0] == '#' || line[0] == 'f' || line.rfind("2,", 0) != 0) continue;
    std::vector<std::string> v;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) v.push_back(c);
    EXPECT_NEAR(std::stod(v[3]), 1.0, 0.02) << line;
    ++checked;
  }
  EXPECT_GT(checked, 4);
  fs::remove(path("a.csv"));
  ASSERT_EQ(run_xcorr("run --quiet " + path("job.json")).code, 0);
  std::ifstream b(path("a.csv"));
  const std::string second((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_EQ(first, second);
}

// A TCZYX hyperstack of T time points, 2 channels, 3 z-planes (96 x 96 u16): every plane of time
// point t moved by t x (0.3, -0.2) px; each channel its own texture, each z-plane its own
// brightness. ImageJ (CZT) or OME-XML (`ome_order`, e.g. "ZCT", channel names GFP and RFP).
std::string write_hyperstack(const std::string& file, long t_count, const std::string& ome_order) {
  io::StackMetadata m;
  m.layout.channels = 2;
  m.layout.slices = 3;
  m.layout.order = ome_order.empty() ? "CZT" : ome_order;
  m.ome = !ome_order.empty();
  m.channel_names = {"GFP", "RFP"};
  m.spacing_z = 0.5;
  io::ImageScale scale;
  scale.pixel_x = scale.pixel_y = 0.25;
  scale.unit = "um";
  scale.frame_interval_s = 2;
  const long pages = 6 * t_count;
  std::vector<Stack<float>> planes;  // by channel and time
  for (long c = 0; c < 2; ++c) {
    synth::SpeckleOptions o;
    o.rows = o.cols = 96;
    o.seed = static_cast<std::uint32_t>(11 + c);
    o.gain = 30000;
    planes.push_back(synth::render_translation_stack(o, t_count, -0.2, 0.3));
  }
  const std::string description =
      io::derived_description(m, {96, 96}, t_count, io::PixelType::u16, scale);
  EXPECT_TRUE(io::write_atomically(file, [&](const fs::path& tmp) -> Status {
                auto w = io::TiffWriter::create(tmp, io::PixelType::u16, {96, 96}, pages,
                                                description, scale);
                XCORR_RETURN_IF_ERROR(w.status());
                for (long p = 0; p < pages; ++p) {
                  long c = 0, z = 0, t = 0, rest = p;
                  for (const char axis : m.layout.order) {
                    const long size = axis == 'C' ? 2 : axis == 'Z' ? 3 : t_count;
                    (axis == 'C' ? c : axis == 'Z' ? z : t) = rest % size;
                    rest /= size;
                  }
                  Stack<float> page = Stack<float>(96, 96, 1);
                  const MatrixView<const float> from = std::as_const(planes[c])[t];
                  for (Index i = 0; i < 96 * 96; ++i)
                    page.data()[i] = from.data[i] * (1.0f - 0.2f * static_cast<float>(z));
                  XCORR_RETURN_IF_ERROR(w.value()->add_page(std::as_const(page)[0]));
                }
                return w.value()->close();
              }).is_ok());
  return file;
}

// Failed before: registering a 2-channel hyperstack on channel 0 wrote channel 0 alone, which the
// window could not reopen with its channel 1. Now every channel and z-plane moves, the layout,
// scale and flavour stay, and --apply moves another file by the saved table.
TEST_F(DataTrust, AHyperstackIsRegisteredWhole) {
  for (const std::string order : {"", "ZCT"}) {
    const std::string h = write_hyperstack(path("h.tif"), 4, order);
    const auto r = run_xcorr("register " + h + " --channel 1 --z-projection max --out " +
                             path("c.tif") + " --drift " + path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.output;
    const auto measured = drift(path("d.csv"));
    ASSERT_EQ(measured.size(), 4u);
    for (std::size_t t = 0; t < 4; ++t) {
      EXPECT_NEAR(measured[t].first, 0.3 * static_cast<double>(t), 0.03) << order << " " << t;
      EXPECT_NEAR(measured[t].second, -0.2 * static_cast<double>(t), 0.03) << order << " " << t;
    }
    auto meta = io::read_stack_metadata(path("c.tif"));
    ASSERT_TRUE(meta.is_ok());
    EXPECT_EQ(meta.value().ome, !order.empty());
    EXPECT_EQ(meta.value().layout.channels, 2);
    EXPECT_EQ(meta.value().layout.slices, 3);
    EXPECT_EQ(meta.value().layout.frames, 4);
    EXPECT_EQ(meta.value().layout.order, order.empty() ? "CZT" : order);
    EXPECT_EQ(meta.value().scale.pixel_x, 0.25);
    EXPECT_EQ(meta.value().scale.frame_interval_s, 2);
    EXPECT_EQ(meta.value().spacing_z, 0.5);
    if (!order.empty()) {
      EXPECT_EQ(meta.value().channel_names, (std::vector<std::string>{"GFP", "RFP"}));
    }
    // Every channel and z-plane of the output stands still.
    for (const std::string plane :
         {"--channel 0 --z 0", "--channel 0 --z 2", "--channel 1 --z 1"}) {
      ASSERT_EQ(
          run_xcorr("register " + path("c.tif") + " " + plane + " --drift " + path("e.csv")).code,
          0)
          << plane;
      for (const auto& [dx, dy] : drift(path("e.csv"))) {
        EXPECT_NEAR(dx, 0, 0.03) << order << " " << plane;
        EXPECT_NEAR(dy, 0, 0.03) << order << " " << plane;
      }
    }
    // The saved table applied to the raw file gives the corrected stack again (the table's 6
    // decimals: within a grey level or two).
    const auto a =
        run_xcorr("register --apply " + path("d.csv") + " " + h + " --out " + path("a.tif"));
    ASSERT_EQ(a.code, 0) << a.output;
    auto applied = io::read_image_stack(path("a.tif"));
    auto corrected = io::read_image_stack(path("c.tif"));
    ASSERT_TRUE(applied.is_ok() && corrected.is_ok());
    ASSERT_EQ(applied.value().frames.count(), 24);
    float worst = 0;
    for (Index i = 0; i < 24 * 96 * 96; ++i)
      worst = std::max(
          worst, std::abs(applied.value().frames.data()[i] - corrected.value().frames.data()[i]));
    EXPECT_LE(worst, 2.0f) << order;
    fs::remove(path("c.tif"));
    fs::remove(path("a.tif"));
  }
  // A table of another frame count is refused before anything is written.
  write_hyperstack(path("five.tif"), 5, "");
  const auto wrong = run_xcorr("register --apply " + path("d.csv") + " " + path("five.tif") +
                               " --out " + path("w.tif"));
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.output.find("the drift table '" + path("d.csv") + "' has 4 frame(s) but '" +
                              path("five.tif") + "' has 5"),
            std::string::npos)
      << wrong.output;
  EXPECT_FALSE(fs::exists(path("w.tif")));
}

}  // namespace
}  // namespace xcorr
