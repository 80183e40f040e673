#include <algorithm>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/natural_sort.hpp"
#include "core/io/tiff_integrity.hpp"

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

// All pages of one file, grey, appended to `pages`.
Status read_file_pages(const fs::path& file, std::vector<cv::Mat>& pages,
                       std::vector<std::string>& sources) {
  const std::string name = file.string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return {ErrorCode::not_found, "'" + name + "' does not exist"};
  if (!fs::is_regular_file(file, ec))
    return {ErrorCode::invalid_argument, "'" + name + "' is not a file"};
  if (fs::file_size(file, ec) == 0)
    return {ErrorCode::io_error, "'" + name + "' is empty (0 bytes)"};
  if (!cv::haveImageReader(name)) {
    return {ErrorCode::unsupported,
            "'" + name + "' is not an image this reader knows (TIFF, PNG, BMP, JPEG)"};
  }
  int expected_pages = 0;  // 0: not a TIFF, any page count accepted
  if (is_tiff_file(file)) {
    const auto pages_in_file = check_tiff_integrity(file);
    if (!pages_in_file.is_ok()) return pages_in_file.status();
    expected_pages = pages_in_file.value();
  }
  std::vector<cv::Mat> read;
  bool ok = false;
  try {
    ok = cv::imreadmulti(name, read, cv::IMREAD_ANYDEPTH | cv::IMREAD_GRAYSCALE);
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
  for (std::size_t i = 0; i < read.size(); ++i) {
    sources.push_back(read.size() == 1
                          ? file.filename().string()
                          : file.filename().string() + "[page " + std::to_string(i) + "]");
    pages.push_back(std::move(read[i]));
  }
  return Status::ok();
}

}  // namespace

bool images_supported() {
  return true;
}

Result<ImageStack> read_image_stack(const fs::path& path) {
  cv::utils::logging::setLogLevel(
      cv::utils::logging::LOG_LEVEL_SILENT);  // we report errors ourselves
  std::vector<cv::Mat> pages;
  ImageStack stack;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_regular_file() && has_image_extension(entry.path()))
        names.push_back(entry.path().filename().string());
    }
    if (ec)
      return Status{ErrorCode::io_error,
                    "cannot list folder '" + path.string() + "': " + ec.message()};
    if (names.empty()) {
      return Status{ErrorCode::invalid_argument,
                    "folder '" + path.string() +
                        "' contains no images (.tif .tiff .png .bmp .jpg .jpeg): empty stack"};
    }
    natural_sort(names);
    for (const auto& n : names)
      XCORR_RETURN_IF_ERROR(read_file_pages(path / n, pages, stack.frame_sources));
  } else {
    XCORR_RETURN_IF_ERROR(read_file_pages(path, pages, stack.frame_sources));
  }

  auto type = pixel_type_of(pages[0], stack.frame_sources[0]);
  if (!type.is_ok()) return type.status();
  stack.pixel_type = type.value();
  const int rows = pages[0].rows, cols = pages[0].cols;
  stack.frames = Stack<float>(rows, cols, static_cast<Index>(pages.size()));
  for (std::size_t i = 0; i < pages.size(); ++i) {
    const cv::Mat& m = pages[i];
    if (m.rows != rows || m.cols != cols) {
      return Status{ErrorCode::size_mismatch,
                    "frame '" + stack.frame_sources[i] + "' is " + std::to_string(m.rows) + "x" +
                        std::to_string(m.cols) + " but '" + stack.frame_sources[0] + "' is " +
                        std::to_string(rows) + "x" + std::to_string(cols) +
                        ": all frames of a stack must have one size"};
    }
    auto t = pixel_type_of(m, stack.frame_sources[i]);
    if (!t.is_ok()) return t.status();
    if (t.value() != stack.pixel_type) {
      return Status{ErrorCode::size_mismatch,
                    "frame '" + stack.frame_sources[i] + "' is " + to_string(t.value()) + " but '" +
                        stack.frame_sources[0] + "' is " + to_string(stack.pixel_type) +
                        ": all frames need one pixel type"};
    }
    cv::Mat dst(rows, cols, CV_32F, stack.frames[static_cast<Index>(i)].data);
    m.convertTo(dst, CV_32F);
  }
  return stack;
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
