// A whole file as bytes (job, batch and profile files; the batch runner's commits).
#pragma once

#include <filesystem>
#include <string>

#include "core/status.hpp"

namespace xcorr::io {

// not_found "cannot open '<path>'" when the file cannot be opened.
Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace xcorr::io
