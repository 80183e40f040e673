#include "core/device_list.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace xcorr {

Result<std::vector<int>> parse_device_list(std::string_view text, int visible) {
  const std::string shown(text);
  auto bad = [&](const std::string& why) {
    return Status{ErrorCode::invalid_argument, "devices '" + shown + "': " + why};
  };
  std::vector<int> list;
  if (text == "all") {
    if (visible == 0) return bad("no GPU is visible to this process");
    for (int d = 0; d < visible; ++d) list.push_back(d);
    return list;
  }
  if (text.empty()) return bad("expected device numbers such as 0 or 0,1, or all");
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    int d = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || d < 0)
      return bad("'" + std::string(item) + "' is not a device number (0, 1, ... or all)");
    if (std::find(list.begin(), list.end(), d) != list.end())
      return bad("device " + std::to_string(d) + " is listed twice");
    if (visible >= 0 && d >= visible) {
      return bad(visible == 0
                     ? "no GPU is visible to this process"
                     : "GPU " + std::to_string(d) + " does not exist: this process sees " +
                           std::to_string(visible) + " (0-" + std::to_string(visible - 1) + ")");
    }
    list.push_back(d);
    at = comma + 1;
  }
  return list;
}

}  // namespace xcorr
