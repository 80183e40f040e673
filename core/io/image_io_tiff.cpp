// read_image_stack and image_shape: TIFF files through libtiff (grey pages here, colour pages and
// other formats through core/io/image_decoders.hpp), folders of files, one stack of float32.
#include <tiffio.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "core/io/image_decoders.hpp"
#include "core/io/image_io.hpp"
#include "core/io/tiff_integrity.hpp"
#include "core/io/tiff_page.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};

// Every page of a TIFF through libtiff: grey pages as stored (core/io/tiff_page.hpp), colour
// pages as one grey page each (read_colour_tiff_page).
Status read_tiff_pages(const fs::path& file, int expected_pages, Channel channel,
                       std::vector<DecodedPage>& pages, std::vector<std::string>& sources) {
  const std::string name = file.string();
  capture_tiff_errors();
  std::unique_ptr<TIFF, TiffCloser> tif(TIFFOpen(name.c_str(), "rm"));
  if (!tif) return {ErrorCode::io_error, "cannot decode '" + name + "': corrupt or truncated"};
  std::error_code ec;
  const auto file_bytes = static_cast<std::uint64_t>(fs::file_size(file, ec));
  int page = 0;
  double decoded = 0;  // bytes of the pages so far, as float32
  do {
    const std::string source =
        expected_pages == 1 ? file.filename().string()
                            : file.filename().string() + "[page " + std::to_string(page) + "]";
    if (colour_tiff_page(tif.get())) {
      XCORR_RETURN_IF_ERROR(
          read_colour_tiff_page(tif.get(), source, file_bytes, decoded, channel, pages));
      sources.push_back(source);
      ++page;
      continue;
    }
    auto layout = tiff_grey_layout(tif.get());
    if (!layout.is_ok()) {
      return {layout.status().code(),
              "'" + name + "' page " + std::to_string(page) + " holds " +
                  layout.status().message() +
                  ": this reader takes grey pages (unsigned 1-16 and 32-bit, signed 8/16/32-bit, "
                  "32/64-bit float) and RGB/RGBA pages of 8 or 16 bits"};
    }
    if (const std::string why = tiff_page_data_problem(tif.get(), file_bytes, decoded);
        !why.empty())
      return {ErrorCode::io_error,
              "cannot decode " + source + ": corrupt or truncated (" + why + ")"};
    DecodedPage p;
    p.rows = static_cast<Index>(layout.value().height);
    p.cols = static_cast<Index>(layout.value().width);
    p.type = layout.value().type;
    p.values.resize(static_cast<std::size_t>(p.rows * p.cols));
    XCORR_RETURN_IF_ERROR(decode_tiff_page(tif.get(), layout.value(), p.values.data(), source));
    pages.push_back(std::move(p));
    sources.push_back(source);
    ++page;
  } while (TIFFReadDirectory(tif.get()) == 1);
  if (page != expected_pages) {
    return {ErrorCode::io_error, "cannot decode '" + name + "': only " + std::to_string(page) +
                                     " of its " + std::to_string(expected_pages) +
                                     " pages could be decoded"};
  }
  return Status::ok();
}

// All pages of one file, grey, appended to `pages`.
Status read_file_pages(const fs::path& file, std::vector<DecodedPage>& pages,
                       std::vector<std::string>& sources, Channel channel) {
  const std::string name = file.string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return {ErrorCode::not_found, "'" + name + "' does not exist"};
  if (!fs::is_regular_file(file, ec))
    return {ErrorCode::invalid_argument, "'" + name + "' is not a file"};
  if (fs::file_size(file, ec) == 0)
    return {ErrorCode::io_error, "'" + name + "' is empty (0 bytes)"};
  if (is_tiff_file(file)) {
    const auto pages_in_file = check_tiff_integrity(file);
    if (!pages_in_file.is_ok()) return pages_in_file.status();
    return read_tiff_pages(file, pages_in_file.value(), channel, pages, sources);
  }
  return read_other_image(file, channel, pages, sources);
}

}  // namespace

// RGB or RGBA of 8 or 16-bit unsigned samples.
bool colour_tiff_page(TIFF* tif) {
  uint16_t bits = 0, samples = 1, format = SAMPLEFORMAT_UINT;
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  return (samples == 3 || samples == 4) && (bits == 8 || bits == 16) && format == SAMPLEFORMAT_UINT;
}

bool images_supported() {
  return true;
}

Result<Shape> image_shape(const fs::path& path) {
  if (is_tiff_file(path)) {
    auto opened = open_tiff(path);
    if (!opened.is_ok()) return opened.status();
    TIFF* tif = opened.value();
    std::uint32_t w = 0, h = 0;
    const bool ok = TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) == 1 &&
                    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h) == 1 && w > 0 && h > 0;
    TIFFClose(tif);
    (void)take_tiff_error();
    if (ok) return Shape{static_cast<Index>(h), static_cast<Index>(w)};
  } else {
    std::array<unsigned char, 26> b{};
    std::ifstream f(path, std::ios::binary);
    f.read(reinterpret_cast<char*>(b.data()), b.size());
    const auto be32 = [&](int i) {
      return static_cast<Index>(std::uint32_t{b[i]} << 24 | std::uint32_t{b[i + 1]} << 16 |
                                std::uint32_t{b[i + 2]} << 8 | b[i + 3]);
    };
    const auto le32 = [&](int i) {
      return static_cast<Index>(static_cast<std::int32_t>(std::uint32_t{b[i + 3]} << 24 |
                                                          std::uint32_t{b[i + 2]} << 16 |
                                                          std::uint32_t{b[i + 1]} << 8 | b[i]));
    };
    const bool png = f.gcount() >= 24 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' &&
                     b[3] == 'G' && b[12] == 'I' && b[13] == 'H' && b[14] == 'D' && b[15] == 'R';
    if (png && be32(16) > 0 && be32(20) > 0) return Shape{be32(20), be32(16)};
    const bool bmp = f.gcount() >= 26 && b[0] == 'B' && b[1] == 'M';
    if (bmp && le32(18) > 0 && le32(22) != 0) return Shape{std::abs(le32(22)), le32(18)};
  }
  auto decoded = read_image_stack(path);  // JPEG, and headers that did not parse
  if (!decoded.is_ok()) return decoded.status();
  return decoded.value().frames.shape();
}

Result<ImageStack> read_image_stack(const fs::path& path, Channel channel) {
  std::vector<DecodedPage> pages;
  ImageStack stack;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    auto names = image_names_in(path);
    if (!names.is_ok()) return names.status();
    for (const auto& n : names.value())
      XCORR_RETURN_IF_ERROR(read_file_pages(path / n, pages, stack.frame_sources, channel));
  } else {
    XCORR_RETURN_IF_ERROR(read_file_pages(path, pages, stack.frame_sources, channel));
  }

  stack.pixel_type = pages[0].type;
  const Index rows = pages[0].rows, cols = pages[0].cols;
  stack.frames = Stack<float>(rows, cols, static_cast<Index>(pages.size()));
  for (std::size_t i = 0; i < pages.size(); ++i) {
    const DecodedPage& m = pages[i];
    if (m.rows != rows || m.cols != cols) {
      return Status{ErrorCode::size_mismatch,
                    "frame '" + stack.frame_sources[i] + "' is " + std::to_string(m.rows) + "x" +
                        std::to_string(m.cols) + " but '" + stack.frame_sources[0] + "' is " +
                        std::to_string(rows) + "x" + std::to_string(cols) +
                        ": all frames of a stack must have one size"};
    }
    if (pages[i].type != stack.pixel_type) {
      return Status{ErrorCode::size_mismatch,
                    "frame '" + stack.frame_sources[i] + "' is " + to_string(pages[i].type) +
                        " but '" + stack.frame_sources[0] + "' is " + to_string(stack.pixel_type) +
                        ": all frames need one pixel type"};
    }
    std::copy(m.values.begin(), m.values.end(), stack.frames[static_cast<Index>(i)].data);
  }
  return stack;
}

}  // namespace xcorr::io
