// cpu_fft: correlation through real-to-complex FFTs (FFTW, float32).
// Overview: sizes are padded to 2^a 3^b 5^c 7^d (P x Q). The spectrum of each distinct left
// matrix is computed once and reused across all its pairs (one_to_many, n_to_m); each right
// matrix is transformed once, multiplied with the spectra of the lefts it pairs with, inverse
// transformed and cropped straight into the output layout.
//   full:  P >= 2h-1, Q >= 2w-1, spectrum FL * conj(FR); out[r][c] = c[(r-h+1) mod P][(c-w+1) mod
//   Q] valid: P >= H,    Q >= W,    spectrum FS * conj(FT); out[k][l] = c[k][l]
// ZNCC: zero-mean template, mean-shifted window, then WindowStats normalisation.
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

#include "core/cpu/window_stats.hpp"
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
    const Geometry g = geometry(p);
    const Plans plans = plans_for(g.P, g.Q);
    const bool zncc = p.request.norm == Normalization::zncc;
    const Index cq = g.Q / 2 + 1;
    const auto spec_floats = static_cast<std::size_t>(2 * g.P * cq);

    // Spectra of every left matrix (zero-mean templates for zncc), in parallel.
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
          load_padded(MatrixView<const float>{v.data(), p.left.rows, p.left.cols, p.left.cols}, 0.0,
                      g, real.get());
        } else {
          load_padded(p.left[i], 0.0, g, real.get());
        }
        fftwf_execute_dft_r2c(plans.forward, real.get(), left_spectra[i].complex());
      }
    });

    // One task per right matrix: transform, then multiply/invert/crop for each of its pairs.
    parallel_for(p.right.count, 1, [&](Index begin, Index end) {
      FftBuffer real(static_cast<std::size_t>(g.P * g.Q)), right_spec(spec_floats),
          prod(spec_floats);
      for (Index j = begin; j < end; ++j) {
        const MatrixView<const float> R = p.right[j];
        std::unique_ptr<WindowStats> stats;
        if (zncc) stats = std::make_unique<WindowStats>(R, p.left.rows, p.left.cols);
        load_padded(R, zncc ? stats->mean() : 0.0, g, real.get());
        fftwf_execute_dft_r2c(plans.forward, real.get(), right_spec.complex());
        for_each_pair_of_right(p, j, [&](Index t, Index li) {
          multiply(left_spectra[li].complex(), right_spec.complex(), p.request.mode, g.P * cq,
                   prod.complex());
          fftwf_execute_dft_c2r(plans.inverse, prod.complex(), real.get());
          crop(p, g, real.get(), out[t]);
          if (zncc) normalize_zncc_rows(*stats, templates[li], p.left.shape(), out[t], 0, out.rows);
        });
      }
    });
    return Status::ok();
  }

 private:
  struct Geometry {
    Index P = 0, Q = 0;
  };
  static Geometry geometry(const CorrelationProblem& p) {
    if (p.request.mode == Mode::full) {
      return {next_fast_fft_size(2 * p.left.rows - 1), next_fast_fft_size(2 * p.left.cols - 1)};
    }
    return {next_fast_fft_size(p.right.rows), next_fast_fft_size(p.right.cols)};
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
