#include "core/dic/results_csv.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "core/io/atomic_write.hpp"
#include "core/version.hpp"

namespace xcorr::dic {
namespace {

std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The frame's rows; with roi_only, only the grid points inside the ROI (whatever their status).
void append_rows(std::string& out, const FrameResult& f, const Grid& grid, const CsvContext& c) {
  const io::ImageScale& s = c.scale;
  const std::string time =
      s.has_time() ? "," + fmt("%.9g", io::frame_time_s(s, c.frame_steps, f.frame)) : "";
  for (std::size_t k = 0; k < f.points.size(); ++k) {
    const PointResult& p = f.points[k];
    if (c.options.roi_only == OnOff::on && k < grid.points.size() && !grid.points[k].valid)
      continue;
    out += std::to_string(f.frame) + "," + fmt("%.1f", p.x) + "," + fmt("%.1f", p.y) + "," +
           fmt("%.6f", p.u) + "," + fmt("%.6f", p.v) + "," + fmt("%.8f", p.exx) + "," +
           fmt("%.8f", p.eyy) + "," + fmt("%.8f", p.exy) + "," + fmt("%.6f", p.zncc) + "," +
           std::to_string(p.iterations) + "," + to_string(p.status) + "," + fmt("%.6f", p.sigma_u) +
           "," + fmt("%.6f", p.sigma_v);
    if (s.has_length()) {
      out += "," + fmt("%.9g", s.to_unit_x(p.x)) + "," + fmt("%.9g", s.to_unit_y(p.y)) + "," +
             fmt("%.9g", s.to_unit_x(p.u)) + "," + fmt("%.9g", s.to_unit_y(p.v)) + "," +
             fmt("%.9g", s.to_unit_x(p.sigma_u)) + "," + fmt("%.9g", s.to_unit_y(p.sigma_v));
    }
    out += time + "\n";
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
  h += "# initial guess: ZNCC integer search (n_to_mn valid-mode peak request), ran " +
       (c.guess_variant.empty() ? std::string("-") : c.guess_variant) + "\n";
  h += "# registered on: " + (c.device.empty() ? std::string("-") : c.device) + "\n";
  return h;
}

Status write_dic_csv(const std::filesystem::path& path, const DicResult& r, const CsvContext& c) {
  std::string text = csv_header(c) + columns(c.scale);
  for (const FrameResult& f : r.frames) append_rows(text, f, r.grid, c);
  return io::write_text_atomically(path, text);
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
