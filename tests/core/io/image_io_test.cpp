// Real image files through the codecs (libtiff, libpng, libjpeg, stb_image's BMP reader): round
// trips, colour layouts and every kind of bad input. tests/core/opencv_agreement_test.cpp reads
// colour files against OpenCV.
#include "core/io/image_io.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_writing.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

class ImageIo : public testing::TempDirTest {
 protected:
  static Stack<float> integers(Index rows, Index cols, Index count, float max,
                               std::uint64_t stream) {
    Stack<float> s = testing::random_stack(rows, cols, count, stream, 0.0f, max);
    for (float& v : s.values()) v = std::floor(v);
    return s;
  }
};

TEST_F(ImageIo, MultiPage16BitTiffRoundTripsExactly) {
  const Stack<float> s = integers(37, 53, 4, 65535.0f, 1);
  ASSERT_TRUE(write_image_stack(dir_ / "s.tif", s.view(), PixelType::u16).is_ok());
  const auto back = read_image_stack(dir_ / "s.tif");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value().pixel_type, PixelType::u16);
  EXPECT_EQ(back.value().frames.count(), 4);
  EXPECT_EQ(back.value().frames.values(), s.values());
  EXPECT_EQ(back.value().frame_sources[2], "s.tif[page 2]");
}

TEST_F(ImageIo, EightBitPngAndFloatTiffRoundTrip) {
  const Stack<float> b = integers(20, 30, 1, 255.0f, 2);
  ASSERT_TRUE(write_image_stack(dir_ / "b.png", b.view(), PixelType::u8).is_ok());
  const auto png = read_image_stack(dir_ / "b.png");
  ASSERT_TRUE(png.is_ok()) << png.status().message();
  EXPECT_EQ(png.value().pixel_type, PixelType::u8);
  EXPECT_EQ(png.value().frames.values(), b.values());
  const Stack<float> f = testing::random_stack(9, 11, 2, 3, -5.0f, 5.0f);
  ASSERT_TRUE(write_image_stack(dir_ / "f.tif", f.view(), PixelType::f32).is_ok());
  const auto tif = read_image_stack(dir_ / "f.tif");
  ASSERT_TRUE(tif.is_ok()) << tif.status().message();
  EXPECT_EQ(tif.value().pixel_type, PixelType::f32);
  EXPECT_EQ(tif.value().frames.values(), f.values());
}

TEST_F(ImageIo, BmpRoundTripsAndJpegReadsBack) {
  const Stack<float> b = integers(16, 24, 1, 255.0f, 6);
  ASSERT_TRUE(write_image_stack(dir_ / "b.bmp", b.view(), PixelType::u8).is_ok());
  EXPECT_EQ(read_image_stack(dir_ / "b.bmp").value().frames.values(), b.values());
  Stack<float> smooth(32, 32, 1);  // JPEG is lossy: a smooth ramp comes back within a few levels
  for (Index r = 0; r < 32; ++r) {
    for (Index c = 0; c < 32; ++c) smooth[0](r, c) = static_cast<float>(4 * r + 2 * c);
  }
  ASSERT_TRUE(write_image_stack(dir_ / "j.jpg", smooth.view(), PixelType::u8).is_ok());
  const auto j = read_image_stack(dir_ / "j.jpg");
  ASSERT_TRUE(j.is_ok()) << j.status().message();
  ASSERT_EQ(j.value().frames.shape(), (Shape{32, 32}));
  for (std::size_t i = 0; i < smooth.values().size(); ++i)
    EXPECT_NEAR(j.value().frames.values()[i], smooth.values()[i], 8.0f);
}

TEST_F(ImageIo, SixteenBitPngRoundTripsExactly) {
  Stack<float> s = integers(23, 41, 1, 65535.0f, 7);  // odd and prime sides
  s[0](0, 0) = 0.0f;
  s[0](22, 40) = 65535.0f;
  ASSERT_TRUE(write_image_stack(dir_ / "w.png", s.view(), PixelType::u16).is_ok());
  const auto back = read_image_stack(dir_ / "w.png");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value().pixel_type, PixelType::u16);
  EXPECT_EQ(back.value().frames.values(), s.values());
  // Values are rounded and saturated as in TIFF; NaN (no data) is stored as 0.
  Stack<float> odd(1, 4, 1);
  odd[0](0, 0) = -3.0f;
  odd[0](0, 1) = 70000.0f;
  odd[0](0, 2) = 2.5f;
  odd[0](0, 3) = std::nanf("");
  ASSERT_TRUE(write_image_stack(dir_ / "odd.png", odd.view(), PixelType::u16).is_ok());
  EXPECT_EQ(read_image_stack(dir_ / "odd.png").value().frames.values(),
            (std::vector<float>{0.0f, 65535.0f, 2.0f, 0.0f}));
}

// Tiled colour pages (contiguous samples, RGB and RGBA, 8 and 16 bits, tiles that overhang the
// page) read as the same pixels in strips, for every channel choice.
TEST_F(ImageIo, TiledColourTiffReadsAsStrips) {
  for (const std::uint16_t samples : {3, 4}) {
    for (const std::uint16_t bits : {8, 16}) {
      testing::TiffPageSpec strips{37, 19, bits, SAMPLEFORMAT_UINT, samples, 0, 4, {}};
      std::mt19937 random(bits + samples);
      std::uniform_int_distribution<int> value(0, bits == 8 ? 255 : 65535);
      for (int i = 0; i < 37 * 19 * samples; ++i) strips.values.push_back(value(random));
      testing::TiffPageSpec tiles = strips;
      tiles.tile = 16;
      testing::write_tiff(dir_ / "strips.tif", {strips, strips});
      testing::write_tiff(dir_ / "tiles.tif", {tiles, tiles});
      for (const Channel c : {Channel::luminance, Channel::red, Channel::green, Channel::blue}) {
        const auto a = read_image_stack(dir_ / "strips.tif", c);
        const auto b = read_image_stack(dir_ / "tiles.tif", c);
        ASSERT_TRUE(a.is_ok()) << a.status().message();
        ASSERT_TRUE(b.is_ok()) << b.status().message();
        EXPECT_EQ(b.value().frames.count(), 2);
        EXPECT_EQ(b.value().pixel_type, bits == 8 ? PixelType::u8 : PixelType::u16);
        EXPECT_EQ(b.value().frames.values(), a.value().frames.values()) << bits << " " << samples;
        if (c == Channel::green) {
          EXPECT_EQ(b.value().frames[1](18, 36),
                    static_cast<float>(strips.values[(18 * 37 + 36) * samples + 1]));
        }
      }
    }
  }
}

// A PNG, JPEG or BMP cut short, or with its body replaced by noise, is refused in one line that
// names the file; nothing crashes.
TEST_F(ImageIo, DamagedPngJpegAndBmpAreNamed) {
  const Stack<float> s = integers(29, 31, 1, 255.0f, 8);
  for (const std::string name : {"d.png", "d.jpg", "d.bmp"}) {
    ASSERT_TRUE(write_image_stack(dir_ / name, s.view(), PixelType::u8).is_ok());
    const auto whole = read_image_stack(dir_ / name);
    ASSERT_TRUE(whole.is_ok()) << whole.status().message();
    fs::resize_file(dir_ / name, fs::file_size(dir_ / name) / 2);
    const auto cut = read_image_stack(dir_ / name);
    ASSERT_FALSE(cut.is_ok()) << name << " cut in half was read";
    EXPECT_NE(cut.status().message().find("cannot decode '" + (dir_ / name).string() + "'"),
              std::string::npos)
        << cut.status().message();
    EXPECT_EQ(cut.status().message().find('\n'), std::string::npos) << cut.status().message();
  }
  std::string noise = "\x89PNG\r\n\x1a\n";
  std::mt19937 random(9);
  for (int i = 0; i < 400; ++i) noise.push_back(static_cast<char>(random()));
  std::ofstream(dir_ / "noise.png", std::ios::binary) << noise;
  const auto r = read_image_stack(dir_ / "noise.png");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("noise.png"), std::string::npos) << r.status().message();
}

// A short BMP whose header claims millions of pixels is refused at once, before stb_image would
// decode them from nothing: the codecs fuzz target's 93-byte file (a negative compression field,
// which stb_image decodes as uncompressed, 13,041,799 x 10 px; it took 45 s under the sanitizers)
// and an OS/2-header BMP (16-bit sizes) of 20,000 x 20,000 px in 26 bytes.
TEST_F(ImageIo, AShortBmpClaimingManyPixelsIsRefusedAtOnce) {
  std::string os2 = "BM";
  for (const int byte :
       {26,   0,    0,    0,    0, 0, 0,  0, 26, 0, 0, 0,  // size, reserved, offset 26
        12,   0,    0,    0,                               // BITMAPCOREHEADER
        0x20, 0x4e, 0x20, 0x4e, 1, 0, 24, 0})              // 20000 x 20000, 1 plane, 24 bits
    os2.push_back(static_cast<char>(byte));
  std::ofstream(dir_ / "os2.bmp", std::ios::binary) << os2;
  const fs::path fuzzed =
      fs::path(XCORR_SOURCE_DIR) / "tests/fuzz/corpus/codecs/bmp-negative-compression.bmp";
  for (const fs::path& p : {fuzzed, dir_ / "os2.bmp"}) {
    const auto r = read_image_stack(p);
    ASSERT_FALSE(r.is_ok()) << p;
    EXPECT_NE(r.status().message().find("corrupt or truncated"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(p.filename().string()), std::string::npos)
        << r.status().message();
  }
}

TEST_F(ImageIo, FolderIsReadInNaturalOrder) {
  fs::create_directories(dir_ / "seq");
  for (int k : {10, 2, 1}) {
    Stack<float> s(4, 4, 1, static_cast<float>(k));
    ASSERT_TRUE(write_image_stack(dir_ / "seq" / ("f" + std::to_string(k) + ".png"), s.view(),
                                  PixelType::u8)
                    .is_ok());
  }
  std::ofstream(dir_ / "seq" / "notes.txt") << "not an image";
  const auto st = read_image_stack(dir_ / "seq");
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  ASSERT_EQ(st.value().frames.count(), 3);
  EXPECT_EQ(st.value().frames[0](0, 0), 1.0f);
  EXPECT_EQ(st.value().frames[1](0, 0), 2.0f);
  EXPECT_EQ(st.value().frames[2](0, 0), 10.0f);
}

TEST_F(ImageIo, TruncatedTiffIsReportedAsSuch) {
  const Stack<float> s = integers(64, 64, 3, 65535.0f, 4);
  ASSERT_TRUE(write_image_stack(dir_ / "t.tif", s.view(), PixelType::u16).is_ok());
  fs::resize_file(dir_ / "t.tif", fs::file_size(dir_ / "t.tif") / 2);
  const auto r = read_image_stack(dir_ / "t.tif");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("corrupt or truncated"), std::string::npos)
      << r.status().message();
}

TEST_F(ImageIo, BadInputsNameTheProblem) {
  auto message = [](const Result<ImageStack>& r) {
    return r.is_ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_NE(message(read_image_stack(dir_ / "missing.tif")).find("does not exist"),
            std::string::npos);
  fs::create_directories(dir_ / "empty");
  EXPECT_NE(message(read_image_stack(dir_ / "empty")).find("contains no images"),
            std::string::npos);
  std::ofstream(dir_ / "zero.tif").close();
  EXPECT_NE(message(read_image_stack(dir_ / "zero.tif")).find("is empty"), std::string::npos);
  std::ofstream(dir_ / "text.tif") << "this is not a TIFF at all, just some text";
  EXPECT_NE(message(read_image_stack(dir_ / "text.tif")).find("is not an image"),
            std::string::npos);
  fs::create_directories(dir_ / "mixed");
  ASSERT_TRUE(
      write_image_stack(dir_ / "mixed" / "a1.png", Stack<float>(4, 4, 1).view(), PixelType::u8)
          .is_ok());
  ASSERT_TRUE(
      write_image_stack(dir_ / "mixed" / "a2.png", Stack<float>(5, 4, 1).view(), PixelType::u8)
          .is_ok());
  EXPECT_NE(
      message(read_image_stack(dir_ / "mixed")).find("all frames of a stack must have one size"),
      std::string::npos);
}

TEST_F(ImageIo, ReadMatricesDispatchesOnTheExtension) {
  const Stack<float> s = integers(3, 3, 1, 255.0f, 5);
  ASSERT_TRUE(write_image_stack(dir_ / "x.png", s.view(), PixelType::u8).is_ok());
  EXPECT_EQ(read_matrices(dir_ / "x.png").value().values(), s.values());
  EXPECT_FALSE(read_matrices(dir_ / "x.csv").is_ok());
}

}  // namespace
}  // namespace xcorr::io
