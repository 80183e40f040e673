// check_tiff_integrity: the page count of a sound multi-page TIFF; a file cut in its last page
// or its directories is an io_error naming what is damaged; is_tiff_file goes by magic bytes.
#include "core/io/tiff_integrity.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/io/image_io.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

class TiffIntegrity : public testing::TempDirTest {};

TEST_F(TiffIntegrity, CountsPagesAndNamesDamage) {
  const Stack<float> s = testing::random_stack(40, 30, 4, 3, 0, 60000);
  ASSERT_TRUE(write_image_stack(path("s.tif"), s.view(), PixelType::u16).is_ok());
  ASSERT_TRUE(is_tiff_file(path("s.tif")));
  const auto pages = check_tiff_integrity(path("s.tif"));
  ASSERT_TRUE(pages.is_ok()) << pages.status().message();
  EXPECT_EQ(pages.value(), 4);

  fs::copy_file(path("s.tif"), path("cut.tif"));
  fs::resize_file(path("cut.tif"), fs::file_size(path("cut.tif")) * 2 / 3);
  const auto cut = check_tiff_integrity(path("cut.tif"));
  ASSERT_FALSE(cut.is_ok());
  EXPECT_EQ(cut.status().code(), ErrorCode::io_error);
  EXPECT_FALSE(cut.status().message().empty());

  std::ofstream(path("text.tif")) << "not a tiff at all";
  EXPECT_FALSE(is_tiff_file(path("text.tif")));
  EXPECT_FALSE(check_tiff_integrity(path("text.tif")).is_ok());
}

}  // namespace
}  // namespace xcorr::io
