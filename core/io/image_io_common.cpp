// The parts of image_io.hpp that do not need OpenCV.
#include <algorithm>
#include <cctype>

#include "core/enum_labels.hpp"
#include "core/io/image_io.hpp"
#include "core/io/matrix_csv.hpp"

namespace xcorr {
template <>
struct EnumLabels<io::PixelType> {
  static constexpr std::pair<io::PixelType, const char*> table[] = {
      {io::PixelType::u8, "8-bit"},
      {io::PixelType::u16, "16-bit"},
      {io::PixelType::f32, "32-bit float"}};
};
}  // namespace xcorr

namespace xcorr::io {

const char* to_string(PixelType t) {
  return label(t);
}

bool has_image_extension(const std::filesystem::path& p) {
  const std::string ext = lowercase_extension(p);
  return ext == ".tif" || ext == ".tiff" || ext == ".png" || ext == ".bmp" || ext == ".jpg" ||
         ext == ".jpeg";
}

Result<Stack<float>> read_matrices(const std::filesystem::path& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == ".csv" || ext == ".txt") return read_matrix_csv(path);
  auto images = read_image_stack(path);
  if (!images.is_ok()) return images.status();
  return std::move(images.value().frames);
}

}  // namespace xcorr::io
