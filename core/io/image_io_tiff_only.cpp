// The second decoder of core/io/image_decoders.hpp in a build with libtiff and without the other
// codecs (XCORR_WITH_CODECS=OFF: the GPU machine's build, an HPC node's): grey TIFF pages are
// read as in every build; colour pages, PNG, BMP and JPEG are refused by name, and images are
// written as TIFF only (TiffWriter, as in every build).
#include "core/io/image_decoders.hpp"
#include "core/io/tiff_writer.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

Status no_codecs(const std::string& what) {
  return {ErrorCode::unsupported,
          what + ": this build reads and writes grey TIFF only (built without XCORR_WITH_CODECS)"};
}

}  // namespace

Status read_colour_tiff_page(tiff*, const std::string& source, std::uint64_t, double&, Channel,
                             std::vector<DecodedPage>&) {
  return no_codecs(source + " is an RGB page");
}

Status read_other_image(const fs::path& file, Channel, std::vector<DecodedPage>&,
                        std::vector<std::string>&) {
  return no_codecs("'" + file.string() + "' is not a TIFF file");
}

Status write_image_stack(const fs::path& path, StackView<const float> s, PixelType type) {
  if (s.count < 1)
    return {ErrorCode::invalid_argument,
            "nothing to write to '" + path.string() + "' (no matrices)"};
  const std::string ext = lowercase_extension(path);
  if (ext != ".tif" && ext != ".tiff") return no_codecs("cannot write '" + path.string() + "'");
  return write_tiff_stack(path, s, type);
}

}  // namespace xcorr::io
