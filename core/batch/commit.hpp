// A batch run's commit: one binary file per frame in <out>.partial (the frame's result and the
// DIC state after it, doubles bit for bit), so an interrupted run resumes exactly. A commit ends
// in its payload's size (uint64) and CRC-32 (zlib, uint32): a flipped bit or a cut file is found
// before anything is parsed, and the reader's length checks never read past the bytes given.
#pragma once

#include <string>
#include <string_view>

#include "core/dic/dic.hpp"
#include "core/dic/session.hpp"

namespace xcorr::batch {

std::string encode_commit(const dic::FrameResult& fr, const dic::DicState& st);

// False (with `fr` and `st` in an unspecified state) when the bytes are not a whole, intact
// commit.
bool decode_commit(std::string_view bytes, dic::FrameResult& fr, dic::DicState& st);

// The payload with its size and CRC-32 appended (what encode_commit does last; the fuzz target
// uses it to reach the parser behind the checksum).
std::string with_commit_trailer(std::string payload);

}  // namespace xcorr::batch
