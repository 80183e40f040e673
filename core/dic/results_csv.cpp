#include "core/dic/results_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string_view>
#include <utility>
#include <vector>

#include "core/io/atomic_write.hpp"
#include "core/io/decimal_text.hpp"
#include "core/parallel.hpp"
#include "core/version.hpp"

namespace xcorr::dic {
namespace {

// `v` as printf's "%.<digits>f" (fixed: io::append_fixed) or "%.<digits>g" (general:
// std::to_chars) in the C locale: exactly those characters, without parsing a format or reading
// the locale (a 2048^2 frame at step 4 has 255,025 rows of 11 numbers).
void put(std::string& out, double v, std::chars_format form, int digits) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (form == std::chars_format::fixed) return io::append_fixed(out, v, digits);
  char buf[400];  // the longest double in general form, and its sign
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, form, digits);
  out.append(buf, r.ptr);
}

void put_int(std::string& out, long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// The frame's rows; with roi_only, only the grid points inside the ROI (whatever their status).
void append_rows(std::string& out, const FrameResult& f, const Grid& grid, const CsvContext& c) {
  const io::ImageScale& s = c.scale;
  constexpr auto fixed = std::chars_format::fixed;
  constexpr auto general = std::chars_format::general;
  std::string time;
  if (s.has_time()) {
    time = ",";
    put(time, io::frame_time_s(s, c.frame_steps, f.frame), general, 9);
  }
  out.reserve(out.size() + f.points.size() * 112);  // a row's usual length, pixel columns
  for (std::size_t k = 0; k < f.points.size(); ++k) {
    const PointResult& p = f.points[k];
    if (c.options.roi_only == OnOff::on && k < grid.points.size() && !grid.points[k].valid)
      continue;
    put_int(out, static_cast<long>(f.frame));
    const std::pair<double, int> fields[] = {{p.x, 1},   {p.y, 1},   {p.u, 6},   {p.v, 6},
                                             {p.exx, 8}, {p.eyy, 8}, {p.exy, 8}, {p.zncc, 6}};
    for (const auto& [v, digits] : fields) {
      out += ',';
      put(out, v, fixed, digits);
    }
    out += ',';
    put_int(out, p.iterations);
    out += ',';
    out += to_string(p.status);
    out += ',';
    put(out, p.sigma_u, fixed, 6);
    out += ',';
    put(out, p.sigma_v, fixed, 6);
    if (s.has_length()) {
      for (const double v : {s.to_unit_x(p.x), s.to_unit_y(p.y), s.to_unit_x(p.u), s.to_unit_y(p.v),
                             s.to_unit_x(p.sigma_u), s.to_unit_y(p.sigma_v)}) {
        out += ',';
        put(out, v, general, 9);
      }
    }
    out += time;
    out += '\n';
  }
}

// The column line: the pixel columns first (readers of earlier files keep working).
std::string columns(const io::ImageScale& s) {
  std::string c = "frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,sigma_u,sigma_v";
  if (s.has_length()) {
    const std::string u = "_" + s.unit;
    c += ",x" + u + ",y" + u + ",u" + u + ",v" + u + ",sigma_u" + u + ",sigma_v" + u;
  }
  if (s.has_time()) c += ",time_s";
  return c + "\n";
}

}  // namespace

std::string csv_header(const CsvContext& c) {
  const DicOptions& o = c.options;
  std::string h = "# xcorr DIC results\n";
  h += std::string("# software: xcorr ") + kVersion + "\n";
  h += "# reference: " + c.reference + "\n";
  for (std::size_t k = 0; k < c.frames.size(); ++k)
    h += "# frame " + std::to_string(k + 1) + ": " + c.frames[k] + "\n";
  h += "# units: x, y, u, v in px (origin at the top-left pixel centre, x right, y down; a point "
       "at x in the reference is at x + u in the frame); exx, eyy, exy dimensionless (" +
       std::string(to_string(o.strain)) +
       " strain); zncc in [-1, 1]; sigma_u, sigma_v in px: the noise-based standard "
       "uncertainty of u and v (the ZNSSD residual's variance times the diagonal of the inverse "
       "Hessian)\n";
  h += "# scale: " + io::describe(c.scale) + "\n";
  h += "# settings: " + describe_fields(dic_option_table(), o) + "\n";
  h += std::string("# model: ZNSSD criterion, ") +
       (o.interpolation == Interpolation::quintic ? "biquintic" : "bicubic") +
       " B-spline interpolation" +
       (o.prefilter > 0 ? " of both images smoothed by a Gaussian (sigma = prefilter px)" : "") +
       "\n";
  std::string roi;
  for (const RoiShape& s : c.roi.shapes) roi += (roi.empty() ? "" : " ") + to_string(s);
  h += "# roi: " + (roi.empty() ? std::string("whole image") : roi) + "\n";
  h += "# initial guess: ZNCC integer search over +-search_radius px, its maximum refined by a "
       "quadratic fit of the 3x3 values around it, ran " +
       (c.guess_variant.empty() ? std::string("-") : c.guess_variant) + "\n";
  h += "# registered on: " + (c.device.empty() ? std::string("-") : c.device) + "\n";
  return h;
}

Status write_dic_csv(const std::filesystem::path& path, const DicResult& r, const CsvContext& c) {
  // Each frame's rows formatted into a text of its own, one frame per host thread, and the texts
  // written in frame order as they are: the text in memory once, never joined (a 2048^2 job at
  // step 4 writes about 1.8 GB).
  const std::string head = csv_header(c) + columns(c.scale);
  std::vector<std::string> rows(r.frames.size());
  parallel_for(static_cast<Index>(rows.size()), 1, [&](Index begin, Index end) {
    for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i)
      append_rows(rows[i], r.frames[i], r.grid, c);
  });
  std::vector<std::string_view> parts{head};
  parts.insert(parts.end(), rows.begin(), rows.end());
  return io::write_parts_atomically(path, parts);
}

Result<std::vector<std::filesystem::path>> write_dic_csv_per_frame(
    const std::filesystem::path& path, const DicResult& r, const CsvContext& c) {
  // All files or none: a full disk halfway leaves no frame's file behind.
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  std::vector<std::filesystem::path> written;
  for (const FrameResult& f : r.frames) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "_frame%04ld", static_cast<long>(f.frame));
    std::filesystem::path p =
        path.parent_path() / (path.stem().string() + suffix + path.extension().string());
    std::string text = csv_header(c) + columns(c.scale);
    append_rows(text, f, r.grid, c);
    files.emplace_back(p, std::move(text));
    written.push_back(p);
  }
  XCORR_RETURN_IF_ERROR(io::write_texts_atomically(files));
  return written;
}

}  // namespace xcorr::dic
