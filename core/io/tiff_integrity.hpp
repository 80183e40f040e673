// Structural check of a TIFF file with libtiff, run before decoding. OpenCV's reader returns the
// pages it could read from a truncated multi-page TIFF without an error; this check catches
// that: every directory must be readable and every strip or tile must lie inside the file.
#pragma once

#include <filesystem>
#include <string>

#include "core/status.hpp"

namespace xcorr::io {

bool is_tiff_file(const std::filesystem::path& path);  // by its magic bytes

// libtiff reports errors through a global handler; this one keeps the last error of each thread
// (and silences warnings). take_tiff_error() returns it and clears it ("" when none).
void capture_tiff_errors();
std::string take_tiff_error();

// The number of pages (directories), or io_error naming what is damaged.
Result<int> check_tiff_integrity(const std::filesystem::path& path);

}  // namespace xcorr::io
