// One TIFF page (the current directory of an open libtiff handle) decoded to float32 grey values
// exactly as stored: every unsigned integer depth from 1 to 16 bits and 32 bits (a 12-bit 2793
// stays 2793.0f, a 1-bit page gives 0 and 1), signed 8/16/32-bit integers, and 32/64-bit floats;
// strips or tiles; any compression libtiff decodes. Nothing is rescaled or inverted:
// MinSampleValue/MaxSampleValue describe a range and change no value, and PhotometricInterpretation
// MinIsWhite pages keep their stored numbers. Grey pages only (one sample per pixel); colour pages
// are the caller's (read_image_stack converts RGB/RGBA of 8 and 16 bits to grey).
// Used by read_image_stack and LazyStack, so both read a page the same way.
#pragma once

#include <cstdint>
#include <string>

#include "core/io/image_io.hpp"

struct tiff;  // libtiff's TIFF

namespace xcorr::io {

struct TiffGreyLayout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t bits = 0;    // BitsPerSample
  std::uint16_t format = 1;  // SampleFormat: 1 unsigned, 2 signed, 3 float
  bool tiled = false;
  PixelType type = PixelType::u8;  // u8: unsigned <= 8 bits, u16: unsigned 9-16, else f32
};

// TIFFOpen for reading ("rm": read(), not a memory map, so that a stack of many GB read frame by
// frame does not grow the process's resident memory by the file's size), with libtiff's
// messages captured (tiff_integrity.hpp); a file it cannot
// open is "cannot decode '<path>': the file is corrupt or truncated (no readable header)".
// The caller closes the handle (TIFFClose).
Result<tiff*> open_tiff(const std::filesystem::path& path);

// Pages of more pixels than this are refused (8 GiB as float32; OpenCV's int sizes also end here).
inline constexpr std::uint64_t kMaxTiffPagePixels = std::uint64_t{1} << 31;

// The current page's layout when it is grey and decodable here; otherwise ErrorCode::unsupported
// naming what the page holds (e.g. "4 samples per pixel of 32-bit float"), or invalid_argument
// for an empty page or one over kMaxTiffPagePixels.
Result<TiffGreyLayout> tiff_grey_layout(tiff* tif);

// "4 samples per pixel of 32-bit float", "1 sample per pixel of 12-bit unsigned integer".
std::string describe_tiff_page(tiff* tif);

// A decoded page (float32), and a file's decoded pages together, may be at most this many times
// the bytes stored for them, once past 256 MiB: a few hostile bytes that announce huge compressed
// pages are refused before the memory is taken. Real images (noise) compress far less.
inline constexpr double kMaxCompressionRatio = 4096;
inline constexpr double kMaxExpansionFloor = 256.0 * (1 << 20);

// Why the current page's data cannot be what it claims, or "" when it can: every strip or tile
// inside a file of `file_bytes` bytes, an uncompressed page holding all its pixels, and the page
// (for tiles, its whole grid of tiles, as decoded) and all pages so far (`decoded_bytes`,
// float32, which this call adds to) within kMaxCompressionRatio of what is stored.
std::string tiff_page_data_problem(tiff* tif, std::uint64_t file_bytes, double& decoded_bytes);

// Decodes the current page (layout from tiff_grey_layout) into `out`, row-major,
// height x width floats. `source` names the page in errors ("a.tif[page 3]").
Status decode_tiff_page(tiff* tif, const TiffGreyLayout& layout, float* out,
                        const std::string& source);

// Pixels [y, y + rows) x [x, x + cols) of a page.
struct PixelRect {
  std::uint32_t y = 0, x = 0, rows = 0, cols = 0;
};

// Only the strips or tiles that `rect` touches are read; `out` gets rect.rows x rect.cols floats.
Status decode_tiff_region(tiff* tif, const TiffGreyLayout& layout, const PixelRect& rect,
                          float* out, const std::string& source);

}  // namespace xcorr::io
