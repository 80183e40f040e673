// libFuzzer target: ImageJ ROI files (a .roi or a ZIP of them, from memory). What reads as a
// region writes back (when the format holds it) to bytes that read again, to the same kind of
// shape with as many vertices.
#include <string>

#include "core/imagej/imagej_roi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto file = imagej::parse_roi_file(bytes, "fuzz.roi");
  if (!file.is_ok()) return 0;
  for (const dic::NamedRoi& roi : file.value().rois) {
    const auto written = imagej::encode_roi(roi);
    if (!written.is_ok()) continue;  // beyond the format (far away, no pixel)
    const auto again = imagej::decode_roi(written.value(), "again");
    if (!again.is_ok() || again.value().name != roi.name ||
        again.value().shape.kind != roi.shape.kind ||
        again.value().shape.vertices.size() != roi.shape.vertices.size())
      __builtin_trap();
  }
  return 0;
}
