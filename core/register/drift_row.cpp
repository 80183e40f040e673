// DriftRow's map (register_stack.hpp): compiled in every configuration (the Python module's
// register() reads it, with or without image support).
#include <array>

#include "core/register/register_stack.hpp"

namespace xcorr::reg {

Affine drift_map(const DriftRow& d, Shape frame) {
  if (d.linear == std::array<double, 4>{1, 0, 0, 1}) return Affine::translation(d.dx, d.dy);
  return Affine::about((static_cast<double>(frame.cols) - 1) / 2,
                       (static_cast<double>(frame.rows) - 1) / 2, d.dx, d.dy, d.linear);
}

void set_drift_map(DriftRow& d, const Affine& map, Shape frame) {
  const double cx = (static_cast<double>(frame.cols) - 1) / 2;
  const double cy = (static_cast<double>(frame.rows) - 1) / 2;
  d.linear = map.linear();
  d.dx = map.x(cx, cy) - cx;
  d.dy = map.y(cx, cy) - cy;
}

}  // namespace xcorr::reg
