// The fuzz targets' input as a file (the readers under test take paths): one file per process,
// rewritten for each input, removed at exit.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace xcorr::fuzz {

inline std::filesystem::path input_file(const uint8_t* data, std::size_t size,
                                        const std::string& extension) {
  static const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                            ("xcorr-fuzz-" + std::to_string(getpid()) + extension);
  static const bool cleanup = [] {
    std::atexit([] { std::remove(path.c_str()); });
    return true;
  }();
  (void)cleanup;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f != nullptr) {
    if (size > 0) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace xcorr::fuzz
