// Real image files through OpenCV: round trips and every kind of bad input.
#include "core/io/image_io.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"

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
