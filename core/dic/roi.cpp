#include "core/dic/roi.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace xcorr::dic {
namespace {

bool inside(const RoiShape& s, double x, double y) {
  switch (s.kind) {
    case RoiShapeKind::rectangle:
      return x >= s.x && x < s.x + s.width && y >= s.y && y < s.y + s.height;
    case RoiShapeKind::ellipse: {
      const double dx = (x - s.x) / s.rx, dy = (y - s.y) / s.ry;
      return dx * dx + dy * dy <= 1.0;
    }
    case RoiShapeKind::polygon: {
      // Even-odd rule; a centre on an edge is inside when the edge is its right-hand one
      // (ImageJ's rule, so that its polygons cover the same pixels here: core/imagej/).
      bool in = false;
      const auto& v = s.vertices;
      for (std::size_t i = 0, j = v.size() - 1; i < v.size(); j = i++) {
        if ((v[i].y > y) != (v[j].y > y) &&
            x <= (v[j].x - v[i].x) * (y - v[i].y) / (v[j].y - v[i].y) + v[i].x)
          in = !in;
      }
      return in;
    }
  }
  return false;
}

Result<std::vector<double>> numbers(const std::string& text, const std::string& what) {
  std::vector<double> out;
  if (!text.empty() && text.back() == ',')
    return Status{ErrorCode::invalid_argument,
                  what + ": '" + text + "' ends in a comma (a number is missing)"};
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    double v = 0;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc{} || !std::isfinite(v))
      return Status{ErrorCode::invalid_argument,
                    what + ": '" + text + "' is not a list of numbers"};
    out.push_back(v);
    p = next;
    if (p < end && *p != ',')
      return Status{ErrorCode::invalid_argument,
                    what + ": '" + text + "' is not a list of numbers"};
    if (p < end) ++p;
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

RoiBounds bounds(const RoiShape& r) {
  if (r.kind == RoiShapeKind::ellipse) return {r.x - r.rx, r.y - r.ry, r.x + r.rx, r.y + r.ry};
  if (r.kind != RoiShapeKind::polygon) return {r.x, r.y, r.x + r.width, r.y + r.height};
  RoiBounds b{1e300, 1e300, -1e300, -1e300};
  for (const Point2& p : r.vertices) {
    b.x0 = std::min(b.x0, p.x), b.x1 = std::max(b.x1, p.x);
    b.y0 = std::min(b.y0, p.y), b.y1 = std::max(b.y1, p.y);
  }
  return b;
}

PixelBox pixel_box(const RoiShape& s) {
  const RoiBounds b = bounds(s);
  const auto up = [](double v) { return static_cast<Index>(std::ceil(v)); };
  if (s.kind == RoiShapeKind::rectangle) return {up(b.x0), up(b.y0), up(b.x1), up(b.y1)};
  return {up(b.x0), up(b.y0), static_cast<Index>(std::floor(b.x1)) + 1,
          static_cast<Index>(std::floor(b.y1)) + 1};
}

Status Roi::check() const {
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const RoiShape& s = shapes[k];
    const std::string which = "ROI shape " + std::to_string(k + 1) + " (" + to_string(s) + ")";
    if (s.kind == RoiShapeKind::rectangle && (s.width <= 0 || s.height <= 0))
      return {ErrorCode::invalid_argument, which + ": width and height must be > 0"};
    if (s.kind == RoiShapeKind::ellipse && (s.rx <= 0 || s.ry <= 0))
      return {ErrorCode::invalid_argument, which + ": semi-axes must be > 0"};
    if (s.kind == RoiShapeKind::polygon && s.vertices.size() < 3)
      return {ErrorCode::invalid_argument, which + ": a polygon needs at least 3 vertices"};
  }
  return Status::ok();
}

Mask Roi::render(Index rows, Index cols) const {
  const bool starts_empty = !shapes.empty() && !shapes.front().subtract;
  Mask m(static_cast<std::size_t>(rows * cols), starts_empty ? 0 : 1);
  for (const RoiShape& s : shapes) {
    for (Index y = 0; y < rows; ++y) {
      for (Index x = 0; x < cols; ++x) {
        if (inside(s, static_cast<double>(x), static_cast<double>(y)))
          m[static_cast<std::size_t>(y * cols + x)] = s.subtract ? 0 : 1;
      }
    }
  }
  return m;
}

Result<RoiShape> parse_roi_shape(const std::string& text_in) {
  std::string text = text_in;
  RoiShape s;
  if (!text.empty() && text[0] == '-') {
    s.subtract = true;
    text.erase(0, 1);
  }
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  if (colon == std::string::npos)
    return Status{ErrorCode::invalid_argument,
                  "ROI shape '" + text_in + "': expected rect:, ellipse: or poly:"};
  auto v = numbers(text.substr(colon + 1), "ROI shape '" + text_in + "'");
  if (!v.is_ok()) return v.status();
  const auto& n = v.value();
  const auto parsed = parse_label<RoiShapeKind>(kind);
  if (parsed == RoiShapeKind::rectangle && n.size() == 4) {
    s.kind = RoiShapeKind::rectangle;
    s.x = n[0], s.y = n[1], s.width = n[2], s.height = n[3];
  } else if (parsed == RoiShapeKind::ellipse && n.size() == 4) {
    s.kind = RoiShapeKind::ellipse;
    s.x = n[0], s.y = n[1], s.rx = n[2], s.ry = n[3];
  } else if (parsed == RoiShapeKind::polygon && n.size() >= 6 && n.size() % 2 == 0) {
    s.kind = RoiShapeKind::polygon;
    for (std::size_t i = 0; i < n.size(); i += 2) s.vertices.push_back({n[i], n[i + 1]});
  } else {
    return Status{
        ErrorCode::invalid_argument,
        "ROI shape '" + text_in +
            "': expected rect:x,y,w,h | ellipse:cx,cy,rx,ry | poly:x1,y1,x2,y2,x3,y3,..."};
  }
  XCORR_RETURN_IF_ERROR(Roi{{s}}.check());
  return s;
}

std::string to_string(const RoiShape& s) {
  std::string out = std::string(s.subtract ? "-" : "") + label(s.kind) + ":";
  switch (s.kind) {
    case RoiShapeKind::rectangle:
      return out + num(s.x) + "," + num(s.y) + "," + num(s.width) + "," + num(s.height);
    case RoiShapeKind::ellipse:
      return out + num(s.x) + "," + num(s.y) + "," + num(s.rx) + "," + num(s.ry);
    case RoiShapeKind::polygon:
      for (std::size_t i = 0; i < s.vertices.size(); ++i)
        out += (i ? "," : "") + num(s.vertices[i].x) + "," + num(s.vertices[i].y);
      return out;
  }
  return out;
}

}  // namespace xcorr::dic
