// Which value of a colour image's pixel is read as its grey value (a DIC option, `channel`):
// luminance 0.299 R + 0.587 G + 0.114 B (OpenCV's weights), or one channel as stored. Grey images
// have one value per pixel and are read as they are whatever the choice.
#pragma once

#include "core/enum_labels.hpp"

namespace xcorr::io {
enum class Channel { luminance, red, green, blue };
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
