// Points of interest: a regular grid (step px) of subset centres. A point is computed when its
// centre lies inside the ROI mask and its whole subset inside the image; other grid points keep
// their row in the results with status outside_roi (documented in docs/dic.md).
#pragma once

#include <vector>

#include "core/dic/roi.hpp"

namespace xcorr::dic {

struct GridPoint {
  double x = 0, y = 0;  // px, subset centre in the reference image
  bool valid = false;   // centre in the ROI and subset inside the image
};

struct Grid {
  Index rows = 0, cols = 0;       // grid points per column / per row
  std::vector<GridPoint> points;  // row-major: points[gr * cols + gc]
};

// Grid over an image of rows x cols px: x = h, h + step, ... while the subset fits (h = subset/2).
Grid make_grid(Index rows, Index cols, int subset, int step, const Mask& mask);

}  // namespace xcorr::dic
