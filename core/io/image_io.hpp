// Image stacks from TIFF (single and multi-page), PNG, BMP and JPEG files, or from a folder of
// such files in natural order. Pixels become float32 grey values without rescaling: a 16-bit
// 40000 stays 40000.0f, a 12-bit TIFF's 2793 stays 2793.0f, a 1-bit TIFF gives 0 and 1. Grey
// TIFF pages are read with libtiff (core/io/tiff_page.hpp: every depth it lists); colour images
// (RGB/RGBA TIFF of 8 or 16 bits, PNG, BMP, JPEG) become grey with OpenCV's weights
// (0.299 R + 0.587 G + 0.114 B; core/io/codecs.hpp) or give one channel. Pixel type: u8 for
// unsigned <= 8 bits, u16 for 9-16 bits, f32 for the rest.
// Built without XCORR_WITH_CODECS, colour images, PNG, BMP and JPEG are refused by name and only
// TIFF is written; built without libtiff, every call returns ErrorCode::unsupported.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/io/channel.hpp"
#include "core/io/extension.hpp"  // lowercase_extension
#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::io {

enum class PixelType { u8, u16, f32 };
const char* to_string(PixelType t);

struct ImageStack {
  Stack<float> frames;                     // count = number of frames
  PixelType pixel_type = PixelType::u8;    // of the source files
  std::vector<std::string> frame_sources;  // "name.tif" or "name.tif[page 3]", one per frame
};

bool images_supported();                                   // false when built without libtiff
bool has_image_extension(const std::filesystem::path& p);  // .tif .tiff .png .bmp .jpg .jpeg

// The image files of a folder (by extension), naturally sorted; an entry that cannot be examined
// (a symbolic link loop, a dangling link) is an error naming it, and so is a folder without images.
Result<std::vector<std::string>> image_names_in(const std::filesystem::path& folder);

// A file (all its pages) or a folder (all image files in it, naturally sorted); colour images
// give `channel` (core/io/channel.hpp).
Result<ImageStack> read_image_stack(const std::filesystem::path& path,
                                    Channel channel = Channel::luminance);

// Writes all matrices: multi-page for .tif/.tiff, exactly one matrix for .png/.bmp/.jpg.
// u8/u16 values are rounded and saturated; written atomically.
Status write_image_stack(const std::filesystem::path& path, StackView<const float> stack,
                         PixelType type);

// The size of a file's first image (rows x cols px) from its header where the format allows
// (TIFF, PNG, BMP), else by decoding it: for checking a folder's sizes without reading pixels.
Result<Shape> image_shape(const std::filesystem::path& path);

// Matrix CSV (.csv, .txt) or image file or folder, by path.
Result<Stack<float>> read_matrices(const std::filesystem::path& path);

}  // namespace xcorr::io
