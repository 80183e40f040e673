// libFuzzer target: job and batch JSON (the project file is a job). A job that parses survives a
// round trip through its JSON unchanged.
#include <string>

#include "core/batch/batch_file.hpp"
#include "core/dic/job.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto job = dic::parse_dic_job(text, "/fuzz");
  if (job.is_ok()) {
    const std::string once = dic::to_json(job.value());
    const auto again = dic::parse_dic_job(once, "/fuzz");
    if (!again.is_ok() || dic::to_json(again.value()) != once) __builtin_trap();
  }
  (void)dic::parse_batch(text, "/fuzz");
  return 0;
}
