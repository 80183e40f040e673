#include "core/peak_search.hpp"

#include <algorithm>

#include "core/peak.hpp"

namespace xcorr {
namespace {

template <class T>
StackView<T> sub(StackView<T> s, Index first, Index count) {
  s.data += first * s.matrix_stride;
  s.count = count;
  return s;
}

}  // namespace

Index result_unit(const CorrelationProblem& p) {
  switch (p.request.form) {
    case Form::n_to_mn:
      return p.left.count;
    case Form::n_to_m:
      return p.right.count;
    default:
      return 1;
  }
}

CorrelationProblem results_slice(const CorrelationProblem& p, Index first, Index count) {
  const Index unit = result_unit(p);
  XCORR_CHECK(first % unit == 0 && first >= 0 && count > 0 && first + count <= p.output_count() &&
                  (count % unit == 0 || first + count == p.output_count()),
              "results_slice: whole units");
  CorrelationProblem s = p;
  switch (p.request.form) {
    case Form::one_to_one:
      break;
    case Form::one_to_many:
    case Form::n_to_mn:
      s.right = sub(p.right, first, count);
      break;
    case Form::n_to_m:
      s.left = sub(p.left, first / unit, (count + unit - 1) / unit);
      break;
  }
  return s;
}

Status run_peaks_via_surfaces(const Correlator& surface_variant, const CorrelationProblem& p,
                              StackView<float> out, double max_surface_bytes) {
  XCORR_CHECK(p.request.output == Output::peak && out.cols == kPeakFields,
              "run_peaks_via_surfaces: a peak request");
  CorrelationProblem surface = p;
  surface.request.output = Output::surface;
  const Shape s = surface.surface_shape();
  const Index unit = result_unit(p), total = p.output_count();
  const double unit_bytes = 4.0 * static_cast<double>(s.area()) * static_cast<double>(unit);
  const Index units = std::max<Index>(1, static_cast<Index>(max_surface_bytes / unit_bytes));
  const Index slice = std::min(total, units * unit);
  Stack<float> surfaces(s.rows, s.cols, slice);
  for (Index first = 0; first < total; first += slice) {
    const Index count = std::min(slice, total - first);
    StackView<float> part = surfaces.view();
    part.count = count;
    XCORR_RETURN_IF_ERROR(surface_variant.run(results_slice(surface, first, count), part));
    for (Index t = 0; t < count; ++t) {
      auto peak = find_peak(StackView<const float>(part)[t], p.request.subpixel);
      if (!peak.is_ok()) return peak.status();
      encode_peak(out[first + t].row(0), peak.value());
    }
  }
  return Status::ok();
}

}  // namespace xcorr
