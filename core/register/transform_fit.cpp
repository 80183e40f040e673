#include "core/register/transform_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/dic/bspline.hpp"
#include "core/dic/icgn_math.hpp"
#include "core/register/phase_correlation.hpp"
#include "core/register/warp_image.hpp"

#ifdef XCORR_HAVE_FFTW
#include "core/register/fftw_helpers.hpp"
#endif

namespace xcorr::reg {

#ifdef XCORR_HAVE_FFTW
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr Index kCoarseSide = 256;  // px: the coarse level's longer side at most
constexpr Index kThetas = 256;      // log-polar samples over 180 degrees
constexpr Index kRadii = 128;       // log-polar samples along the radius
constexpr int kMaxIterations = 60;  // IC-GN's, per level
constexpr double kMinOverlap = 0.25;

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// One image at one resolution: `bin` x `bin` blocks of the full image averaged (bin 1: the image),
// its cubic B-spline coefficients, and (a reference's) gradients at the pixels (grey values/px).
struct Level {
  Index rows = 0, cols = 0;
  int bin = 1;
  std::vector<float> pixels, coefficients, gx, gy;
  // The full image's centre ((cols - 1) / 2, (rows - 1) / 2 px) in this level's pixels.
  double cx = 0, cy = 0;
  // A reference's: px of this level along the border where the smoothing of its gradients saw
  // the image's continuation, not its content: left out of the fit.
  Index band = 0;
};

Level make_level(MatrixView<const float> image, int bin) {
  Level l;
  l.bin = bin;
  l.rows = image.rows / bin;
  l.cols = image.cols / bin;
  const double half = (bin - 1) / 2.0;
  l.cx = ((static_cast<double>(image.cols) - 1) / 2 - half) / bin;
  l.cy = ((static_cast<double>(image.rows) - 1) / 2 - half) / bin;
  l.pixels.assign(static_cast<std::size_t>(l.rows * l.cols), 0.0f);
  for (Index r = 0; r < l.rows * bin; ++r) {
    const float* in = image.row(r);
    float* out = l.pixels.data() + (r / bin) * l.cols;
    for (Index c = 0; c < l.cols * bin; ++c) out[c / bin] += in[c];
  }
  const auto area = static_cast<float>(bin * bin);
  for (float& v : l.pixels) v /= area;
  l.coefficients =
      cubic_coefficients(MatrixView<const float>{l.pixels.data(), l.rows, l.cols, l.cols});
  return l;
}

// A reference level's gradients at its pixels, from the spline of `source` (the same level of
// the smoothed image).
void add_gradients(Level& l, const Level& source) {
  l.gx.resize(l.pixels.size());
  l.gy.resize(l.pixels.size());
  for (Index r = 0; r < l.rows; ++r) {
    for (Index k = 0; k < l.cols; ++k) {
      double v = 0, gx = 0, gy = 0;
      dic::math::bspline_value_gradient<3>(source.coefficients.data(), l.rows, l.cols,
                                           static_cast<double>(k), static_cast<double>(r), v, gx,
                                           gy);
      l.gx[static_cast<std::size_t>(r * l.cols + k)] = static_cast<float>(gx);
      l.gy[static_cast<std::size_t>(r * l.cols + k)] = static_cast<float>(gy);
    }
  }
}

float level_value(const Level& l, double x, double y) {
  return static_cast<float>(
      dic::math::bspline_value<3, float>(l.coefficients.data(), l.rows, l.cols, x, y));
}

// The warp's parameters and steepest-descent images for each model, in a level's coordinates
// relative to the image centre (xi, eta px): N parameters, translation first.
template <Transform T>
struct Model;
template <>
struct Model<Transform::rigid> {
  static constexpr int N = 3;  // tx, ty, angle (rad)
  static void sd(float gx, float gy, float xi, float eta, float* s) {
    s[0] = gx, s[1] = gy, s[2] = -eta * gx + xi * gy;
  }
  static Affine warp(const double* p) {
    const double c = std::cos(p[2]), s = std::sin(p[2]);
    return Affine{{c, -s, p[0], s, c, p[1]}};
  }
};
template <>
struct Model<Transform::similarity> {
  static constexpr int N = 4;  // tx, ty, a, b: linear part [[1 + a, -b], [b, 1 + a]]
  static void sd(float gx, float gy, float xi, float eta, float* s) {
    s[0] = gx, s[1] = gy, s[2] = xi * gx + eta * gy, s[3] = -eta * gx + xi * gy;
  }
  static Affine warp(const double* p) {
    return Affine{{1 + p[2], -p[3], p[0], p[3], 1 + p[2], p[1]}};
  }
};
template <>
struct Model<Transform::affine> {
  static constexpr int N = 6;  // tx, ty, then the linear part minus the identity, row by row
  static void sd(float gx, float gy, float xi, float eta, float* s) {
    s[0] = gx, s[1] = gy, s[2] = xi * gx, s[3] = eta * gx, s[4] = xi * gy, s[5] = eta * gy;
  }
  static Affine warp(const double* p) {
    return Affine{{1 + p[2], p[3], p[0], p[4], 1 + p[5], p[1]}};
  }
};

// A warp in full-resolution px relative to the centre, in a level's px relative to its centre:
// the same linear part, the translation divided by the bin.
Affine to_level(const Affine& rel, int bin) {
  Affine a = rel;
  a.m[2] /= bin;
  a.m[5] /= bin;
  return a;
}
Affine from_level(const Affine& rel, int bin) {
  Affine a = rel;
  a.m[2] *= bin;
  a.m[5] *= bin;
  return a;
}

// The columns [c0, c1) of row r (relative eta) whose match x = cx + a(xi, eta) lies within
// [m, cols - 1 - m] x [m, rows - 1 - m] (an affine map: an interval per row).
void row_span(const Affine& a, const Level& f, double eta, const Level& ref, double m, Index& c0,
              Index& c1) {
  const double ref_cx = ref.cx;
  const Index ref_cols = ref.cols;
  double lo = static_cast<double>(ref.band) - ref_cx;  // xi range
  double hi = static_cast<double>(ref_cols - 1 - ref.band) - ref_cx;
  const auto clip = [&](double k, double base, double low, double high) {
    // low <= base + k xi <= high
    if (std::abs(k) < 1e-12) {
      if (base < low || base > high) lo = 1, hi = 0;
      return;
    }
    double a0 = (low - base) / k, a1 = (high - base) / k;
    if (a0 > a1) std::swap(a0, a1);
    lo = std::max(lo, a0), hi = std::min(hi, a1);
  };
  clip(a.m[0], f.cx + a.m[1] * eta + a.m[2], m, static_cast<double>(f.cols - 1) - m);
  clip(a.m[3], f.cy + a.m[4] * eta + a.m[5], m, static_cast<double>(f.rows - 1) - m);
  if (lo > hi) {
    c0 = c1 = 0;
    return;
  }
  c0 = std::max<Index>(0, static_cast<Index>(std::ceil(lo + ref_cx - 1e-9)));
  c1 = std::min<Index>(ref_cols, static_cast<Index>(std::floor(hi + ref_cx + 1e-9)) + 1);
  if (c1 < c0) c1 = c0;
}

struct LevelFit {
  Affine rel;  // level px, relative to the centres
  double zncc = 0, overlap = 0;
  int iterations = 0;
  bool converged = false, singular = false;
};

// IC-GN of model T on one level from `rel`, until the update moves no corner by more than `tol`
// px (of the level).
template <Transform T>
LevelFit icgn(const Level& ref, const Level& frame, Affine rel, double tol) {
  constexpr int N = Model<T>::N;
  constexpr int kPacked = N * (N + 1) / 2;
  LevelFit out;
  const double margin = 1.0;
  const auto total = static_cast<double>((ref.rows - 2 * ref.band) * (ref.cols - 2 * ref.band));
  // The pixel set is chosen again whenever the warp moved a corner by more than the margin.
  while (out.iterations < kMaxIterations) {
    // The pixels whose match lies inside the frame under the current warp, and their sums.
    std::vector<Index> c0(static_cast<std::size_t>(ref.rows)), c1(c0.size());
    double h[kPacked] = {}, sd_sum[N] = {}, sd_f[N] = {};
    double n = 0, f_sum = 0, f_sq = 0;
    for (Index r = ref.band; r < ref.rows - ref.band; ++r) {
      const double eta = static_cast<double>(r) - ref.cy;
      row_span(rel, frame, eta, ref, margin, c0[static_cast<std::size_t>(r)],
               c1[static_cast<std::size_t>(r)]);
      for (Index k = c0[static_cast<std::size_t>(r)]; k < c1[static_cast<std::size_t>(r)]; ++k) {
        const auto i = static_cast<std::size_t>(r * ref.cols + k);
        float s[N];
        Model<T>::sd(ref.gx[i], ref.gy[i], static_cast<float>(static_cast<double>(k) - ref.cx),
                     static_cast<float>(eta), s);
        const double f = ref.pixels[i];
        for (int a = 0; a < N; ++a) {
          sd_sum[a] += s[a];
          sd_f[a] += s[a] * f;
          for (int b = 0; b <= a; ++b) h[a * (a + 1) / 2 + b] += static_cast<double>(s[a]) * s[b];
        }
        n += 1, f_sum += f, f_sq += f * f;
      }
    }
    out.overlap = n / total;
    if (n < 16 || out.overlap < kMinOverlap) return out;
    const double f_mean = f_sum / n, f_dev = std::sqrt(std::max(0.0, f_sq - n * f_mean * f_mean));
    if (!dic::math::cholesky<N>(h) || !(f_dev > 0)) {
      out.singular = true;
      return out;
    }
    const Affine chosen = rel;
    bool moved_far = false;
    out.converged = false;
    while (out.iterations < kMaxIterations) {
      ++out.iterations;
      double g_sum = 0, g_sq = 0, fg = 0, sd_g[N] = {};
      for (Index r = 0; r < ref.rows; ++r) {
        const double eta = static_cast<double>(r) - ref.cy;
        const double bx = frame.cx + rel.m[1] * eta + rel.m[2];
        const double by = frame.cy + rel.m[4] * eta + rel.m[5];
        for (Index k = c0[static_cast<std::size_t>(r)]; k < c1[static_cast<std::size_t>(r)]; ++k) {
          const double xi = static_cast<double>(k) - ref.cx;
          const auto i = static_cast<std::size_t>(r * ref.cols + k);
          const double g = level_value(frame, bx + rel.m[0] * xi, by + rel.m[3] * xi);
          float s[N];
          Model<T>::sd(ref.gx[i], ref.gy[i], static_cast<float>(xi), static_cast<float>(eta), s);
          for (int a = 0; a < N; ++a) sd_g[a] += s[a] * g;
          g_sum += g, g_sq += g * g, fg += ref.pixels[i] * g;
        }
      }
      const double g_mean = g_sum / n;
      const double g_dev = std::sqrt(std::max(0.0, g_sq - n * g_mean * g_mean));
      if (!(g_dev > 0)) return out;
      out.zncc = (fg - n * f_mean * g_mean) / (f_dev * g_dev);
      const double k = f_dev / g_dev;
      double dp[N];
      for (int a = 0; a < N; ++a)
        dp[a] = -(sd_f[a] - f_mean * sd_sum[a] - k * (sd_g[a] - g_mean * sd_sum[a]));
      dic::math::cholesky_solve<N>(h, dp);
      const Affine d = Model<T>::warp(dp);
      rel = d.inverse().then(rel);
      // The update's largest move at the image's corners, and how far the warp went from the
      // one the pixels were chosen with.
      double step = 0, drift = 0;
      for (const double sx : {-ref.cx, ref.cx})
        for (const double sy : {-ref.cy, ref.cy}) {
          step = std::max(step, std::hypot(d.x(sx, sy) - sx, d.y(sx, sy) - sy));
          drift = std::max(drift, std::hypot(rel.x(sx, sy) - chosen.x(sx, sy),
                                             rel.y(sx, sy) - chosen.y(sx, sy)));
        }
      if (!std::isfinite(step)) return out;
      if (step < tol) {
        out.converged = true;
        break;
      }
      if (drift > margin) {
        moved_far = true;
        break;
      }
    }
    out.rel = rel;
    if (!moved_far) return out;
  }
  out.rel = rel;
  return out;
}

LevelFit fit_level(Transform t, const Level& ref, const Level& frame, const Affine& rel,
                   double tol) {
  switch (t) {
    case Transform::similarity:
      return icgn<Transform::similarity>(ref, frame, rel, tol);
    case Transform::affine:
      return icgn<Transform::affine>(ref, frame, rel, tol);
    default:
      return icgn<Transform::rigid>(ref, frame, rel, tol);
  }
}

}  // namespace

struct TransformFitter::Impl {
  Shape shape{};
  FitOptions options;
  int bin = 1;  // the coarse level's
  // px: options.smoothing, at most 1/24 of the shorter side (a tiny image keeps some pixels
  // clear of the smoothing's border band).
  double smoothing = 0;
  Index crows = 0, ccols = 0, chalf = 0;
  double r0 = 0, r1 = 0;  // log-polar radii, cycles/px of the coarse level
  fftwf_plan plan = nullptr;
  std::vector<double> hann_x, hann_y;  // the coarse level's Hann windows
  std::unique_ptr<PhaseCorrelator> polar, translation;
  struct Prepared {
    Level full, coarse;            // coarse: bin > 1 only
    std::vector<float> log_polar;  // kThetas x kRadii
  };
  Prepared reference;
  bool has_reference = false;

  ~Impl() {
    std::lock_guard lock(fftw_planner_mutex());
    if (plan != nullptr) fftwf_destroy_plan(plan);
  }

  const Level& coarse_of(const Prepared& p) const { return bin > 1 ? p.coarse : p.full; }

  // log(1 + |F|) of the coarse image (mean removed, Hann window) on the log-polar grid: rows are
  // angles 0 .. 180 degrees, columns log-spaced radii r0 .. r1.
  std::vector<float> log_polar(const Level& c) const {
    auto in = fftw::alloc<float>(static_cast<std::size_t>(crows * ccols));
    auto spec = fftw::alloc<fftwf_complex>(static_cast<std::size_t>(crows * chalf));
    double mean = 0;
    for (const float v : c.pixels) mean += v;
    mean /= static_cast<double>(c.pixels.size());
    for (Index r = 0; r < crows; ++r) {
      const double wy = hann_y[static_cast<std::size_t>(r)];
      for (Index k = 0; k < ccols; ++k)
        in[static_cast<std::size_t>(r * ccols + k)] =
            static_cast<float>((c.pixels[static_cast<std::size_t>(r * ccols + k)] - mean) * wy *
                               hann_x[static_cast<std::size_t>(k)]);
    }
    fftwf_execute_dft_r2c(plan, in.get(), spec.get());
    std::vector<float> mag(static_cast<std::size_t>(crows * chalf));
    for (std::size_t i = 0; i < mag.size(); ++i)
      mag[i] = static_cast<float>(std::log1p(std::hypot(spec[i][0], spec[i][1])));
    const auto at = [&](Index ky, Index kx) {
      ky = ((ky % crows) + crows) % crows;
      return mag[static_cast<std::size_t>(ky * chalf + std::min(kx, chalf - 1))];
    };
    // A Hann taper along the radius, which is not periodic (the angle is: 180 degrees), so that
    // the grids' ends do not pull the peak towards no rotation and no scale.
    std::vector<double> taper(static_cast<std::size_t>(kRadii));
    for (Index j = 0; j < kRadii; ++j)
      taper[static_cast<std::size_t>(j)] =
          0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(j) / static_cast<double>(kRadii - 1));
    std::vector<float> out(static_cast<std::size_t>(kThetas * kRadii));
    const double step = std::log(r1 / r0) / static_cast<double>(kRadii - 1);
    for (Index t = 0; t < kThetas; ++t) {
      const double theta = kPi * static_cast<double>(t) / static_cast<double>(kThetas);
      for (Index j = 0; j < kRadii; ++j) {
        const double r = r0 * std::exp(step * static_cast<double>(j));
        double kx = r * std::cos(theta) * static_cast<double>(ccols);
        double ky = r * std::sin(theta) * static_cast<double>(crows);
        if (kx < 0) kx = -kx, ky = -ky;  // |F(-k)| = |F(k)|
        const double fx = std::floor(kx), fy = std::floor(ky);
        const double ax = kx - fx, ay = ky - fy;
        const auto ix = static_cast<Index>(fx), iy = static_cast<Index>(fy);
        const double v = (1 - ay) * ((1 - ax) * at(iy, ix) + ax * at(iy, ix + 1)) +
                         ay * ((1 - ax) * at(iy + 1, ix) + ax * at(iy + 1, ix + 1));
        out[static_cast<std::size_t>(t * kRadii + j)] =
            static_cast<float>(v * taper[static_cast<std::size_t>(j)]);
      }
    }
    return out;
  }

  // An image's levels (with gradients: a reference) and log-polar spectrum. A reference's
  // gradients are those of the image smoothed by `smoothing`; its values and the frame's are
  // not smoothed, so that the two stay related by the transform exactly (a blur does not
  // commute with a scale or a shear).
  Prepared prepare(MatrixView<const float> image, bool gradients = true) const {
    Prepared p;
    p.full = make_level(image, 1);
    if (bin > 1) p.coarse = make_level(image, bin);
    if (gradients) {
      std::vector<float> smooth;
      MatrixView<const float> source = image;
      if (smoothing > 0) {
        const std::vector<double> s = dic::smoothed(image, smoothing);
        smooth.assign(s.begin(), s.end());
        source = MatrixView<const float>{smooth.data(), image.rows, image.cols, image.cols};
      }
      add_gradients(p.full, smoothing > 0 ? make_level(source, 1) : p.full);
      p.full.band = static_cast<Index>(std::ceil(3 * smoothing));
      if (bin > 1) {
        add_gradients(p.coarse, smoothing > 0 ? make_level(source, bin) : p.coarse);
        p.coarse.band = static_cast<Index>(std::ceil(3 * smoothing / bin));
      }
    }
    p.log_polar = log_polar(coarse_of(p));
    return p;
  }

  // A starting warp (full px, relative to the centre): the Fourier-Mellin rotation and scale with
  // the translation found after them (fourier_mellin), or no rotation with the translation alone.
  Result<Affine> start(const Prepared& ref, const Prepared& frame, bool fourier_mellin) const {
    const Level& rc = coarse_of(ref);
    const Level& fc = coarse_of(frame);
    const MatrixView<const float> rv{rc.pixels.data(), rc.rows, rc.cols, rc.cols};
    // The frame sampled through the linear part `l` about the centre, missing places at its mean.
    const auto translation_after = [&](const std::array<double, 4>& l) -> Result<Affine> {
      std::vector<float> moved(fc.pixels.size());
      double mean = 0;
      for (const float v : fc.pixels) mean += v;
      mean /= static_cast<double>(fc.pixels.size());
      for (Index r = 0; r < fc.rows; ++r)
        for (Index k = 0; k < fc.cols; ++k) {
          const double xi = static_cast<double>(k) - fc.cx, eta = static_cast<double>(r) - fc.cy;
          const double x = fc.cx + l[0] * xi + l[1] * eta, y = fc.cy + l[2] * xi + l[3] * eta;
          const bool inside = x >= 0 && y >= 0 && x <= static_cast<double>(fc.cols - 1) &&
                              y <= static_cast<double>(fc.rows - 1);
          moved[static_cast<std::size_t>(r * fc.cols + k)] =
              inside ? level_value(fc, x, y) : static_cast<float>(mean);
        }
      auto s = translation->measure(
          rv, MatrixView<const float>{moved.data(), fc.rows, fc.cols, fc.cols});
      if (!s.is_ok()) return s.status();
      // A feature at xi in the reference is at xi + s in the moved frame, at l (xi + s) in the
      // frame.
      const double tx = s.value().dx * bin, ty = s.value().dy * bin;
      return Affine{{l[0], l[1], l[0] * tx + l[1] * ty, l[2], l[3], l[2] * tx + l[3] * ty}};
    };
    if (!fourier_mellin) return translation_after({1, 0, 0, 1});
    auto lp =
        polar->measure(MatrixView<const float>{ref.log_polar.data(), kThetas, kRadii, kRadii},
                       MatrixView<const float>{frame.log_polar.data(), kThetas, kRadii, kRadii});
    if (!lp.is_ok()) return lp.status();
    // A rotation by a moves the spectrum's features by a along the angle; a scale s moves them
    // to 1 / s of their radius.
    const double angle = lp.value().dy * kPi / static_cast<double>(kThetas);
    const double step = std::log(r1 / r0) / static_cast<double>(kRadii - 1);
    double scale = options.transform == Transform::rigid ? 1 : std::exp(-lp.value().dx * step);
    if (!(scale > 0.5 && scale < 2)) scale = 1;
    return translation_after(Affine::rotation(angle, scale));
  }

  Fit measure(const Prepared& ref, MatrixView<const float> image) const {
    if (image.rows != shape.rows || image.cols != shape.cols)
      return Fit{{},
                 0,
                 0,
                 "is " + to_string(Shape{image.rows, image.cols}) + " px, not " + to_string(shape)};
    const Prepared frame = prepare(image, false);
    const char* model = label(options.transform);
    Fit best;
    LevelFit chosen;
    bool any = false;
    for (const bool fourier_mellin : {true, false}) {
      const Result<Affine> begin = start(ref, frame, fourier_mellin);
      if (!begin.is_ok()) continue;
      Affine rel = begin.value();
      int iterations = 0;
      if (bin > 1) {
        const LevelFit c =
            fit_level(options.transform, ref.coarse, frame.coarse, to_level(rel, bin), 2e-2);
        iterations += c.iterations;
        if (c.converged) rel = from_level(c.rel, bin);
      }
      LevelFit f = fit_level(options.transform, ref.full, frame.full, rel, 1e-3);
      f.iterations += iterations;
      // Preferred: converged, a good match and within the searched rotation; then converged;
      // then the better match.
      const auto rank = [this](const LevelFit& l) {
        return (l.converged ? 2 : 0) +
               (l.converged && l.zncc >= kMinFitZncc &&
                        std::abs(l.rel.angle_degrees()) <= options.max_rotation
                    ? 1
                    : 0);
      };
      if (!any || rank(f) > rank(chosen) || (rank(f) == rank(chosen) && f.zncc > chosen.zncc)) {
        chosen = f;
        any = true;
      }
      if (rank(f) == 3) break;  // the Fourier-Mellin start held
    }
    const double cx = ref.full.cx, cy = ref.full.cy;
    best.map = Affine::translation(-cx, -cy).then(chosen.rel).then(Affine::translation(cx, cy));
    best.zncc = chosen.zncc;
    best.iterations = chosen.iterations;
    if (!any) {
      best.failed = "has no correlation peak for the " + std::string(model) + " fit's start";
    } else if (chosen.singular) {
      best.failed = "has too little texture for the " + std::string(model) + " fit";
    } else if (chosen.overlap < kMinOverlap) {
      best.failed = "overlaps the reference by " + fmt("%.0f", 100 * chosen.overlap) +
                    " % under the " + model + " fit (at least " + fmt("%.0f", 100 * kMinOverlap) +
                    " % needed)";
    } else if (!chosen.converged) {
      best.failed = "did not converge under the " + std::string(model) + " fit in " +
                    std::to_string(kMaxIterations) + " iterations";
    } else if (!(chosen.zncc >= kMinFitZncc)) {
      best.failed = "matches the reference poorly under the " + std::string(model) + " fit (ZNCC " +
                    fmt("%.3f", chosen.zncc) + ", below " + fmt("%.1f", kMinFitZncc) + ")";
    } else if (std::abs(best.map.angle_degrees()) > options.max_rotation) {
      best.failed = "is rotated by " + fmt("%.2f", best.map.angle_degrees()) +
                    " degrees, beyond the searched +-" + fmt("%g", options.max_rotation) +
                    " degrees (max_rotation)";
    }
    return best;
  }
};

Result<std::unique_ptr<TransformFitter>> TransformFitter::create(Shape shape, FitOptions o) {
  if (shape.rows < 8 || shape.cols < 8)
    return Status{ErrorCode::invalid_argument,
                  "a " + to_string(shape) + " px image is too small for a transform fit (8 x 8)"};
  if (o.transform == Transform::translation)
    return Status{ErrorCode::invalid_argument,
                  "the transform fit needs rigid, similarity or affine"};
  std::unique_ptr<TransformFitter> t(new TransformFitter());
  auto impl = std::make_unique<Impl>();
  impl->shape = shape;
  impl->options = o;
  const Index longer = std::max(shape.rows, shape.cols);
  impl->bin = static_cast<int>((longer + kCoarseSide - 1) / kCoarseSide);
  impl->crows = shape.rows / impl->bin;
  impl->ccols = shape.cols / impl->bin;
  impl->chalf = impl->ccols / 2 + 1;
  const auto hann = [](Index n) {
    std::vector<double> w(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i)
      w[static_cast<std::size_t>(i)] =
          0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(i) /
                               static_cast<double>(std::max<Index>(1, n - 1)));
    return w;
  };
  impl->hann_x = hann(impl->ccols);
  impl->hann_y = hann(impl->crows);
  impl->smoothing =
      std::min(o.smoothing, static_cast<double>(std::min(shape.rows, shape.cols)) / 24);
  impl->r1 = 0.4;
  impl->r0 = std::min(4.0 / static_cast<double>(std::min(impl->crows, impl->ccols)), impl->r1 / 8);
  {
    std::lock_guard lock(fftw_planner_mutex());
    auto in = fftw::alloc<float>(static_cast<std::size_t>(impl->crows * impl->ccols));
    auto spec = fftw::alloc<fftwf_complex>(static_cast<std::size_t>(impl->crows * impl->chalf));
    impl->plan = fftwf_plan_dft_r2c_2d(static_cast<int>(impl->crows), static_cast<int>(impl->ccols),
                                       in.get(), spec.get(), FFTW_ESTIMATE);
  }
  if (impl->plan == nullptr) return Status{ErrorCode::internal, "FFTW made no plan"};
  auto polar = PhaseCorrelator::create(Shape{kThetas, kRadii}, PhaseOptions{20, false, true});
  if (!polar.is_ok()) return polar.status();
  impl->polar = std::move(polar).value();
  auto tr = PhaseCorrelator::create(Shape{impl->crows, impl->ccols}, PhaseOptions{20, true, false});
  if (!tr.is_ok()) return tr.status();
  impl->translation = std::move(tr).value();
  t->impl_ = std::move(impl);
  return t;
}

TransformFitter::~TransformFitter() = default;

Status TransformFitter::set_reference(MatrixView<const float> reference) {
  if (reference.rows != impl_->shape.rows || reference.cols != impl_->shape.cols)
    return Status{ErrorCode::size_mismatch, "the reference is " +
                                                to_string(Shape{reference.rows, reference.cols}) +
                                                " px, not " + to_string(impl_->shape)};
  impl_->reference = impl_->prepare(reference);
  impl_->has_reference = true;
  return Status::ok();
}

Fit TransformFitter::measure(MatrixView<const float> frame) const {
  if (!impl_->has_reference) return Fit{{}, 0, 0, "has no reference to be measured against"};
  return impl_->measure(impl_->reference, frame);
}

Fit TransformFitter::measure(MatrixView<const float> reference,
                             MatrixView<const float> frame) const {
  if (reference.rows != impl_->shape.rows || reference.cols != impl_->shape.cols)
    return Fit{{}, 0, 0, "has a reference of another size"};
  return impl_->measure(impl_->prepare(reference), frame);
}

#else

struct TransformFitter::Impl {};
Result<std::unique_ptr<TransformFitter>> TransformFitter::create(Shape, FitOptions) {
  return Status{ErrorCode::unsupported, "this build has no FFTW: transform fits are not available"};
}
TransformFitter::~TransformFitter() = default;
Status TransformFitter::set_reference(MatrixView<const float>) {
  return Status::ok();
}
Fit TransformFitter::measure(MatrixView<const float>) const {
  return {};
}
Fit TransformFitter::measure(MatrixView<const float>, MatrixView<const float>) const {
  return {};
}

#endif

}  // namespace xcorr::reg
