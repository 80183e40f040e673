// libFuzzer target: the scale and hyperstack metadata parsers (OME-XML through libxml2, ImageJ
// descriptions) and the user's texts (pixel size, frame interval, channel). Whatever they accept
// is finite and positive, and a layout they believe has sizes a stack can hold.
#include <cmath>
#include <string>

#include "core/io/channel.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/scale.hpp"

namespace {

void check(const xcorr::io::StackMetadata& m) {
  const xcorr::io::ImageScale& s = m.scale;
  if (s.has_length() &&
      !(std::isfinite(s.pixel_x) && std::isfinite(s.pixel_y) && s.pixel_x > 0 && s.pixel_y > 0))
    __builtin_trap();
  if (s.has_time() && !std::isfinite(s.frame_interval_s)) __builtin_trap();
  const xcorr::io::HyperLayout& l = m.layout;
  if (l.channels < 1 || l.slices < 1 || l.frames < 0 || l.channels * l.slices > (1L << 16))
    __builtin_trap();
  (void)l.page(l.channels - 1, l.slices - 1, l.frames > 0 ? l.frames - 1 : 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr::io;
  const std::string text(reinterpret_cast<const char*>(data), size);
  check(metadata_from_ome_xml(text));
  check(metadata_from_imagej(text, 2.5, 0));
  (void)scale_from_resolution(static_cast<int>(size % 4), static_cast<double>(size), 72);
  if (auto p = parse_pixel_size(text); p.is_ok() && !(p.value().pixel_x > 0)) __builtin_trap();
  if (auto d = parse_duration(text); d.is_ok() && !(d.value() > 0)) __builtin_trap();
  (void)apply_user_scale({}, text, text);
  (void)parse_channel_text(text);
  return 0;
}
