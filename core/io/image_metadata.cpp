#include "core/io/image_metadata.hpp"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"
#include "core/io/tiff_integrity.hpp"
#include "core/io/tiff_page.hpp"

namespace xcorr::io {
namespace {

// Finite and > 0: the only values a scale takes.
bool positive(double v) {
  return std::isfinite(v) && v > 0;
}

double number(const std::string& s) {
  if (s.empty()) return 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return (end == s.c_str() || !std::isfinite(v)) ? 0 : v;
}

// A count or index written as a number: its nearest integer, or -1 when it is not a number in
// [0, 1e12].
long whole(const std::string& s) {
  const double v = number(s);
  return s.empty() || !(v >= 0 && v <= 1e12) ? -1 : std::lround(v);
}

std::string attribute(xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (v == nullptr) return "";
  std::string out(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return out;
}

bool named(xmlNode* n, const char* local_name) {
  return n->type == XML_ELEMENT_NODE &&
         std::strcmp(reinterpret_cast<const char*>(n->name), local_name) == 0;
}

// The first element with this local name (any namespace: OME's changes with its schema year).
xmlNode* find(xmlNode* n, const char* local_name) {
  for (; n != nullptr; n = n->next) {
    if (named(n, local_name)) return n;
    if (xmlNode* in = find(n->children, local_name)) return in;
  }
  return nullptr;
}

}  // namespace

namespace {
// A layout whose sizes pass these limits is not believed (a hostile or broken description): the
// stack reads as plain pages.
constexpr long kMaxPlanes = 1L << 16, kMaxFrames = 1L << 32;
bool believable(const HyperLayout& l) {
  return l.channels >= 1 && l.slices >= 1 && l.frames >= 0 && l.channels <= kMaxPlanes &&
         l.slices <= kMaxPlanes && l.frames <= kMaxFrames && l.channels * l.slices <= kMaxPlanes;
}
}  // namespace

long HyperLayout::page(long c, long z, long t) const {
  long index = 0, stride = 1;
  for (const char axis : order) {
    const long at = axis == 'C' ? c : axis == 'Z' ? z : t;
    const long size = axis == 'C' ? channels : axis == 'Z' ? slices : std::max(frames, 1L);
    index += at * stride;
    stride *= size;
  }
  return index;
}

long HyperLayout::time_of_page(long p) const {
  long stride = 1;
  for (const char axis : order) {
    const long size = axis == 'C' ? channels : axis == 'Z' ? slices : std::max(frames, 1L);
    if (axis == 'T') return (p / stride) % size;
    stride *= size;
  }
  return p;
}

// libxml2 reports some problems (bad encodings) through its global handlers even with
// XML_PARSE_NOERROR: they go nowhere (malformed metadata gives no scale, which is the report).
void quiet_generic(void*, const char*, ...) {}
void quiet_structured(void*, const xmlError*) {}
void silence_libxml2() {
  static std::once_flag once;
  std::call_once(once, [] {
    xmlInitParser();
    xmlSetGenericErrorFunc(nullptr, quiet_generic);
    xmlSetStructuredErrorFunc(nullptr, reinterpret_cast<xmlStructuredErrorFunc>(quiet_structured));
  });
}

StackMetadata metadata_from_ome_xml(std::string_view xml) {
  silence_libxml2();
  StackMetadata m;
  ImageScale& s = m.scale;
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc(
      xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "ome.xml", nullptr, options),
      xmlFreeDoc);
  if (!doc) return m;
  xmlNode* root = xmlDocGetRootElement(doc.get());
  if (root == nullptr || !named(root, "OME")) return m;
  xmlNode* pixels = find(root->children, "Pixels");
  if (pixels == nullptr) return m;
  // Layout: SizeC (over the samples of one page: an RGB page holds 3 channels), SizeZ, SizeT,
  // DimensionOrder XY + a permutation of CZT.
  const long size_c = whole(attribute(pixels, "SizeC"));
  const long size_z = whole(attribute(pixels, "SizeZ"));
  const long size_t_ = whole(attribute(pixels, "SizeT"));
  xmlNode* channel = find(pixels->children, "Channel");
  const long samples =
      channel == nullptr ? 1 : std::max(1L, whole(attribute(channel, "SamplesPerPixel")));
  const std::string order = attribute(pixels, "DimensionOrder");
  const bool permutation = order.size() == 5 && order.rfind("XY", 0) == 0 &&
                           std::is_permutation(order.begin() + 2, order.end(), "CZT");
  if (!order.empty() && !permutation)
    m.problem = "its OME-XML DimensionOrder '" + order.substr(0, 40) +
                "' is not XY followed by C, Z and T once each";
  if (size_c >= 1 && size_z >= 1 && size_t_ >= 1 && permutation) {
    m.layout.channels = std::max(1L, size_c / samples);
    m.layout.slices = size_z;
    m.layout.frames = size_t_;
    m.layout.order = order.substr(2);
    if (!believable(m.layout) || m.layout.order.find_first_not_of("CZT") != std::string::npos)
      m.layout = HyperLayout{};
  }
  // Lengths: PhysicalSizeX/Y in PhysicalSizeXUnit/YUnit (the schema's default: µm).
  const double x = number(attribute(pixels, "PhysicalSizeX"));
  const double y = number(attribute(pixels, "PhysicalSizeY"));
  std::string ux = attribute(pixels, "PhysicalSizeXUnit");
  std::string uy = attribute(pixels, "PhysicalSizeYUnit");
  ux = ux.empty() ? "um" : length_unit(ux);
  uy = uy.empty() ? "um" : length_unit(uy);
  if (positive(x) && !ux.empty() && ux == uy) {
    s.pixel_x = x;
    s.pixel_y = positive(y) ? y : x;
    s.unit = ux;
    s.length_source = "OME-XML";
  }
  for (xmlNode* n = pixels->children; n != nullptr; n = n->next)
    if (named(n, "Channel")) m.channel_names.push_back(attribute(n, "Name"));
  if (std::all_of(m.channel_names.begin(), m.channel_names.end(),
                  [](const std::string& n) { return n.empty(); }))
    m.channel_names.clear();
  std::string uz = attribute(pixels, "PhysicalSizeZUnit");
  uz = uz.empty() ? "um" : length_unit(uz);
  if (const double z = number(attribute(pixels, "PhysicalSizeZ")); positive(z) && uz == s.unit)
    m.spacing_z = z;
  // Time: TimeIncrement (TimeIncrementUnit, default s), else the mean step of the planes' DeltaT
  // along T (at the first C and Z).
  const std::string unit = attribute(pixels, "TimeIncrementUnit");
  const double per = unit.empty() ? 1 : seconds_per(unit);
  const double increment = number(attribute(pixels, "TimeIncrement"));
  if (positive(increment * per)) {
    s.frame_interval_s = increment * per;
    s.time_source = "OME-XML TimeIncrement";
    return m;
  }
  std::map<long, double> delta_t;  // by TheT
  for (xmlNode* n = pixels->children; n != nullptr; n = n->next) {
    if (!named(n, "Plane")) continue;
    if (whole(attribute(n, "TheC")) > 0 || whole(attribute(n, "TheZ")) > 0) continue;
    const std::string dt = attribute(n, "DeltaT");
    const std::string dt_unit = attribute(n, "DeltaTUnit");
    const double dt_per = dt_unit.empty() ? 1 : seconds_per(dt_unit);
    if (dt.empty() || dt_per == 0) continue;
    const long t = whole(attribute(n, "TheT"));
    if (t >= 0) delta_t[t] = number(dt) * dt_per;
  }
  if (delta_t.size() >= 2) {
    const auto first = delta_t.begin();
    const auto last = std::prev(delta_t.end());
    const double step =
        (last->second - first->second) / static_cast<double>(last->first - first->first);
    if (positive(step)) {
      s.frame_interval_s = step;
      s.time_source = "OME-XML DeltaT";
    }
  }
  return m;
}

StackMetadata metadata_from_imagej(std::string_view description, double x_resolution,
                                   double y_resolution) {
  StackMetadata m;
  ImageScale& s = m.scale;
  std::map<std::string, std::string> kv;
  std::size_t at = 0;
  while (at < description.size()) {
    std::size_t end = description.find('\n', at);
    if (end == std::string_view::npos) end = description.size();
    const std::string_view line = description.substr(at, end - at);
    const std::size_t eq = line.find('=');
    if (eq != std::string_view::npos)
      kv[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    at = end + 1;
  }
  if (!kv.count("ImageJ")) return m;
  // Hyperstacks: channels, slices, frames (pages in CZT order).
  const auto count = [&kv](const char* key) {
    return kv.count(key) ? std::max(1L, whole(kv[key])) : 1L;
  };
  m.layout.channels = count("channels");
  m.layout.slices = count("slices");
  m.layout.frames = kv.count("frames") ? count("frames") : 0;
  if (!believable(m.layout)) m.layout = HyperLayout{};
  const std::string unit = kv.count("unit") ? length_unit(kv["unit"]) : "";
  // ImageJ writes XResolution as pixels per unit (ResolutionUnit none); yunit, when present,
  // names another y unit, which this program does not carry.
  const bool same_y = !kv.count("yunit") || length_unit(kv["yunit"]) == unit;
  if (!unit.empty() && positive(1 / x_resolution) && x_resolution > 0 && same_y) {
    s.pixel_x = 1 / x_resolution;
    s.pixel_y = positive(1 / y_resolution) && y_resolution > 0 ? 1 / y_resolution : s.pixel_x;
    s.unit = unit;
    s.length_source = "ImageJ description";
  }
  if (!s.unit.empty() && kv.count("spacing") && positive(number(kv["spacing"])))
    m.spacing_z = number(kv["spacing"]);
  const double interval = kv.count("finterval") ? number(kv["finterval"]) : 0;
  const double per = kv.count("tunit") ? seconds_per(kv["tunit"]) : 1;  // ImageJ's default: sec
  if (positive(interval * per)) {
    s.frame_interval_s = interval * per;
    s.time_source = "ImageJ description";
  }
  return m;
}

ImageScale scale_from_resolution(int resolution_unit, double x_resolution, double y_resolution) {
  ImageScale s;
  const double um_per_unit = resolution_unit == 2 ? 25400 : resolution_unit == 3 ? 10000 : 0;
  if (um_per_unit == 0 || !positive(x_resolution) || !positive(um_per_unit / x_resolution))
    return s;
  if (resolution_unit == 2 && x_resolution == 72) return s;  // a display default, not a scale
  s.pixel_x = um_per_unit / x_resolution;
  s.pixel_y = positive(um_per_unit / y_resolution) && y_resolution > 0 ? um_per_unit / y_resolution
                                                                       : s.pixel_x;
  s.unit = "um";
  s.length_source = "TIFF resolution tags";
  return s;
}

Result<ImageScale> read_image_scale(const std::filesystem::path& file) {
  auto m = read_stack_metadata(file);
  if (!m.is_ok()) return m.status();
  return m.value().scale;
}

bool stack_has_plane(const std::filesystem::path& file, long channel, long z) {
  if (channel == 0 && z == 0) return true;
  std::filesystem::path first = file;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    auto names = image_names_in(file);
    if (!names.is_ok() || names.value().empty()) return false;
    first = file / names.value().front();
  }
  auto meta = read_stack_metadata(first);
  return meta.is_ok() && channel < meta.value().layout.channels && z < meta.value().layout.slices;
}

Result<StackMetadata> read_stack_metadata(const std::filesystem::path& file) {
  if (!is_tiff_file(file)) return StackMetadata{};
  auto opened = open_tiff(file);
  if (!opened.is_ok()) return opened.status();
  TIFF* tif = opened.value();
  char* description = nullptr;
  std::string text;
  if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description) == 1 && description != nullptr)
    text = description;
  float xres = 0, yres = 0;
  std::uint16_t unit = 2;  // the TIFF default: inch
  const bool has_res = TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xres) == 1;
  if (TIFFGetField(tif, TIFFTAG_YRESOLUTION, &yres) != 1) yres = xres;
  TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
  TIFFClose(tif);
  (void)take_tiff_error();
  const double x = has_res ? xres : 0, y = has_res ? yres : 0;
  if (text.find("<OME") != std::string::npos) {
    StackMetadata m = metadata_from_ome_xml(text);
    m.ome = true;
    return m;
  }
  if (text.rfind("ImageJ=", 0) == 0) return metadata_from_imagej(text, x, y);
  StackMetadata m;
  m.scale = scale_from_resolution(unit, x, y);
  return m;
}

}  // namespace xcorr::io
