#include "ui/result_display.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace xcorr::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using Stop = std::array<double, 3>;

// Matplotlib's viridis and cividis (CC0), 9 samples each; linear between them.
constexpr Stop kViridis[] = {{0.267, 0.005, 0.329}, {0.278, 0.175, 0.483}, {0.230, 0.322, 0.546},
                             {0.173, 0.449, 0.558}, {0.128, 0.567, 0.551}, {0.158, 0.684, 0.502},
                             {0.369, 0.789, 0.383}, {0.678, 0.864, 0.190}, {0.993, 0.906, 0.144}};
constexpr Stop kCividis[] = {{0.000, 0.135, 0.305}, {0.097, 0.214, 0.426}, {0.259, 0.291, 0.424},
                             {0.385, 0.372, 0.434}, {0.492, 0.457, 0.470}, {0.606, 0.544, 0.467},
                             {0.727, 0.636, 0.430}, {0.857, 0.735, 0.353}, {0.995, 0.848, 0.219}};
// ColorBrewer RdBu reversed: blue (negative), white (0), red (positive).
constexpr Stop kDiverging[] = {{0.020, 0.188, 0.380}, {0.129, 0.400, 0.675}, {0.263, 0.576, 0.765},
                               {0.573, 0.773, 0.871}, {0.969, 0.969, 0.969}, {0.957, 0.647, 0.510},
                               {0.839, 0.376, 0.302}, {0.698, 0.094, 0.169}, {0.404, 0.000, 0.122}};

template <std::size_t N>
QColor ramp(const Stop (&stops)[N], double t) {
  const double x = t * (N - 1);
  const auto i = std::min<std::size_t>(static_cast<std::size_t>(x), N - 2);
  const double f = x - static_cast<double>(i);
  auto mix = [&](int c) { return stops[i][c] + f * (stops[i + 1][c] - stops[i][c]); };
  return QColor::fromRgbF(static_cast<float>(mix(0)), static_cast<float>(mix(1)),
                          static_cast<float>(mix(2)));
}

}  // namespace

std::string to_string(ResultField f) {
  if (f == ResultField::zncc) return "ZNCC";
  return std::string(label(f)) + (is_length(f) ? " (px)" : "");
}

bool is_signed(ResultField f) {
  return f == ResultField::u || f == ResultField::v || f == ResultField::exx ||
         f == ResultField::eyy || f == ResultField::exy;
}

double field_value(const dic::PointResult& p, ResultField f) {
  if (f == ResultField::status) return static_cast<double>(p.status);
  if (f == ResultField::zncc) return p.zncc;  // NaN where not computed
  if (p.status != dic::PointStatus::converged) return kNaN;
  switch (f) {
    case ResultField::u:
      return p.u;
    case ResultField::v:
      return p.v;
    case ResultField::magnitude:
      return std::hypot(p.u, p.v);
    case ResultField::sigma_u:
      return p.sigma_u;
    case ResultField::sigma_v:
      return p.sigma_v;
    case ResultField::exx:
      return p.exx;
    case ResultField::eyy:
      return p.eyy;
    case ResultField::exy:
      return p.exy;
    default:
      return kNaN;
  }
}

ColourMap default_map(ResultField f) {
  return is_signed(f) ? ColourMap::diverging : ColourMap::viridis;
}

QColor colour_at(ColourMap m, double t) {
  t = std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0);
  switch (m) {
    case ColourMap::viridis:
      return ramp(kViridis, t);
    case ColourMap::cividis:
      return ramp(kCividis, t);
    case ColourMap::diverging:
      return ramp(kDiverging, t);
    case ColourMap::jet:
      break;
  }
  const double r = std::clamp(1.5 - std::abs(4 * t - 3), 0.0, 1.0);
  const double g = std::clamp(1.5 - std::abs(4 * t - 2), 0.0, 1.0);
  const double b = std::clamp(1.5 - std::abs(4 * t - 1), 0.0, 1.0);
  return QColor::fromRgbF(static_cast<float>(r), static_cast<float>(g), static_cast<float>(b));
}

QColor series_colour(std::size_t k) {
  static const QColor c[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                             {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                             {188, 189, 34},  {23, 190, 207}};
  return c[k % 10];
}

QColor status_colour(dic::PointStatus s) {
  switch (s) {
    case dic::PointStatus::converged:
      return {40, 170, 80};
    case dic::PointStatus::diverged:
      return {220, 40, 40};
    case dic::PointStatus::low_texture:
      return {240, 150, 20};
    case dic::PointStatus::outside_roi:
      return {120, 120, 120, 0};
    case dic::PointStatus::outside_image:
      return {140, 80, 200};
    case dic::PointStatus::inconsistent:
      return {230, 60, 170};
    case dic::PointStatus::missing_data:
      return {30, 30, 30};
  }
  return {};
}

ColourRange range_in_use(const ColourRange& r, const std::vector<dic::PointResult>& points,
                         ResultField f, ColourMap m) {
  if (f == ResultField::status) return {false, 0, 6};
  if (!r.automatic && r.lo < r.hi) return r;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& p : points) {
    const double v = field_value(p, f);
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(lo <= hi)) return {true, 0, 1};  // no value
  if (m == ColourMap::diverging) {       // centred on 0
    const double a = std::max(std::abs(lo), std::abs(hi));
    lo = -a;
    hi = a;
  }
  if (!(lo < hi)) hi = lo + std::max(1e-12, std::abs(lo) * 1e-9);
  return {true, lo, hi};
}

ColourRange range_over_frames(const std::vector<dic::FrameResult>& frames, ResultField f,
                              ColourMap m) {
  std::vector<dic::PointResult> extremes;  // each frame's points that bound its range
  for (const dic::FrameResult& frame : frames) {
    const dic::PointResult* lo = nullptr;
    const dic::PointResult* hi = nullptr;
    for (const dic::PointResult& p : frame.points) {
      const double v = field_value(p, f);
      if (!std::isfinite(v)) continue;
      if (lo == nullptr || v < field_value(*lo, f)) lo = &p;
      if (hi == nullptr || v > field_value(*hi, f)) hi = &p;
    }
    if (lo != nullptr) extremes.insert(extremes.end(), {*lo, *hi});
  }
  ColourRange r = range_in_use({}, extremes, f, m);
  r.automatic = false;
  return r;
}

long nearest_point(const std::vector<dic::PointResult>& points, long cols, int step, double x,
                   double y) {
  if (points.empty() || cols < 1 || step < 1) return -1;
  const long rows = static_cast<long>(points.size()) / cols;
  const double c = std::round((x - points.front().x) / step);
  const double r = std::round((y - points.front().y) / step);
  if (c < -1 || r < -1 || c > static_cast<double>(cols) || r > static_cast<double>(rows)) return -1;
  const long cc = std::clamp(static_cast<long>(c), 0L, cols - 1);
  const long rr = std::clamp(static_cast<long>(r), 0L, rows - 1);
  return rr * cols + cc;
}

QString point_text(const dic::PointResult& p, const io::ImageScale& scale) {
  const bool length = scale.has_length();
  const QString unit = QString::fromStdString(scale.unit);
  QString t = QString("x %1, y %2").arg(p.x, 0, 'f', 1).arg(p.y, 0, 'f', 1);
  if (length)
    t += QString(" (%1, %2 %3)")
             .arg(scale.to_unit_x(p.x), 0, 'g', 5)
             .arg(scale.to_unit_y(p.y), 0, 'g', 5)
             .arg(unit);
  t += ": ";
  if (p.status == dic::PointStatus::converged) {
    const auto in_unit = [&](double px, double unit_per_px) {
      return length ? QString(" (%1 %2)").arg(px * unit_per_px, 0, 'g', 4).arg(unit) : QString();
    };
    t += QString("u %1 px%2, v %3 px%4, |d| %5 px, exx %6, eyy %7, exy %8, ")
             .arg(p.u, 0, 'f', 3)
             .arg(in_unit(p.u, scale.pixel_x))
             .arg(p.v, 0, 'f', 3)
             .arg(in_unit(p.v, scale.pixel_y))
             .arg(std::hypot(p.u, p.v), 0, 'f', 3)
             .arg(p.exx, 0, 'f', 4)
             .arg(p.eyy, 0, 'f', 4)
             .arg(p.exy, 0, 'f', 4);
    if (std::isfinite(p.sigma_u) && std::isfinite(p.sigma_v))
      t += QString("sigma u %1 px, sigma v %2 px, ")
               .arg(p.sigma_u, 0, 'f', 4)
               .arg(p.sigma_v, 0, 'f', 4);
  }
  if (std::isfinite(p.zncc)) t += QString("ZNCC %1, ").arg(p.zncc, 0, 'f', 4);
  return t + dic::to_string(p.status);
}

}  // namespace xcorr::ui

#include <cstdio>

#include "core/io/atomic_write.hpp"

namespace xcorr::ui {

std::vector<ProfileSample> sample_profile(const std::vector<dic::PointResult>& points, long cols,
                                          int step, double x0, double y0, double x1, double y1) {
  std::vector<ProfileSample> out;
  const double length = std::hypot(x1 - x0, y1 - y0);
  const double ds = std::max(0.5, step / 2.0);
  const auto n = static_cast<long>(std::floor(length / ds)) + 1;
  for (long k = 0; k < n && !points.empty(); ++k) {
    ProfileSample q;
    q.s = static_cast<double>(k) * ds;
    const double t = length > 0 ? q.s / length : 0;
    q.x = x0 + t * (x1 - x0);
    q.y = y0 + t * (y1 - y0);
    const long i = nearest_point(points, cols, step, q.x, q.y);
    if (i >= 0 && std::abs(points[static_cast<std::size_t>(i)].x - q.x) <= step &&
        std::abs(points[static_cast<std::size_t>(i)].y - q.y) <= step) {
      q.at = points[static_cast<std::size_t>(i)];
    } else {
      q.at.u = q.at.v = q.at.exx = q.at.eyy = q.at.exy = q.at.zncc = kNaN;
      q.at.x = q.x, q.at.y = q.y;
    }
    out.push_back(q);
  }
  return out;
}

std::vector<ProfileSample> sample_line(double x0, double y0, double x1, double y1) {
  std::vector<ProfileSample> out;
  const double length = std::hypot(x1 - x0, y1 - y0);
  const auto n = static_cast<long>(std::floor(length / 0.5)) + 1;
  for (long k = 0; k < n; ++k) {
    ProfileSample q;
    q.s = static_cast<double>(k) * 0.5;
    const double t = length > 0 ? q.s / length : 0;
    q.x = x0 + t * (x1 - x0);
    q.y = y0 + t * (y1 - y0);
    q.at.u = q.at.v = q.at.exx = q.at.eyy = q.at.exy = q.at.zncc = kNaN;
    q.at.x = q.x, q.at.y = q.y;
    q.at.status = dic::PointStatus::outside_roi;
    out.push_back(q);
  }
  return out;
}

double bilinear(MatrixView<const float> image, double x, double y) {
  if (!(x >= 0 && y >= 0 && x <= static_cast<double>(image.cols - 1) &&
        y <= static_cast<double>(image.rows - 1)))
    return kNaN;
  const auto c = std::min(static_cast<Index>(x), image.cols - std::min<Index>(image.cols, 2));
  const auto r = std::min(static_cast<Index>(y), image.rows - std::min<Index>(image.rows, 2));
  const double fx = x - static_cast<double>(c), fy = y - static_cast<double>(r);
  const Index c1 = std::min(c + 1, image.cols - 1), r1 = std::min(r + 1, image.rows - 1);
  const double v = (1 - fy) * ((1 - fx) * image(r, c) + fx * image(r, c1)) +
                   fy * ((1 - fx) * image(r1, c) + fx * image(r1, c1));
  return std::isfinite(v) ? v : kNaN;
}

Status write_profile_csv(const std::string& path, const std::vector<ProfileSample>& profile,
                         const std::string& what, const std::vector<std::string>& channels) {
  if (profile.empty())
    return {ErrorCode::invalid_argument, "no profile to export: draw a line with the Line tool"};
  std::string header = "s_px,x_px,y_px,u_px,v_px,exx,eyy,exy,zncc,status";
  for (const std::string& c : channels) header += "," + c;
  std::string text = "# xcorr line profile\n# " + what +
                     "\n# units: s, x, y, u, v in px; strains dimensionless; values of the grid "
                     "point nearest to each sample (NaN: none, or not converged); intensities "
                     "as stored (bilinear between pixel centres)\n" +
                     header + "\n";
  char line[512];
  for (const ProfileSample& q : profile) {
    const dic::PointResult& p = q.at;
    const bool ok = p.status == dic::PointStatus::converged;
    auto val = [ok](double v) { return ok ? v : kNaN; };
    std::snprintf(line, sizeof line, "%.3f,%.3f,%.3f,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%s", q.s, q.x,
                  q.y, val(p.u), val(p.v), val(p.exx), val(p.eyy), val(p.exy), p.zncc,
                  dic::to_string(p.status));
    text += line;
    for (std::size_t c = 0; c < channels.size(); ++c) {
      std::snprintf(line, sizeof line, ",%.9g", c < q.intensity.size() ? q.intensity[c] : kNaN);
      text += line;
    }
    text += "\n";
  }
  XCORR_RETURN_IF_ERROR(io::check_output_name(path));
  return io::write_text_atomically(path, text);
}

}  // namespace xcorr::ui
