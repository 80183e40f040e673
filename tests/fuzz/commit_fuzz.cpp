// libFuzzer target: the batch commit reader, as stored (checksum first) and behind a valid
// checksum (the parser itself). A commit it accepts encodes back to the same bytes.
#include <string>

#include "core/batch/commit.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  dic::FrameResult fr;
  dic::DicState st;
  (void)batch::decode_commit(bytes, fr, st);
  const std::string sealed = batch::with_commit_trailer(bytes);
  if (batch::decode_commit(sealed, fr, st) && batch::encode_commit(fr, st) != sealed)
    __builtin_trap();
  return 0;
}
