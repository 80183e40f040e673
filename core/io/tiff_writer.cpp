#include "core/io/tiff_writer.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/io/atomic_write.hpp"
#include "core/io/tiff_integrity.hpp"

namespace xcorr::io {
namespace {

TIFF* as_tiff(void* p) {
  return static_cast<TIFF*>(p);
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

}  // namespace

Result<std::unique_ptr<TiffWriter>> TiffWriter::create(const std::filesystem::path& path,
                                                       PixelType type, Shape shape, long pages,
                                                       const std::string& description,
                                                       const ImageScale& scale) {
  const double bytes = static_cast<double>(shape.area()) * static_cast<double>(pages) *
                       (type == PixelType::u8    ? 1
                        : type == PixelType::u16 ? 2
                                                 : 4);
  const bool big = bytes > 3.5 * (1 << 30);
  (void)take_tiff_error();
  TIFF* tif = TIFFOpen(path.c_str(), big ? "w8" : "w");
  if (tif == nullptr)
    return Status{ErrorCode::io_error,
                  "cannot create '" + path.string() + "': " + take_tiff_error()};
  std::unique_ptr<TiffWriter> w(new TiffWriter);
  w->tif_ = tif;
  w->path_ = path;
  w->type_ = type;
  w->shape_ = shape;
  w->description_ = description;
  w->scale_ = scale;
  return w;
}

TiffWriter::~TiffWriter() {
  if (tif_ != nullptr) TIFFClose(as_tiff(tif_));
}

Status TiffWriter::add_page(MatrixView<const float> page) {
  if (page.rows != shape_.rows || page.cols != shape_.cols)
    return {ErrorCode::size_mismatch, "a page of " + image_size(Shape{page.rows, page.cols}) +
                                          " in a stack of " + image_size(shape_)};
  return add_page_rows([&page](Index r, float* out) { std::copy_n(page.row(r), page.cols, out); });
}

Status TiffWriter::add_page_rows(const std::function<void(Index r, float* out)>& fill_row) {
  TIFF* tif = as_tiff(tif_);
  if (tif == nullptr) return {ErrorCode::invalid_argument, "the TIFF is closed"};
  const int bits = type_ == PixelType::u8 ? 8 : type_ == PixelType::u16 ? 16 : 32;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(shape_.cols));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(shape_.rows));
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
               type_ == PixelType::f32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
  if (written_ == 0 && !description_.empty())
    TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, description_.c_str());
  if (scale_.has_length() && !scale_.unit.empty()) {
    // ImageJ's convention: pixels per unit, ResolutionUnit none (the unit is in the description).
    TIFFSetField(tif, TIFFTAG_XRESOLUTION, static_cast<float>(1.0 / scale_.pixel_x));
    TIFFSetField(tif, TIFFTAG_YRESOLUTION, static_cast<float>(1.0 / scale_.pixel_y));
    TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_NONE);
  }
  std::vector<unsigned char> row(static_cast<std::size_t>(shape_.cols) * (bits / 8));
  std::vector<float> values(static_cast<std::size_t>(shape_.cols));
  for (Index r = 0; r < shape_.rows; ++r) {
    fill_row(r, values.data());
    const float* in = values.data();
    for (Index c = 0; c < shape_.cols; ++c) {
      const float v = in[c];
      if (type_ == PixelType::u8) {
        row[static_cast<std::size_t>(c)] = static_cast<unsigned char>(stored_value(type_, v));
      } else if (type_ == PixelType::u16) {
        const auto u = static_cast<std::uint16_t>(stored_value(type_, v));
        std::memcpy(&row[static_cast<std::size_t>(2 * c)], &u, 2);
      } else {
        std::memcpy(&row[static_cast<std::size_t>(4 * c)], &v, 4);
      }
    }
    errno = 0;
    if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(r), 0) < 0)
      return write_error(errno);
  }
  errno = 0;
  if (!TIFFWriteDirectory(tif)) return write_error(errno);
  ++written_;
  return Status::ok();
}

Status TiffWriter::close() {
  TIFF* tif = as_tiff(tif_);
  tif_ = nullptr;
  if (tif == nullptr) return Status::ok();
  errno = 0;
  TIFFClose(tif);
  const int e = errno;
  const std::string message = take_tiff_error();
  if (!message.empty()) return write_error(e, message);
  return Status::ok();
}

Status TiffWriter::write_error(int error, std::string message) const {
  if (message.empty()) message = take_tiff_error();
  // libtiff names its function ("TIFFAppendToStrip: Write error"); the system's reason says
  // what to do about it (e.g. "No space left on device").
  const std::string reason = error != 0 ? std::strerror(error) : std::string();
  return {ErrorCode::io_error, "cannot write '" + path_.string() + "': " +
                                   (reason.empty() ? message : reason + " (" + message + ")")};
}

std::string derived_description(const StackMetadata& source, Shape shape, long frames,
                                PixelType type, const ImageScale& scale) {
  const HyperLayout& l = source.layout;
  const long planes = l.channels * l.slices;
  if (source.ome) {
    const char* pixel = type == PixelType::u8    ? "uint8"
                        : type == PixelType::u16 ? "uint16"
                                                 : "float";
    std::string unit = scale.unit == "um" ? "\xc2\xb5m" : scale.unit;
    std::string px = "<Pixels ID=\"Pixels:0\" DimensionOrder=\"XY" + l.order + "\" Type=\"" +
                     std::string(pixel) + "\" SizeX=\"" + std::to_string(shape.cols) +
                     "\" SizeY=\"" + std::to_string(shape.rows) + "\" SizeC=\"" +
                     std::to_string(l.channels) + "\" SizeZ=\"" + std::to_string(l.slices) +
                     "\" SizeT=\"" + std::to_string(frames) + "\"";
    if (scale.has_length()) {
      px += " PhysicalSizeX=\"" + number(scale.pixel_x) + "\" PhysicalSizeXUnit=\"" + unit +
            "\" PhysicalSizeY=\"" + number(scale.pixel_y) + "\" PhysicalSizeYUnit=\"" + unit + "\"";
      if (source.spacing_z > 0)
        px += " PhysicalSizeZ=\"" + number(source.spacing_z) + "\" PhysicalSizeZUnit=\"" + unit +
              "\"";
    }
    if (scale.has_time())
      px += " TimeIncrement=\"" + number(scale.frame_interval_s) + "\" TimeIncrementUnit=\"s\"";
    px += ">";
    for (long c = 0; c < l.channels; ++c) {
      const auto k = static_cast<std::size_t>(c);
      const std::string name = k < source.channel_names.size() ? source.channel_names[k] : "";
      px += "<Channel ID=\"Channel:0:" + std::to_string(c) + "\"" +
            (name.empty() ? "" : " Name=\"" + xml_escaped(name) + "\"") +
            " SamplesPerPixel=\"1\"/>";
    }
    px += "<TiffData IFD=\"0\" PlaneCount=\"" + std::to_string(planes * frames) + "\"/></Pixels>";
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
           "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" "
           "Creator=\"xcorr\"><Image ID=\"Image:0\" Name=\"registered\">" +
           px + "</Image></OME>";
  }
  if (l.plain() && !scale.has_length() && !scale.has_time()) return "";
  std::string d = "ImageJ=1.11a\nimages=" + std::to_string(planes * frames) + "\n";
  if (l.channels > 1) d += "channels=" + std::to_string(l.channels) + "\n";
  if (l.slices > 1) d += "slices=" + std::to_string(l.slices) + "\n";
  d += "frames=" + std::to_string(frames) + "\n";
  if (!l.plain()) d += "hyperstack=true\n";
  if (scale.has_length())
    d += "unit=" + std::string(scale.unit == "um" ? "micron" : scale.unit) + "\n";
  if (scale.has_length() && source.spacing_z > 0) d += "spacing=" + number(source.spacing_z) + "\n";
  if (scale.has_time()) d += "finterval=" + number(scale.frame_interval_s) + "\n";
  return d;
}

Status write_tiff_stack(const std::filesystem::path& path, StackView<const float> s,
                        PixelType type) {
  return write_atomically(path, [&](const std::filesystem::path& tmp) -> Status {
    auto w = TiffWriter::create(tmp, type, s.shape(), static_cast<long>(s.count), "", ImageScale{});
    if (!w.is_ok()) return w.status();
    for (Index i = 0; i < s.count; ++i) XCORR_RETURN_IF_ERROR(w.value()->add_page(s[i]));
    return w.value()->close();
  });
}

Status write_rgb_tiff(const std::filesystem::path& path, Shape shape,
                      const std::vector<std::uint8_t>& rgb) {
  const auto cols = static_cast<std::uint32_t>(shape.cols),
             rows = static_cast<std::uint32_t>(shape.rows);
  if (shape.rows < 1 || shape.cols < 1 || rgb.size() != std::size_t{3} * cols * rows)
    return {ErrorCode::invalid_argument, "an RGB figure of " + std::to_string(rgb.size()) +
                                             " values is not " + std::to_string(shape.rows) +
                                             " x " + std::to_string(shape.cols) + " x 3"};
  capture_tiff_errors();
  TIFF* tif = TIFFOpen(path.c_str(), "w");
  if (tif == nullptr) return {ErrorCode::io_error, "cannot write '" + path.string() + "'"};
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, cols);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, rows);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_DEFLATE);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
  bool ok = true;
  for (std::uint32_t r = 0; r < rows && ok; ++r)
    ok = TIFFWriteScanline(tif, const_cast<std::uint8_t*>(rgb.data()) + std::size_t{3} * cols * r,
                           r, 0) == 1;
  ok = ok && TIFFWriteDirectory(tif) == 1;
  TIFFClose(tif);
  const std::string e = take_tiff_error();
  return ok ? Status::ok()
            : Status{ErrorCode::io_error,
                     "cannot write '" + path.string() + "'" + (e.empty() ? "" : ": " + e)};
}

}  // namespace xcorr::io
