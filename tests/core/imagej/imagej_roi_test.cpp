// ImageJ ROI files against ImageJ itself: tests/data/imagej_roi/ holds selections ImageJ 1.53t
// saved (scripts/make_imagej_rois.sh), with the mask ImageJ filled for each area. Each area read
// here must cover the pixels ImageJ filled; what is not a region is refused by name; the ROI
// Manager's ZIP opens with its names; and what this project writes reads back to the same shapes
// and pixels, on fresh random shapes.
#include "core/imagej/imagej_roi.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "core/io/image_io.hpp"
#include "core/io/read_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr::imagej {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(XCORR_SOURCE_DIR) / "tests/data/imagej_roi";
constexpr Index kRows = 40, kCols = 60;  // the masks' size

dic::Mask render(const dic::RoiShape& s) {
  return dic::Roi{{s}}.render(kRows, kCols);
}

// Pixels where `m` and ImageJ's mask <name>_mask.tif differ; -1 when the mask cannot be read.
long differing(const dic::Mask& m, const std::string& name) {
  auto mask = io::read_matrices(kData / (name + "_mask.tif"));
  if (!mask.is_ok() || mask.value().count() != 1) return -1;
  const MatrixView<const float> ij = mask.value()[0];
  if (ij.rows != kRows || ij.cols != kCols) return -1;
  long n = 0;
  for (Index y = 0; y < kRows; ++y)
    for (Index x = 0; x < kCols; ++x)
      n += (ij(y, x) > 0) != (m[static_cast<std::size_t>(y * kCols + x)] != 0);
  return n;
}

long inside(const dic::Mask& m) {
  long n = 0;
  for (unsigned char v : m) n += v;
  return n;
}

TEST(ImagejRoi, EveryAreaCoversThePixelsImageJFilled) {
  // Pixel for pixel, curves included (ImageJ rasterises ovals, rounded corners and a composite's
  // curves by pixel centres too).
  const struct {
    const char* name;
    dic::RoiShapeKind kind;
  } cases[] = {{"rect", dic::RoiShapeKind::rectangle},
               {"polygon", dic::RoiShapeKind::polygon},
               {"polygon_subpixel", dic::RoiShapeKind::polygon},
               {"freehand", dic::RoiShapeKind::polygon},
               {"traced", dic::RoiShapeKind::polygon},
               {"composite_union", dic::RoiShapeKind::polygon},
               {"rect_rotated", dic::RoiShapeKind::polygon},
               {"ellipse_rotated", dic::RoiShapeKind::polygon},
               {"oval", dic::RoiShapeKind::ellipse},
               {"rect_rounded", dic::RoiShapeKind::polygon},
               {"composite_hole", dic::RoiShapeKind::polygon}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto file = read_roi_file(kData / (std::string(c.name) + ".roi"));
    ASSERT_TRUE(file.is_ok()) << file.status().message();
    ASSERT_EQ(file.value().rois.size(), 1u);
    const dic::NamedRoi& roi = file.value().rois[0];
    EXPECT_EQ(roi.name, c.name);  // from the file's second header
    EXPECT_EQ(roi.shape.kind, c.kind);
    const dic::Mask m = render(roi.shape);
    const long off = differing(m, c.name);
    ASSERT_GE(off, 0) << "cannot read ImageJ's mask";
    std::cout << c.name << ": " << inside(m) << " px inside, " << off << " differ from ImageJ\n";
    EXPECT_GT(inside(m), 20);
    EXPECT_EQ(off, 0);
  }
}

// Sub-pixel rectangles and ovals: ImageJ fills them within whole pixels (x, y truncated, width
// and height rounded up), and they are read as those: makeOval(30.5, 10.5, 9, 6.5) fills the oval
// of 30, 10, 9 x 7 (11 of its 42 pixels differ from the oval as drawn).
TEST(ImagejRoi, SubPixelRectanglesAndOvalsAreReadAsThePixelsImageJFills) {
  for (const char* name : {"oval_subpixel", "rect_subpixel"}) {
    auto file = read_roi_file(kData / (std::string(name) + ".roi"));
    ASSERT_TRUE(file.is_ok()) << file.status().message();
    EXPECT_EQ(differing(render(file.value().rois[0].shape), name), 0) << name;
  }
  auto oval = read_roi_file(kData / "oval_subpixel.roi");
  EXPECT_EQ(dic::to_string(oval.value().rois[0].shape), "ellipse:34,13,4.5,3.5");
  dic::RoiShape drawn = oval.value().rois[0].shape;
  drawn.x = 30.5 + 4.5 - 0.5, drawn.y = 10.5 + 3.25 - 0.5, drawn.ry = 3.25;
  EXPECT_EQ(differing(render(drawn), "oval_subpixel"), 11);
}

TEST(ImagejRoi, WhatIsNotARegionIsRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"line", "an ImageJ straight line is not a region"},
      {"point", "an ImageJ point is not a region"},
      {"polyline", "an ImageJ segmented line is not a region"}};
  for (const auto& [name, why] : cases) {
    auto file = read_roi_file(kData / (std::string(name) + ".roi"));
    ASSERT_FALSE(file.is_ok()) << name;
    EXPECT_EQ(file.status().message(), "ImageJ ROI '" + std::string(name) + "': " + why);
  }
}

TEST(ImagejRoi, ANameBeyondAsciiComesFromTheSecondHeader) {
  auto file = read_roi_file(kData / "named.roi");
  ASSERT_TRUE(file.is_ok()) << file.status().message();
  EXPECT_EQ(file.value().rois[0].name, "zona \xC2\xB5m (\xC3\xBC)");  // "zona µm (ü)"
  // Without a name in the file, the file's own name (as ImageJ does).
  auto bytes = io::read_file(kData / "rect.roi");
  ASSERT_TRUE(bytes.is_ok());
  std::string plain = bytes.value().substr(0, 64);
  plain.replace(60, 4, std::string(4, '\0'));  // no second header
  auto roi = decode_roi(plain, "from_the_file");
  ASSERT_TRUE(roi.is_ok()) << roi.status().message();
  EXPECT_EQ(roi.value().name, "from_the_file");
}

TEST(ImagejRoi, TheRoiManagersZipOpensWithItsNamesAndSkipsTheLine) {
  auto file = read_roi_file(kData / "manager.zip");
  ASSERT_TRUE(file.is_ok()) << file.status().message();
  std::vector<std::string> names;
  for (const dic::NamedRoi& r : file.value().rois) names.push_back(r.name);
  const std::vector<std::string> expected = {"cell 1",           "oval",
                                             "polygon_subpixel", "ellipse_rotated",
                                             "composite_hole",   "zona \xC2\xB5m (\xC3\xBC)"};
  EXPECT_EQ(names, expected);
  ASSERT_EQ(file.value().skipped.size(), 1u);
  EXPECT_EQ(file.value().skipped[0], "line: an ImageJ straight line is not a region");
  // The same shapes as the lone files.
  auto rect = read_roi_file(kData / "rect.roi");
  ASSERT_TRUE(rect.is_ok());
  EXPECT_EQ(file.value().rois[0].shape, rect.value().rois[0].shape);
}

TEST(ImagejRoi, DamagedFilesAreRefusedWithTheirProblem) {
  auto bytes = io::read_file(kData / "polygon_subpixel.roi");
  ASSERT_TRUE(bytes.is_ok());
  const std::string good = bytes.value();
  // Every truncation: refused (before the vertices end) or whole (only the name is cut).
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto r = parse_roi_file(std::string_view(good).substr(0, n), "cut.roi");
    if (n < 64 + 12 * 4) {
      EXPECT_FALSE(r.is_ok()) << n << " bytes";
    }
  }
  EXPECT_EQ(parse_roi_file(good.substr(0, 40), "cut.roi").status().message(),
            "ImageJ ROI 'cut': is not an ImageJ ROI: 40 bytes, shorter than its 64-byte header");
  EXPECT_EQ(parse_roi_file(good.substr(0, 100), "cut.roi").status().message(),
            "ImageJ ROI 'cut': its 4 vertices are cut short");  // the name comes after
  EXPECT_EQ(parse_roi_file("\x89PNG\r\n\x1a\n", "cells.png").status().message(),
            "cells.png is neither an ImageJ ROI (.roi) nor a ZIP of them");
  std::string nan_vertex = good;  // first float x: 64 + 4 n
  nan_vertex.replace(64 + 16, 4, std::string("\x7f\xc0\x00\x00", 4));
  EXPECT_EQ(parse_roi_file(nan_vertex, "nan.roi").status().message(),
            "ImageJ ROI 'polygon_subpixel': vertex 1 is not a number within any image");
  // A ZIP with a damaged entry: refused, naming the entry.
  auto zip = io::read_file(kData / "manager.zip");
  ASSERT_TRUE(zip.is_ok());
  std::string damaged = zip.value();
  const std::size_t first = damaged.find("cell 1.roi");  // the local header's name
  ASSERT_NE(first, std::string::npos);
  damaged[first + 10 + 20] ^= 0x55;  // inside the compressed data
  auto r = parse_roi_file(damaged, "manager.zip");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("manager.zip: entry 'cell 1.roi'"), std::string::npos)
      << r.status().message();
}

class RoundTrip : public testing::TempDirTest {};

TEST_F(RoundTrip, WrittenZipsReadBackToTheSameShapesAndPixels) {
  const char* fixed = std::getenv("XCORR_TEST_SEED");
  const unsigned seed = fixed != nullptr ? static_cast<unsigned>(std::strtoul(fixed, nullptr, 10))
                                         : std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  // Sides and radii of 1 px and more: a shape covers at least one pixel (one that covers none
  // is refused by name: below).
  std::uniform_real_distribution<double> pos(-3.0, 55.0), len(1.0, 30.0);
  std::uniform_int_distribution<int> whole(-2, 50), vertices(3, 17);
  std::vector<dic::NamedRoi> rois;
  for (int k = 0; k < 30; ++k) {
    dic::RoiShape s;
    switch (k % 5) {
      case 0:  // a rectangle of whole pixels (x, y: its first pixel)
        s.kind = dic::RoiShapeKind::rectangle;
        s.x = whole(rng), s.y = whole(rng), s.width = 1 + std::abs(whole(rng)) % 20,
        s.height = 3 + std::abs(whole(rng)) % 15;
        break;
      case 1:
        s.kind = dic::RoiShapeKind::rectangle;
        s.x = pos(rng), s.y = pos(rng), s.width = len(rng), s.height = len(rng);
        break;
      case 2:  // an ellipse; every other one on pixel edges (ImageJ's whole-pixel oval)
        s.kind = dic::RoiShapeKind::ellipse;
        s.x = pos(rng), s.y = pos(rng), s.rx = len(rng), s.ry = len(rng);
        if (k % 10 == 2) {
          s.rx = 0.5 * (1 + std::abs(whole(rng)) % 30),
          s.ry = 0.5 * (1 + std::abs(whole(rng)) % 30);
          s.x = whole(rng) - 0.5 + s.rx, s.y = whole(rng) - 0.5 + s.ry;
        }
        break;
      default:
        s.kind = dic::RoiShapeKind::polygon;
        for (int i = vertices(rng); i > 0; --i) s.vertices.push_back({pos(rng), pos(rng)});
    }
    // Float32 in the file: values on a 1/64 px grid are held exactly, and so are their sums.
    const auto grid = [](double v) { return std::round(v * 64) / 64; };
    for (double* v : {&s.x, &s.y, &s.width, &s.height, &s.rx, &s.ry}) *v = grid(*v);
    for (dic::Point2& p : s.vertices) p = {grid(p.x), grid(p.y)};
    rois.push_back({k % 7 == 3 ? "same" : "cell " + std::to_string(k) + (k == 4 ? "/a" : ""), s});
  }
  const Status written = write_roi_zip(path("rois.zip"), rois);
  ASSERT_TRUE(written.is_ok()) << written.message();
  {  // a rectangle 0.3 px wide between pixel centres covers none: refused by name
    dic::RoiShape thin;
    thin.kind = dic::RoiShapeKind::rectangle;
    thin.x = 3.1, thin.y = 2, thin.width = 0.3, thin.height = 4;
    const Status refused = write_roi_zip(path("thin.zip"), {{"thin", thin}});
    EXPECT_NE(refused.message().find("ROI 'thin' covers no pixel"), std::string::npos)
        << refused.message();
  }
  auto back = read_roi_file(path("rois.zip"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  ASSERT_EQ(back.value().rois.size(), rois.size());
  EXPECT_TRUE(back.value().skipped.empty());
  for (std::size_t k = 0; k < rois.size(); ++k) {
    SCOPED_TRACE("shape " + std::to_string(k) + ": " + dic::to_string(rois[k].shape));
    const dic::NamedRoi& got = back.value().rois[k];
    EXPECT_EQ(got.name, rois[k].name);
    // The same pixels always; the same shape for polygons and shapes on pixel edges (the others
    // become the whole pixels they cover).
    EXPECT_EQ(render(got.shape), render(rois[k].shape)) << dic::to_string(got.shape);
    if (k % 5 != 1 && k % 10 != 7) {
      EXPECT_EQ(got.shape, rois[k].shape) << dic::to_string(got.shape);
    }
  }
  // An output is never a folder; nothing to write is refused.
  EXPECT_FALSE(write_roi_zip(dir_, rois).is_ok());
  EXPECT_FALSE(write_roi_zip(path("none.zip"), {}).is_ok());
  EXPECT_FALSE(fs::exists(path("none.zip")));
}

// ImageJ itself opens what is written here and fills the same pixels: fresh random rectangles,
// ellipses and polygons inside a 60 x 40 image, through ImageJ's ROI Manager. Needs ImageJ
// (Debian's libij-java), java and xvfb-run; skipped without them (CI has none).
TEST_F(RoundTrip, ImageJOpensTheZipAndFillsTheSamePixels) {
  const fs::path jar = "/usr/share/java/ij.jar";
  if (!fs::exists(jar) ||
      std::system("command -v java >/dev/null && command -v xvfb-run >/dev/null") != 0)
    GTEST_SKIP() << "no ImageJ, java or xvfb-run here";
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> x(2.0, 50.0), y(2.0, 30.0), len(1.0, 9.0);
  std::vector<dic::NamedRoi> rois;
  for (int k = 0; k < 12; ++k) {
    dic::RoiShape s;
    s.kind = k % 3 == 0   ? dic::RoiShapeKind::rectangle
             : k % 3 == 1 ? dic::RoiShapeKind::ellipse
                          : dic::RoiShapeKind::polygon;
    s.x = x(rng), s.y = y(rng), s.width = len(rng), s.height = len(rng), s.rx = len(rng) / 2,
    s.ry = len(rng) / 2;
    if (k == 1) s.x = 20, s.y = 20.5, s.rx = 7.5, s.ry = 4;  // on pixel edges: an oval
    for (int i = 0; k % 3 == 2 && i < 5; ++i) s.vertices.push_back({x(rng), y(rng)});
    rois.push_back({"shape " + std::to_string(k), s});
  }
  ASSERT_TRUE(write_roi_zip(path("ours.zip"), rois).is_ok());
  std::ofstream(path("fill.ijm")) << R"(args = split(getArgument(), ",");
roiManager("open", args[0]);
s = "";
for (i = 0; i < roiManager("count"); i++) {
  newImage("m", "8-bit black", 60, 40, 1);
  roiManager("select", i);
  setColor(1); fill(); run("Select None");
  for (y = 0; y < 40; y++) { for (x = 0; x < 60; x++) s = s + getPixel(x, y); s = s + "\n"; }
  close();
}
File.saveString(s, args[1]);
)";
  const std::string command = "xvfb-run -a java -jar " + jar.string() + " -batch " +
                              path("fill.ijm") + " " + path("ours.zip") + "," + path("masks.txt") +
                              " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path("masks.txt"));
  for (const dic::NamedRoi& roi : rois) {
    const dic::Mask m = render(roi.shape);
    long off = 0;
    std::string line;
    for (Index r = 0; r < kRows && std::getline(in, line); ++r)
      for (Index c = 0; c < kCols && c < static_cast<Index>(line.size()); ++c)
        off += (line[static_cast<std::size_t>(c)] == '1') !=
               (m[static_cast<std::size_t>(r * kCols + c)] != 0);
    EXPECT_EQ(off, 0) << roi.name << ": " << dic::to_string(roi.shape);
  }
  EXPECT_TRUE(in.good());
}

TEST(ImagejRoi, ShapesBeyondTheFormatAreRefusedWhenWriting) {
  dic::NamedRoi far{"far", {}};
  far.shape.kind = dic::RoiShapeKind::rectangle;
  far.shape.x = 70000, far.shape.width = 10, far.shape.height = 10;
  auto r = encode_roi(far);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().message(),
            "ROI 'far' reaches beyond what an ImageJ ROI holds (-5000..60535 px)");
}

}  // namespace
}  // namespace xcorr::imagej
