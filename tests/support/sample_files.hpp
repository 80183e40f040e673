// Files for tests: a file's bytes, and the first pages of the bundled DIC sample
// (resources/sample/dic_stack.tif, 16-bit) written as a stack of their own.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/io/image_io.hpp"

namespace xcorr::testing {

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Pages 0 .. count-1 of the sample into `out` (a 16-bit TIFF).
inline Status write_sample_pages(const std::filesystem::path& out, Index count) {
  auto s = io::read_image_stack(std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif");
  if (!s.is_ok()) return s.status();
  StackView<const float> pages = s.value().frames.view();
  pages.count = count;
  return io::write_image_stack(out, pages, io::PixelType::u16);
}

}  // namespace xcorr::testing
