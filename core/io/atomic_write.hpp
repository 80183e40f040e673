// Every output goes through write_atomically: the writer fills a temporary file in the target's
// folder (same extension, so format-by-extension writers still work), which is renamed over the
// target only when the writer succeeded. On failure the temporary file is removed and the
// target is left as it was: no half-written outputs. Temporary files are named
// ".<stem>.partial-<pid>-<n><ext>"; a program killed by SIGINT/SIGTERM removes its own (front
// ends call remove_temporaries_now from their handler), and the first write into a folder
// removes those of processes that no longer run (SIGKILL, power loss).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"

namespace xcorr::io {

// File names hold at most 255 bytes here; the temporary copy's name adds up to 30.
inline constexpr std::size_t kMaxOutputNameBytes = 225;

// invalid_argument when the target's file name is longer than kMaxOutputNameBytes.
Status check_output_name(const std::filesystem::path& target);

// What write_atomically checks before writing, for front ends to check before any work: the
// name's length, that the folder exists and that the target is not a folder, nor any other
// existing file that is not a regular file (a device, FIFO or socket: never replaced).
Status check_output_target(const std::filesystem::path& target);

Status write_atomically(
    const std::filesystem::path& target,
    const std::function<Status(const std::filesystem::path& temporary)>& writer);

// How far write_text_atomically takes the bytes before it returns.
//  - disk: flushed to the disk (fsync) before the rename, so the file survives a power loss.
//  - system: handed to the operating system. The file survives the process (a kill, a crash)
//    but after a power loss it may be missing, empty or cut short. Only for files that carry
//    their own check and can be made again: resume commits (size and CRC-32 trailer,
//    core/batch/commit.hpp), where a flush per frame would tie a run's speed to the disk's.
enum class Durability { disk, system };

// The common case: `text` written as the whole file (binary, so bytes are as given). A failed
// write names its reason (e.g. "No space left on device").
Status write_text_atomically(const std::filesystem::path& target, const std::string& text,
                             Durability durability = Durability::disk);

// `parts` written one after the other as the whole file (write_text_atomically with the bytes
// in several places, none copied: e.g. a commit's arrays).
Status write_parts_atomically(const std::filesystem::path& target,
                              const std::vector<std::string_view>& parts,
                              Durability durability = Durability::disk);

// Several files as one step: every temporary file is written first, and only when all succeeded
// are they renamed over their targets; otherwise none of the targets is touched.
Status write_texts_atomically(
    const std::vector<std::pair<std::filesystem::path, std::string>>& files);

// Removes the temporary files this process is writing now. Async-signal-safe: for a SIGINT or
// SIGTERM handler.
void remove_temporaries_now();

}  // namespace xcorr::io
