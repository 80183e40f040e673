#include "core/dic/bspline.hpp"

#include <algorithm>
#include <cmath>

#include "core/dic/icgn_math.hpp"

namespace xcorr::dic {
namespace {

// Interpolation coefficients of the (smoothed) image, row-major.
std::vector<double> spline_coefficients(MatrixView<const float> image, Interpolation interpolation,
                                        double prefilter) {
  std::vector<double> c = smoothed(image, prefilter);
  const Index rows = image.rows, cols = image.cols;
  const auto filter = [&](double* s, Index n, Index stride) {
    if (interpolation == Interpolation::quintic) {
      math::bspline_prefilter<5>(s, n, stride);
    } else {
      math::bspline_prefilter<3>(s, n, stride);
    }
  };
  for (Index y = 0; y < rows; ++y) filter(c.data() + y * cols, cols, 1);
  for (Index x = 0; x < cols; ++x) filter(c.data() + x, rows, cols);
  return c;
}

}  // namespace

int spline_reach(Interpolation interpolation, double prefilter) {
  double w[2 * math::kMaxGaussianRadius + 1];
  return (interpolation == Interpolation::quintic ? 22 : 14) + math::gaussian_taps(prefilter, w);
}

int spline_support(Interpolation interpolation, double prefilter) {
  double w[2 * math::kMaxGaussianRadius + 1];
  return (interpolation == Interpolation::quintic ? 5 : 4) + math::gaussian_taps(prefilter, w);
}

double gradient_noise_gain(Interpolation interpolation, double prefilter) {
  // kappa = int G^2 (D / B)^2 / int G^2 over [0, pi]: G the smoothing's, B the spline's sampled
  // kernel (the prefilter is 1 / B) and D its derivative at the pixel centres, per axis (the
  // other axis' value interpolation at integers is the identity).
  double w[2 * math::kMaxGaussianRadius + 1];
  const int r = math::gaussian_taps(prefilter, w);
  const bool quintic = interpolation == Interpolation::quintic;
  constexpr int kSteps = 4096;
  double num = 0, den = 0;
  for (int s = 0; s < kSteps; ++s) {
    const double om = (s + 0.5) * M_PI / kSteps;
    double g = 1;  // no smoothing
    if (r > 0) {
      g = 0;
      for (int k = -r; k <= r; ++k) g += w[k + r] * std::cos(k * om);
    }
    const double b = quintic ? (66 + 52 * std::cos(om) + 2 * std::cos(2 * om)) / 120
                             : (4 + 2 * std::cos(om)) / 6;
    const double d = quintic ? (100 * std::sin(om) + 10 * std::sin(2 * om)) / 120 : std::sin(om);
    num += g * g * (d / b) * (d / b);
    den += g * g;
  }
  return num / den;
}

math::NoiseModel noise_model(MatrixView<const float> reference, Interpolation interpolation,
                             double prefilter) {
  math::NoiseModel m;
  m.kappa = gradient_noise_gain(interpolation, prefilter);
  double w[2 * math::kMaxGaussianRadius + 1];
  const int r = math::gaussian_taps(prefilter, w);
  if (r == 0) return m;
  // rho: the noise's autocorrelation after smoothing, per axis (w correlated with itself).
  const int R = 2 * r;
  std::vector<double> rho(static_cast<std::size_t>(2 * R + 1), 0.0);
  double q = 0;
  for (int a = -r; a <= r; ++a) {
    q += w[a + r] * w[a + r];
    for (int b = -r; b <= r; ++b) rho[static_cast<std::size_t>(a - b + R)] += w[a + r] * w[b + r];
  }
  const double rho0 = q * q;
  // Tiles: 96 px (or the image), the statistics over their inner part (28 px from the tile's
  // edge, so the tile's own boundary hardly changes the coefficients there).
  constexpr Index kTile = 96, kMargin = 28;
  const Index th = std::min(kTile, reference.rows), tw = std::min(kTile, reference.cols);
  const Index margin = std::min<Index>(kMargin, std::min(th, tw) / 2 - R - 1);
  if (margin < R) {
    m.scale_u = m.scale_v = 1 / rho0;  // too small to measure: gamma 1
    return m;
  }
  double sx = 0, sxx = 0, sy = 0, syy = 0;
  for (int ty = 0; ty < 4; ++ty)
    for (int tx = 0; tx < 4; ++tx) {
      const Index y0 = (reference.rows - th) * ty / 3, x0 = (reference.cols - tw) * tx / 3;
      MatrixView<const float> tile{reference.row(y0) + x0, th, tw, reference.row_stride};
      const BSplineImage spline(tile, interpolation, prefilter);
      // Gradients over the inner part widened by R, then rho along x and along y.
      const Index n0 = margin - R, ny = th - 2 * n0, nx = tw - 2 * n0;
      std::vector<double> gx(static_cast<std::size_t>(ny * nx)), gy(gx.size()), hx(gx.size()),
          hy(gx.size());
      for (Index y = 0; y < ny; ++y)
        for (Index x = 0; x < nx; ++x) {
          double v = 0;
          spline.value_gradient(static_cast<double>(x + n0), static_cast<double>(y + n0), v,
                                gx[static_cast<std::size_t>(y * nx + x)],
                                gy[static_cast<std::size_t>(y * nx + x)]);
        }
      for (Index y = 0; y < ny; ++y)  // along x (the inner rows' full width)
        for (Index x = R; x < nx - R; ++x) {
          double ax = 0, ay = 0;
          for (int k = -R; k <= R; ++k) {
            ax +=
                rho[static_cast<std::size_t>(k + R)] * gx[static_cast<std::size_t>(y * nx + x + k)];
            ay +=
                rho[static_cast<std::size_t>(k + R)] * gy[static_cast<std::size_t>(y * nx + x + k)];
          }
          hx[static_cast<std::size_t>(y * nx + x)] = ax;
          hy[static_cast<std::size_t>(y * nx + x)] = ay;
        }
      for (Index y = R; y < ny - R; ++y)  // along y, and the sums
        for (Index x = R; x < nx - R; ++x) {
          double ax = 0, ay = 0;
          for (int k = -R; k <= R; ++k) {
            ax += rho[static_cast<std::size_t>(k + R)] *
                  hx[static_cast<std::size_t>((y + k) * nx + x)];
            ay += rho[static_cast<std::size_t>(k + R)] *
                  hy[static_cast<std::size_t>((y + k) * nx + x)];
          }
          const double ggx = gx[static_cast<std::size_t>(y * nx + x)],
                       ggy = gy[static_cast<std::size_t>(y * nx + x)];
          sx += ggx * ax, sxx += ggx * ggx;
          sy += ggy * ay, syy += ggy * ggy;
        }
    }
  m.scale_u = (sxx > 0 ? sx / sxx : 1) / rho0;
  m.scale_v = (syy > 0 ? sy / syy : 1) / rho0;
  return m;
}

std::vector<double> smoothed(MatrixView<const float> image, double sigma) {
  const Index rows = image.rows, cols = image.cols;
  std::vector<double> out(static_cast<std::size_t>(rows * cols));
  double w[2 * math::kMaxGaussianRadius + 1];
  const int r = math::gaussian_taps(sigma, w);
  if (r == 0) {
    for (Index y = 0; y < rows; ++y)
      for (Index x = 0; x < cols; ++x) out[static_cast<std::size_t>(y * cols + x)] = image(y, x);
    return out;
  }
  std::vector<double> line(static_cast<std::size_t>(std::max(rows, cols)));
  for (Index y = 0; y < rows; ++y) {
    for (Index x = 0; x < cols; ++x)
      out[static_cast<std::size_t>(y * cols + x)] =
          math::gaussian_at(image.row(y), cols, 1, x, w, r);
  }
  for (Index x = 0; x < cols; ++x) {
    for (Index y = 0; y < rows; ++y)
      line[static_cast<std::size_t>(y)] = math::gaussian_at(out.data() + x, rows, cols, y, w, r);
    for (Index y = 0; y < rows; ++y)
      out[static_cast<std::size_t>(y * cols + x)] = line[static_cast<std::size_t>(y)];
  }
  return out;
}

BSplineImage::BSplineImage(MatrixView<const float> image, Interpolation interpolation,
                           double prefilter)
    : rows_(image.rows),
      cols_(image.cols),
      interpolation_(interpolation),
      prefilter_(prefilter),
      c_(spline_coefficients(image, interpolation, prefilter)) {}

bool BSplineImage::inside(double x, double y) const {
  return math::inside_image(x, y, rows_, cols_);
}

double BSplineImage::border_band() const {
  double w[2 * math::kMaxGaussianRadius + 1];
  return math::border_band(math::gaussian_taps(prefilter_, w));
}

double BSplineImage::value(double x, double y) const {
  return interpolation_ == Interpolation::quintic
             ? math::bspline_value<5>(c_.data(), rows_, cols_, x, y)
             : math::bspline_value<3>(c_.data(), rows_, cols_, x, y);
}

void BSplineImage::value_gradient(double x, double y, double& v, double& gx, double& gy) const {
  if (interpolation_ == Interpolation::quintic) {
    math::bspline_value_gradient<5>(c_.data(), rows_, cols_, x, y, v, gx, gy);
  } else {
    math::bspline_value_gradient<3>(c_.data(), rows_, cols_, x, y, v, gx, gy);
  }
}

}  // namespace xcorr::dic
