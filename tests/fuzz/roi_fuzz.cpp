// libFuzzer target: the ROI shape and template rectangle parsers; what parses prints back to a
// text that parses to the same value.
#include <string>

#include "core/dic/roi.hpp"
#include "core/tracking/tracking.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (const auto s = dic::parse_roi_shape(text); s.is_ok()) {
    const auto again = dic::parse_roi_shape(dic::to_string(s.value()));
    if (!again.is_ok() || dic::to_string(again.value()) != dic::to_string(s.value()))
      __builtin_trap();
  }
  if (const auto t = parse_template_rect(text); t.is_ok()) {
    const auto again = parse_template_rect(to_string(t.value()));
    if (!again.is_ok() || to_string(again.value()) != to_string(t.value())) __builtin_trap();
  }
  return 0;
}
