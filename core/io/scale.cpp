#include "core/io/scale.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/options_table.hpp"

namespace xcorr::io {
namespace {

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A leading number (and the rest of the text); nullopt-like false when there is none.
bool leading_number(std::string_view& s, double& v) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || !std::isfinite(v)) return false;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return true;
}

Status bad(const std::string& what) {
  return {ErrorCode::invalid_argument, what};
}

}  // namespace

std::string length_unit(std::string_view text) {
  const std::string u = lower_trimmed(text);
  if (u == "um" || u == "micron" || u == "microns" || u == "micrometer" || u == "micrometre" ||
      u == "micrometers" || u == "micrometres" || u == "\xc2\xb5m" || u == "\xce\xbcm" ||
      u == "\\u00b5m")
    return "um";
  if (u == "nm" || u == "nanometer" || u == "nanometre" || u == "nanometers" || u == "nanometres")
    return "nm";
  if (u == "mm" || u == "millimeter" || u == "millimetre") return "mm";
  if (u == "cm" || u == "centimeter" || u == "centimetre") return "cm";
  if (u == "m" || u == "meter" || u == "metre") return "m";
  return "";
}

double seconds_per(std::string_view text) {
  const std::string u = lower_trimmed(text);
  if (u == "s" || u == "sec" || u == "second" || u == "seconds") return 1;
  if (u == "ms" || u == "msec" || u == "millisecond" || u == "milliseconds") return 1e-3;
  if (u == "us" || u == "\xc2\xb5s" || u == "\xce\xbcs" || u == "microsecond" ||
      u == "microseconds")
    return 1e-6;
  if (u == "min" || u == "minute" || u == "minutes") return 60;
  if (u == "h" || u == "hr" || u == "hour" || u == "hours") return 3600;
  return 0;
}

Result<ImageScale> parse_pixel_size(std::string_view text) {
  const std::string what = "pixel size '" + std::string(text) + "'";
  std::string_view s = text;
  double x = 0, y = 0;
  if (!leading_number(s, x))
    return bad(what + ": expected a size and a unit, e.g. 0.65um or 0.65x0.7um");
  y = x;
  if (!s.empty() && (s.front() == 'x' || s.front() == 'X') &&
      (s.size() > 1 &&
       (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == ' ' || s[1] == '.'))) {
    s.remove_prefix(1);
    if (!leading_number(s, y)) return bad(what + ": expected <x>x<y><unit>, e.g. 0.65x0.7um");
  }
  if (!(x > 0) || !(y > 0)) return bad(what + ": a pixel size must be > 0");
  const std::string unit = length_unit(s);
  if (s.empty()) return bad(what + ": a length unit is needed, e.g. 0.65um (nm, um, mm, cm or m)");
  if (unit.empty()) {
    return bad(what + ": unknown length unit '" + std::string(s) + "' (nm, um, mm, cm or m)");
  }
  ImageScale out;
  out.pixel_x = x;
  out.pixel_y = y;
  out.unit = unit;
  out.length_source = "user";
  return out;
}

Result<double> parse_duration(std::string_view text) {
  const std::string what = "frame interval '" + std::string(text) + "'";
  std::string_view s = text;
  double v = 0;
  if (!leading_number(s, v)) return bad(what + ": expected a time and a unit, e.g. 2s or 500ms");
  if (!(v > 0)) return bad(what + ": a frame interval must be > 0");
  const double per = seconds_per(s);
  if (s.empty()) return bad(what + ": a time unit is needed, e.g. 2s (ms, s, min or h)");
  if (per == 0) {
    return bad(what + ": unknown time unit '" + std::string(s) + "' (ms, s, min or h)");
  }
  if (!std::isfinite(v * per)) return bad(what + ": too long");
  return v * per;
}

Result<ImageScale> apply_user_scale(ImageScale s, const std::string& pixel_size,
                                    const std::string& frame_interval) {
  if (lower_trimmed(pixel_size) == "none") {
    s.pixel_x = s.pixel_y = 0;
    s.unit.clear();
    s.length_source.clear();
  } else if (!pixel_size.empty()) {
    auto user = parse_pixel_size(pixel_size);
    if (!user.is_ok()) return user.status();
    s.pixel_x = user.value().pixel_x;
    s.pixel_y = user.value().pixel_y;
    s.unit = user.value().unit;
    s.length_source = "user";
  }
  if (lower_trimmed(frame_interval) == "none") {
    s.frame_interval_s = 0;
    s.time_source.clear();
  } else if (!frame_interval.empty()) {
    auto user = parse_duration(frame_interval);
    if (!user.is_ok()) return user.status();
    s.frame_interval_s = user.value();
    s.time_source = "user";
  }
  return s;
}

double frame_time_s(const ImageScale& s, const std::vector<double>& steps, long frame) {
  if (frame <= 0) return 0;
  const auto k = static_cast<std::size_t>(frame - 1);
  return (k < steps.size() ? steps[k] : static_cast<double>(frame)) * s.frame_interval_s;
}

std::string describe(const ImageScale& s) {
  std::string out = "pixel ";
  if (s.has_length()) {
    out += format_real(s.pixel_x) + " x " + format_real(s.pixel_y) + " " + s.unit + " (" +
           s.length_source + ")";
  } else {
    out += "size not known (px only)";
  }
  out += "; frame interval ";
  if (s.has_time())
    out += format_real(s.frame_interval_s) + " s (" + s.time_source + ")";
  else
    out += "not known (frame numbers only)";
  return out;
}

}  // namespace xcorr::io
