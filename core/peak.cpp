#include "core/peak.hpp"

#include <cmath>
#include <limits>

namespace xcorr {
namespace {

// Vertex of the parabola through (-1, fm), (0, f0), (1, fp); nullopt if not a maximum.
std::optional<double> parabola_vertex(double fm, double f0, double fp) {
  const double curvature = fm - 2 * f0 + fp;
  if (!(curvature < 0)) return std::nullopt;
  return (fm - fp) / (2 * curvature);
}

struct AxisFit {
  std::optional<double> offset;
  bool gaussian = false;
};

AxisFit fit_axis(double fm, double f0, double fp, SubpixelMethod method) {
  if (method == SubpixelMethod::gaussian && fm > 0 && f0 > 0 && fp > 0) {
    return {parabola_vertex(std::log(fm), std::log(f0), std::log(fp)), true};
  }
  return {parabola_vertex(fm, f0, fp), false};
}

// Least-squares quadratic on the 3x3 neighbourhood n[dy+1][dx+1]; returns (dy, dx).
std::optional<std::pair<double, double>> quadratic_vertex(const double n[3][3]) {
  double s0 = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (int y = -1; y <= 1; ++y) {
    for (int x = -1; x <= 1; ++x) {
      const double f = n[y + 1][x + 1];
      s0 += f;
      sx += x * f;
      sy += y * f;
      sxx += x * x * f;
      syy += y * y * f;
      sxy += x * y * f;
    }
  }
  // Normal equations of the 9-point design decouple: b = sx/6, c = sy/6, e = sxy/4, and
  // [9 6 6; 6 6 4; 6 4 6] [a d f]^T = [s0 sxx syy]^T gives d = sxx/2 - s0/3, f = syy/2 - s0/3.
  const double b = sx / 6, c = sy / 6, e = sxy / 4;
  const double d = sxx / 2 - s0 / 3, f = syy / 2 - s0 / 3;
  const double det = 4 * d * f - e * e;  // Hessian [2d e; e 2f]
  if (!(d < 0 && det > 0)) return std::nullopt;
  const double dx = (-2 * f * b + e * c) / det;
  const double dy = (-2 * d * c + e * b) / det;
  return std::make_pair(dy, dx);
}

}  // namespace

const char* to_string(SubpixelMethod m) {
  switch (m) {
    case SubpixelMethod::none:
      return "none";
    case SubpixelMethod::parabolic:
      return "parabolic";
    case SubpixelMethod::gaussian:
      return "gaussian";
    case SubpixelMethod::quadratic2d:
      return "quadratic2d";
  }
  return "?";
}

std::optional<SubpixelMethod> parse_subpixel_method(std::string_view s) {
  for (SubpixelMethod m : {SubpixelMethod::none, SubpixelMethod::parabolic,
                           SubpixelMethod::gaussian, SubpixelMethod::quadratic2d}) {
    if (s == to_string(m)) return m;
  }
  return std::nullopt;
}

Result<Peak> find_peak(MatrixView<const float> m, SubpixelMethod method) {
  if (m.rows < 1 || m.cols < 1)
    return Status{ErrorCode::invalid_argument, "cannot find a peak in an empty matrix"};
  Peak p;
  p.value = -std::numeric_limits<double>::infinity();
  bool found = false;
  for (Index r = 0; r < m.rows; ++r) {
    for (Index c = 0; c < m.cols; ++c) {
      const float v = m(r, c);
      if (std::isfinite(v) && (!found || v > p.value)) {
        p = Peak{r, c, v};
        found = true;
      }
    }
  }
  if (!found)
    return Status{ErrorCode::invalid_argument, "the matrix has no finite value to find a peak in"};
  const bool interior = p.row > 0 && p.col > 0 && p.row + 1 < m.rows && p.col + 1 < m.cols;
  if (method == SubpixelMethod::none || !interior) return p;

  if (method == SubpixelMethod::quadratic2d) {
    double n[3][3];
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < 3; ++x) n[y][x] = m(p.row + y - 1, p.col + x - 1);
    }
    const auto v = quadratic_vertex(n);
    if (v && std::abs(v->first) <= 1 && std::abs(v->second) <= 1) {
      p.row_offset = v->first;
      p.col_offset = v->second;
      p.refined = true;
      p.used = SubpixelMethod::quadratic2d;
    }
    return p;
  }
  const AxisFit fy = fit_axis(m(p.row - 1, p.col), p.value, m(p.row + 1, p.col), method);
  const AxisFit fx = fit_axis(m(p.row, p.col - 1), p.value, m(p.row, p.col + 1), method);
  if (fy.offset && fx.offset && std::abs(*fy.offset) <= 1 && std::abs(*fx.offset) <= 1) {
    p.row_offset = *fy.offset;
    p.col_offset = *fx.offset;
    p.refined = true;
    p.used = (fy.gaussian && fx.gaussian) ? SubpixelMethod::gaussian : SubpixelMethod::parabolic;
  }
  return p;
}

}  // namespace xcorr
