// Which value of a colour image's pixel is read as its grey value: luminance 0.299 R + 0.587 G +
// 0.114 B (OpenCV's weights), or one channel as stored. Grey images have one value per pixel and
// are read as they are whatever the choice. And which plane of a hyperstack (ImageJ channels and
// slices, OME-TIFF SizeC and SizeZ) is the stack of frames: one channel and one z-plane, over time.
// The DIC options `channel` (a colour name, or a hyperstack's channel number) and `z` choose them.
#pragma once

#include <string>
#include <string_view>

#include "core/enum_labels.hpp"
#include "core/status.hpp"

namespace xcorr::io {
enum class Channel { luminance, red, green, blue };

struct PlaneSelection {
  Channel colour = Channel::luminance;  // colour images
  long channel = 0;                     // hyperstacks: 0-based
  long z = 0;                           // hyperstacks: 0-based
  bool all_pages = false;  // hyperstacks: every page in file order (channel and z unused)
  bool operator==(const PlaneSelection&) const = default;
};

// The `channel` option's text: "luminance", "red", "green" or "blue" (colour images; a
// hyperstack's channel 0), or a hyperstack's channel number "0", "1", ... (luminance for colour
// pages). The message names the text and what is accepted.
Result<PlaneSelection> parse_channel_text(std::string_view text, long z = 0);
}  // namespace xcorr::io

namespace xcorr {
template <>
struct EnumLabels<io::Channel> {
  static constexpr std::pair<io::Channel, const char*> table[] = {
      {io::Channel::luminance, "luminance"},
      {io::Channel::red, "red"},
      {io::Channel::green, "green"},
      {io::Channel::blue, "blue"}};
};
}  // namespace xcorr
