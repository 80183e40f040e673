// cpu_reference: the definitions of correlation.hpp, term by term, accumulated in float64.
// Overview: the oracle. When it wins: never (it is excluded from auto). Constraints: none.
#include <algorithm>

#include "core/cpu/cpu_variants.hpp"
#include "core/cpu/zncc_math.hpp"
#include "core/parallel.hpp"
#include "core/peak.hpp"
#include "core/peak_search.hpp"

namespace xcorr::cpu {
namespace {

void full_reference(MatrixView<const float> L, MatrixView<const float> R, MatrixView<double> out) {
  const Index h = L.rows, w = L.cols;
  for (Index r = 0; r < out.rows; ++r) {
    const Index dy = r - (h - 1);
    for (Index c = 0; c < out.cols; ++c) {
      const Index dx = c - (w - 1);
      double sum = 0;
      for (Index i = std::max<Index>(0, dy); i < std::min(h, h + dy); ++i) {
        for (Index j = std::max<Index>(0, dx); j < std::min(w, w + dx); ++j) {
          sum += static_cast<double>(L(i, j)) * R(i - dy, j - dx);
        }
      }
      out(r, c) = sum;
    }
  }
}

void valid_reference(MatrixView<const float> T, MatrixView<const float> S, MatrixView<double> out) {
  for (Index k = 0; k < out.rows; ++k) {
    for (Index l = 0; l < out.cols; ++l) {
      double sum = 0;
      for (Index i = 0; i < T.rows; ++i) {
        for (Index j = 0; j < T.cols; ++j) sum += static_cast<double>(T(i, j)) * S(k + i, l + j);
      }
      out(k, l) = sum;
    }
  }
}

void zncc_reference(MatrixView<const float> T, MatrixView<const float> S, MatrixView<double> out) {
  const ZeroMeanTemplate t = make_zero_mean_template(T);
  const double search_variance = mean_variance(S).variance;
  const double n = static_cast<double>(T.rows * T.cols);
  for (Index k = 0; k < out.rows; ++k) {
    for (Index l = 0; l < out.cols; ++l) {
      double sum = 0;
      for (Index i = 0; i < T.rows; ++i) {
        for (Index j = 0; j < T.cols; ++j) sum += S(k + i, l + j);
      }
      const double mean = sum / n;
      double num = 0, ss = 0;
      for (Index i = 0; i < T.rows; ++i) {
        for (Index j = 0; j < T.cols; ++j) {
          const double d = S(k + i, l + j) - mean;
          num += t.values[static_cast<std::size_t>(i * T.cols + j)] * d;
          ss += d * d;
        }
      }
      out(k, l) = zncc_finish(num, t, ss, n, search_variance);
    }
  }
}

class ReferenceCorrelator final : public Correlator {
 public:
  const VariantInfo& info() const override { return info_; }
  double estimate_seconds(const CorrelationProblem& p) const override {
    return p.direct_multiply_adds() / 0.3e9;
  }
  Status run(const CorrelationProblem& p, StackView<float> out) const override {
    if (p.request.output == Output::peak) return run_peaks_via_surfaces(*this, p, out);
    const Stack<double> ref = correlate_reference(p);
    for (Index t = 0; t < out.count; ++t) {
      for (Index r = 0; r < out.rows; ++r) {
        for (Index c = 0; c < out.cols; ++c) out[t](r, c) = static_cast<float>(ref[t](r, c));
      }
    }
    return Status::ok();
  }

 private:
  VariantInfo info_{"cpu_reference",
                    "reference",
                    "cpu",
                    "direct definition in float64: the oracle (slow; never chosen by auto)",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc},
                    false};
};

}  // namespace

Stack<double> correlate_reference(const CorrelationProblem& p) {
  const Shape s = p.output_shape(), surface = p.surface_shape();
  const bool peak = p.request.output == Output::peak;
  Stack<double> out(s.rows, s.cols, p.output_count());
  parallel_for(p.output_count(), 1, [&](Index begin, Index end) {
    Stack<double> own(peak ? surface.rows : 0, peak ? surface.cols : 0, peak ? 1 : 0);
    for (Index t = begin; t < end; ++t) {
      const auto [li, ri] = p.pair(t);
      const MatrixView<double> m = peak ? own[0] : out[t];
      if (p.request.mode == Mode::full) {
        full_reference(p.left[li], p.right[ri], m);
      } else if (p.request.norm == Normalization::none) {
        valid_reference(p.left[li], p.right[ri], m);
      } else {
        zncc_reference(p.left[li], p.right[ri], m);
      }
      if (!peak) continue;
      const Peak k = find_peak(MatrixView<const double>(own[0]), p.request.subpixel).value();
      const double record[kPeakFields] = {
          static_cast<double>(k.row),
          static_cast<double>(k.col),
          k.value,
          k.row_offset,
          k.col_offset,
          static_cast<double>(k.refined ? static_cast<int>(k.used) : 0)};
      std::copy(record, record + kPeakFields, out[t].row(0));
    }
  });
  return out;
}

std::unique_ptr<Correlator> make_reference_correlator() {
  return std::make_unique<ReferenceCorrelator>();
}

}  // namespace xcorr::cpu
