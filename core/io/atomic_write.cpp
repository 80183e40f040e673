#include "core/io/atomic_write.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <system_error>

namespace xcorr::io {

Status write_atomically(const std::filesystem::path& target,
                        const std::function<Status(const std::filesystem::path&)>& writer) {
  namespace fs = std::filesystem;
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return {ErrorCode::not_found, "cannot write '" + target.string() + "': folder '" +
                                      folder.string() + "' does not exist"};
  }
  if (fs::is_directory(target, ec)) {
    return {ErrorCode::invalid_argument,
            "cannot write '" + target.string() + "': it is a folder, not a file"};
  }
  static std::atomic<unsigned> counter{0};
  const fs::path temporary =
      folder / ("." + target.stem().string() + ".partial-" + std::to_string(getpid()) + "-" +
                std::to_string(counter.fetch_add(1)) + target.extension().string());
  Status s;
  try {
    s = writer(temporary);
  } catch (...) {
    fs::remove(temporary, ec);
    throw;
  }
  if (!s.is_ok()) {
    fs::remove(temporary, ec);
    return s;
  }
  std::error_code renamed;
  fs::rename(temporary, target, renamed);
  if (renamed) {  // its reason, not the clean-up's
    fs::remove(temporary, ec);
    return {ErrorCode::io_error, "cannot write '" + target.string() + "': " + renamed.message()};
  }
  return Status::ok();
}

Status write_text_atomically(const std::filesystem::path& target, const std::string& text) {
  return write_atomically(target, [&](const std::filesystem::path& tmp) -> Status {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    return f ? Status::ok() : Status{ErrorCode::io_error, "cannot write '" + target.string() + "'"};
  });
}

}  // namespace xcorr::io
