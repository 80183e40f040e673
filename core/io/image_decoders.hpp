// What read_image_stack (image_io_tiff.cpp: TIFF through libtiff) leaves to a second decoder:
// colour TIFF pages, files that are not TIFF (PNG, BMP, JPEG) and the writing of images.
// image_io_codecs.cpp implements these (XCORR_WITH_CODECS: libtiff, libpng, libjpeg, stb_image's
// BMP reader); image_io_tiff_only.cpp (a build without them: the GPU machine's, an HPC node's)
// refuses colour and non-TIFF images by name and writes TIFF only. Both write TIFF through
// TiffWriter. Internal to core/io.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"

struct tiff;  // libtiff's TIFF

namespace xcorr::io {

// One decoded page: rows x cols values (row-major) as float32, exactly as stored, and the pixel
// type of the file.
struct DecodedPage {
  Index rows = 0, cols = 0;
  std::vector<float> values;
  PixelType type = PixelType::u8;
};

// Whether the current page of `tif` is colour (RGB or RGBA of 8 or 16-bit unsigned samples).
bool colour_tiff_page(tiff* tif);

// The current colour page of `tif` as one grey page (`channel`), appended to `pages`.
// `source` names the page in errors; `file_bytes` and `decoded` as in tiff_page_data_problem.
Status read_colour_tiff_page(tiff* tif, const std::string& source, std::uint64_t file_bytes,
                             double& decoded, Channel channel, std::vector<DecodedPage>& pages);

// The one page of a file that is not TIFF (PNG, BMP, JPEG; told by its first bytes here),
// appended with its name.
Status read_other_image(const std::filesystem::path& file, Channel channel,
                        std::vector<DecodedPage>& pages, std::vector<std::string>& sources);

}  // namespace xcorr::io
