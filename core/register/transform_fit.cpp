#include "core/register/transform_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <optional>
#include <vector>

#include "core/dic/bspline.hpp"
#include "core/dic/icgn_math.hpp"
#include "core/parallel.hpp"
#include "core/register/auto_smoothing.hpp"
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
constexpr double kSureZncc = 0.8;   // a fit this good from the first start ends the search
// Degrees between the rotations whose translations are compared for the last start (IC-GN on
// the coarse level caught starts 4 degrees off on the textures of transform_fit_test.cpp).
constexpr double kAngleStep = 2;
constexpr std::size_t kChunk = 32;  // frames the GPU fits at once while the next ones start

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
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

}  // namespace

struct TransformFitter::Impl {
  Shape shape{};
  FitOptions options;
  int bin = 1;  // the coarse level's
  // px: options.smoothing (none: auto_smoothing of each reference), at most 1/24 of the shorter
  // side (a tiny image keeps some pixels clear of the smoothing's border band).
  std::optional<double> smoothing;
  double largest_smoothing = 0;

  double smoothing_for(MatrixView<const float> image) const {
    return std::min(smoothing ? *smoothing : auto_smoothing(image), largest_smoothing);
  }
  Index crows = 0, ccols = 0, chalf = 0;
  double r0 = 0, r1 = 0;  // log-polar radii, cycles/px of the coarse level
  fftwf_plan plan = nullptr;
  std::vector<double> hann_x, hann_y;  // the coarse level's Hann windows
  struct PolarSample {
    Index ix = 0, iy = 0;
    double ax = 0, ay = 0, taper = 0;
  };
  std::vector<PolarSample> polar_grid;  // kThetas x kRadii: make_polar_grid()
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
      mag[i] = std::log1p(std::sqrt(spec[i][0] * spec[i][0] + spec[i][1] * spec[i][1]));
    const auto at = [&](Index ky, Index kx) {
      ky = ((ky % crows) + crows) % crows;
      return mag[static_cast<std::size_t>(ky * chalf + std::min(kx, chalf - 1))];
    };
    std::vector<float> out(static_cast<std::size_t>(kThetas * kRadii));
    for (std::size_t i = 0; i < out.size(); ++i) {
      const PolarSample& p = polar_grid[i];
      const double v = (1 - p.ay) * ((1 - p.ax) * at(p.iy, p.ix) + p.ax * at(p.iy, p.ix + 1)) +
                       p.ay * ((1 - p.ax) * at(p.iy + 1, p.ix) + p.ax * at(p.iy + 1, p.ix + 1));
      out[i] = static_cast<float>(v * p.taper);
    }
    return out;
  }

  // Where log_polar() samples the spectrum: for angle t (0 .. 180 degrees) and radius j (r0 ..
  // r1, log-spaced), the bilinear corner (ix, iy) and weights, and a Hann taper along the
  // radius, which is not periodic (the angle is: 180 degrees), so that the grids' ends do not
  // pull the peak towards no rotation and no scale.
  void make_polar_grid() {
    polar_grid.resize(static_cast<std::size_t>(kThetas * kRadii));
    const double step = std::log(r1 / r0) / static_cast<double>(kRadii - 1);
    for (Index t = 0; t < kThetas; ++t) {
      const double theta = kPi * static_cast<double>(t) / static_cast<double>(kThetas);
      for (Index j = 0; j < kRadii; ++j) {
        const double r = r0 * std::exp(step * static_cast<double>(j));
        double kx = r * std::cos(theta) * static_cast<double>(ccols);
        double ky = r * std::sin(theta) * static_cast<double>(crows);
        if (kx < 0) kx = -kx, ky = -ky;  // |F(-k)| = |F(k)|
        const double fx = std::floor(kx), fy = std::floor(ky);
        PolarSample& p = polar_grid[static_cast<std::size_t>(t * kRadii + j)];
        p.ax = kx - fx, p.ay = ky - fy;
        p.ix = static_cast<Index>(fx), p.iy = static_cast<Index>(fy);
        p.taper = 0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(j) /
                                       static_cast<double>(kRadii - 1));
      }
    }
  }

  // An image's levels (with gradients: a reference) and log-polar spectrum. A reference's
  // gradients are those of the image smoothed by `smoothing`; its values and the frame's are
  // not smoothed, so that the two stay related by the transform exactly (a blur does not
  // commute with a scale or a shear).
  // A frame (no gradients) gets only the level its start uses: the fitter makes the others.
  Prepared prepare(MatrixView<const float> image, bool gradients = true) const {
    Prepared p;
    if (gradients || bin == 1) p.full = make_level(image, 1);
    if (bin > 1) p.coarse = make_level(image, bin);
    if (gradients) {
      const double sigma = smoothing_for(image);
      std::vector<float> smooth;
      MatrixView<const float> source = image;
      if (sigma > 0) {
        const std::vector<double> s = dic::smoothed(image, sigma);
        smooth.assign(s.begin(), s.end());
        source = MatrixView<const float>{smooth.data(), image.rows, image.cols, image.cols};
      }
      add_gradients(p.full, sigma > 0 ? make_level(source, 1) : p.full);
      p.full.band = static_cast<Index>(std::ceil(3 * sigma));
      if (bin > 1) {
        add_gradients(p.coarse, sigma > 0 ? make_level(source, bin) : p.coarse);
        p.coarse.band = static_cast<Index>(std::ceil(3 * sigma / bin));
      }
    }
    p.log_polar = log_polar(coarse_of(p));
    return p;
  }

  // How a start is found: the Fourier-Mellin rotation and scale, no rotation, or the rotation
  // within max_rotation (every kAngleStep degrees) after which the translation's phase
  // correlation peaks highest.
  enum class Start { fourier_mellin, translation, angle_search };

  // A starting warp (full px, relative to the centre), found as `how` says, with the
  // translation found after the rotation and scale.
  Result<Affine> start(const Prepared& ref, const Prepared& frame, Start how) const {
    const Level& rc = coarse_of(ref);
    const Level& fc = coarse_of(frame);
    double peak = 0;  // the last translation's phase-correlation peak
    const MatrixView<const float> rv{rc.pixels.data(), rc.rows, rc.cols, rc.cols};
    // The frame sampled through the linear part `l` about the centre, missing places at its
    // mean: bilinear (a start needs no better, and it costs a tenth of the cubic spline).
    double mean = 0;
    for (const float v : fc.pixels) mean += v;
    mean /= static_cast<double>(fc.pixels.size());
    const auto translation_after = [&](const std::array<double, 4>& l) -> Result<Affine> {
      std::vector<float> moved(fc.pixels.size());
      const auto at = [&](Index r, Index k) {
        return fc.pixels[static_cast<std::size_t>(std::min(r, fc.rows - 1) * fc.cols +
                                                  std::min(k, fc.cols - 1))];
      };
      for (Index r = 0; r < fc.rows; ++r)
        for (Index k = 0; k < fc.cols; ++k) {
          const double xi = static_cast<double>(k) - fc.cx, eta = static_cast<double>(r) - fc.cy;
          const double x = fc.cx + l[0] * xi + l[1] * eta, y = fc.cy + l[2] * xi + l[3] * eta;
          const bool inside = x >= 0 && y >= 0 && x <= static_cast<double>(fc.cols - 1) &&
                              y <= static_cast<double>(fc.rows - 1);
          float& out = moved[static_cast<std::size_t>(r * fc.cols + k)];
          if (!inside) {
            out = static_cast<float>(mean);
            continue;
          }
          const auto x0 = static_cast<Index>(x), y0 = static_cast<Index>(y);
          const double ax = x - static_cast<double>(x0), ay = y - static_cast<double>(y0);
          out = static_cast<float>((1 - ay) * ((1 - ax) * at(y0, x0) + ax * at(y0, x0 + 1)) +
                                   ay * ((1 - ax) * at(y0 + 1, x0) + ax * at(y0 + 1, x0 + 1)));
        }
      auto s = translation->measure(
          rv, MatrixView<const float>{moved.data(), fc.rows, fc.cols, fc.cols});
      if (!s.is_ok()) return s.status();
      // A feature at xi in the reference is at xi + s in the moved frame, at l (xi + s) in the
      // frame.
      const double tx = s.value().dx * bin, ty = s.value().dy * bin;
      peak = s.value().peak;
      return Affine{{l[0], l[1], l[0] * tx + l[1] * ty, l[2], l[3], l[2] * tx + l[3] * ty}};
    };
    if (how == Start::translation) return translation_after({1, 0, 0, 1});
    if (how == Start::angle_search) {
      Result<Affine> best =
          Status{ErrorCode::invalid_argument, "no correlation peak at any rotation"};
      double best_peak = -1;
      for (double a = -options.max_rotation; a <= options.max_rotation; a += kAngleStep) {
        auto at = translation_after(Affine::rotation(a * kPi / 180, 1));
        if (at.is_ok() && peak > best_peak) best = std::move(at), best_peak = peak;
      }
      return best;
    }
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

  // Preferred: converged, a good match and within the searched rotation; then converged; then
  // the better match.
  int rank(const LevelFit& l) const {
    return (l.converged ? 2 : 0) + (l.converged && l.zncc >= kMinFitZncc &&
                                            std::abs(l.rel.angle_degrees()) <= options.max_rotation
                                        ? 1
                                        : 0);
  }

  // Each frame's fit: its starts on the host's threads (the Fourier-Mellin one for every frame,
  // then the translation alone for those whose first fit is not ranked best, then the angle
  // search for those still without a converged good match: the Fourier-Mellin angle can be wrong,
  // 0.9 degrees for a frame turned by -7.9 in transform_fit_test.cpp), IC-GN of each round by
  // the fitter, all frames at once.
  Result<std::vector<Fit>> measure(const std::vector<MatrixView<const float>>& images,
                                   const std::vector<MatrixView<const float>>* references) {
    const std::size_t n = images.size();
    std::vector<Fit> out(n);
    std::vector<Prepared> frames(n), refs(references != nullptr ? n : 0);
    std::vector<char> usable(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const MatrixView<const float>& f = images[k];
      if (f.rows != shape.rows || f.cols != shape.cols)
        out[k].failed = "is " + to_string(Shape{f.rows, f.cols}) + " px, not " + to_string(shape);
      else if (references != nullptr &&
               ((*references)[k].rows != shape.rows || (*references)[k].cols != shape.cols))
        out[k].failed = "has a reference of another size";
      else
        usable[k] = 1;
    }
    std::vector<LevelFit> chosen(n);
    std::vector<char> any(n, 0), pending = usable, prepared(n, 0);
    // A fit of frame k from one start: kept when it ranks better. The Fourier-Mellin start held
    // when its fit ranks best and matches well; a weaker match may be a wrong start's local
    // optimum (seen on 101 x 89 px: ZNCC 0.35 at 2 degrees for 9), so the other start is tried.
    const auto consider = [&](std::size_t k, const LevelFit& f) {
      if (any[k] == 0 || rank(f) > rank(chosen[k]) ||
          (rank(f) == rank(chosen[k]) && f.zncc > chosen[k].zncc)) {
        chosen[k] = f;
        any[k] = 1;
      }
      if (rank(f) == 3 && f.zncc >= kSureZncc) pending[k] = 0;
    };
    for (const Start how : {Start::fourier_mellin, Start::translation, Start::angle_search}) {
      std::vector<std::size_t> todo;
      for (std::size_t k = 0; k < n; ++k)
        if (pending[k] != 0 && !(how == Start::angle_search &&
                                 (any[k] == 0 || rank(chosen[k]) == 3 || chosen[k].singular)))
          todo.push_back(k);
      // Frame k prepared (once) and its start of this round into `s`; false: none found.
      const auto start_of = [&](std::size_t k, Affine& s) {
        if (prepared[k] == 0) {
          frames[k] = prepare(images[k], false);
          if (references != nullptr) refs[k] = prepare((*references)[k]);
          prepared[k] = 1;
        }
        const Result<Affine> st =
            start(references != nullptr ? refs[k] : reference, frames[k], how);
        if (st.is_ok()) s = st.value();
        return st.is_ok();
      };
      // On the GPU, chunks of kChunk frames: the next chunk's starts are found on the host's
      // threads while the device fits the last one (std::async: one fit in flight). On the CPU,
      // one chunk fitted after its starts (deferred: the host's threads do both).
      const bool overlap = fitter->device() != "cpu";
      const std::size_t size = overlap ? kChunk : std::max<std::size_t>(1, todo.size());
      struct Chunk {
        std::vector<std::size_t> which;
        std::vector<LevelInput> inputs;
        std::vector<LevelReference> refs;
      };
      std::vector<Chunk> chunks((todo.size() + size - 1) / size);  // not resized: fits read them
      std::future<Result<std::vector<LevelFit>>> running;
      const Chunk* fitting = nullptr;
      const auto take = [&]() -> Status {
        auto fits = running.get();
        if (!fits.is_ok()) return fits.status();
        for (std::size_t j = 0; j < fitting->which.size(); ++j)
          consider(fitting->which[j], fits.value()[j]);
        return Status::ok();
      };
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        const std::size_t first = c * size, count = std::min(size, todo.size() - first);
        std::vector<Affine> starts(count);
        std::vector<char> started(count, 0);
        parallel_for(static_cast<Index>(count), 1, [&](Index b, Index e) {
          for (Index i = b; i < e; ++i) {
            const auto j = static_cast<std::size_t>(i);
            started[j] = start_of(todo[first + j], starts[j]) ? 1 : 0;
          }
        });
        Chunk& chunk = chunks[c];
        for (std::size_t i = 0; i < count; ++i) {
          if (started[i] == 0) continue;
          const std::size_t k = todo[first + i];
          chunk.which.push_back(k);
          chunk.inputs.push_back({images[k], &coarse_of(frames[k]), starts[i]});
          if (references != nullptr) chunk.refs.push_back(level_reference(refs[k]));
        }
        if (running.valid()) XCORR_RETURN_IF_ERROR(take());
        if (chunk.which.empty()) continue;
        fitting = &chunk;
        running = std::async(overlap ? std::launch::async : std::launch::deferred,
                             [this, &chunk, references] {
                               return fitter->fit(options.transform, chunk.inputs,
                                                  references != nullptr ? &chunk.refs : nullptr);
                             });
      }
      if (running.valid()) XCORR_RETURN_IF_ERROR(take());
    }
    for (std::size_t k = 0; k < n; ++k)
      if (usable[k] != 0) out[k] = describe(chosen[k], any[k] != 0);
    return out;
  }

  LevelReference level_reference(const Prepared& p) const {
    return {&p.full, bin > 1 ? &p.coarse : nullptr};
  }

  // The frame's Fit from its chosen fit (`any`: whether a start was found at all).
  Fit describe(const LevelFit& chosen, bool any) const {
    Fit best;
    const char* model = label(options.transform);
    const double cx = (static_cast<double>(shape.cols) - 1) / 2,
                 cy = (static_cast<double>(shape.rows) - 1) / 2;
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

  std::unique_ptr<LevelFitter> fitter;
};

Result<std::unique_ptr<TransformFitter>> TransformFitter::create(Shape shape, FitOptions o,
                                                                 const LevelFitterFactory& fitters,
                                                                 const std::string& device) {
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
  impl->smoothing = o.smoothing;
  impl->largest_smoothing = static_cast<double>(std::min(shape.rows, shape.cols)) / 24;
  impl->r1 = 0.4;
  impl->r0 = std::min(4.0 / static_cast<double>(std::min(impl->crows, impl->ccols)), impl->r1 / 8);
  impl->make_polar_grid();
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
  auto fitter = fitters(shape, impl->bin, device);
  if (!fitter.is_ok()) return fitter.status();
  impl->fitter = std::move(fitter).value();
  t->impl_ = std::move(impl);
  return t;
}

TransformFitter::~TransformFitter() = default;

std::string TransformFitter::device() const {
  return impl_->fitter->device();
}

Status TransformFitter::set_reference(MatrixView<const float> reference) {
  if (reference.rows != impl_->shape.rows || reference.cols != impl_->shape.cols)
    return Status{ErrorCode::size_mismatch, "the reference is " +
                                                to_string(Shape{reference.rows, reference.cols}) +
                                                " px, not " + to_string(impl_->shape)};
  impl_->reference = impl_->prepare(reference);
  impl_->has_reference = true;
  return impl_->fitter->set_reference(impl_->level_reference(impl_->reference));
}

Result<std::vector<Fit>> TransformFitter::measure(
    const std::vector<MatrixView<const float>>& frames,
    const std::vector<MatrixView<const float>>* references) {
  if (references == nullptr && !impl_->has_reference)
    return std::vector<Fit>(frames.size(),
                            Fit{{}, 0, 0, "has no reference to be measured against"});
  return impl_->measure(frames, references);
}

Fit TransformFitter::measure(MatrixView<const float> frame) {
  auto r = measure(std::vector{frame});
  return r.is_ok() ? r.value()[0] : Fit{{}, 0, 0, "was not fitted: " + r.status().message()};
}

Fit TransformFitter::measure(MatrixView<const float> reference, MatrixView<const float> frame) {
  const std::vector refs{reference};
  auto r = measure(std::vector{frame}, &refs);
  return r.is_ok() ? r.value()[0] : Fit{{}, 0, 0, "was not fitted: " + r.status().message()};
}

#else

struct TransformFitter::Impl {};
Result<std::unique_ptr<TransformFitter>> TransformFitter::create(Shape, FitOptions,
                                                                 const LevelFitterFactory&,
                                                                 const std::string&) {
  return Status{ErrorCode::unsupported, "this build has no FFTW: transform fits are not available"};
}
TransformFitter::~TransformFitter() = default;
Status TransformFitter::set_reference(MatrixView<const float>) {
  return Status::ok();
}
std::string TransformFitter::device() const {
  return "cpu";
}
Result<std::vector<Fit>> TransformFitter::measure(const std::vector<MatrixView<const float>>&,
                                                  const std::vector<MatrixView<const float>>*) {
  return std::vector<Fit>{};
}
Fit TransformFitter::measure(MatrixView<const float>) {
  return {};
}
Fit TransformFitter::measure(MatrixView<const float>, MatrixView<const float>) {
  return {};
}

#endif

}  // namespace xcorr::reg
