#include "core/io/tiff_page.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/io/tiff_integrity.hpp"

namespace xcorr::io {
namespace {

const char* kind_of(std::uint16_t format) {
  switch (format) {
    case SAMPLEFORMAT_UINT:
      return "unsigned integer";
    case SAMPLEFORMAT_INT:
      return "signed integer";
    case SAMPLEFORMAT_IEEEFP:
      return "float";
    default:
      return "complex or untyped";
  }
}

bool decodable(std::uint16_t bits, std::uint16_t format) {
  switch (format) {
    case SAMPLEFORMAT_UINT:
      return (bits >= 1 && bits <= 16) || bits == 32;
    case SAMPLEFORMAT_INT:
      return bits == 8 || bits == 16 || bits == 32;
    case SAMPLEFORMAT_IEEEFP:
      return bits == 32 || bits == 64;
    default:
      return false;
  }
}

// One row of `n` samples, as stored, into floats. libtiff has already put 16/32/64-bit samples
// in host byte order; other depths are a big-endian bit stream that starts each row on a byte.
void unpack_row(const unsigned char* src, std::uint32_t n, const TiffGreyLayout& l, float* dst) {
  auto typed = [&](auto zero) {
    using T = decltype(zero);
    for (std::uint32_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, src + std::size_t{i} * sizeof(T), sizeof(T));
      dst[i] = static_cast<float>(v);
    }
  };
  const bool u = l.format == SAMPLEFORMAT_UINT, s = l.format == SAMPLEFORMAT_INT;
  if (u && l.bits == 8) return typed(std::uint8_t{});
  if (s && l.bits == 8) return typed(std::int8_t{});
  if (u && l.bits == 16) return typed(std::uint16_t{});
  if (s && l.bits == 16) return typed(std::int16_t{});
  if (u && l.bits == 32) return typed(std::uint32_t{});
  if (s && l.bits == 32) return typed(std::int32_t{});
  if (l.format == SAMPLEFORMAT_IEEEFP && l.bits == 32) return typed(float{});
  if (l.format == SAMPLEFORMAT_IEEEFP && l.bits == 64) return typed(double{});
  std::uint64_t bit = 0;  // unsigned 1-7 and 9-15 bits
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t v = 0;
    for (int b = 0; b < l.bits; ++b, ++bit)
      v = (v << 1) | ((src[bit >> 3] >> (7 - (bit & 7))) & 1u);
    dst[i] = static_cast<float>(v);
  }
}

}  // namespace

std::string describe_tiff_page(TIFF* tif) {
  uint16_t bits = 0, samples = 1, format = SAMPLEFORMAT_UINT;
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  return std::to_string(samples) + (samples == 1 ? " sample" : " samples") + " per pixel of " +
         std::to_string(bits) + "-bit " + kind_of(format);
}

Result<TIFF*> open_tiff(const std::filesystem::path& path) {
  capture_tiff_errors();
  TIFF* tif = TIFFOpen(path.c_str(), "rm");
  if (tif == nullptr) {
    return Status{ErrorCode::io_error, "cannot decode '" + path.string() +
                                           "': the file is corrupt or truncated (no readable "
                                           "header)"};
  }
  return tif;
}

Result<TiffGreyLayout> tiff_grey_layout(TIFF* tif) {
  TiffGreyLayout l;
  uint16_t samples = 1;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l.width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l.height);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l.bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l.format);
  l.tiled = TIFFIsTiled(tif) != 0;
  if (samples != 1 || !decodable(l.bits, l.format))
    return Status{ErrorCode::unsupported, describe_tiff_page(tif)};
  if (l.width == 0 || l.height == 0)
    return Status{ErrorCode::invalid_argument, "a page of " + std::to_string(l.height) + "x" +
                                                   std::to_string(l.width) + " pixels (empty)"};
  if (std::uint64_t{l.width} * l.height > kMaxTiffPagePixels)
    return Status{ErrorCode::invalid_argument,
                  "a page of " + std::to_string(l.height) + "x" + std::to_string(l.width) +
                      " pixels, more than this reader's limit of 2^31 pixels (8 GiB as float32)"};
  l.type = l.format != SAMPLEFORMAT_UINT ? PixelType::f32
           : l.bits <= 8                 ? PixelType::u8
           : l.bits <= 16                ? PixelType::u16
                                         : PixelType::f32;
  return l;
}

std::string tiff_page_data_problem(TIFF* tif, std::uint64_t file_bytes, double& decoded_bytes) {
  const bool tiled = TIFFIsTiled(tif) != 0;
  uint64_t* offsets = nullptr;
  uint64_t* counts = nullptr;
  if (!TIFFGetField(tif, tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) ||
      !TIFFGetField(tif, tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts))
    return "it has no image data table";
  const uint32_t n = tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
  std::uint64_t stored = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (offsets[i] > file_bytes || counts[i] > file_bytes - offsets[i])
      return "its data lies past the file's end";
    stored += counts[i];
  }
  uint32_t w = 0, h = 0;
  uint16_t bits = 0, samples = 1, compression = COMPRESSION_NONE;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
  // What decoding takes: the page, or for tiles the whole grid of tiles (a tile may be far wider
  // than its page, and is decoded whole).
  double pixels = static_cast<double>(w) * h;
  if (tiled) {
    uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    pixels = std::max(pixels, static_cast<double>(n) * tw * th);
  }
  const double raw = static_cast<double>((std::uint64_t{w} * bits * samples + 7) / 8) * h;
  if (compression == COMPRESSION_NONE && !tiled && static_cast<double>(stored) < raw)
    return "it stores " + std::to_string(stored) + " bytes for a " + std::to_string(h) + "x" +
           std::to_string(w) + " page of " + std::to_string(static_cast<std::uint64_t>(raw));
  // Strips may share bytes: a page expands from at most the whole file.
  stored = std::min(stored, file_bytes);
  const auto limit = [](std::uint64_t from) {
    return std::max(kMaxExpansionFloor, kMaxCompressionRatio * static_cast<double>(from));
  };
  if (4.0 * pixels > limit(stored))
    return "a " + std::to_string(h) + "x" + std::to_string(w) + " page" +
           (tiled && pixels > static_cast<double>(w) * h
                ? " in tiles of " + std::to_string(static_cast<std::uint64_t>(pixels / n)) +
                      " pixels"
                : "") +
           " from " + std::to_string(stored) + " stored bytes is more than this reader expands (" +
           std::to_string(static_cast<int>(kMaxCompressionRatio)) + ":1 beyond 256 MiB)";
  decoded_bytes += 4.0 * pixels;
  if (decoded_bytes > limit(file_bytes))
    return "its pages would decode to " +
           std::to_string(static_cast<std::uint64_t>(decoded_bytes / 1048576)) + " MiB from " +
           std::to_string(file_bytes) + " bytes, more than this reader expands (" +
           std::to_string(static_cast<int>(kMaxCompressionRatio)) + ":1 beyond 256 MiB)";
  return {};
}

Status decode_tiff_page(TIFF* tif, const TiffGreyLayout& l, float* out, const std::string& source) {
  return decode_tiff_region(tif, l, {0, 0, l.height, l.width}, out, source);
}

Status decode_tiff_region(TIFF* tif, const TiffGreyLayout& l, const PixelRect& rect, float* out,
                          const std::string& source) {
  auto damaged = [&](const std::string& where) {
    return Status{ErrorCode::io_error,
                  "cannot decode " + source + ": corrupt or truncated (" + where + ")"};
  };
  if (rect.rows == 0 || rect.cols == 0 || rect.y > l.height || rect.rows > l.height - rect.y ||
      rect.x > l.width || rect.cols > l.width - rect.x)
    return Status{ErrorCode::invalid_argument, "a region outside " + source};
  const std::uint32_t y_end = rect.y + rect.rows, x_end = rect.x + rect.cols;
  // Writes source row `row` (its columns [c0, c0 + n) are in `values`) into `out`.
  auto put = [&](std::uint32_t row, std::uint32_t c0, const float* values, std::uint32_t n) {
    const std::uint32_t a = std::max(c0, rect.x), b = std::min(c0 + n, x_end);
    if (row < rect.y || row >= y_end || a >= b) return;
    std::copy(values + (a - c0), values + (b - c0),
              out + std::size_t{row - rect.y} * rect.cols + (a - rect.x));
  };
  if (!l.tiled) {
    const tmsize_t line_bytes = TIFFScanlineSize(tif);
    if (line_bytes <= 0 ||
        static_cast<std::uint64_t>(line_bytes) < (std::uint64_t{l.width} * l.bits + 7) / 8)
      return damaged("row size");
    uint32_t rows_per_strip = l.height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    rows_per_strip = std::clamp<uint32_t>(rows_per_strip, 1, l.height);
    std::vector<unsigned char> strip(static_cast<std::size_t>(line_bytes) * rows_per_strip);
    std::vector<float> values(l.width);
    for (uint32_t row = rect.y / rows_per_strip * rows_per_strip; row < y_end;
         row += rows_per_strip) {
      const uint32_t rows = std::min(rows_per_strip, l.height - row);
      const tmsize_t want = line_bytes * static_cast<tmsize_t>(rows);
      const tmsize_t got =
          TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, row, 0), strip.data(), want);
      if (got < want)
        return damaged("rows " + std::to_string(row) + "-" + std::to_string(row + rows - 1));
      for (uint32_t r = 0; r < rows; ++r) {
        if (row + r < rect.y || row + r >= y_end) continue;
        unpack_row(strip.data() + static_cast<std::size_t>(line_bytes) * r, l.width, l,
                   values.data());
        put(row + r, 0, values.data(), l.width);
      }
    }
    return Status::ok();
  }
  uint32_t tw = 0, th = 0;
  TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
  TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
  const tmsize_t tile_bytes = TIFFTileSize(tif), tile_row_bytes = TIFFTileRowSize(tif);
  if (tw == 0 || th == 0 || tile_bytes <= 0 || tile_row_bytes <= 0 ||
      static_cast<std::uint64_t>(tile_row_bytes) < (std::uint64_t{tw} * l.bits + 7) / 8)
    return damaged("tile size");
  std::vector<unsigned char> tile(static_cast<std::size_t>(tile_bytes));
  std::vector<float> values(tw);
  for (uint32_t y = rect.y / th * th; y < y_end; y += th) {
    for (uint32_t x = rect.x / tw * tw; x < x_end; x += tw) {
      if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, 0), tile.data(), tile_bytes) <
          tile_bytes)
        return damaged("the tile at row " + std::to_string(y) + ", column " + std::to_string(x));
      const uint32_t cols = std::min(tw, l.width - x), rows = std::min(th, l.height - y);
      for (uint32_t r = 0; r < rows; ++r) {
        unpack_row(tile.data() + static_cast<std::size_t>(tile_row_bytes) * r, tw, l,
                   values.data());
        put(y + r, x, values.data(), cols);
      }
    }
  }
  return Status::ok();
}

}  // namespace xcorr::io
