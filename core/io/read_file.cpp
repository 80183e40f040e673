#include "core/io/read_file.hpp"

#include <fstream>
#include <sstream>

namespace xcorr::io {

Result<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status{ErrorCode::not_found, "cannot open '" + path.string() + "'"};
  std::ostringstream text;
  text << f.rdbuf();
  return std::move(text).str();
}

}  // namespace xcorr::io
