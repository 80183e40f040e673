// cpu_direct: the direct definition in float32, multithreaded, vectorised row by row.
// Overview: each output row is a sum of 1-D row correlations; each row correlation is a run of
//   out[x] += a0*s0[x] + a1*s1[x] + a2*s2[x] + a3*s3[x]   (4 template values per pass over out)
// which the compiler vectorises (AVX2+FMA clone where the CPU has it).
// When it wins: small matrices (up to roughly 24x24 full, or small templates in valid mode),
// where FFT set-up costs more than the h*w*outputs multiply-adds.
// Constraints: none (all forms, modes and normalisations). Accumulates in float32.
#include <algorithm>
#include <vector>

#include "core/clones.hpp"
#include "core/cpu/cpu_variants.hpp"
#include "core/cpu/window_stats.hpp"
#include "core/parallel.hpp"
#include "core/peak_search.hpp"

namespace xcorr::cpu {
namespace {

// Problems below this many multiply-adds run on the calling thread (starting threads costs more).
constexpr double kSerialMultiplyAdds = 2e6;

// out[x] += a[0]*s0[x] + a[1]*s1[x] + a[2]*s2[x] + a[3]*s3[x], x in [0, n)
XCORR_INLINE void fma_rows4(float* __restrict out, Index n, const float* __restrict a,
                            const float* __restrict s0, const float* __restrict s1,
                            const float* __restrict s2, const float* __restrict s3) {
  const float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  for (Index x = 0; x < n; ++x) out[x] += a0 * s0[x] + a1 * s1[x] + a2 * s2[x] + a3 * s3[x];
}

// out[x] += a * s[x], x in [0, n)
XCORR_INLINE void fma_row1(float* __restrict out, Index n, float a, const float* __restrict s) {
  for (Index x = 0; x < n; ++x) out[x] += a * s[x];
}

constexpr Index kPad = 3;  // zeros on each side of a reversed right row (full mode)

// Full mode, output rows [r0, r1) of one pair. `rev` holds the right matrix with every row
// reversed and padded by kPad zeros on each side (h rows of w + 2*kPad).
XCORR_CLONES void full_rows(MatrixView<const float> L, const std::vector<float>& rev,
                            MatrixView<float> out, Index r0, Index r1) {
  const Index h = L.rows, w = L.cols, pitch = w + 2 * kPad;
  for (Index r = r0; r < r1; ++r) {
    float* o = out.row(r);
    std::fill(o, o + out.cols, 0.0f);
    const Index dy = r - (h - 1);
    for (Index i = std::max<Index>(0, dy); i < std::min(h, h + dy); ++i) {
      const float* a = L.row(i);
      const float* p = rev.data() + (i - dy) * pitch;  // p[kPad + t] = R[i-dy][w-1-t]
      Index j = 0;
      // out[j + t] += a[j] * p[kPad + t]: four consecutive j share one pass over out.
      for (; j + 3 < w; j += 4) fma_rows4(o + j, w + 3, a + j, p + 3, p + 2, p + 1, p);
      for (; j < w; ++j) fma_row1(o + j, w, a[j], p + kPad);
    }
  }
}

// Valid mode, output rows [k0, k1): out[k][l] = sum T[i][j] * S[k+i][l+j].
XCORR_CLONES void valid_rows(const float* T, Index h, Index w, MatrixView<const float> S,
                             MatrixView<float> out, Index k0, Index k1) {
  const Index n = out.cols;
  for (Index k = k0; k < k1; ++k) {
    float* o = out.row(k);
    std::fill(o, o + n, 0.0f);
    for (Index i = 0; i < h; ++i) {
      const float* t = T + i * w;
      const float* s = S.row(k + i);
      Index j = 0;
      for (; j + 3 < w; j += 4) fma_rows4(o, n, t + j, s + j, s + j + 1, s + j + 2, s + j + 3);
      for (; j < w; ++j) fma_row1(o, n, t[j], s + j);
    }
  }
}

class DirectCorrelator final : public Correlator {
 public:
  const VariantInfo& info() const override { return info_; }

  double estimate_seconds(const CorrelationProblem& p) const override {
    // Fitted to docs/perf/cpu-vs-opencv.md (2-core development machine): full mode ~2.2 GMAC/s
    // per thread (16x16 in ~31 us on one thread, 64x64 in ~3.4 ms on two); valid mode ~5 GMAC/s
    // per thread (10^3 DIC-shaped ZNCC pairs, 31 px in 51 px: ~40 ms on two).
    const double macs = p.direct_multiply_adds();
    const double rate = p.request.mode == Mode::valid ? 5e9 : 2.2e9;
    if (macs < kSerialMultiplyAdds) return 2e-6 + macs / rate;
    return 2e-5 + macs / (rate * hardware_threads());
  }

  Status run(const CorrelationProblem& p, StackView<float> out) const override {
    if (p.request.output == Output::peak) return run_peaks_via_surfaces(*this, p, out);
    const Index count = out.count, rows = out.rows;
    const bool serial = p.direct_multiply_adds() < kSerialMultiplyAdds;
    // Enough tasks for every thread even with one output; whole outputs when there are many.
    const Index blocks =
        serial ? 1 : std::clamp<Index>((4 * hardware_threads() + count - 1) / count, 1, rows);
    const Index rows_per_block = (rows + blocks - 1) / blocks;
    parallel_for(count * blocks, serial ? count : 1, [&](Index begin, Index end) {
      for (Index task = begin; task < end; ++task) {
        const Index t = task / blocks;
        const Index r0 = (task % blocks) * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
        if (r0 >= r1) continue;
        const auto [li, ri] = p.pair(t);
        run_rows(p, li, ri, out[t], r0, r1);
      }
    });
    return Status::ok();
  }

 private:
  static void run_rows(const CorrelationProblem& p, Index li, Index ri, MatrixView<float> out,
                       Index r0, Index r1) {
    const MatrixView<const float> L = p.left[li], R = p.right[ri];
    if (p.request.mode == Mode::full) {
      const Index w = R.cols, pitch = w + 2 * kPad;
      std::vector<float> rev(static_cast<std::size_t>(R.rows * pitch), 0.0f);
      for (Index i = 0; i < R.rows; ++i) {
        for (Index t = 0; t < w; ++t) rev[i * pitch + kPad + t] = R(i, w - 1 - t);
      }
      full_rows(L, rev, out, r0, r1);
      return;
    }
    if (p.request.norm == Normalization::none) {
      std::vector<float> t(static_cast<std::size_t>(L.rows * L.cols));
      for (Index i = 0; i < L.rows; ++i)
        std::copy(L.row(i), L.row(i) + L.cols, t.data() + i * L.cols);
      valid_rows(t.data(), L.rows, L.cols, R, out, r0, r1);
      return;
    }
    // ZNCC: numerator with the zero-mean template over the mean-shifted window, then normalise.
    const ZeroMeanTemplate zt = make_zero_mean_template(L);
    const WindowStats stats(R, L.rows, L.cols);
    std::vector<float> shifted(static_cast<std::size_t>(R.rows * R.cols));
    for (Index i = 0; i < R.rows; ++i) {
      for (Index j = 0; j < R.cols; ++j) {
        shifted[i * R.cols + j] = static_cast<float>(R(i, j) - stats.mean());
      }
    }
    const MatrixView<const float> S{shifted.data(), R.rows, R.cols, R.cols};
    valid_rows(zt.values.data(), L.rows, L.cols, S, out, r0, r1);
    normalize_zncc_rows(stats, zt, L.shape(), out, r0, r1);
  }

  VariantInfo info_{
      "cpu_direct",
      "direct",
      "cpu",
      "direct definition in float32, multithreaded and vectorised; wins for small sizes",
      kAllForms,
      kBothModes,
      {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_direct_correlator() {
  return std::make_unique<DirectCorrelator>();
}

}  // namespace xcorr::cpu
