#include "core/io/extension.hpp"

#include <algorithm>
#include <cctype>

namespace xcorr::io {

std::string lowercase_extension(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace xcorr::io
