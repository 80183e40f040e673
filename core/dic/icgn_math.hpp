// The arithmetic of DIC shared by the CPU code and the CUDA kernels (one implementation):
// cubic and quintic B-spline weights and evaluation over a coefficient image with
// point-symmetric boundaries, the first-order warp as an affine matrix (composition, inversion),
// and a 6x6 Cholesky solve.
#pragma once

#include <cmath>

#include "core/hd.hpp"

namespace xcorr::dic::math {

// Whole-sample mirror boundary (period 2 (n - 1)): any index maps into [0, n).
XCORR_HD inline long long mirror_index(long long i, long long n) {
  if (n == 1) return 0;
  if (i >= 0 && i < n) return i;
  const long long period = 2 * (n - 1);
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - i;
}

// Point-symmetric boundary: past its first and last samples a line continues as
// I(-k) = 2 I(0) - I(k) and I(n - 1 + k) = 2 I(n - 1) - I(n - 1 - k), which keeps its value and
// slope at the border (a linear ramp continues as itself), where the whole-sample mirror
// I(-k) = I(k) would flatten it: with the mirror, a border subset's match moved a fraction of a
// pixel outward sampled a reflected strip and erred by up to 0.006 px in a noise-free test
// (Border.*). Sample i of the continued line is sign * I(index) + (1 - sign) * I(anchor).
struct Continued {
  long long index, anchor;
  double sign;  // +1 inside, -1 past the border
};
XCORR_HD inline Continued point_mirror(long long i, long long n) {
  if (i >= 0 && i < n) return {i, i, 1.0};
  return {mirror_index(i, n), i < 0 ? 0 : n - 1, -1.0};
}
// Sample i of the continued line of n samples spaced by `stride`.
template <class T>
XCORR_HD inline double continued_sample(const T* s, long long i, long long n, long long stride) {
  const Continued k = point_mirror(i, n);
  const double v = s[k.index * stride];
  return k.sign > 0 ? v : 2 * static_cast<double>(s[k.anchor * stride]) - v;
}

// One causal and one anti-causal pass of the B-spline prefilter for the pole z (Unser 1999),
// for the point-symmetric continuation; `horizon` terms start the causal pass
// (|z|^horizon < 1e-12). The pass is a symmetric filter of DC gain -z / (1 - z)^2, so its output
// is point-symmetric about the last sample too, with that gain times the input there.
template <class T>
XCORR_HD inline void bspline_pole_pass(T* s, long long n, long long stride, double z,
                                       long long horizon) {
  const double first = s[0], last = s[(n - 1) * stride];
  // sum_k z^k I(-k), the continuation reflected again at the far end for short lines
  // (I(k) = 2 I(n - 1) - I(2 (n - 1) - k) for n <= k < 2 (n - 1)).
  if (horizon > 2 * (n - 1)) horizon = 2 * (n - 1);
  double zk = z, sum = first;
  for (long long k = 1; k < horizon; ++k, zk *= z) {
    const double far = k < n ? s[k * stride] : 2 * last - s[(2 * (n - 1) - k) * stride];
    sum += zk * (2 * first - far);
  }
  s[0] = sum;
  for (long long k = 1; k < n; ++k) s[k * stride] += z * s[(k - 1) * stride];
  s[(n - 1) * stride] = -z / ((1 - z) * (1 - z)) * last;
  for (long long k = n - 2; k >= 0; --k) s[k * stride] = z * (s[(k + 1) * stride] - s[k * stride]);
}

// B-spline interpolation of degree D: the kTaps coefficients floor(x) - kLeft ..
// floor(x) + kTaps - 1 - kLeft weigh a value; t = x - floor(x) in [0, 1).
// Value weights use products with constants instead of divisions: a float division is a
// multi-instruction sequence on the GPU, in IC-GN's innermost loop.
template <int D>
struct BSpline;

// Cubic: 4 taps, one pole. Its interpolation error biases sub-pixel shifts of fine speckle
// by up to ~0.004 px (docs/dic.md).
template <>
struct BSpline<3> {
  static constexpr int kTaps = 4, kLeft = 1;
  template <class R>
  XCORR_HD static void weights(R t, R w[4]) {
    const R t2 = t * t, t3 = t2 * t, u = 1 - t, sixth = R(1) / R(6);
    w[0] = u * u * u * sixth;
    w[1] = (3 * t3 - 6 * t2 + 4) * sixth;
    w[2] = (-3 * t3 + 3 * t2 + 3 * t + 1) * sixth;
    w[3] = t3 * sixth;
  }
  XCORR_HD static void derivative_weights(double t, double d[4]) {
    const double t2 = t * t, u = 1 - t;
    d[0] = -u * u / 2;
    d[1] = (3 * t2 - 4 * t) / 2;
    d[2] = (-3 * t2 + 2 * t + 1) / 2;
    d[3] = t2 / 2;
  }
  template <class T>
  XCORR_HD static void prefilter(T* s, long long n, long long stride) {
    const double z = sqrt(3.0) - 2.0, lambda = (1 - z) * (1 - 1 / z);
    for (long long k = 0; k < n; ++k) s[k * stride] *= lambda;
    bspline_pole_pass(s, n, stride, z, 21);
  }
};

// Quintic (as Ncorr): 6 taps, two poles; about a quarter of the cubic's bias.
template <>
struct BSpline<5> {
  static constexpr int kTaps = 6, kLeft = 2;
  template <class R>
  XCORR_HD static void weights(R t, R w[6]) {
    const R u = 1 - t, t2 = t * t, t3 = t2 * t, t4 = t3 * t, t5 = t4 * t;
    const R u2 = u * u, u3 = u2 * u, u4 = u3 * u, u5 = u4 * u, k = R(1) / R(120);
    w[0] = u5 * k;
    w[1] = (1 + 5 * u + 10 * u2 + 10 * u3 + 5 * u4 - 5 * u5) * k;
    w[2] = (26 + 50 * u + 20 * u2 - 20 * u3 - 20 * u4 + 10 * u5) * k;
    w[3] = (26 + 50 * t + 20 * t2 - 20 * t3 - 20 * t4 + 10 * t5) * k;
    w[4] = (1 + 5 * t + 10 * t2 + 10 * t3 + 5 * t4 - 5 * t5) * k;
    w[5] = t5 * k;
  }
  XCORR_HD static void derivative_weights(double t, double d[6]) {
    const double u = 1 - t, t2 = t * t, t3 = t2 * t, t4 = t3 * t;
    const double u2 = u * u, u3 = u2 * u, u4 = u3 * u, k = 1.0 / 120;
    d[0] = -5 * u4 * k;
    d[1] = -(5 + 20 * u + 30 * u2 + 20 * u3 - 25 * u4) * k;
    d[2] = -(50 + 40 * u - 60 * u2 - 80 * u3 + 50 * u4) * k;
    d[3] = (50 + 40 * t - 60 * t2 - 80 * t3 + 50 * t4) * k;
    d[4] = (5 + 20 * t + 30 * t2 + 20 * t3 - 25 * t4) * k;
    d[5] = 5 * t4 * k;
  }
  template <class T>
  XCORR_HD static void prefilter(T* s, long long n, long long stride) {
    const double z1 = -0.430575347099973, z2 = -0.0430962882032647;
    const double lambda = (1 - z1) * (1 - 1 / z1) * (1 - z2) * (1 - 1 / z2);
    for (long long k = 0; k < n; ++k) s[k * stride] *= lambda;
    bspline_pole_pass(s, n, stride, z1, 33);
    bspline_pole_pass(s, n, stride, z2, 9);
  }
};

// In-place prefilter of n samples spaced by `stride`: samples in, interpolation coefficients
// out.
template <int D, class T>
XCORR_HD inline void bspline_prefilter(T* s, long long n, long long stride) {
  if (n >= 2) BSpline<D>::prefilter(s, n, stride);
}

// Evaluation near the border: the coefficients continued point-symmetrically past it
// (point_mirror; the coefficients of the continued image are the continued coefficients, as the
// prefilter is linear and keeps constants), each tap's continuation worked out where it is read
// (no index arrays: they cost the GPU's IC-GN loop registers).
// sum_b w[b] c(row, x0 + b), continued along x.
template <int D, class T, class W>
XCORR_HD inline double continued_row_sum(const T* row, long long cols, long long x0, const W* w) {
  double s = 0;
  XCORR_UNROLL
  for (int b = 0; b < BSpline<D>::kTaps; ++b) s += w[b] * continued_sample(row, x0 + b, cols, 1);
  return s;
}
// The same for row y of the continued coefficients (continued along y too).
template <int D, class T, class W>
XCORR_HD inline double continued_tap_row(const T* c, long long rows, long long cols, long long y,
                                         long long x0, const W* w) {
  const Continued r = point_mirror(y, rows);
  const double in = continued_row_sum<D>(c + r.index * cols, cols, x0, w);
  return r.sign > 0 ? in : 2 * continued_row_sum<D>(c + r.anchor * cols, cols, x0, w) - in;
}

// Coefficient (y, x) of the continued coefficients c (rows x cols, row-major), for any y and x:
// the value continued_tap_row reads there.
template <class T>
XCORR_HD inline double continued_coefficient(const T* c, long long rows, long long cols,
                                             long long y, long long x) {
  const Continued r = point_mirror(y, rows);
  const double in = continued_sample(c + r.index * cols, x, cols, 1);
  return r.sign > 0 ? in : 2 * continued_sample(c + r.anchor * cols, x, cols, 1) - in;
}

// Value and gradient (grey values per px) at (x, y) px of the degree-D spline with
// coefficients c (rows x cols, row-major).
template <int D, class T>
XCORR_HD inline void bspline_value_gradient(const T* c, long long rows, long long cols, double x,
                                            double y, double& v, double& gx, double& gy) {
  constexpr int K = BSpline<D>::kTaps, L = BSpline<D>::kLeft;
  const double fx = floor(x), fy = floor(y);
  const auto ix = static_cast<long long>(fx), iy = static_cast<long long>(fy);
  double wx[K], wy[K], dx[K], dy[K];
  BSpline<D>::weights(x - fx, wx);
  BSpline<D>::weights(y - fy, wy);
  BSpline<D>::derivative_weights(x - fx, dx);
  BSpline<D>::derivative_weights(y - fy, dy);
  v = gx = gy = 0;
  if (ix >= L && iy >= L && ix + K - L <= cols && iy + K - L <= rows) {
    // Interior (nearly every call): consecutive rows and columns, each coefficient read once.
    const T* row = c + (iy - L) * cols + (ix - L);
    XCORR_UNROLL
    for (int a = 0; a < K; ++a, row += cols) {
      double sv = 0, sd = 0;
      XCORR_UNROLL
      for (int b = 0; b < K; ++b) {
        const double k = row[b];
        sv += wx[b] * k;
        sd += dx[b] * k;
      }
      v += wy[a] * sv;
      gx += wy[a] * sd;
      gy += dy[a] * sv;
    }
    return;
  }
  XCORR_UNROLL
  for (int a = 0; a < K; ++a) {
    const long long row = iy - L + a;
    const double sv = continued_tap_row<D>(c, rows, cols, row, ix - L, wx),
                 sd = continued_tap_row<D>(c, rows, cols, row, ix - L, dx);
    v += wy[a] * sv;
    gx += wy[a] * sd;
    gy += dy[a] * sv;
  }
}

// True when the taps of the cell (ix, iy) (its integer corner) all lie in the rows x cols
// coefficients: bspline_interior_value applies, with no continuation past the border.
template <int D>
XCORR_HD inline bool bspline_interior(long long ix, long long iy, long long rows, long long cols) {
  constexpr int K = BSpline<D>::kTaps, L = BSpline<D>::kLeft;
  return ix >= L && iy >= L && ix + K - L <= cols && iy + K - L <= rows;
}
// bspline_value's interior sum at fraction (tx, ty) of the cell (ix, iy) (bspline_interior):
// consecutive rows and columns, each coefficient read once. Kept apart from the border path on
// purpose: routing the interior through offset arrays measured 17.5 ms instead of 15.0 for the
// 2048^2 IC-GN on the H200 (docs/perf/dic.md). The GPU's IC-GN uses it alone, on coefficients
// padded with their continuation (continued_coefficient).
template <int D, class R, class T>
XCORR_HD inline R bspline_interior_value(const T* c, long long cols, long long ix, long long iy,
                                         R tx, R ty) {
  constexpr int K = BSpline<D>::kTaps, L = BSpline<D>::kLeft;
  R wx[K], wy[K];
  BSpline<D>::weights(tx, wx);
  BSpline<D>::weights(ty, wy);
  R v = 0;
  const T* row = c + (iy - L) * cols + (ix - L);
  XCORR_UNROLL
  for (int a = 0; a < K; ++a, row += cols) {
    R sv = 0;
    XCORR_UNROLL
    for (int b = 0; b < K; ++b) sv += wx[b] * static_cast<R>(row[b]);
    v += wy[a] * sv;
  }
  return v;
}

// Value only (IC-GN's deformed image). R is the arithmetic of the weights and sums: double on
// the CPU; the GPU uses float (the position stays double: only its fractional part is rounded),
// which moves IC-GN's displacements by ~1e-7 px and halves the float64 work.
template <int D, class R = double, class T>
XCORR_HD inline double bspline_value(const T* c, long long rows, long long cols, double x,
                                     double y) {
  constexpr int K = BSpline<D>::kTaps, L = BSpline<D>::kLeft;
  const double fx = floor(x), fy = floor(y);
  const auto ix = static_cast<long long>(fx), iy = static_cast<long long>(fy);
  if (bspline_interior<D>(ix, iy, rows, cols))  // nearly every call
    return bspline_interior_value<D, R>(c, cols, ix, iy, static_cast<R>(x - fx),
                                        static_cast<R>(y - fy));
  R wx[K], wy[K];
  BSpline<D>::weights(static_cast<R>(x - fx), wx);
  BSpline<D>::weights(static_cast<R>(y - fy), wy);
  R v = 0;
  XCORR_UNROLL
  for (int a = 0; a < K; ++a)
    v += wy[a] * static_cast<R>(continued_tap_row<D>(c, rows, cols, iy - L + a, ix - L, wx));
  return v;
}

// Gaussian smoothing applied to both images before interpolation (DicOptions::prefilter):
// taps w[0 .. 2 r] of a sampled Gaussian of `sigma` px, r = ceil(3 sigma) <= kMaxGaussianRadius,
// normalised to sum 1. Returns r (0: sigma <= 0, no smoothing).
constexpr int kMaxGaussianRadius = 8;
XCORR_HD inline int gaussian_taps(double sigma, double w[2 * kMaxGaussianRadius + 1]) {
  if (!(sigma > 0)) return 0;
  int r = static_cast<int>(ceil(3 * sigma));
  if (r > kMaxGaussianRadius) r = kMaxGaussianRadius;
  double sum = 0;
  for (int k = -r; k <= r; ++k) sum += w[k + r] = exp(-0.5 * k * k / (sigma * sigma));
  for (int k = 0; k <= 2 * r; ++k) w[k] /= sum;
  return r;
}
// The smoothed sample i of n samples spaced by `stride` (point-symmetric boundaries, as the
// spline's).
template <class T>
XCORR_HD inline double gaussian_at(const T* s, long long n, long long stride, long long i,
                                   const double* w, int r) {
  double v = 0;
  for (int k = -r; k <= r; ++k) v += w[k + r] * continued_sample(s, i + k, n, stride);
  return v;
}

// Inside the span of the pixel centres, [0, cols - 1] x [0, rows - 1] (where a reference subset
// must lie).
XCORR_HD inline bool inside_image(double x, double y, long long rows, long long cols) {
  return x >= 0 && y >= 0 && x <= static_cast<double>(cols - 1) &&
         y <= static_cast<double>(rows - 1);
}
// Where a warped subset may sample the deformed image: the image's area, its pixels' footprints
// [-0.5, cols - 0.5] x [-0.5, rows - 0.5] (reach 0.5 px past the pixel centres). Within the
// border pixels' outer halves the spline continues the image point-symmetrically (point_mirror):
// a subset whose match moves a fraction of a pixel outward at the border is measured (the DIC
// Challenge rings: docs/dic.md), one carried out of the image's area is not (status
// outside_image). While IC-GN iterates, a warp may pass up to kIterationReach px past the pixel
// centres on its way; the final warp's first-order part must keep the subset's corners within
// the footprints (the second order's curvature terms, uncertain at the corners, would flag
// border points whose match moved 0.45 px outward).
constexpr double kFootprintReach = 0.5, kIterationReach = 2.0;
XCORR_HD inline bool inside_sampling(double x, double y, long long rows, long long cols,
                                     double reach = kFootprintReach) {
  return x >= -reach && y >= -reach && x <= static_cast<double>(cols - 1) + reach &&
         y <= static_cast<double>(rows - 1) + reach;
}

// The border band IC-GN leaves out (px from the pixel centres' span): within it the Gaussian
// prefilter (radius r taps, gaussian_taps) and the spline's coefficients see the image's
// point-symmetric continuation instead of the image. A subset is clipped to the rectangle of its
// pixels at least this far inside the reference (clipped_subset); its whole square still counts
// for outside_image. Measured (tests/core/dic/border_test.cpp, noise-free, 0.1 % expansion plus
// a sub-pixel translation, so that border subsets move up to 0.37 px outward): with every pixel
// the ring of border subsets erred by 0.0022-0.0036 px RMSE, 0.00007 inside; clipped by 3 px,
// 0.00008-0.00010. (Clipping also by the deformed image's band at the start warp measured no
// better, and made the result depend on the start.) Matches moved further outward near the
// border sample the deformed image's band: not covered.
XCORR_HD inline double border_band(int gaussian_radius) {
  return gaussian_radius + 1 > 3 ? gaussian_radius + 1.0 : 3.0;
}
// Subset offsets i0..i1 (x) and j0..j1 (y), inclusive; pixels() = (i1 - i0 + 1)(j1 - j0 + 1).
struct SubsetRect {
  int i0, i1, j0, j1;
  XCORR_HD int width() const { return i1 - i0 + 1; }
  XCORR_HD int height() const { return j1 - j0 + 1; }
  XCORR_HD int pixels() const { return width() * height(); }
};
// The subset of half-width h centred at the pixel (x, y), clipped to the pixels at least `band`
// px inside the image (empty: width or height <= 0). Callers use reference_subset_rect.
XCORR_HD inline SubsetRect clipped_subset(double x, double y, int h, long long rows, long long cols,
                                          double band) {
  const double lo_x = ceil(band - x), hi_x = floor(static_cast<double>(cols - 1) - band - x);
  const double lo_y = ceil(band - y), hi_y = floor(static_cast<double>(rows - 1) - band - y);
  SubsetRect r;
  r.i0 = lo_x > -h ? static_cast<int>(lo_x) : -h;
  r.i1 = hi_x < h ? static_cast<int>(hi_x) : h;
  r.j0 = lo_y > -h ? static_cast<int>(lo_y) : -h;
  r.j1 = hi_y < h ? static_cast<int>(hi_y) : h;
  return r;
}

// The pixels IC-GN uses of the subset of half-width h centred at (x, y) in the reference
// (rows x cols): false, status outside_roi, when the subset leaves the reference or less than a
// quarter of it lies outside the border band; else `rect` is its clipped rectangle.
XCORR_HD inline bool reference_subset_rect(double x, double y, int h, long long rows,
                                           long long cols, double band, SubsetRect& rect) {
  if (!inside_image(x - h, y - h, rows, cols) || !inside_image(x + h, y + h, rows, cols))
    return false;
  rect = clipped_subset(x, y, h, rows, cols, band);
  return rect.width() > 0 && rect.height() > 0 && 4 * rect.pixels() >= (2 * h + 1) * (2 * h + 1);
}

// First-order warp p = (u, ux, uy, v, vx, vy) as [a b c; d e f] = [1+ux uy u; vx 1+vy v].
struct Affine {
  double a, b, c, d, e, f;
};
XCORR_HD inline Affine to_affine(const double p[6]) {
  return {1 + p[1], p[2], p[0], p[4], 1 + p[5], p[3]};
}
XCORR_HD inline void to_warp(const Affine& m, double p[6]) {
  p[0] = m.c, p[1] = m.a - 1, p[2] = m.b, p[3] = m.f, p[4] = m.d, p[5] = m.e - 1;
}
// p <- p o dp^-1 (the inverse-compositional update); false when dp is singular.
XCORR_HD inline bool compose_inverse(double p[6], const double dp[6]) {
  const Affine n = to_affine(dp);
  const double det = n.a * n.e - n.b * n.d;
  if (!(fabs(det) > 1e-12)) return false;
  Affine i;
  i.a = n.e / det;
  i.b = -n.b / det;
  i.d = -n.d / det;
  i.e = n.a / det;
  i.c = -(i.a * n.c + i.b * n.f);
  i.f = -(i.d * n.c + i.e * n.f);
  const Affine m = to_affine(p);
  const Affine r{m.a * i.a + m.b * i.d, m.a * i.b + m.b * i.e, m.a * i.c + m.b * i.f + m.c,
                 m.d * i.a + m.e * i.d, m.d * i.b + m.e * i.e, m.d * i.c + m.e * i.f + m.f};
  to_warp(r, p);
  return true;
}

// Cholesky factor of a symmetric N x N matrix given as its lower triangle packed row by row
// (h[i(i+1)/2 + j], j <= i), in place; false when not positive definite.
template <int N>
XCORR_HD inline bool cholesky(double* h) {
  for (int j = 0; j < N; ++j) {
    double d = h[j * (j + 1) / 2 + j];
    for (int k = 0; k < j; ++k) d -= h[j * (j + 1) / 2 + k] * h[j * (j + 1) / 2 + k];
    if (!(d > 1e-12)) return false;
    d = sqrt(d);
    h[j * (j + 1) / 2 + j] = d;
    for (int i = j + 1; i < N; ++i) {
      double s = h[i * (i + 1) / 2 + j];
      for (int k = 0; k < j; ++k) s -= h[i * (i + 1) / 2 + k] * h[j * (j + 1) / 2 + k];
      h[i * (i + 1) / 2 + j] = s / d;
    }
  }
  return true;
}
// Solves (L L^T) x = b in place with the factor of cholesky<N>.
template <int N>
XCORR_HD inline void cholesky_solve(const double* l, double* x) {
  for (int i = 0; i < N; ++i) {
    double s = x[i];
    for (int k = 0; k < i; ++k) s -= l[i * (i + 1) / 2 + k] * x[k];
    x[i] = s / l[i * (i + 1) / 2 + i];
  }
  for (int i = N - 1; i >= 0; --i) {
    double s = x[i];
    for (int k = i + 1; k < N; ++k) s -= l[k * (k + 1) / 2 + i] * x[k];
    x[i] = s / l[i * (i + 1) / 2 + i];
  }
}
// White noise of variance s^2 in an image gives its B-spline interpolant's gradient, at the
// sample points, the variance kappa s^2 (per axis): the gradient there is (c_{k+1} - c_{k-1}) / 2
// of the prefiltered coefficients c = p * I, p_m = sqrt(3) z^|m|, z = sqrt(3) - 2; summed,
// kappa = sum_m ((p_{m+1} - p_{m-1}) / 2)^2 = 6 sqrt(3) - 9 (checked numerically in
// tests/core/dic/icgn_test.cpp).
constexpr double kGradientNoiseGain = 1.3923048454132638;  // 6 sqrt(3) - 9

// What the uncertainty needs to know about the images' noise after smoothing and
// interpolation (core/dic/bspline.hpp, noise_model()):
// - kappa: the gain of white noise through the smoothing and the spline's gradient at the pixel
//   centres, relative to the smoothed noise's own variance (the cubic spline without smoothing:
//   6 sqrt(3) - 9);
// - scale_u, scale_v: the smoothing makes neighbouring residuals correlated, so the per-pixel
//   residual variance understates the error's: Var = s_e^2 (gamma / rho0) H^-1..., with rho0 the
//   smoothing's noise power gain (sum of the squared 2-D taps) and gamma = sum g (rho * g) /
//   sum g^2 the reference gradients' share that survives the noise's autocorrelation rho
//   (x gradients for u, y for v). 1 without smoothing.
struct NoiseModel {
  double kappa = kGradientNoiseGain;
  double scale_u = 1, scale_v = 1;
};

// The basis moments B = sum b b^T over a subset x subset square (offsets -h..h) of the shape
// function's position terms: first order b = (1, i, j), second order b = (1, i, j, i^2/2, ij,
// j^2/2); packed lower triangle (3 or 6 rows). Closed form: the odd sums vanish, with
// s2 = sum i^2 and s4 = sum i^4 over -h..h.
template <int M>
XCORR_HD inline void basis_moments(int subset, double* b) {
  const int h = subset / 2;
  const double S = subset, s2 = h * (h + 1.0) * (2 * h + 1) / 3,
               s4 = h * (h + 1.0) * (2 * h + 1) * (3.0 * h * h + 3 * h - 1) / 15;
  for (int e = 0; e < M * (M + 1) / 2; ++e) b[e] = 0;
  b[0] = S * S;           // (1, 1)
  b[2] = S * s2;          // (i, i)
  b[5] = S * s2;          // (j, j)
  if (M == 6) {           // rows 3-5: i^2/2, ij, j^2/2
    b[6] = S * s2 / 2;    // (i^2/2, 1)
    b[9] = S * s4 / 4;    // (i^2/2, i^2/2)
    b[14] = s2 * s2;      // (ij, ij)
    b[15] = S * s2 / 2;   // (j^2/2, 1)
    b[18] = s2 * s2 / 4;  // (j^2/2, i^2/2)
    b[20] = S * s4 / 4;   // (j^2/2, j^2/2)
  }
}

// The same sums over a clipped subset (clipped_subset): products of the power sums of i and j.
template <int M>
XCORR_HD inline void basis_moments(const SubsetRect& r, double* b) {
  double pi[5] = {}, pj[5] = {};
  for (int i = r.i0; i <= r.i1; ++i)
    for (int k = 0, t = 1; k < 5; ++k, t *= i) pi[k] += t;
  for (int j = r.j0; j <= r.j1; ++j)
    for (int k = 0, t = 1; k < 5; ++k, t *= j) pj[k] += t;
  // Terms 1, i, j, i^2/2, ij, j^2/2: powers of i and j and factors.
  const int ei[6] = {0, 1, 0, 2, 1, 0}, ej[6] = {0, 0, 1, 0, 1, 2};
  const double f[6] = {1, 1, 1, 0.5, 1, 0.5};
  for (int a = 0; a < M; ++a)
    for (int c = 0; c <= a; ++c)
      b[a * (a + 1) / 2 + c] = f[a] * f[c] * pi[ei[a] + ei[c]] * pj[ej[a] + ej[c]];
}

// Noise-based standard uncertainty of the warp parameters iu and iv (px for u and v).
// At IC-GN's fixed point sum_k sd_k e_k = 0, with sd_k the reference's steepest-descent vectors;
// linearised around the truth, the error is H_t^-1 sum_k sd_k e_k, where H_t = sum sd sd^T of
// the noise-free reference. The Hessian H we have is of the noisy reference: H = H_t + N, N the
// expected energy of the noise in the gradients, s_f^2 kappa B (B: the basis moments
// sum_k b b^T of the shape function's position terms, the same for the x and y blocks). So
//   Cov = s_e^2 H_t^-1 H H_t^-1   (sandwich; the naive s_e^2 H^-1 is too small by up to 1.5x
//                                  at 4 % noise, measured in tests/core/dic/uncertainty_test),
// s_e^2 = sum e^2 / (n - N) = df^2 ZNSSD / (n - N) the residual's variance per pixel (reference
// grey values; ZNSSD = 2 (1 - zncc)), s_f^2 = s_e^2 / 2 (the two images equally noisy).
// l: the Cholesky factor of H (cholesky<N>); b: the N/2 x N/2 basis moments, packed lower
// triangle. model: the noise after smoothing and interpolation (NoiseModel). Both NaN when n <= N;
// the naive estimate when H_t is not positive definite (noise as strong as the texture).
template <int N>
XCORR_HD inline void noise_sigma(const double* l, const double* b, double df, double zncc, int n,
                                 int iu, int iv, const NoiseModel& model, double& su, double& sv) {
  constexpr int P = N * (N + 1) / 2, M = N / 2;
  if (n <= N) {
    su = sv = NAN;
    return;
  }
  const double se2 = df * df * fmax(2 * (1 - zncc), 0.0) / (n - N);
  const double noise = se2 / 2 * model.kappa;
  double h[P], t[P];
  for (int r = 0; r < N; ++r)  // H = L L^T, and H_t = H - N
    for (int c = 0; c <= r; ++c) {
      double s = 0;
      for (int k = 0; k <= c; ++k) s += l[r * (r + 1) / 2 + k] * l[c * (c + 1) / 2 + k];
      h[r * (r + 1) / 2 + c] = s;
      const bool block = (r < M) == (c < M);
      const int rr = r % M, cc = c % M;
      t[r * (r + 1) / 2 + c] = s - (block ? noise * b[rr * (rr + 1) / 2 + cc] : 0.0);
    }
  const bool sandwich = cholesky<N>(t);
  for (int which = 0; which < 2; ++which) {
    double a[N] = {};
    a[which == 0 ? iu : iv] = 1;
    const double scale = which == 0 ? model.scale_u : model.scale_v;
    if (!sandwich) {
      cholesky_solve<N>(l, a);
      (which == 0 ? su : sv) = sqrt(se2 * scale * a[which == 0 ? iu : iv]);
      continue;
    }
    cholesky_solve<N>(t, a);  // a = H_t^-1 e_i; a^T H a
    double q = 0;
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c)
        q += a[r] * a[c] * h[r >= c ? r * (r + 1) / 2 + c : c * (c + 1) / 2 + r];
    (which == 0 ? su : sv) = sqrt(se2 * scale * q);
  }
}
XCORR_HD inline bool cholesky6(double h[21]) {
  return cholesky<6>(h);
}
XCORR_HD inline void cholesky6_solve(const double l[21], double x[6]) {
  cholesky_solve<6>(l, x);
}

// |dp| with the gradient terms scaled by the subset half-width h (px).
XCORR_HD inline double warp_step_norm(const double dp[6], double h) {
  return sqrt(dp[0] * dp[0] + dp[3] * dp[3] +
              h * h * (dp[1] * dp[1] + dp[2] * dp[2] + dp[4] * dp[4] + dp[5] * dp[5]));
}

// Second-order warp q = (u, ux, uy, uxx, uxy, uyy, v, vx, vy, vxx, vxy, vyy):
//   x' = xi + u + ux xi + uy eta + uxx xi^2 / 2 + uxy xi eta + uyy eta^2 / 2 (y' alike with v).
// As a 6x6 matrix acting on (xi^2, xi eta, eta^2, xi, eta, 1) (Gao et al. 2015), so that
// composition and inversion are matrix products and inverses.
XCORR_HD inline void quadratic_matrix(const double q[12], double w[36]) {
  const double A = q[3] / 2, B = q[4], C = q[5] / 2, D = 1 + q[1], E = q[2], F = q[0];
  const double a = q[9] / 2, b = q[10], c = q[11] / 2, d = q[7], e = 1 + q[8], f = q[6];
  const double rows[6][6] = {
      {D * D + 2 * F * A, 2 * D * E + 2 * F * B, E * E + 2 * F * C, 2 * D * F, 2 * E * F, F * F},
      {D * d + F * a + f * A, D * e + E * d + F * b + f * B, E * e + F * c + f * C, D * f + F * d,
       E * f + F * e, F * f},
      {d * d + 2 * f * a, 2 * d * e + 2 * f * b, e * e + 2 * f * c, 2 * d * f, 2 * e * f, f * f},
      {A, B, C, D, E, F},
      {a, b, c, d, e, f},
      {0, 0, 0, 0, 0, 1}};
  for (int r = 0; r < 6; ++r)
    for (int k = 0; k < 6; ++k) w[r * 6 + k] = rows[r][k];
}
XCORR_HD inline void quadratic_params(const double w[36], double q[12]) {
  q[0] = w[3 * 6 + 5], q[1] = w[3 * 6 + 3] - 1, q[2] = w[3 * 6 + 4];
  q[3] = 2 * w[3 * 6 + 0], q[4] = w[3 * 6 + 1], q[5] = 2 * w[3 * 6 + 2];
  q[6] = w[4 * 6 + 5], q[7] = w[4 * 6 + 3], q[8] = w[4 * 6 + 4] - 1;
  q[9] = 2 * w[4 * 6 + 0], q[10] = w[4 * 6 + 1], q[11] = 2 * w[4 * 6 + 2];
}
// Inverse of a 6x6 matrix by Gauss-Jordan with partial pivoting; false when singular.
XCORR_HD inline bool invert6(const double m[36], double inv[36]) {
  double a[36];
  for (int k = 0; k < 36; ++k) a[k] = m[k], inv[k] = (k % 7 == 0) ? 1 : 0;
  for (int c = 0; c < 6; ++c) {
    int pivot = c;
    for (int r = c + 1; r < 6; ++r)
      if (fabs(a[r * 6 + c]) > fabs(a[pivot * 6 + c])) pivot = r;
    if (!(fabs(a[pivot * 6 + c]) > 1e-12)) return false;
    for (int k = 0; k < 6; ++k) {
      const double t = a[c * 6 + k];
      a[c * 6 + k] = a[pivot * 6 + k], a[pivot * 6 + k] = t;
      const double u = inv[c * 6 + k];
      inv[c * 6 + k] = inv[pivot * 6 + k], inv[pivot * 6 + k] = u;
    }
    const double d = a[c * 6 + c];
    for (int k = 0; k < 6; ++k) a[c * 6 + k] /= d, inv[c * 6 + k] /= d;
    for (int r = 0; r < 6; ++r) {
      if (r == c) continue;
      const double f = a[r * 6 + c];
      for (int k = 0; k < 6; ++k)
        a[r * 6 + k] -= f * a[c * 6 + k], inv[r * 6 + k] -= f * inv[c * 6 + k];
    }
  }
  return true;
}
// q <- q o dq^-1 for second-order warps; false when dq is singular.
XCORR_HD inline bool compose_inverse_quadratic(double q[12], const double dq[12]) {
  double w[36], dw[36], dinv[36], r[36];
  quadratic_matrix(q, w);
  quadratic_matrix(dq, dw);
  if (!invert6(dw, dinv)) return false;
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) {
      double s = 0;
      for (int j = 0; j < 6; ++j) s += w[i * 6 + j] * dinv[j * 6 + k];
      r[i * 6 + k] = s;
    }
  quadratic_params(r, q);
  return true;
}
// |dq| with first-order terms times h and second-order terms times h^2 / 2.
XCORR_HD inline double quadratic_step_norm(const double dq[12], double h) {
  const double h2 = h * h / 2;
  const double first = dq[1] * dq[1] + dq[2] * dq[2] + dq[7] * dq[7] + dq[8] * dq[8];
  const double second = dq[3] * dq[3] + dq[4] * dq[4] + dq[5] * dq[5] + dq[9] * dq[9] +
                        dq[10] * dq[10] + dq[11] * dq[11];
  return sqrt(dq[0] * dq[0] + dq[6] * dq[6] + h * h * first + h2 * h2 * second);
}

}  // namespace xcorr::dic::math
