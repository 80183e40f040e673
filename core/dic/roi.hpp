// Regions of interest for DIC: a mask built from rectangles, ellipses and polygons, each added to
// or subtracted from the region in order (the first shape usually adds). Coordinates in pixels,
// origin at the top-left pixel centre, x to the right (columns), y down (rows); a pixel belongs to
// a shape when its centre does (on a rectangle's left or top edge: inside; on a polygon's edge:
// inside when that edge is on the centre's right, as in ImageJ).
#pragma once

#include <string>
#include <vector>

#include "core/enum_labels.hpp"
#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::dic {

struct Point2 {
  double x = 0, y = 0;  // px
  bool operator==(const Point2&) const = default;
};

enum class RoiShapeKind { rectangle, ellipse, polygon };

}  // namespace xcorr::dic

namespace xcorr {
template <>
struct EnumLabels<dic::RoiShapeKind> {  // the prefixes of the text form (rect:x,y,w,h, ...)
  static constexpr std::pair<dic::RoiShapeKind, const char*> table[] = {
      {dic::RoiShapeKind::rectangle, "rect"},
      {dic::RoiShapeKind::ellipse, "ellipse"},
      {dic::RoiShapeKind::polygon, "poly"}};
};
}  // namespace xcorr

namespace xcorr::dic {

struct RoiShape {
  RoiShapeKind kind = RoiShapeKind::rectangle;
  bool subtract = false;
  // rectangle: x, y (top-left) and width, height; ellipse: centre x, y and semi-axes rx, ry;
  // polygon: vertices (at least 3), even-odd rule.
  double x = 0, y = 0, width = 0, height = 0;
  double rx = 0, ry = 0;
  std::vector<Point2> vertices;
  bool operator==(const RoiShape&) const = default;
};

// A shape with a name: the desktop app's ROI manager keeps these (ImageJ ROI files hold them:
// core/imagej/). The shape is a region, never subtracted: adding or subtracting is how a DIC ROI
// uses it.
struct NamedRoi {
  std::string name;
  RoiShape shape;
  bool operator==(const NamedRoi&) const = default;
};

// rows x cols, 1 inside the region, 0 outside.
using Mask = std::vector<unsigned char>;

struct Roi {
  std::vector<RoiShape> shapes;  // applied in order; empty = the whole image
  Status check() const;          // sizes > 0, polygons with >= 3 vertices
  Mask render(Index rows, Index cols) const;
};

// A shape's bounding box (px): [x0, x1] x [y0, y1].
struct RoiBounds {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
RoiBounds bounds(const RoiShape& s);

// The pixels whose centres a shape's bounds hold, as pixel indices [x0, x1) x [y0, y1) (a
// rectangle's right and bottom edges are open, as in render()): every pixel the shape covers lies
// in it; empty (x0 >= x1 or y0 >= y1) when none can.
struct PixelBox {
  Index x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
PixelBox pixel_box(const RoiShape& s);

// "rect:x,y,w,h" | "ellipse:cx,cy,rx,ry" | "poly:x1,y1,x2,y2,x3,y3,..." with an optional leading
// '-' to subtract (CLI and job files).
Result<RoiShape> parse_roi_shape(const std::string& text);
std::string to_string(const RoiShape& s);

}  // namespace xcorr::dic
