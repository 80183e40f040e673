// The physical scale: the user's texts (pixel size, frame interval) parse or are refused by name;
// TIFFs written by tifffile (scripts/make_metadata_fixtures.py, tests/data/metadata/) give the
// pixel size, unit and frame interval that their OME-XML, ImageJ description or resolution tags
// hold; user values override the file's; a DIC run on such a stack writes the physical columns.
#include "core/io/image_metadata.hpp"

#include <gtest/gtest.h>
#include <tiffio.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/batch/batch_run.hpp"
#include "core/cpu/add_variants.hpp"
#include "core/io/image_io.hpp"
#include "core/io/lazy_stack.hpp"
#include "core/registry.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(XCORR_SOURCE_DIR) / "tests/data/metadata";

TEST(Scale, UserTextsParseWithTheirUnits) {
  auto a = parse_pixel_size("0.65um");
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a.value().pixel_x, 0.65);
  EXPECT_EQ(a.value().pixel_y, 0.65);
  EXPECT_EQ(a.value().unit, "um");
  auto b = parse_pixel_size(" 0.65 x 0.7 \xc2\xb5m");  // micro sign
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(b.value().pixel_y, 0.7);
  EXPECT_EQ(parse_pixel_size("120nm").value().unit, "nm");
  EXPECT_EQ(parse_pixel_size("1.5 micron").value().unit, "um");
  EXPECT_EQ(parse_duration("2s").value(), 2);
  EXPECT_EQ(parse_duration("500 ms").value(), 0.5);
  EXPECT_EQ(parse_duration("1.5min").value(), 90);
  EXPECT_EQ(parse_duration("2 h").value(), 7200);
  EXPECT_EQ(parse_pixel_size("0.65").status().message(),
            "pixel size '0.65': a length unit is needed, e.g. 0.65um (nm, um, mm, cm or m)");
  EXPECT_EQ(parse_duration("2").status().message(),
            "frame interval '2': a time unit is needed, e.g. 2s (ms, s, min or h)");
  EXPECT_EQ(parse_pixel_size("0.65 inch").status().message(),
            "pixel size '0.65 inch': unknown length unit 'inch' (nm, um, mm, cm or m)");
  EXPECT_EQ(parse_pixel_size("-1um").status().message(),
            "pixel size '-1um': a pixel size must be > 0");
  EXPECT_EQ(parse_pixel_size("um").status().message(),
            "pixel size 'um': expected a size and a unit, e.g. 0.65um or 0.65x0.7um");
  EXPECT_EQ(parse_duration("0s").status().message(),
            "frame interval '0s': a frame interval must be > 0");
  EXPECT_EQ(parse_duration("2 days").status().message(),
            "frame interval '2 days': unknown time unit 'days' (ms, s, min or h)");
  EXPECT_FALSE(parse_duration("nan s").is_ok());
}

TEST(Scale, FileMetadataIsReadFromOmeImageJAndResolutionTags) {
  struct Case {
    const char* file;
    double x, y;
    const char* unit;
    double interval_s;
    const char* length_source;
  };
  const Case cases[] = {
      {"ome_um.ome.tif", 0.65, 0.70, "um", 2.5, "OME-XML"},
      {"ome_nm_deltat.ome.tif", 120, 120, "nm", 0.25, "OME-XML"},
      {"imagej_um.tif", 0.5, 0.5, "um", 30, "ImageJ description"},
      {"resolution_cm.tif", 2, 2, "um", 0, "TIFF resolution tags"},
  };
  for (const Case& c : cases) {
    auto s = read_image_scale(kData / c.file);
    ASSERT_TRUE(s.is_ok()) << c.file << ": " << s.status().message();
    EXPECT_NEAR(s.value().pixel_x, c.x, 1e-12) << c.file;
    EXPECT_NEAR(s.value().pixel_y, c.y, 1e-12) << c.file;
    EXPECT_EQ(s.value().unit, c.unit) << c.file;
    EXPECT_NEAR(s.value().frame_interval_s, c.interval_s, 1e-12) << c.file;
    EXPECT_EQ(s.value().length_source, c.length_source) << c.file;
  }
  EXPECT_EQ(read_image_scale(kData / "ome_nm_deltat.ome.tif").value().time_source,
            "OME-XML DeltaT");
  // No scale: 72 px per inch is a display default; malformed XML gives nothing, not a guess.
  for (const char* none : {"display_72dpi.tif", "ome_broken.tif"}) {
    auto s = read_image_scale(kData / none);
    ASSERT_TRUE(s.is_ok()) << none;
    EXPECT_FALSE(s.value().has_length()) << none;
    EXPECT_FALSE(s.value().has_time()) << none;
    EXPECT_TRUE(LazyStack::open(kData / none).is_ok()) << none << " still opens";
  }
  // The frames themselves read as written (values 1000 t + 10 r + c).
  auto st = read_image_stack(kData / "ome_um.ome.tif");
  ASSERT_TRUE(st.is_ok());
  ASSERT_EQ(st.value().frames.count(), 3);
  EXPECT_EQ(st.value().frames[2](5, 7), 2057.0f);
}

TEST(Scale, UserValuesOverrideTheFilesAndNoneDropsThem) {
  const ImageScale file = read_image_scale(kData / "ome_um.ome.tif").value();
  auto user = apply_user_scale(file, "1.2um", "");
  ASSERT_TRUE(user.is_ok());
  EXPECT_EQ(user.value().pixel_x, 1.2);
  EXPECT_EQ(user.value().length_source, "user");
  EXPECT_EQ(user.value().frame_interval_s, 2.5);
  EXPECT_EQ(user.value().time_source, "OME-XML TimeIncrement");
  EXPECT_EQ(describe(user.value()),
            "pixel 1.2 x 1.2 um (user); frame interval 2.5 s (OME-XML TimeIncrement)");
  auto none = apply_user_scale(file, "none", "none");
  ASSERT_TRUE(none.is_ok());
  EXPECT_FALSE(none.value().has_length());
  EXPECT_FALSE(none.value().has_time());
  EXPECT_FALSE(apply_user_scale(file, "12", "").is_ok());
}

// Parsers on their own: OME without units takes the schema's default (µm); the planes' DeltaT
// of the first C and Z only; an ImageJ description without `unit` gives no length.
TEST(Scale, ParsersFollowTheFormatsDefaults) {
  const char* ome =
      R"(<?xml version="1.0"?><OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06">)"
      R"(<Image><Pixels PhysicalSizeX="0.3" SizeC="2" SizeT="3">)"
      R"(<Plane TheC="0" TheZ="0" TheT="0" DeltaT="10"/><Plane TheC="1" TheZ="0" TheT="0" DeltaT="99"/>)"
      R"(<Plane TheC="0" TheZ="0" TheT="2" DeltaT="14"/></Pixels></Image></OME>)";
  const ImageScale s = scale_from_ome_xml(ome);
  EXPECT_EQ(s.pixel_x, 0.3);
  EXPECT_EQ(s.pixel_y, 0.3);
  EXPECT_EQ(s.unit, "um");
  EXPECT_EQ(s.frame_interval_s, 2);
  EXPECT_FALSE(
      scale_from_ome_xml("<OME><Image><Pixels PhysicalSizeX=\"-1\"/></Image></OME>").has_length());
  EXPECT_FALSE(scale_from_ome_xml("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
                                  "<OME><Pixels PhysicalSizeX=\"&e;\"/></OME>")
                   .has_length());
  EXPECT_FALSE(scale_from_imagej("ImageJ=1.54\nfinterval=2\n", 2, 2).has_length());
  EXPECT_EQ(scale_from_imagej("ImageJ=1.54\nfinterval=2\n", 2, 2).frame_interval_s, 2);
  EXPECT_EQ(scale_from_imagej("ImageJ=1.54\nunit=\\u00B5m\n", 4, 4).pixel_x, 0.25);
  EXPECT_EQ(scale_from_resolution(2, 25400, 25400).pixel_x, 1);  // 1 µm from px per inch
  EXPECT_FALSE(scale_from_resolution(1, 5, 5).has_length());     // no unit
}

// Hyperstacks (ImageJ CZT and OME-TIFF DimensionOrder XYCTZ, written by tifffile; every pixel of
// plane t, z, c is 1000 t + 100 c + 10 z): the frames are the time points of the chosen channel
// and z-plane, named by t, c and z; the reference can be any time point; a channel or z-plane
// the file does not have is refused with the count; the layout is read from the metadata.
TEST(Hyperstack, TheFramesAreTheTimePointsOfTheChosenChannelAndZ) {
  for (const char* file : {"imagej_hyperstack.tif", "ome_hyperstack.ome.tif"}) {
    auto meta = read_stack_metadata(kData / file);
    ASSERT_TRUE(meta.is_ok()) << file;
    EXPECT_EQ(meta.value().layout.channels, 2) << file;
    EXPECT_EQ(meta.value().layout.slices, 3) << file;
    EXPECT_EQ(meta.value().layout.frames, 4) << file;
    EXPECT_EQ(meta.value().scale.frame_interval_s, 3) << file;
    for (const long c : {0L, 1L}) {
      for (const long z : {0L, 2L}) {
        auto st = LazyStack::open(kData / file, LazyStack::kDefaultCacheBytes,
                                  {Channel::luminance, c, z});
        ASSERT_TRUE(st.is_ok()) << file << ": " << st.status().message();
        ASSERT_EQ(st.value()->count(), 4) << file;
        for (Index t = 0; t < 4; ++t) {
          auto f = st.value()->frame(t);
          ASSERT_TRUE(f.is_ok());
          EXPECT_EQ((*f.value())[0](3, 5), static_cast<float>(1000 * t + 100 * c + 10 * z))
              << file << " t " << t << " c " << c << " z " << z;
          auto r = st.value()->region(t, 1, 2, 2, 2);
          ASSERT_TRUE(r.is_ok());
          EXPECT_EQ(r.value()[0](1, 1), static_cast<float>(1000 * t + 100 * c + 10 * z));
          EXPECT_EQ(st.value()->time_of(t), t);
        }
      }
    }
    auto ref =
        LazyStack::open(kData / file, LazyStack::kDefaultCacheBytes, {Channel::luminance, 1, 2}, 2);
    ASSERT_TRUE(ref.is_ok()) << ref.status().message();
    EXPECT_EQ((*ref.value()->frame(0).value())[0](0, 0), 2120.0f);
    EXPECT_EQ((*ref.value()->frame(1).value())[0](0, 0), 120.0f);
    EXPECT_EQ((*ref.value()->frame(3).value())[0](0, 0), 3120.0f);
    EXPECT_EQ(ref.value()->time_of(0), 2);
    EXPECT_EQ(ref.value()->source(0).substr(ref.value()->source(0).find('[')).substr(0, 18),
              "[t 2, c 1, z 2: pa");
    const std::string name = std::string(file);
    EXPECT_EQ(
        LazyStack::open(kData / file, LazyStack::kDefaultCacheBytes, {Channel::luminance, 2, 0})
            .status()
            .message(),
        "'" + name + "' has 2 channels (numbered from 0): no channel 2");
    EXPECT_EQ(
        LazyStack::open(kData / file, LazyStack::kDefaultCacheBytes, {Channel::luminance, 0, 3})
            .status()
            .message(),
        "'" + name + "' has 3 z-planes (numbered from 0): no z-plane 3");
    EXPECT_EQ(
        LazyStack::open(kData / file, LazyStack::kDefaultCacheBytes, {}, 4).status().message(),
        "no reference page 4: '" + name + "' holds 4 time points (numbered from 0)");
  }
  // A plain stack has one channel and one z-plane.
  EXPECT_EQ(LazyStack::open(kData / "imagej_um.tif", LazyStack::kDefaultCacheBytes,
                            {Channel::luminance, 1, 0})
                .status()
                .message(),
            "'imagej_um.tif' has 1 channel (numbered from 0): no channel 1");
  // The option's text.
  EXPECT_EQ(parse_channel_text("green").value().colour, Channel::green);
  EXPECT_EQ(parse_channel_text("3").value().channel, 3);
  EXPECT_FALSE(parse_channel_text("-1").is_ok());
  EXPECT_EQ(parse_channel_text("cyan").status().message(),
            "channel 'cyan': expected luminance, red, green, blue (colour images) or a channel "
            "number 0, 1, ... (hyperstacks)");
}

class ScaledRun : public testing::TempDirTest {};

// A DIC job on an OME-TIFF writes the physical columns from its metadata, and the job's
// pixel_size overrides it; frame times follow the pages, the reference page included.
TEST_F(ScaledRun, ADicRunWritesThePhysicalColumnsOfItsStack) {
  // A 3-page stack of the sample with OME-XML: 0.5 um pixels, 4 s per frame.
  auto sample = read_image_stack(std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif");
  ASSERT_TRUE(sample.is_ok());
  StackView<const float> pages = sample.value().frames.view();
  pages.count = 3;
  const fs::path plain = path("plain.tif");
  ASSERT_TRUE(write_image_stack(plain, pages, PixelType::u16).is_ok());
  {  // OME-XML in page 0's description, as an OME-TIFF writer puts it (libtiff, in place)
    TIFF* tif = TIFFOpen(plain.c_str(), "r+");
    ASSERT_NE(tif, nullptr);
    const char* xml =
        R"(<?xml version="1.0"?><OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06">)"
        R"(<Image ID="Image:0"><Pixels PhysicalSizeX="0.5" PhysicalSizeXUnit="&#181;m" )"
        R"(PhysicalSizeY="0.5" PhysicalSizeYUnit="&#181;m" TimeIncrement="4" SizeT="3"/>)"
        R"(</Image></OME>)";
    ASSERT_EQ(TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, xml), 1);
    ASSERT_EQ(TIFFRewriteDirectory(tif), 1);
    TIFFClose(tif);
  }
  dic::DicJob job;
  job.reference = plain.string();
  job.out = path("out.csv");
  job.roi.shapes.push_back(dic::parse_roi_shape("rect:60,60,100,100").value());
  job.options.subset = 31;
  job.options.step = 20;
  job.options.device = "cpu";
  job.reference_page = 1;
  Registry reg;
  add_cpu_variants(reg);
  auto r =
      batch::run_job(job, [&reg](const dic::DicOptions&) { return dic::make_cpu_registrar(reg); });
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  std::ifstream f(job.out);
  std::stringstream text;
  text << f.rdbuf();
  const std::string csv = text.str();
  EXPECT_NE(csv.find("# scale: pixel 0.5 x 0.5 um (OME-XML); frame interval 4 s (OME-XML "
                     "TimeIncrement)"),
            std::string::npos)
      << csv.substr(0, 1500);
  EXPECT_NE(csv.find(",sigma_u,sigma_v,x_um,y_um,u_um,v_um,sigma_u_um,sigma_v_um,time_s\n"),
            std::string::npos);
  // Frame 1 is page 0 (one interval before the reference page 1), frame 2 is page 2.
  EXPECT_NE(csv.find("\n1,75.0,75.0,"), std::string::npos) << csv.substr(0, 2000);
  std::istringstream lines(csv);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 'f') continue;
    ++rows;
    std::vector<std::string> cells;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    ASSERT_EQ(cells.size(), 20u) << line;
    const double x = std::stod(cells[1]), u = std::stod(cells[3]);
    EXPECT_DOUBLE_EQ(std::stod(cells[13]), x * 0.5) << line;
    if (cells[10] == "converged") {
      EXPECT_NEAR(std::stod(cells[15]), u * 0.5, 1e-6) << line;
      EXPECT_NEAR(std::stod(cells[17]), std::stod(cells[11]) * 0.5, 1e-6) << line;
    }
    EXPECT_EQ(std::stod(cells[19]), cells[0] == "1" ? -4.0 : 4.0) << line;
  }
  EXPECT_GT(rows, 10);
  // The user's value replaces the file's in the job (and so in the project).
  job.options.pixel_size = "250nm";
  job.out = path("user.csv");
  ASSERT_TRUE(batch::run_job(job, [&reg](const dic::DicOptions&) {
                return dic::make_cpu_registrar(reg);
              }).is_ok());
  std::ifstream g(job.out);
  std::stringstream again;
  again << g.rdbuf();
  EXPECT_NE(again.str().find("# scale: pixel 250 x 250 nm (user); frame interval 4 s (OME-XML"),
            std::string::npos);
  EXPECT_NE(again.str().find(",x_nm,y_nm,u_nm,v_nm,sigma_u_nm,sigma_v_nm,time_s\n"),
            std::string::npos);
}

}  // namespace
}  // namespace xcorr::io
