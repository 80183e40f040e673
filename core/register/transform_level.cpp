#include "core/register/transform_level.hpp"

#include <algorithm>
#include <cmath>

#include "core/dic/icgn_math.hpp"
#include "core/parallel.hpp"
#include "core/register/spline_row.hpp"
#include "core/register/warp_image.hpp"

namespace xcorr::reg {

Level make_level(MatrixView<const float> image, int bin) {
  Level l;
  l.bin = bin;
  l.rows = image.rows / bin;
  l.cols = image.cols / bin;
  const double half = (bin - 1) / 2.0;
  l.cx = ((static_cast<double>(image.cols) - 1) / 2 - half) / bin;
  l.cy = ((static_cast<double>(image.rows) - 1) / 2 - half) / bin;
  l.pixels.assign(static_cast<std::size_t>(l.rows * l.cols), 0.0f);
  // Each block summed row by row, along each row in order (gpu/transform_gpu.cu's order too).
  for (Index r = 0; r < l.rows * bin; ++r) {
    const float* in = image.row(r);
    float* out = l.pixels.data() + (r / bin) * l.cols;
    for (Index c = 0; c < l.cols; ++c, in += bin)
      for (int b = 0; b < bin; ++b) out[c] += in[b];
  }
  const auto area = static_cast<float>(bin * bin);
  for (float& v : l.pixels) v /= area;
  l.coefficients =
      cubic_coefficients(MatrixView<const float>{l.pixels.data(), l.rows, l.cols, l.cols});
  return l;
}

namespace {

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

// IC-GN of model T on one level from `rel`, until the update moves no corner by more than `tol`
// px (of the level).
template <Transform T>
LevelFit icgn(const Level& ref, const Level& frame, Affine rel, double tol) {
  constexpr int N = Model<T>::N;
  constexpr int kPacked = N * (N + 1) / 2;
  LevelFit out;
  const double margin = kFitMargin;
  const auto total = static_cast<double>((ref.rows - 2 * ref.band) * (ref.cols - 2 * ref.band));
  std::vector<float> values(static_cast<std::size_t>(ref.cols));  // a row's frame values
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
        const Index k0 = c0[static_cast<std::size_t>(r)], k1 = c1[static_cast<std::size_t>(r)];
        spline_row(frame.coefficients.data(), frame.rows, frame.cols,
                   frame.cx + rel.m[1] * eta + rel.m[2], rel.m[0],
                   frame.cy + rel.m[4] * eta + rel.m[5], rel.m[3], static_cast<double>(k0) - ref.cx,
                   k1 - k0, values.data());
        for (Index k = k0; k < k1; ++k) {
          const double xi = static_cast<double>(k) - ref.cx;
          const auto i = static_cast<std::size_t>(r * ref.cols + k);
          const double g = values[static_cast<std::size_t>(k - k0)];
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
      Affine d;
      Model<T>::warp(dp, d.m.data());
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

// The CPU's fitter: a frame per host thread.
class CpuLevelFitter final : public LevelFitter {
 public:
  explicit CpuLevelFitter(int bin) : bin_(bin) {}
  std::string device() const override { return "cpu"; }
  Status set_reference(LevelReference reference) override {
    reference_ = reference;
    return Status::ok();
  }
  Result<std::vector<LevelFit>> fit(Transform t, const std::vector<LevelInput>& frames,
                                    const std::vector<LevelReference>* references) override {
    std::vector<LevelFit> out(frames.size());
    parallel_for(static_cast<Index>(frames.size()), 1, [&](Index b, Index end) {
      for (Index i = b; i < end; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const LevelReference& ref = references != nullptr ? (*references)[k] : reference_;
        out[k] = fit_one(t, ref, frames[k]);
      }
    });
    return out;
  }

 private:
  LevelFit fit_one(Transform t, const LevelReference& ref, const LevelInput& in) const {
    Affine rel = in.start;
    int iterations = 0;
    if (bin_ > 1) {
      const LevelFit c =
          fit_level(t, *ref.coarse, *in.coarse, to_level(rel, bin_), kCoarseTolerance);
      iterations += c.iterations;
      if (c.converged) rel = from_level(c.rel, bin_);
    }
    // bin 1: the start's level is the full one.
    Level made;
    if (bin_ > 1) made = make_level(in.image, 1);
    LevelFit f = fit_level(t, *ref.full, bin_ > 1 ? made : *in.coarse, rel, kFullTolerance);
    f.iterations += iterations;
    return f;
  }
  int bin_;
  LevelReference reference_;
};

}  // namespace

Result<std::unique_ptr<LevelFitter>> make_cpu_level_fitter(Shape, int bin) {
  return std::unique_ptr<LevelFitter>(std::make_unique<CpuLevelFitter>(bin));
}

Result<std::unique_ptr<LevelFitter>> cpu_level_fitters(Shape shape, int bin,
                                                       const std::string& device) {
  if (device == "gpu") return Status{ErrorCode::unsupported, "device gpu: no GPU engine here"};
  return make_cpu_level_fitter(shape, bin);
}

}  // namespace xcorr::reg
