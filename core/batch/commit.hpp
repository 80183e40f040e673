// A batch run's commit: one binary file per frame in <out>.partial (the frame's result and the
// DIC state after it, doubles bit for bit), so an interrupted run resumes exactly. A commit ends
// in its payload's size (uint64) and CRC-32 (zlib, uint32): a flipped bit or a cut file is found
// before anything is parsed, and the reader's length checks never read past the bytes given.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/dic/session.hpp"

namespace xcorr::batch {

// A commit's bytes in parts, for io::write_parts_atomically: its small headers (held here) and
// views of the result's and the state's arrays (not copied: `fr` and `st` must outlive this),
// then the size and CRC-32 trailer. Neither copied nor moved (the views point into it).
class CommitParts {
 public:
  CommitParts(const dic::FrameResult& fr, const dic::DicState& st);
  CommitParts(const CommitParts&) = delete;
  CommitParts& operator=(const CommitParts&) = delete;
  const std::vector<std::string_view>& parts() const { return parts_; }

 private:
  std::deque<std::string> held_;  // a deque: adding one leaves the others where they are
  std::vector<std::string_view> parts_;
};

// The parts as one string.
std::string encode_commit(const dic::FrameResult& fr, const dic::DicState& st);

// False (with `fr` and `st` in an unspecified state) when the bytes are not a whole, intact
// commit.
bool decode_commit(std::string_view bytes, dic::FrameResult& fr, dic::DicState& st);

// The payload with its size and CRC-32 appended (what encode_commit does last; the fuzz target
// uses it to reach the parser behind the checksum).
std::string with_commit_trailer(std::string payload);

}  // namespace xcorr::batch
