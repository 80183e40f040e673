#include "core/io/channel.hpp"

#include <charconv>

namespace xcorr::io {

Result<PlaneSelection> parse_channel_text(std::string_view text, long z) {
  PlaneSelection p;
  p.z = z;
  if (const auto colour = parse_label<Channel>(text)) {
    p.colour = *colour;
    return p;
  }
  long c = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), c);
  if (ec != std::errc() || end != text.data() + text.size() || c < 0) {
    return Status{ErrorCode::invalid_argument,
                  "channel '" + std::string(text) +
                      "': expected luminance, red, green, blue (colour images) or a channel "
                      "number 0, 1, ... (hyperstacks)"};
  }
  p.channel = c;
  return p;
}

}  // namespace xcorr::io
