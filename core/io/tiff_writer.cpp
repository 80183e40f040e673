#include "core/io/tiff_writer.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/io/tiff_integrity.hpp"

namespace xcorr::io {
namespace {

TIFF* as_tiff(void* p) {
  return static_cast<TIFF*>(p);
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
  TIFF* tif = as_tiff(tif_);
  if (tif == nullptr) return {ErrorCode::invalid_argument, "the TIFF is closed"};
  if (page.rows != shape_.rows || page.cols != shape_.cols)
    return {ErrorCode::size_mismatch, "a page of " + to_string(Shape{page.rows, page.cols}) +
                                          " px in a stack of " + to_string(shape_) + " px"};
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
  for (Index r = 0; r < shape_.rows; ++r) {
    const float* in = page.row(r);
    for (Index c = 0; c < shape_.cols; ++c) {
      const float v = in[c];
      if (type_ == PixelType::u8) {
        row[static_cast<std::size_t>(c)] =
            static_cast<unsigned char>(std::clamp(std::nearbyint(v), 0.0f, 255.0f));
      } else if (type_ == PixelType::u16) {
        const auto u = static_cast<std::uint16_t>(std::clamp(std::nearbyint(v), 0.0f, 65535.0f));
        std::memcpy(&row[static_cast<std::size_t>(2 * c)], &u, 2);
      } else {
        std::memcpy(&row[static_cast<std::size_t>(4 * c)], &v, 4);
      }
    }
    if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(r), 0) < 0)
      return {ErrorCode::io_error, "cannot write '" + path_.string() + "': " + take_tiff_error()};
  }
  if (!TIFFWriteDirectory(tif))
    return {ErrorCode::io_error, "cannot write '" + path_.string() + "': " + take_tiff_error()};
  ++written_;
  return Status::ok();
}

Status TiffWriter::close() {
  TIFF* tif = as_tiff(tif_);
  tif_ = nullptr;
  if (tif == nullptr) return Status::ok();
  TIFFClose(tif);
  const std::string e = take_tiff_error();
  if (!e.empty()) return {ErrorCode::io_error, "cannot write '" + path_.string() + "': " + e};
  return Status::ok();
}

std::string derived_description(bool ome, Shape shape, long frames, PixelType type,
                                const ImageScale& scale) {
  if (ome) {
    const char* pixel = type == PixelType::u8    ? "uint8"
                        : type == PixelType::u16 ? "uint16"
                                                 : "float";
    std::string unit = scale.unit == "um" ? "\xc2\xb5m" : scale.unit;
    std::string px = "<Pixels ID=\"Pixels:0\" DimensionOrder=\"XYCZT\" Type=\"" +
                     std::string(pixel) + "\" SizeX=\"" + std::to_string(shape.cols) +
                     "\" SizeY=\"" + std::to_string(shape.rows) +
                     "\" SizeC=\"1\" SizeZ=\"1\" "
                     "SizeT=\"" +
                     std::to_string(frames) + "\"";
    if (scale.has_length()) {
      px += " PhysicalSizeX=\"" + number(scale.pixel_x) + "\" PhysicalSizeXUnit=\"" + unit +
            "\" PhysicalSizeY=\"" + number(scale.pixel_y) + "\" PhysicalSizeYUnit=\"" + unit + "\"";
    }
    if (scale.has_time())
      px += " TimeIncrement=\"" + number(scale.frame_interval_s) + "\" TimeIncrementUnit=\"s\"";
    px += "><Channel ID=\"Channel:0:0\" SamplesPerPixel=\"1\"/><TiffData IFD=\"0\" PlaneCount=\"" +
          std::to_string(frames) + "\"/></Pixels>";
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
           "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" "
           "Creator=\"xcorr\"><Image ID=\"Image:0\" Name=\"registered\">" +
           px + "</Image></OME>";
  }
  if (!scale.has_length() && !scale.has_time()) return "";
  std::string d = "ImageJ=1.11a\nimages=" + std::to_string(frames) +
                  "\nframes=" + std::to_string(frames) + "\n";
  if (scale.has_length())
    d += "unit=" + std::string(scale.unit == "um" ? "micron" : scale.unit) + "\n";
  if (scale.has_time()) d += "finterval=" + number(scale.frame_interval_s) + "\n";
  return d;
}

}  // namespace xcorr::io
