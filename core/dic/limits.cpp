#include "core/dic/limits.hpp"

#include <algorithm>
#include <cstdio>

namespace xcorr::dic {

Status check_size_limits(const DicOptions& o, Shape image, const Grid& grid) {
  const Index side = std::max(image.rows, image.cols);
  if (o.search_radius > side) {
    return {ErrorCode::invalid_argument, "search_radius " + std::to_string(o.search_radius) +
                                             " px is larger than the " + image_size(image) +
                                             " image: at most " + std::to_string(side)};
  }
  const Index grid_side = std::max<Index>(3, std::max(grid.rows, grid.cols) | 1);
  if (o.strain_window > grid_side) {
    return {ErrorCode::invalid_argument,
            "strain_window " + std::to_string(o.strain_window) + " points is larger than the " +
                std::to_string(grid.rows) + "x" + std::to_string(grid.cols) +
                " point grid: at most " + std::to_string(grid_side)};
  }
  const auto points = static_cast<double>(std::count_if(
      grid.points.begin(), grid.points.end(), [](const GridPoint& p) { return p.valid; }));
  const double window = 2.0 * o.search_radius + 1, subset = o.subset;
  const double work = points * window * window * subset * subset;
  if (work > kMaxGuessMultiplyAdds) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2g", work);
    return {ErrorCode::invalid_argument,
            std::string("the integer guess would cost ") + text +
                " multiply-adds per frame (points x (2 search_radius + 1)^2 x subset^2), more "
                "than the limit of 1e15: reduce search_radius, the subset or the ROI, or raise "
                "the step"};
  }
  return Status::ok();
}

}  // namespace xcorr::dic
