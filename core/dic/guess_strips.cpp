#include "core/dic/guess_strips.hpp"

#include <algorithm>

namespace xcorr::dic {
namespace {

int round_up(int v, int m) {
  return (v + m - 1) / m * m;
}

}  // namespace

std::size_t strip_smem_bytes(int subset, int width, int ex, int ey) {
  const int S = subset;
  const int band_pitch = width | 1;  // odd pitches: fewer bank conflicts
  const int frame_pitch = (width + round_up(ex, kStripCols) - 1) | 1;
  const int frame_rows = S + round_up(ey, kStripRows) - 1;  // padded to whole chunks
  const std::size_t floats = static_cast<std::size_t>(S) * band_pitch +
                             static_cast<std::size_t>(frame_rows) * frame_pitch +
                             static_cast<std::size_t>(kStripRows) * kStripCols * band_pitch +
                             4 * static_cast<std::size_t>(kStripRows) * frame_pitch;
  // Per point: 3 doubles (template sum, its 1 / sqrt(ss), the flat-window bound), the best key,
  // 4 ints.
  const std::size_t per_point = 3 * sizeof(double) + sizeof(unsigned long long) + 4 * sizeof(int);
  return kStripMaxPoints * per_point + floats * sizeof(float);
}

bool plan_strips(const GuessWindow* g, int first, int last, int subset, int window,
                 std::size_t budget, int max_span, std::vector<GuessStrip>& out) {
  const int h = subset / 2, L = window - subset + 1;
  if (strip_smem_bytes(subset, subset, L, L) > budget) return false;
  GuessStrip s;
  int x_first = 0, ox_hi = 0, oy_hi = 0;
  for (int i = first; i < last; ++i) {
    const GuessWindow& p = g[i];
    const int ox = p.wx - (p.x - h), oy = p.wy - (p.y - h);
    if (s.count > 0) {
      const GuessWindow& q = g[i - 1];
      const int lo_x = std::min(s.ox, ox), hi_x = std::max(ox_hi, ox);
      const int lo_y = std::min(s.oy, oy), hi_y = std::max(oy_hi, oy);
      const int ex = hi_x - lo_x + L, ey = hi_y - lo_y + L;
      const bool joins = p.y == q.y && p.x > q.x && s.count < kStripMaxPoints &&
                         ex - L <= max_span && ey - L <= max_span &&
                         strip_smem_bytes(subset, p.x - x_first + subset, ex, ey) <= budget;
      if (joins) {
        s.ox = lo_x, s.oy = lo_y, ox_hi = hi_x, oy_hi = hi_y;
        s.ex = ex, s.ey = ey;
        ++s.count;
        continue;
      }
      out.push_back(s);
    }
    s = {i, 1, ox, oy, L, L};
    x_first = p.x, ox_hi = ox, oy_hi = oy;
  }
  if (s.count > 0) out.push_back(s);
  return true;
}

}  // namespace xcorr::dic
