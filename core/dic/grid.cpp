#include "core/dic/grid.hpp"

namespace xcorr::dic {

Grid make_grid(Index rows, Index cols, int subset, int step, const Mask& mask) {
  Grid g;
  const Index h = subset / 2;
  if (rows < subset || cols < subset) return g;
  g.rows = (rows - 1 - 2 * h) / step + 1;
  g.cols = (cols - 1 - 2 * h) / step + 1;
  g.points.reserve(static_cast<std::size_t>(g.rows * g.cols));
  for (Index r = 0; r < g.rows; ++r) {
    for (Index c = 0; c < g.cols; ++c) {
      const Index y = h + r * step, x = h + c * step;
      const bool in = mask.empty() || mask[static_cast<std::size_t>(y * cols + x)] != 0;
      g.points.push_back({static_cast<double>(x), static_cast<double>(y), in});
    }
  }
  return g;
}

}  // namespace xcorr::dic
