// A path's extension in lower case with its dot (".TIF" -> ".tif"; "" when there is none): how
// every file format in the project is chosen.
#pragma once

#include <filesystem>
#include <string>

namespace xcorr::io {

std::string lowercase_extension(const std::filesystem::path& p);

}  // namespace xcorr::io
