// cpu_fft: correlation through real-to-complex FFTs (FFTW, float32).
// Overview: sizes are padded to 2^a 3^b 5^c 7^d (P x Q). The spectrum of each distinct left
// matrix is computed once and reused across all its pairs (one_to_many, n_to_m); each right
// matrix is transformed once, multiplied with the spectra of the lefts it pairs with, inverse
// transformed and cropped straight into the output layout.
//   full:  P >= 2h-1, Q >= 2w-1, spectrum FL * conj(FR); out[r][c] = c[(r-h+1) mod P][(c-w+1) mod
//          Q]
//   valid: overlap-save tiles: a P x Q transform of the window region from (k0, l0) gives the
//          (P-h+1) x (Q-w+1) outputs from (k0, l0) without wrap-around; spectrum FS * conj(FT).
//          P, Q minimise the modelled cost (tile count x transform cost): one tile for DIC-sized
//          windows, tiles of a few hundred px for whole frames (cache-sized transforms, spread
//          over the threads, instead of one frame-sized transform).
// ZNCC: zero-mean template, window shifted by its matrix's mean, then per tile the window sums
// (float64, sliding) normalise the numerators (core/zncc_rule.hpp).
// When it wins: everything but small sizes (cost ~ P Q log(P Q) per transform instead of
// h w per output element). Constraints: none. Plans are created once per size (FFTW_ESTIMATE)
// under a lock and executed concurrently on separate arrays.
#include "core/cpu/cpu_variants.hpp"

#ifdef XCORR_HAVE_FFTW

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <vector>

#include "core/cpu/zncc_math.hpp"
#include "core/fft_size.hpp"
#include "core/parallel.hpp"
#include "core/peak_search.hpp"

namespace xcorr::cpu {
namespace {

// fftwf_malloc'd float buffer (SIMD-aligned as FFTW's new-array execute requires).
class FftBuffer {
 public:
  explicit FftBuffer(std::size_t floats)
      : p_(static_cast<float*>(fftwf_malloc(sizeof(float) * std::max<std::size_t>(floats, 1)))) {
    if (p_ == nullptr) throw std::bad_alloc();
  }
  ~FftBuffer() { fftwf_free(p_); }
  FftBuffer(const FftBuffer&) = delete;
  FftBuffer& operator=(const FftBuffer&) = delete;
  FftBuffer(FftBuffer&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  float* get() const { return p_; }
  fftwf_complex* complex() const { return reinterpret_cast<fftwf_complex*>(p_); }

 private:
  float* p_;
};

struct Plans {
  fftwf_plan forward = nullptr;  // P x Q real -> P x (Q/2+1) complex
  fftwf_plan inverse = nullptr;
};

// Process-wide plan cache keyed by (P, Q). FFTW's planner is not thread-safe; execution is.
Plans plans_for(Index P, Index Q) {
  static std::mutex mutex;
  static std::map<std::pair<Index, Index>, Plans> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find({P, Q});
  if (it != cache.end()) return it->second;
  const auto real_n = static_cast<std::size_t>(P * Q);
  const auto complex_n = static_cast<std::size_t>(P * (Q / 2 + 1));
  FftBuffer real(real_n), spec(2 * complex_n);
  Plans plans;
  plans.forward = fftwf_plan_dft_r2c_2d(static_cast<int>(P), static_cast<int>(Q), real.get(),
                                        spec.complex(), FFTW_ESTIMATE);
  plans.inverse = fftwf_plan_dft_c2r_2d(static_cast<int>(P), static_cast<int>(Q), spec.complex(),
                                        real.get(), FFTW_ESTIMATE);
  XCORR_CHECK(plans.forward && plans.inverse, "FFTW could not plan a transform");
  cache.emplace(std::make_pair(P, Q), plans);
  return plans;
}

class FftCorrelator final : public Correlator {
 public:
  const VariantInfo& info() const override { return info_; }

  double estimate_seconds(const CorrelationProblem& p) const override {
    if (p.request.mode == Mode::valid) {
      const Tiling t = tiling(p);
      const double n = static_cast<double>(t.P * t.Q);
      const double tiles = static_cast<double>(t.tiles_r * t.tiles_c);
      const double transforms = static_cast<double>(p.left.count) +
                                tiles * static_cast<double>(p.right.count + p.output_count());
      const double parallel = static_cast<double>(
          std::min<Index>(hardware_threads(),
                          std::max<Index>(p.left.count, p.right.count * t.tiles_r * t.tiles_c)));
      const double zncc = p.request.norm == Normalization::zncc ? 8e-9 * n * tiles : 0.0;
      return 5e-6 + (transforms * 0.17e-9 * transform_cost(t.P, t.Q) + zncc) / parallel;
    }
    const Geometry g = geometry(p);
    const double n = static_cast<double>(g.P * g.Q);
    const double transforms = static_cast<double>(p.left.count + p.right.count + p.output_count());
    // Fitted to docs/perf/cpu-vs-opencv.md (2-core development machine): FFTW r2c of 128x128
    // takes ~48 us there; loading, multiplying and cropping ~3 ns per element and transform.
    // Work spreads over min(threads, matrices per phase).
    const double parallel = static_cast<double>(
        std::min<Index>(hardware_threads(), std::max(p.left.count, p.right.count)));
    return 5e-6 + transforms * (2.5e-10 * n * std::log2(n) + 3e-9 * n) / parallel;
  }

  Status run(const CorrelationProblem& p, StackView<float> out) const override {
    if (p.request.output == Output::peak) return run_peaks_via_surfaces(*this, p, out);
    if (p.request.mode == Mode::valid) return run_valid(p, out);
    // Full mode (no normalisation there).
    const Geometry g = geometry(p);
    const Plans plans = plans_for(g.P, g.Q);
    const Index cq = g.Q / 2 + 1;
    const auto spec_floats = static_cast<std::size_t>(2 * g.P * cq);

    // Spectra of every left matrix, in parallel.
    std::vector<FftBuffer> left_spectra;
    left_spectra.reserve(static_cast<std::size_t>(p.left.count));
    for (Index i = 0; i < p.left.count; ++i) left_spectra.emplace_back(spec_floats);
    parallel_for(p.left.count, 1, [&](Index begin, Index end) {
      FftBuffer real(static_cast<std::size_t>(g.P * g.Q));
      for (Index i = begin; i < end; ++i) {
        load_padded(p.left[i], 0.0, g, real.get());
        fftwf_execute_dft_r2c(plans.forward, real.get(), left_spectra[i].complex());
      }
    });

    // One task per right matrix: transform, then multiply/invert/crop for each of its pairs.
    parallel_for(p.right.count, 1, [&](Index begin, Index end) {
      FftBuffer real(static_cast<std::size_t>(g.P * g.Q)), right_spec(spec_floats),
          prod(spec_floats);
      for (Index j = begin; j < end; ++j) {
        load_padded(p.right[j], 0.0, g, real.get());
        fftwf_execute_dft_r2c(plans.forward, real.get(), right_spec.complex());
        for_each_pair_of_right(p, j, [&](Index t, Index li) {
          multiply(left_spectra[li].complex(), right_spec.complex(), p.request.mode, g.P * cq,
                   prod.complex());
          fftwf_execute_dft_c2r(plans.inverse, prod.complex(), real.get());
          crop(p, g, real.get(), out[t]);
        });
      }
    });
    return Status::ok();
  }

 private:
  struct Geometry {
    Index P = 0, Q = 0;
  };

  // Valid mode: P x Q transforms over tiles_r x tiles_c tiles of (P-h+1) x (Q-w+1) outputs.
  struct Tiling {
    Index P = 0, Q = 0, tiles_r = 1, tiles_c = 1;
  };

  // Modelled cost of one P x Q transform plus its per-element work, in units of ~0.17 ns: FFTW's
  // time per element and log2 grows once a transform leaves the caches (measured on the 2-core
  // development machine, FFTW_ESTIMATE, r2c + c2r: 256^2 0.17 ns, 1024^2 0.42 ns, 2048^2 0.57 ns
  // per element and log2).
  static double transform_cost(Index P, Index Q) {
    const double n = static_cast<double>(P * Q);
    const double spill = std::max(0.0, std::log2(n / 65536.0));
    return n * (std::log2(n) * (1.0 + 0.37 * spill) + 30.0);
  }

  // The transform size of least modelled cost (tiles x transform cost): the whole window (fast
  // size), or power-of-two tiles of at least twice the template (and 64).
  static Tiling tiling(const CorrelationProblem& p) {
    const Shape o = p.surface_shape();
    auto candidates = [](Index t, Index full) {
      std::vector<Index> c{full};
      for (Index n = 64; n < full; n *= 2) {
        if (n >= 2 * t) c.push_back(n);
      }
      return c;
    };
    Tiling best;
    double best_cost = -1;
    for (Index P : candidates(p.left.rows, next_fast_fft_size(p.right.rows))) {
      for (Index Q : candidates(p.left.cols, next_fast_fft_size(p.right.cols))) {
        const Index bh = P - p.left.rows + 1, bw = Q - p.left.cols + 1;
        const Index tr = (o.rows + bh - 1) / bh, tc = (o.cols + bw - 1) / bw;
        const double cost = static_cast<double>(tr * tc) * transform_cost(P, Q);
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          best = {P, Q, tr, tc};
        }
      }
    }
    return best;
  }

  // Valid mode: one task per (right matrix, tile): the region's transform, then for each pair of
  // the right matrix the product, inverse and crop into the output tile (and ZNCC).
  Status run_valid(const CorrelationProblem& p, StackView<float> out) const {
    const Tiling tl = tiling(p);
    const Geometry g{tl.P, tl.Q};
    const Plans plans = plans_for(g.P, g.Q);
    const bool zncc = p.request.norm == Normalization::zncc;
    const Index h = p.left.rows, w = p.left.cols;
    const Index bh = g.P - h + 1, bw = g.Q - w + 1;
    const Index cq = g.Q / 2 + 1;
    const auto spec_floats = static_cast<std::size_t>(2 * g.P * cq);
    const Shape o = p.surface_shape();

    std::vector<FftBuffer> left_spectra;
    std::vector<ZeroMeanTemplate> templates(static_cast<std::size_t>(zncc ? p.left.count : 0));
    left_spectra.reserve(static_cast<std::size_t>(p.left.count));
    for (Index i = 0; i < p.left.count; ++i) left_spectra.emplace_back(spec_floats);
    parallel_for(p.left.count, 1, [&](Index begin, Index end) {
      FftBuffer real(static_cast<std::size_t>(g.P * g.Q));
      for (Index i = begin; i < end; ++i) {
        if (zncc) {
          templates[i] = make_zero_mean_template(p.left[i]);
          const auto& v = templates[i].values;
          load_padded(MatrixView<const float>{v.data(), h, w, w}, 0.0, g, real.get());
        } else {
          load_padded(p.left[i], 0.0, g, real.get());
        }
        fftwf_execute_dft_r2c(plans.forward, real.get(), left_spectra[i].complex());
      }
    });
    // ZNCC: each right matrix's mean (the shift) and variance (the flatness rule).
    std::vector<MeanVariance> stats(static_cast<std::size_t>(zncc ? p.right.count : 0));
    if (zncc) {
      parallel_for(p.right.count, 1, [&](Index begin, Index end) {
        for (Index j = begin; j < end; ++j) stats[j] = mean_variance(p.right[j]);
      });
    }
    const Index tiles = tl.tiles_r * tl.tiles_c;
    parallel_for(p.right.count * tiles, 1, [&](Index begin, Index end) {
      FftBuffer real(static_cast<std::size_t>(g.P * g.Q)),
          region(static_cast<std::size_t>(g.P * g.Q)), right_spec(spec_floats), prod(spec_floats);
      TileSums sums;
      for (Index task = begin; task < end; ++task) {
        const Index j = task / tiles, tile = task % tiles;
        const Index k0 = tile / tl.tiles_c * bh, l0 = tile % tl.tiles_c * bw;
        const Index rows = std::min(bh, o.rows - k0), cols = std::min(bw, o.cols - l0);
        const MatrixView<const float> R = p.right[j];
        const MatrixView<const float> part{R.data + k0 * R.row_stride + l0,
                                           std::min(g.P, R.rows - k0), std::min(g.Q, R.cols - l0),
                                           R.row_stride};
        load_padded(part, zncc ? stats[j].mean : 0.0, g, region.get());
        fftwf_execute_dft_r2c(plans.forward, region.get(), right_spec.complex());
        if (zncc) sums.compute(region.get(), g.Q, h, w, rows, cols);
        for_each_pair_of_right(p, j, [&](Index t, Index li) {
          multiply(left_spectra[li].complex(), right_spec.complex(), Mode::valid, g.P * cq,
                   prod.complex());
          fftwf_execute_dft_c2r(plans.inverse, prod.complex(), real.get());
          const float scale = 1.0f / static_cast<float>(g.P * g.Q);
          const double area = static_cast<double>(h * w);
          for (Index k = 0; k < rows; ++k) {
            float* dst = out[t].row(k0 + k) + l0;
            const float* src = real.get() + k * g.Q;
            if (!zncc) {
              for (Index l = 0; l < cols; ++l) dst[l] = src[l] * scale;
              continue;
            }
            for (Index l = 0; l < cols; ++l) {
              dst[l] = zncc_finish(src[l] * scale, templates[li], sums.window_ss(k, l), area,
                                   stats[j].variance);
            }
          }
        });
      }
    });
    return Status::ok();
  }

  // Window sums of one tile's region (float64, sliding): for output (k, l) of the tile, the sum
  // and sum of squares of region rows [k, k + h), columns [l, l + w).
  class TileSums {
   public:
    void compute(const float* region, Index pitch, Index h, Index w, Index rows, Index cols) {
      cols_ = cols;
      n_ = static_cast<double>(h * w);
      const Index hr = rows + h - 1;
      hs_.assign(static_cast<std::size_t>(2 * hr * cols), 0.0);
      for (Index y = 0; y < hr; ++y) {  // horizontal sums of each row
        const float* r = region + y * pitch;
        double a = 0, b = 0;
        for (Index x = 0; x < w; ++x) a += r[x], b += static_cast<double>(r[x]) * r[x];
        double* d = hs_.data() + 2 * y * cols;
        d[0] = a, d[1] = b;
        for (Index l = 1; l < cols; ++l) {
          const double add = r[l + w - 1], sub = r[l - 1];
          a += add - sub;
          b += add * add - sub * sub;
          d[2 * l] = a, d[2 * l + 1] = b;
        }
      }
      ss_.assign(static_cast<std::size_t>(rows * cols), 0.0);
      a_.assign(static_cast<std::size_t>(cols), 0.0);
      b_.assign(static_cast<std::size_t>(cols), 0.0);
      double* a = a_.data();
      double* b = b_.data();
      for (Index i = 0; i < h; ++i) {  // then down the columns
        const double* d = hs_.data() + 2 * i * cols;
        for (Index l = 0; l < cols; ++l) a[l] += d[2 * l], b[l] += d[2 * l + 1];
      }
      for (Index k = 0;; ++k) {
        for (Index l = 0; l < cols; ++l) ss_[k * cols + l] = std::max(0.0, b[l] - a[l] * a[l] / n_);
        if (k + 1 >= rows) break;
        const double* add = hs_.data() + 2 * (k + h) * cols;
        const double* sub = hs_.data() + 2 * k * cols;
        for (Index l = 0; l < cols; ++l) {
          a[l] += add[2 * l] - sub[2 * l];
          b[l] += add[2 * l + 1] - sub[2 * l + 1];
        }
      }
    }
    // sum((S - window mean)^2) of output (k, l) of the tile.
    double window_ss(Index k, Index l) const { return ss_[k * cols_ + l]; }

   private:
    Index cols_ = 0;
    double n_ = 1;
    std::vector<double> hs_, ss_, a_, b_;  // kept across the tiles of a task: no allocations
  };
  // Full mode's transform size.
  static Geometry geometry(const CorrelationProblem& p) {
    return {next_fast_fft_size(2 * p.left.rows - 1), next_fast_fft_size(2 * p.left.cols - 1)};
  }

  // Copies m - offset into the top-left of a zeroed P x Q buffer.
  static void load_padded(MatrixView<const float> m, double offset, Geometry g, float* dst) {
    std::fill(dst, dst + g.P * g.Q, 0.0f);
    for (Index r = 0; r < m.rows; ++r) {
      for (Index c = 0; c < m.cols; ++c) dst[r * g.Q + c] = static_cast<float>(m(r, c) - offset);
    }
  }

  // full: FL * conj(FR); valid: FR * conj(FL) (= conj of the former). Written out by hand:
  // std::complex multiplication without -ffast-math goes through the slow NaN-checking path.
  static void multiply(const fftwf_complex* l, const fftwf_complex* r, Mode mode, Index n,
                       fftwf_complex* out) {
    const float sign = mode == Mode::full ? 1.0f : -1.0f;
    for (Index i = 0; i < n; ++i) {
      const float re = l[i][0] * r[i][0] + l[i][1] * r[i][1];
      const float im = l[i][1] * r[i][0] - l[i][0] * r[i][1];
      out[i][0] = re;
      out[i][1] = sign * im;
    }
  }

  // Copies the circular correlation `c` into the output layout (no per-element modulo).
  static void crop(const CorrelationProblem& p, Geometry g, const float* c, MatrixView<float> out) {
    const float scale = 1.0f / static_cast<float>(g.P * g.Q);
    const Index row_shift = p.request.mode == Mode::full ? p.left.rows - 1 : 0;
    const Index col_shift = p.request.mode == Mode::full ? p.left.cols - 1 : 0;
    const Index wrapped =
        std::min(col_shift, out.cols);  // output columns that read c[.][Q - col_shift + col]
    for (Index r = 0; r < out.rows; ++r) {
      const Index src_row = r >= row_shift ? r - row_shift : r - row_shift + g.P;
      const float* src = c + src_row * g.Q;
      float* dst = out.row(r);
      for (Index col = 0; col < wrapped; ++col) dst[col] = src[col - col_shift + g.Q] * scale;
      for (Index col = wrapped; col < out.cols; ++col) dst[col] = src[col - col_shift] * scale;
    }
  }

  // Calls f(output index, left index) for every output that uses right matrix j.
  template <class F>
  static void for_each_pair_of_right(const CorrelationProblem& p, Index j, F&& f) {
    if (p.request.form == Form::n_to_m) {
      for (Index r = 0; r < p.left.count; ++r) f(r * p.right.count + j, r);
    } else {
      f(j, p.pair(j).first);
    }
  }

  VariantInfo info_{
      "cpu_fft",
      "fft",
      "cpu",
      "FFTW real-to-complex FFTs, spectra reused across pairs; wins above small sizes",
      kAllForms,
      kBothModes,
      {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_fft_correlator() {
  return std::make_unique<FftCorrelator>();
}

}  // namespace xcorr::cpu

#else

namespace xcorr::cpu {
std::unique_ptr<Correlator> make_fft_correlator() {
  return nullptr;
}
}  // namespace xcorr::cpu

#endif
