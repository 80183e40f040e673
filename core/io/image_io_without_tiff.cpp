// image_io.hpp when built without libtiff (XCORR_WITH_TIFF=OFF): images are unavailable.
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"

namespace xcorr::io {
namespace {
Status no_images(const std::filesystem::path& p) {
  return {ErrorCode::unsupported,
          "cannot read or write image '" + p.string() +
              "': this build has no image support (built without libtiff); use matrix CSV"};
}
}  // namespace

bool images_supported() {
  return false;
}
Result<ImageStack> read_image_stack(const std::filesystem::path& path, Channel) {
  return no_images(path);
}
Result<Shape> image_shape(const std::filesystem::path& path) {
  return no_images(path);
}
Status write_image_stack(const std::filesystem::path& path, StackView<const float>, PixelType) {
  return no_images(path);
}
Result<ImageScale> read_image_scale(const std::filesystem::path& file) {
  return no_images(file);
}
Result<StackMetadata> read_stack_metadata(const std::filesystem::path& file) {
  return no_images(file);
}

}  // namespace xcorr::io
