// One ImageJ .roi: decode_roi and encode_roi (core/imagej/imagej_roi.hpp). Header offsets are
// ImageJ's (RoiDecoder.java); the second header's offsets are relative to its start.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/imagej/imagej_roi.hpp"

namespace xcorr::imagej {
namespace {

constexpr std::size_t kHeader = 64;  // bytes; also the second header's size
enum Offset : std::size_t {
  kVersion = 4,
  kType = 6,
  kTop = 8,
  kLeft = 10,
  kBottom = 12,
  kRight = 14,
  kCount = 16,
  kFloatBounds = 18,  // x, y, width, height of a sub-pixel rectangle or oval; or a count (int)
  kRoundedArc = 54,
  kShapeSize = 36,
  kSubtype = 48,
  kOptions = 50,
  kHeader2 = 60,
  kNameOffset = 16,  // in the second header
  kNameLength = 20,
};
enum Type { polygon = 0, rect = 1, oval = 2, freehand = 7, traced = 8 };
constexpr int kSplineFit = 1, kSubPixel = 128;  // options
constexpr int kText = 1, kImage = 4;            // subtypes
constexpr int kWritten = 228;                   // the version written (ImageJ 1.52+)
constexpr int kCurveChords = 16;                // per curve of a composite outline

const char* type_name(int type) {
  static const char* names[] = {"polygon",       "rectangle",      "oval",         "straight line",
                                "freehand line", "segmented line", "no selection", "freehand",
                                "traced",        "angle",          "point"};
  return type >= 0 && type < 11 ? names[type] : "unknown kind";
}

struct Reader {
  std::string_view d;
  std::uint32_t u8(std::size_t at) const { return static_cast<unsigned char>(d[at]); }
  std::uint32_t u16(std::size_t at) const { return (u8(at) << 8) | u8(at + 1); }
  std::uint32_t u32(std::size_t at) const { return (u16(at) << 16) | u16(at + 2); }
  std::int32_t i32(std::size_t at) const { return static_cast<std::int32_t>(u32(at)); }
  // ImageJ's rule for bounds: signed, but below -5000 the bits are read as unsigned (>32767).
  double coord16(std::size_t at) const {
    const auto s = static_cast<std::int16_t>(u16(at));
    return s < -5000 ? static_cast<double>(u16(at)) : static_cast<double>(s);
  }
  double f32(std::size_t at) const { return static_cast<double>(std::bit_cast<float>(u32(at))); }
  bool fits(std::size_t at, std::size_t bytes) const {
    return at <= d.size() && bytes <= d.size() - at;
  }
};

Status refuse(const std::string& name, const std::string& why) {
  return {ErrorCode::parse_error, "ImageJ ROI '" + name + "': " + why};
}

std::string utf16be_to_utf8(std::string_view b) {
  std::string out;
  for (std::size_t i = 0; i + 1 < b.size(); i += 2) {
    std::uint32_t c =
        (static_cast<unsigned char>(b[i]) << 8) | static_cast<unsigned char>(b[i + 1]);
    if (c >= 0xD800 && c < 0xDC00 && i + 3 < b.size()) {  // a surrogate pair
      const std::uint32_t lo =
          (static_cast<unsigned char>(b[i + 2]) << 8) | static_cast<unsigned char>(b[i + 3]);
      if (lo >= 0xDC00 && lo < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
        i += 2;
      }
    }
    if (c >= 0xD800 && c < 0xE000) c = 0xFFFD;  // an unpaired surrogate
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// UTF-8 (invalid bytes become U+FFFD) as UTF-16 code units.
std::vector<std::uint16_t> utf8_to_utf16(const std::string& s) {
  std::vector<std::uint16_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int extra = b < 0x80         ? 0
                      : (b >> 5) == 6  ? 1
                      : (b >> 4) == 14 ? 2
                      : (b >> 3) == 30 ? 3
                                       : -1;
    std::uint32_t c = extra == 0   ? b
                      : extra == 1 ? (b & 0x1F)
                      : extra == 2 ? (b & 0x0F)
                                   : (b & 0x07);
    bool ok = extra >= 0 && i + static_cast<std::size_t>(extra) < s.size();
    for (int k = 1; ok && k <= extra; ++k) {
      const auto n = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      ok = (n >> 6) == 2;
      c = (c << 6) | (n & 0x3F);
    }
    if (!ok || c > 0x10FFFF || (c >= 0xD800 && c < 0xE000)) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    i += static_cast<std::size_t>(extra) + 1;
    if (c < 0x10000) {
      out.push_back(static_cast<std::uint16_t>(c));
    } else {
      c -= 0x10000;
      out.push_back(static_cast<std::uint16_t>(0xD800 + (c >> 10)));
      out.push_back(static_cast<std::uint16_t>(0xDC00 + (c & 0x3FF)));
    }
  }
  return out;
}

std::string valid_utf8(const std::string& s) {
  std::string units;
  for (std::uint16_t u : utf8_to_utf16(s)) {
    units += static_cast<char>(u >> 8);
    units += static_cast<char>(u & 0xFF);
  }
  return utf16be_to_utf8(units);
}

// A coordinate a real selection can have (px): finite and within 10^7 px of the origin (ImageJ's
// own bounds are 16-bit).
bool plausible(double v) {
  return std::isfinite(v) && std::abs(v) <= 1e7;
}

// ImageJ's coordinates (pixel corners at integers) to this project's (pixel centres).
dic::Point2 here(double x, double y) {
  return {x - 0.5, y - 0.5};
}

// A rounded rectangle's outline: corners as quarter ellipses of arc/2 (ImageJ coordinates).
std::vector<dic::Point2> rounded_rect(double x, double y, double w, double h, double arc) {
  const double rx = std::min(arc / 2, w / 2), ry = std::min(arc / 2, h / 2);
  const double cx[] = {x + w - rx, x + rx, x + rx, x + w - rx};
  const double cy[] = {y + ry, y + ry, y + h - ry, y + h - ry};
  std::vector<dic::Point2> v;
  for (int corner = 0; corner < 4; ++corner) {
    for (int k = 0; k <= kCurveChords; ++k) {
      const double a = (corner + static_cast<double>(k) / kCurveChords) * std::numbers::pi / 2;
      v.push_back(here(cx[corner] + rx * std::cos(a), cy[corner] - ry * std::sin(a)));
    }
  }
  return v;
}

// A composite selection's path (ImageJ ShapeRoi: segments of a type, 0 move, 1 line, 2 quad,
// 3 cubic, 4 close, and 2, 2, 4, 6, 0 coordinates) as one polygon: each sub-path closed, and
// joined to the first point and back, so that the joins cancel under the even-odd rule.
Result<std::vector<dic::Point2>> composite_outline(const Reader& r, std::size_t count,
                                                   const std::string& name) {
  std::vector<std::vector<dic::Point2>> paths;
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return r.f32(kHeader + 4 * k); };
  while (i < count) {
    const double op = at(i++);
    const int need = op == 0 || op == 1 ? 2 : op == 2 ? 4 : op == 3 ? 6 : op == 4 ? 0 : -1;
    if (need < 0) return refuse(name, "its composite outline has an unknown segment type");
    if (i + static_cast<std::size_t>(need) > count)
      return refuse(name, "its composite outline ends inside a segment");
    double c[6];
    for (int k = 0; k < need; ++k) c[k] = at(i++);
    for (int k = 0; k < need; ++k)
      if (!plausible(c[k]))
        return refuse(name, "a vertex of its outline is not a number within any image");
    if (op == 0 || paths.empty()) paths.emplace_back();
    std::vector<dic::Point2>& p = paths.back();
    if (op == 4) {
      if (!p.empty()) p.push_back(p.front());
      paths.emplace_back();
      continue;
    }
    if (op <= 1) {
      p.push_back(here(c[0], c[1]));
      continue;
    }
    if (p.empty()) return refuse(name, "its composite outline has a curve without a start");
    const dic::Point2 s = {p.back().x + 0.5, p.back().y + 0.5};  // ImageJ coordinates
    for (int k = 1; k <= kCurveChords; ++k) {
      const double t = static_cast<double>(k) / kCurveChords, u = 1 - t;
      if (op == 2) {
        p.push_back(here(u * u * s.x + 2 * u * t * c[0] + t * t * c[2],
                         u * u * s.y + 2 * u * t * c[1] + t * t * c[3]));
      } else {
        p.push_back(
            here(u * u * u * s.x + 3 * u * u * t * c[0] + 3 * u * t * t * c[2] + t * t * t * c[4],
                 u * u * u * s.y + 3 * u * u * t * c[1] + 3 * u * t * t * c[3] + t * t * t * c[5]));
      }
    }
  }
  std::vector<dic::Point2> v;
  for (std::vector<dic::Point2>& p : paths) {
    if (p.size() < 3) continue;
    if (!(p.back() == p.front())) p.push_back(p.front());
    const bool first = v.empty();
    const dic::Point2 start = first ? p.front() : v.front();
    v.insert(v.end(), p.begin(), p.end());
    if (!first) v.push_back(start);
  }
  if (v.size() < 3) return refuse(name, "its composite outline encloses nothing");
  return v;
}

void put16(std::string& b, std::size_t at, std::uint32_t v) {
  b[at] = static_cast<char>((v >> 8) & 0xFF);
  b[at + 1] = static_cast<char>(v & 0xFF);
}
void put32(std::string& b, std::size_t at, std::uint32_t v) {
  put16(b, at, v >> 16);
  put16(b, at + 2, v & 0xFFFF);
}
void putf(std::string& b, std::size_t at, double v) {
  put32(b, at, std::bit_cast<std::uint32_t>(static_cast<float>(v)));
}
bool whole(double v) {
  return v == std::floor(v);
}

// An ellipse whose bounds lie on pixel edges: ImageJ fills such an oval as this project does.
bool on_pixel_edges(const dic::RoiShape& e) {
  return whole(e.x - e.rx + 0.5) && whole(e.y - e.ry + 0.5) && whole(2 * e.rx) && whole(2 * e.ry);
}

// The outline, along pixel edges, of the pixels an ellipse covers (one run per row, the rows
// contiguous: it is convex): down the runs' right ends, up their left ends.
Result<std::vector<dic::Point2>> pixel_outline(const dic::RoiShape& e) {
  const dic::PixelBox box = dic::pixel_box(e);
  const Index cols = box.x1 - box.x0, rows = box.y1 - box.y0;
  if (cols <= 0 || rows <= 0 || cols * rows > (Index{1} << 26))
    return Status{ErrorCode::invalid_argument, "no pixel"};
  dic::RoiShape moved = e;  // whole-pixel shifts are exact
  moved.x -= box.x0, moved.y -= box.y0;
  const dic::Mask m = dic::Roi{{moved}}.render(rows, cols);
  std::vector<std::pair<Index, Index>> runs;  // per row from the first with pixels: [a, b]
  Index first = -1;
  for (Index y = 0; y < rows; ++y) {
    Index a = -1, b = -1;
    for (Index x = 0; x < cols; ++x)
      if (m[static_cast<std::size_t>(y * cols + x)] != 0) {
        if (a < 0) a = x;
        b = x;
      }
    if (a < 0) continue;
    if (first < 0) first = y;
    runs.emplace_back(a, b);
  }
  if (runs.empty()) return Status{ErrorCode::invalid_argument, "no pixel"};
  std::vector<dic::Point2> v;
  const auto at = [&](double x, double y) {
    v.push_back({x + static_cast<double>(box.x0), y + static_cast<double>(box.y0)});
  };
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const double y = static_cast<double>(first) + static_cast<double>(k);
    at(static_cast<double>(runs[k].second) + 0.5, y - 0.5);
    at(static_cast<double>(runs[k].second) + 0.5, y + 0.5);
  }
  for (std::size_t k = runs.size(); k-- > 0;) {
    const double y = static_cast<double>(first) + static_cast<double>(k);
    at(static_cast<double>(runs[k].first) - 0.5, y + 0.5);
    at(static_cast<double>(runs[k].first) - 0.5, y - 0.5);
  }
  return v;
}

}  // namespace

Result<dic::NamedRoi> decode_roi(std::string_view bytes, const std::string& fallback_name) {
  const Reader r{bytes};
  std::string name = valid_utf8(fallback_name);  // a ZIP entry's name may be in any encoding
  if (bytes.size() < kHeader)
    return refuse(name, "is not an ImageJ ROI: " + std::to_string(bytes.size()) +
                            " bytes, shorter than its 64-byte header");
  if (bytes.substr(0, 4) != "Iout")
    return refuse(name, "is not an ImageJ ROI (it does not start with \"Iout\")");
  const std::uint32_t version = r.u16(kVersion), type = r.u8(kType), subtype = r.u16(kSubtype),
                      options = r.u16(kOptions);
  const std::int32_t header2 = r.i32(kHeader2);
  if (header2 > 0 && r.fits(static_cast<std::size_t>(header2), kHeader)) {
    const auto h2 = static_cast<std::size_t>(header2);
    const std::int32_t at = r.i32(h2 + kNameOffset), length = r.i32(h2 + kNameLength);
    if (at > 0 && length > 0 &&
        r.fits(static_cast<std::size_t>(at), 2 * static_cast<std::size_t>(length)))
      name = utf16be_to_utf8(
          bytes.substr(static_cast<std::size_t>(at), 2 * static_cast<std::size_t>(length)));
  }
  if (subtype == kText) return refuse(name, "a text is not a region");
  if (subtype == kImage) return refuse(name, "an image overlay is not a region");
  const bool sub_pixel = version >= 222 && (options & kSubPixel) != 0;
  const double top = r.coord16(kTop), left = r.coord16(kLeft), bottom = r.coord16(kBottom),
               right = r.coord16(kRight);
  dic::NamedRoi out{name, {}};
  dic::RoiShape& s = out.shape;

  if (const std::int32_t shape_size = r.i32(kShapeSize); shape_size > 0) {
    if (type != rect) return refuse(name, "a composite selection must be of the rectangle type");
    const auto count = static_cast<std::size_t>(shape_size);
    if (!r.fits(kHeader, 4 * count)) return refuse(name, "its composite outline is cut short");
    auto outline = composite_outline(r, count, name);
    if (!outline.is_ok()) return outline.status();
    s.kind = dic::RoiShapeKind::polygon;
    s.vertices = std::move(outline).value();
    return out;
  }
  if (type == rect || type == oval) {
    double x = left, y = top, w = right - left, h = bottom - top;
    if (sub_pixel && version >= 223) {
      // Drawn with sub-pixel bounds, filled by ImageJ within whole pixels (ij.gui.Roi: x and y
      // truncated, width and height rounded up): the pixels ImageJ measures.
      x = r.f32(kFloatBounds), y = r.f32(kFloatBounds + 4), w = r.f32(kFloatBounds + 8),
      h = r.f32(kFloatBounds + 12);
      if (!plausible(x) || !plausible(y) || !plausible(w) || !plausible(h))
        return refuse(name, "its bounds are not numbers within any image");
      x = std::trunc(x), y = std::trunc(y), w = std::ceil(w), h = std::ceil(h);
    }
    if (!(w > 0) || !(h > 0)) return refuse(name, "an empty " + std::string(type_name(int(type))));
    if (type == oval) {
      s.kind = dic::RoiShapeKind::ellipse;
      const dic::Point2 c = here(x + w / 2, y + h / 2);
      s.x = c.x, s.y = c.y, s.rx = w / 2, s.ry = h / 2;
    } else if (const std::uint32_t arc = r.u16(kRoundedArc); arc > 0 && arc < 32768) {
      s.kind = dic::RoiShapeKind::polygon;
      s.vertices = rounded_rect(x, y, w, h, static_cast<double>(arc));
    } else {
      // A rectangle here covers the centres in [x, x + width): x is its first pixel, ImageJ's left.
      s.kind = dic::RoiShapeKind::rectangle;
      s.x = x, s.y = y, s.width = w, s.height = h;
    }
    return out;
  }
  if (type != polygon && type != freehand && type != traced)
    return refuse(name, "an ImageJ " + std::string(type_name(int(type))) + " is not a region");
  if ((options & kSplineFit) != 0)
    return refuse(name,
                  "a spline-fitted polygon: the file holds the spline's control points, not its "
                  "outline (in ImageJ, Edit > Selection > Interpolate it first)");
  std::size_t n = r.u16(kCount);
  if (n == 0 && r.i32(kFloatBounds) > 0) n = static_cast<std::size_t>(r.i32(kFloatBounds));
  if (n < 3) return refuse(name, "a polygon of " + std::to_string(n) + " vertices is not a region");
  if (!r.fits(kHeader, 4 * n) || (sub_pixel && !r.fits(kHeader + 4 * n, 8 * n)))
    return refuse(name, "its " + std::to_string(n) + " vertices are cut short");
  s.kind = dic::RoiShapeKind::polygon;
  s.vertices.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    double x = left + r.u16(kHeader + 2 * i), y = top + r.u16(kHeader + 2 * n + 2 * i);
    if (sub_pixel) x = r.f32(kHeader + 4 * n + 4 * i), y = r.f32(kHeader + 8 * n + 4 * i);
    if (!plausible(x) || !plausible(y))
      return refuse(name, "vertex " + std::to_string(i + 1) + " is not a number within any image");
    s.vertices.push_back(here(x, y));
  }
  return out;
}

Result<std::string> encode_roi(const dic::NamedRoi& named) {
  XCORR_RETURN_IF_ERROR(dic::Roi{{named.shape}}.check());
  const dic::RoiBounds b = dic::bounds(named.shape);  // this project's coordinates
  const double x0 = std::floor(b.x0 + 0.5), y0 = std::floor(b.y0 + 0.5), x1 = std::ceil(b.x1 + 0.5),
               y1 = std::ceil(b.y1 + 0.5);
  for (double v : {x0, y0, x1, y1})
    if (!(v >= -5000 && v <= 60535))
      return Status{
          ErrorCode::invalid_argument,
          "ROI '" + named.name + "' reaches beyond what an ImageJ ROI holds (-5000..60535 px)"};
  dic::NamedRoi roi = named;
  if (roi.shape.kind == dic::RoiShapeKind::ellipse && !on_pixel_edges(roi.shape)) {
    auto outline = pixel_outline(roi.shape);
    if (!outline.is_ok())
      return Status{ErrorCode::invalid_argument, "ROI '" + roi.name + "' covers no pixel"};
    roi.shape = dic::RoiShape{};
    roi.shape.kind = dic::RoiShapeKind::polygon;
    roi.shape.vertices = std::move(outline).value();
  }
  const dic::RoiShape& s = roi.shape;
  std::string body;  // the coordinates after the header
  std::string h(kHeader, '\0');
  h.replace(0, 4, "Iout");
  put16(h, kVersion, kWritten);
  put16(h, kTop, static_cast<std::uint32_t>(static_cast<std::int32_t>(y0)));
  put16(h, kLeft, static_cast<std::uint32_t>(static_cast<std::int32_t>(x0)));
  put16(h, kBottom, static_cast<std::uint32_t>(static_cast<std::int32_t>(y1)));
  put16(h, kRight, static_cast<std::uint32_t>(static_cast<std::int32_t>(x1)));
  if (s.kind == dic::RoiShapeKind::polygon) {
    const std::size_t n = s.vertices.size();
    h[kType] = static_cast<char>(polygon);
    put16(h, kOptions, kSubPixel);
    if (n <= 0xFFFF) {
      put16(h, kCount, static_cast<std::uint32_t>(n));
    } else {
      put32(h, kFloatBounds, static_cast<std::uint32_t>(n));
    }
    body.assign(12 * n, '\0');  // whole-pixel x, y (relative to the bounds), then float x, y
    for (std::size_t i = 0; i < n; ++i) {
      const double x = s.vertices[i].x + 0.5, y = s.vertices[i].y + 0.5;
      put16(body, 2 * i, static_cast<std::uint32_t>(std::lround(std::floor(x) - x0)));
      put16(body, 2 * n + 2 * i, static_cast<std::uint32_t>(std::lround(std::floor(y) - y0)));
      putf(body, 4 * n + 4 * i, x);
      putf(body, 8 * n + 4 * i, y);
    }
  } else {
    // Whole pixels, as ImageJ fills rectangles and ovals: the pixels covered here, in ImageJ's
    // coordinates (pixel i here is [i, i + 1) there).
    const dic::PixelBox p = dic::pixel_box(s);  // within -5000..60535 (checked above)
    if (p.x0 >= p.x1 || p.y0 >= p.y1)
      return Status{ErrorCode::invalid_argument, "ROI '" + roi.name + "' covers no pixel"};
    h[kType] = static_cast<char>(s.kind == dic::RoiShapeKind::ellipse ? oval : rect);
    put16(h, kTop, static_cast<std::uint32_t>(p.y0));
    put16(h, kLeft, static_cast<std::uint32_t>(p.x0));
    put16(h, kBottom, static_cast<std::uint32_t>(p.y1));
    put16(h, kRight, static_cast<std::uint32_t>(p.x1));
  }
  const std::vector<std::uint16_t> name = utf8_to_utf16(roi.name);
  const std::size_t header2 = kHeader + body.size();
  std::string h2(kHeader, '\0');
  put32(h2, kNameOffset, static_cast<std::uint32_t>(header2 + kHeader));
  put32(h2, kNameLength, static_cast<std::uint32_t>(name.size()));
  put32(h, kHeader2, static_cast<std::uint32_t>(header2));
  std::string chars(2 * name.size(), '\0');
  for (std::size_t i = 0; i < name.size(); ++i) put16(chars, 2 * i, name[i]);
  return h + body + h2 + chars;
}

}  // namespace xcorr::imagej
