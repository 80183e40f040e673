// The parts of image_io.hpp that need no image library.
#include <algorithm>
#include <cctype>

#include "core/enum_labels.hpp"
#include "core/io/image_io.hpp"
#include "core/io/matrix_csv.hpp"
#include "core/io/natural_sort.hpp"

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

Result<std::vector<std::string>> image_names_in(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!has_image_extension(it->path())) continue;
    std::error_code type_ec;
    const bool file = it->is_regular_file(type_ec);
    if (type_ec) {  // a symbolic link loop, a dangling link, no permission
      return Status{ErrorCode::io_error,
                    "cannot read '" + it->path().string() + "': " + type_ec.message()};
    }
    if (file) names.push_back(it->path().filename().string());
  }
  if (ec)
    return Status{ErrorCode::io_error,
                  "cannot list folder '" + folder.string() + "': " + ec.message()};
  if (names.empty()) {
    return Status{ErrorCode::invalid_argument,
                  "folder '" + folder.string() +
                      "' contains no images (.tif .tiff .png .bmp .jpg .jpeg): empty stack"};
  }
  natural_sort(names);
  return names;
}

Result<Stack<float>> read_matrices(const std::filesystem::path& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == ".csv" || ext == ".txt") return read_matrix_csv(path);
  auto images = read_image_stack(path);
  if (!images.is_ok()) return images.status();
  return std::move(images.value().frames);
}

}  // namespace xcorr::io
