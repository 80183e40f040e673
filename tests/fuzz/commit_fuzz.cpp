// libFuzzer target: the batch commit reader, as stored (checksum first) and behind a valid
// checksum (the parser itself). A commit it accepts encodes back to the same bytes. The same
// bytes go to the project results file's reader (core/batch/results_file.hpp, whose frames are
// commits; seeds results_*): what it accepts encodes and decodes to the same file again.
#include <string>

#include "core/batch/commit.hpp"
#include "core/batch/results_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  dic::FrameResult fr;
  dic::DicState st;
  (void)batch::decode_commit(bytes, fr, st);
  const std::string sealed = batch::with_commit_trailer(bytes);
  if (batch::decode_commit(sealed, fr, st) && batch::encode_commit(fr, st) != sealed)
    __builtin_trap();
  auto saved = batch::decode_results_file(bytes, "fuzz");
  if (saved.is_ok()) {
    const std::string again = batch::encode_results_file(saved.value());
    auto back = batch::decode_results_file(again, "again");
    if (!back.is_ok() || batch::encode_results_file(back.value()) != again) __builtin_trap();
  }
  return 0;
}
