#include "core/io/tiff_integrity.hpp"

#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <string>

namespace xcorr::io {
namespace {

thread_local std::string tiff_error;  // last libtiff error of this thread

void capture_error(const char* module, const char* fmt, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  tiff_error = std::string(module ? module : "libtiff") + ": " + buf;
}
void ignore_warning(const char*, const char*, va_list) {}

class TiffHandle {
 public:
  explicit TiffHandle(const std::filesystem::path& p) : tif_(TIFFOpen(p.c_str(), "rm")) {}
  ~TiffHandle() {
    if (tif_) TIFFClose(tif_);
  }
  TiffHandle(const TiffHandle&) = delete;
  TiffHandle& operator=(const TiffHandle&) = delete;
  TIFF* get() const { return tif_; }

 private:
  TIFF* tif_;
};

}  // namespace

void capture_tiff_errors() {
  TIFFSetErrorHandler(capture_error);
  TIFFSetWarningHandler(ignore_warning);
}

std::string take_tiff_error() {
  std::string e;
  e.swap(tiff_error);
  return e;
}

bool is_tiff_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  if (!in.read(magic, 4)) return false;
  const std::string m(magic, 4);
  return m == std::string("II*\0", 4) || m == std::string("MM\0*", 4) ||
         m == std::string("II+\0", 4) || m == std::string("MM\0+", 4);
}

Result<int> check_tiff_integrity(const std::filesystem::path& path) {
  const std::string name = path.string();
  capture_tiff_errors();
  tiff_error.clear();
  auto damaged = [&](const std::string& what) {
    return Status{ErrorCode::io_error,
                  "cannot decode '" + name + "': the file is corrupt or truncated (" + what + ")"};
  };
  std::error_code ec;
  const auto size = static_cast<std::uint64_t>(std::filesystem::file_size(path, ec));
  if (ec) return Status{ErrorCode::io_error, "cannot read '" + name + "': " + ec.message()};
  TiffHandle tif(path);
  if (tif.get() == nullptr) return damaged(tiff_error.empty() ? "no readable header" : tiff_error);
  int pages = 0;
  do {
    ++pages;
    const bool tiled = TIFFIsTiled(tif.get()) != 0;
    const uint32_t chunks = tiled ? TIFFNumberOfTiles(tif.get()) : TIFFNumberOfStrips(tif.get());
    uint64_t* offsets = nullptr;
    uint64_t* counts = nullptr;
    const ttag_t offset_tag = tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS;
    const ttag_t count_tag = tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS;
    if (!TIFFGetField(tif.get(), offset_tag, &offsets) ||
        !TIFFGetField(tif.get(), count_tag, &counts)) {
      return damaged("page " + std::to_string(pages - 1) + " has no image data table");
    }
    for (uint32_t i = 0; i < chunks; ++i) {
      if (offsets[i] + counts[i] > size) {
        return damaged("page " + std::to_string(pages - 1) + " ends at byte " +
                       std::to_string(offsets[i] + counts[i]) + ", the file has " +
                       std::to_string(size));
      }
    }
    tiff_error.clear();
  } while (TIFFReadDirectory(tif.get()) == 1);
  if (!tiff_error.empty())
    return damaged("after page " + std::to_string(pages - 1) + ": " + tiff_error);
  return pages;
}

}  // namespace xcorr::io
