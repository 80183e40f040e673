// Every output goes through write_atomically: the writer fills a temporary file in the target's
// folder (same extension, so format-by-extension writers still work), which is renamed over the
// target only when the writer succeeded. On failure the temporary file is removed and the
// target is left as it was: no half-written outputs.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "core/status.hpp"

namespace xcorr::io {

Status write_atomically(
    const std::filesystem::path& target,
    const std::function<Status(const std::filesystem::path& temporary)>& writer);

// The common case: `text` written as the whole file (binary, so bytes are as given).
Status write_text_atomically(const std::filesystem::path& target, const std::string& text);

}  // namespace xcorr::io
