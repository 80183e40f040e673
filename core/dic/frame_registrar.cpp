// split_points (core/dic/frame_registrar.hpp): one frame's points in parts for several
// registrars.
#include "core/dic/frame_registrar.hpp"

#include <algorithm>

namespace xcorr::dic {

std::vector<std::size_t> split_points(const std::vector<char>& active, std::size_t parts) {
  parts = std::max<std::size_t>(parts, 1);
  const std::size_t n = active.size();
  const auto points = static_cast<Index>(std::count(active.begin(), active.end(), char{1}));
  const auto P = static_cast<Index>(parts);
  std::vector<std::size_t> bounds(parts + 1, n);
  bounds[0] = 0;
  Index seen = 0;
  std::size_t part = 1;
  for (std::size_t k = 0; k < n && part < parts; ++k) {
    while (part < parts && seen >= points * static_cast<Index>(part) / P) bounds[part++] = k;
    seen += active[k] ? 1 : 0;
  }
  return bounds;
}

}  // namespace xcorr::dic
