// The second decoder of core/io/image_decoders.hpp through OpenCV: colour TIFF pages (libtiff's
// samples, OpenCV's grey), PNG, BMP, JPEG and tiled colour TIFF (cv::imreadmulti), and writing
// (cv::imwrite, cv::imwritemulti).
#include <fcntl.h>
#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/io/atomic_write.hpp"
#include "core/io/image_decoders.hpp"
#include "core/io/tiff_integrity.hpp"
#include "core/io/tiff_page.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

Result<PixelType> pixel_type_of(const cv::Mat& m, const std::string& source) {
  switch (m.depth()) {
    case CV_8U:
      return PixelType::u8;
    case CV_16U:
      return PixelType::u16;
    case CV_8S:
    case CV_16S:
    case CV_32S:
    case CV_32F:
    case CV_64F:
      return PixelType::f32;
    default:
      return Status{ErrorCode::unsupported,
                    "'" + source + "' has a pixel type this reader does not support"};
  }
}

// The current colour page (RGB or RGBA, 8 or 16-bit unsigned, in strips; contiguous samples or
// one plane per sample) through libtiff as OpenCV's B, G, R image (alpha dropped), so that every
// layout gives the same numbers (OpenCV's own TIFF decoder reads 16-bit planar pages wrong).
// `handled` false: a layout left to OpenCV (tiled contiguous pages).
Status read_colour_page(TIFF* tif, const std::string& source, std::uint64_t file_bytes,
                        double& decoded, cv::Mat& bgr, bool& handled) {
  uint16_t bits = 0, samples = 1, planar = PLANARCONFIG_CONTIG;
  uint32_t width = 0, height = 0;
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
  handled = !TIFFIsTiled(tif);
  if (!handled && planar == PLANARCONFIG_SEPARATE)
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
  if (!handled) return Status::ok();
  const int depth = bits == 8 ? CV_8U : CV_16U;
  bgr.create(static_cast<int>(height), static_cast<int>(width), CV_MAKETYPE(depth, 3));
  std::vector<unsigned char> line(static_cast<std::size_t>(TIFFScanlineSize64(tif)));
  const bool separate = planar == PLANARCONFIG_SEPARATE;
  const std::size_t bytes = bits / 8;
  for (uint16_t plane = 0; plane < (separate ? 3 : 1); ++plane) {
    for (uint32_t y = 0; y < height; ++y) {
      if (TIFFReadScanline(tif, line.data(), y, plane) != 1) {
        const std::string e = take_tiff_error();
        return {ErrorCode::io_error, "cannot decode " + source + ": corrupt or truncated (row " +
                                         std::to_string(y) + (e.empty() ? "" : ": " + e) + ")"};
      }
      unsigned char* out = bgr.ptr(static_cast<int>(y));
      for (uint32_t x = 0; x < width; ++x) {
        for (uint16_t c = 0; c < (separate ? 1 : 3); ++c) {
          const uint16_t rgb = separate ? plane : c;  // 0 R, 1 G, 2 B
          const unsigned char* from =
              line.data() + (separate ? std::size_t{x} : std::size_t{x} * samples + c) * bytes;
          std::memcpy(out + (std::size_t{x} * 3 + (2 - rgb)) * bytes, from, bytes);
        }
      }
    }
  }
  return Status::ok();
}

// Grey or one channel of a B, G, R image as OpenCV gives it (luminance 0.299 R + 0.587 G +
// 0.114 B, its weights and rounding).
cv::Mat one_channel(const cv::Mat& bgr, Channel channel) {
  cv::Mat one;
  if (channel == Channel::luminance)
    cv::cvtColor(bgr, one, cv::COLOR_BGR2GRAY);
  else
    cv::extractChannel(bgr, one, channel == Channel::blue ? 0 : channel == Channel::green ? 1 : 2);
  return one;
}

// A grey OpenCV image as a decoded page (values as float32, exactly).
DecodedPage page_of(const cv::Mat& grey, PixelType type) {
  DecodedPage p;
  p.rows = grey.rows;
  p.cols = grey.cols;
  p.type = type;
  p.values.resize(static_cast<std::size_t>(p.rows * p.cols));
  cv::Mat dst(grey.rows, grey.cols, CV_32F, p.values.data());
  grey.convertTo(dst, CV_32F);
  return p;
}

// Whether the file starts like a PNG, BMP or JPEG file (TIFF is checked on its own).
bool opencv_format(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char m[8] = {};
  in.read(reinterpret_cast<char*>(m), sizeof m);
  const auto got = static_cast<std::size_t>(in.gcount());
  const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  return (got >= 8 && std::equal(m, m + 8, png)) || (got >= 2 && m[0] == 'B' && m[1] == 'M') ||
         (got >= 3 && m[0] == 0xFF && m[1] == 0xD8 && m[2] == 0xFF);
}

// Standard error silenced while OpenCV decodes (its codecs print their own warnings beside our
// one-line message); one decode at a time holds it.
class QuietStderr {
 public:
  QuietStderr() : lock_(mutex()) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
      ::dup2(null, 2);
      ::close(null);
    }
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, 2);
      ::close(saved_);
    }
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> lock_;
  int saved_ = -1;
};

}  // namespace

Status read_colour_tiff_page(TIFF* tif, const std::string& source, std::uint64_t file_bytes,
                             double& decoded, Channel channel, std::vector<DecodedPage>& pages,
                             bool& handled) {
  cv::Mat bgr;
  XCORR_RETURN_IF_ERROR(read_colour_page(tif, source, file_bytes, decoded, bgr, handled));
  if (!handled) return Status::ok();
  const cv::Mat one = one_channel(bgr, channel);
  pages.push_back(page_of(one, one.depth() == CV_8U ? PixelType::u8 : PixelType::u16));
  return Status::ok();
}

Status read_other_image(const fs::path& file, int expected_pages, Channel channel,
                        std::vector<DecodedPage>& pages, std::vector<std::string>& sources) {
  const std::string name = file.string();
  cv::utils::logging::setLogLevel(
      cv::utils::logging::LOG_LEVEL_SILENT);  // we report errors ourselves
  // OpenCV picks a decoder by content, among many (DICOM, GDAL, ...) that crash or print on
  // hostile files (the fuzz target found a gdcm assertion): only our four formats reach it.
  if (!(expected_pages > 0 || opencv_format(file))) {
    return {ErrorCode::unsupported,
            "'" + name + "' is not an image this reader knows (TIFF, PNG, BMP, JPEG)"};
  }
  std::vector<cv::Mat> read;
  bool ok = false;
  try {
    const QuietStderr quiet;  // libjpeg and libpng print warnings of their own
    ok = cv::imreadmulti(
        name, read,
        cv::IMREAD_ANYDEPTH |
            (channel == Channel::luminance ? cv::IMREAD_GRAYSCALE : cv::IMREAD_ANYCOLOR));
  } catch (const cv::Exception&) {
    ok = false;
  }
  if (!ok || read.empty() ||
      std::any_of(read.begin(), read.end(), [](const cv::Mat& m) { return m.empty(); })) {
    return {ErrorCode::io_error, "cannot decode '" + name + "': the file is corrupt or truncated"};
  }
  if (expected_pages > 0 && static_cast<int>(read.size()) != expected_pages) {
    return {ErrorCode::io_error, "cannot decode '" + name + "': only " +
                                     std::to_string(read.size()) + " of its " +
                                     std::to_string(expected_pages) + " pages could be decoded"};
  }
  for (cv::Mat& m : read)  // one channel of colour pages (OpenCV orders them B, G, R)
    if (m.channels() >= 3) m = one_channel(m, channel);
  for (std::size_t i = 0; i < read.size(); ++i) {
    const std::string source = read.size() == 1
                                   ? file.filename().string()
                                   : file.filename().string() + "[page " + std::to_string(i) + "]";
    auto type = pixel_type_of(read[i], source);
    if (!type.is_ok()) return type.status();
    sources.push_back(source);
    pages.push_back(page_of(read[i], type.value()));
  }
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
  if (type == PixelType::u16 && (ext == ".bmp" || ext == ".jpg" || ext == ".jpeg")) {
    return {ErrorCode::invalid_argument, "'" + path.string() + "': 16-bit needs TIFF or PNG"};
  }
  const int depth = type == PixelType::u8 ? CV_8U : type == PixelType::u16 ? CV_16U : CV_32F;
  std::vector<cv::Mat> pages;
  for (Index i = 0; i < s.count; ++i) {
    const MatrixView<const float> m = s[i];
    const cv::Mat src(static_cast<int>(m.rows), static_cast<int>(m.cols), CV_32F,
                      const_cast<float*>(m.data),
                      static_cast<std::size_t>(m.row_stride) * sizeof(float));
    cv::Mat dst;
    src.convertTo(dst, depth);  // rounds and saturates for integer types
    pages.push_back(dst);
  }
  return write_atomically(path, [&](const fs::path& tmp) -> Status {
    bool ok = false;
    try {
      ok = pages.size() == 1 ? cv::imwrite(tmp.string(), pages[0])
                             : cv::imwritemulti(tmp.string(), pages);
    } catch (const cv::Exception& e) {
      return {ErrorCode::io_error, "cannot write '" + path.string() + "': " + e.what()};
    }
    if (!ok) return {ErrorCode::io_error, "cannot write '" + path.string() + "'"};
    return Status::ok();
  });
}

}  // namespace xcorr::io
