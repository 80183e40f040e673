// The second decoder of core/io/image_decoders.hpp (XCORR_WITH_CODECS): colour TIFF pages
// through libtiff (strips or tiles, contiguous samples or one plane per sample in strips), PNG,
// JPEG and BMP through core/io/codecs.hpp, and writing: TIFF through TiffWriter, the others
// through the same codecs.
#include <tiffio.h>

#include <algorithm>
#include <cstring>

#include "core/io/atomic_write.hpp"
#include "core/io/codecs.hpp"
#include "core/io/image_decoders.hpp"
#include "core/io/read_file.hpp"
#include "core/io/tiff_integrity.hpp"
#include "core/io/tiff_page.hpp"
#include "core/io/tiff_writer.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

Status row_error(const std::string& source, const std::string& where) {
  const std::string e = take_tiff_error();
  return {ErrorCode::io_error, "cannot decode " + source + ": corrupt or truncated (" + where +
                                   (e.empty() ? "" : ": " + e) + ")"};
}

// R, G, B of pixel x of a decoded row or tile row (`samples` interleaved, or one plane) into
// `to` (3 values).
void copy_rgb(const unsigned char* from, std::size_t x, std::uint16_t samples, std::size_t bytes,
              std::uint16_t* to) {
  for (std::size_t c = 0; c < 3; ++c) {
    std::uint16_t v = 0;
    std::memcpy(&v, from + (x * samples + c) * bytes, bytes);  // 8-bit: the low byte
    to[c] = v;
  }
}

// The current colour page (RGB or RGBA, 8 or 16-bit unsigned; alpha dropped) as stored.
Status read_colour_page(TIFF* tif, const std::string& source, std::uint64_t file_bytes,
                        double& decoded, SampleImage& image) {
  uint16_t bits = 0, samples = 1, planar = PLANARCONFIG_CONTIG;
  uint32_t width = 0, height = 0;
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
  const bool tiled = TIFFIsTiled(tif) != 0, separate = planar == PLANARCONFIG_SEPARATE;
  if (tiled && separate)
    return {ErrorCode::unsupported,
            source +
                " holds tiled colour planes (one plane per sample in tiles): this reader "
                "takes colour planes in strips, or tiles of contiguous samples"};
  if (width == 0 || height == 0 || std::uint64_t{width} * height > kMaxTiffPagePixels)
    return {ErrorCode::invalid_argument, source + " has a page of " + std::to_string(width) + "x" +
                                             std::to_string(height) + " px"};
  if (const std::string why = tiff_page_data_problem(tif, file_bytes, decoded); !why.empty())
    return {ErrorCode::io_error,
            "cannot decode " + source + ": corrupt or truncated (" + why + ")"};
  image.rows = height;
  image.cols = width;
  image.samples = 3;
  image.bits = bits;
  image.values.assign(std::size_t{width} * height * 3, 0);
  const std::size_t bytes = bits / 8;
  if (tiled) {
    uint32_t tile_width = 0, tile_height = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tile_width);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_height);
    if (tile_width == 0 || tile_height == 0)
      return {ErrorCode::io_error, "cannot decode " + source + ": tiles of 0 px"};
    std::vector<unsigned char> tile(static_cast<std::size_t>(TIFFTileSize64(tif)));
    for (uint32_t y0 = 0; y0 < height; y0 += tile_height) {
      for (uint32_t x0 = 0; x0 < width; x0 += tile_width) {
        if (TIFFReadTile(tif, tile.data(), x0, y0, 0, 0) < 0)
          return row_error(source, "tile at " + std::to_string(x0) + "," + std::to_string(y0));
        for (uint32_t y = y0; y < std::min(height, y0 + tile_height); ++y) {
          const unsigned char* row =
              tile.data() + std::size_t{y - y0} * tile_width * samples * bytes;
          for (uint32_t x = x0; x < std::min(width, x0 + tile_width); ++x)
            copy_rgb(row, x - x0, samples, bytes, &image.values[(std::size_t{y} * width + x) * 3]);
        }
      }
    }
    return Status::ok();
  }
  std::vector<unsigned char> line(static_cast<std::size_t>(TIFFScanlineSize64(tif)));
  for (uint16_t plane = 0; plane < (separate ? 3 : 1); ++plane) {
    for (uint32_t y = 0; y < height; ++y) {
      if (TIFFReadScanline(tif, line.data(), y, plane) != 1)
        return row_error(source, "row " + std::to_string(y));
      std::uint16_t* out = &image.values[std::size_t{y} * width * 3];
      for (uint32_t x = 0; x < width; ++x) {
        if (!separate) {
          copy_rgb(line.data(), x, samples, bytes, out + std::size_t{x} * 3);
          continue;
        }
        std::uint16_t v = 0;
        std::memcpy(&v, line.data() + std::size_t{x} * bytes, bytes);
        out[std::size_t{x} * 3 + plane] = v;
      }
    }
  }
  return Status::ok();
}

enum class Format { png, jpeg, bmp, other };

// The format by the file's first bytes.
Format format_of(const std::string& b) {
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(b[i]); };
  if (b.size() >= 8 && b.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0) return Format::png;
  if (b.size() >= 3 && at(0) == 0xFF && at(1) == 0xD8 && at(2) == 0xFF) return Format::jpeg;
  if (b.size() >= 2 && b[0] == 'B' && b[1] == 'M') return Format::bmp;
  return Format::other;
}

}  // namespace

DecodedPage grey_page(const SampleImage& image, Channel channel) {
  DecodedPage p;
  p.rows = image.rows;
  p.cols = image.cols;
  p.type = image.bits == 16 ? PixelType::u16 : PixelType::u8;
  const auto n = static_cast<std::size_t>(image.rows * image.cols);
  p.values.resize(n);
  const std::uint16_t* v = image.values.data();
  for (std::size_t i = 0; i < n; ++i) {
    if (image.samples == 1) {
      p.values[i] = v[i];
      continue;
    }
    const std::uint16_t* rgb = v + 3 * i;
    switch (channel) {
      case Channel::red:
        p.values[i] = rgb[0];
        break;
      case Channel::green:
        p.values[i] = rgb[1];
        break;
      case Channel::blue:
        p.values[i] = rgb[2];
        break;
      case Channel::luminance:  // OpenCV's cvtColor, bit for bit (checked against it)
        p.values[i] =
            static_cast<float>((std::uint32_t{rgb[0]} * 9798 + std::uint32_t{rgb[1]} * 19235 +
                                std::uint32_t{rgb[2]} * 3735 + 16384) >>
                               15);
        break;
    }
  }
  return p;
}

Status read_colour_tiff_page(TIFF* tif, const std::string& source, std::uint64_t file_bytes,
                             double& decoded, Channel channel, std::vector<DecodedPage>& pages) {
  SampleImage image;
  XCORR_RETURN_IF_ERROR(read_colour_page(tif, source, file_bytes, decoded, image));
  pages.push_back(grey_page(image, channel));
  return Status::ok();
}

Status read_other_image(const fs::path& file, Channel channel, std::vector<DecodedPage>& pages,
                        std::vector<std::string>& sources) {
  const std::string name = file.string();
  auto bytes = read_file(file);
  if (!bytes.is_ok()) return bytes.status();
  const Format f = format_of(bytes.value());
  if (f == Format::other)
    return {ErrorCode::unsupported,
            "'" + name + "' is not an image this reader knows (TIFF, PNG, BMP, JPEG)"};
  auto image = f == Format::png    ? decode_png(bytes.value(), name)
               : f == Format::jpeg ? decode_jpeg(bytes.value(), name, channel == Channel::luminance)
                                   : decode_bmp(bytes.value(), name);
  if (!image.is_ok()) return image.status();
  pages.push_back(grey_page(image.value(), channel));
  sources.push_back(file.filename().string());
  return Status::ok();
}

Status write_image_stack(const fs::path& path, StackView<const float> s, PixelType type) {
  if (s.count < 1)
    return {ErrorCode::invalid_argument,
            "nothing to write to '" + path.string() + "' (no matrices)"};
  const std::string ext = lowercase_extension(path);
  const bool tiff = ext == ".tif" || ext == ".tiff";
  if (!has_image_extension(path))
    return {ErrorCode::invalid_argument, "'" + path.string() + "': unknown image extension"};
  if (!tiff && s.count != 1) {
    return {ErrorCode::invalid_argument, "'" + path.string() +
                                             "': only TIFF holds several frames (" +
                                             std::to_string(s.count) + " given)"};
  }
  if (type == PixelType::f32 && !tiff) {
    return {ErrorCode::invalid_argument, "'" + path.string() + "': 32-bit float needs TIFF"};
  }
  if (type == PixelType::u16 && ext != ".png" && !tiff) {
    return {ErrorCode::invalid_argument, "'" + path.string() + "': 16-bit needs TIFF or PNG"};
  }
  if (tiff) return write_tiff_stack(path, s, type);
  const MatrixView<const float> m = s[0];
  SampleImage grey;
  grey.rows = m.rows;
  grey.cols = m.cols;
  grey.bits = type == PixelType::u16 ? 16 : 8;
  grey.values.reserve(static_cast<std::size_t>(m.rows * m.cols));
  for (Index y = 0; y < m.rows; ++y)
    for (Index x = 0; x < m.cols; ++x)
      grey.values.push_back(static_cast<std::uint16_t>(stored_value(type, m(y, x))));
  auto bytes = ext == ".png"   ? encode_png(grey)
               : ext == ".bmp" ? encode_bmp(grey)
                               : encode_jpeg(grey);
  if (!bytes.is_ok())
    return {bytes.status().code(),
            "cannot write '" + path.string() + "': " + bytes.status().message()};
  return write_text_atomically(path, bytes.value());
}

}  // namespace xcorr::io
