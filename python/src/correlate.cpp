// xcorr.correlate: `xcorr correlate` on arrays: the same registry, choice of variant and parsers
// for every option.
#include <pybind11/stl.h>

#include "core/correlation.hpp"
#include "core/engine/engine.hpp"
#include "core/peak.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {

py::dict correlate(const py::array& left_in, const py::array& right_in, const std::string& form,
                   const std::string& mode, const std::string& norm, const std::string& output,
                   const std::string& method, const std::string& accuracy,
                   const std::string& subpixel) {
  CorrelationProblem p;
  p.request = {parse_enum<Form>("form", form),
               parse_enum<Mode>("mode", mode),
               parse_enum<Normalization>("norm", norm),
               parse_enum<Output>("output", output),
               parse_enum<SubpixelMethod>("subpixel", subpixel),
               parse_enum<Accuracy>("accuracy", accuracy)};
  if (p.request.output == Output::peak && p.request.mode != Mode::valid)
    throw py::value_error("output='peak' needs mode='valid' (template inside a search window)");
  // The arrays' own memory when they are float32 in C order (a converted copy otherwise).
  const auto left = as_float32(left_in, "left", {2, 3});
  const auto right = as_float32(right_in, "right", {2, 3});
  p.left = view_of(left);
  p.right = view_of(right);
  std::optional<Result<CorrelationOutput>> result;
  {
    py::gil_scoped_release released;
    result.emplace(correlate(engine::registry(), p, method));
  }
  CorrelationOutput out = value(std::move(*result));
  py::dict d;
  d["variant"] = out.variant;
  d["params"] = out.params;
  d["seconds"] = out.seconds;
  if (p.request.output == Output::surface) {
    d["surface"] = to_array(std::move(out.result), left_in.ndim() == 2 && right_in.ndim() == 2);
    return d;
  }
  // Peaks: per result, the columns of `xcorr correlate --output peak`'s CSV (the pair, the
  // maximum's pixel, its value, the refined position) and the displacement it means.
  const auto n = static_cast<std::size_t>(out.result.count());
  std::vector<double> val(n), sub_row(n), sub_col(n), dy(n), dx(n);
  std::vector<long> li(n), ri(n), row(n), col(n);
  for (std::size_t t = 0; t < n; ++t) {
    const Peak k = decode_peak(out.result[static_cast<Index>(t)].row(0));
    const Displacement disp = output_position_to_displacement(p, k.sub_row(), k.sub_col());
    const auto [a, b] = p.pair(static_cast<Index>(t));
    li[t] = static_cast<long>(a), ri[t] = static_cast<long>(b);
    row[t] = static_cast<long>(k.row), col[t] = static_cast<long>(k.col);
    val[t] = k.value, sub_row[t] = k.sub_row(), sub_col[t] = k.sub_col();
    dy[t] = disp.dy, dx[t] = disp.dx;
  }
  d["left"] = py::cast(li);
  d["right"] = py::cast(ri);
  d["row"] = py::cast(row);
  d["col"] = py::cast(col);
  d["value"] = py::cast(val);
  d["sub_row"] = py::cast(sub_row);
  d["sub_col"] = py::cast(sub_col);
  d["dy"] = py::cast(dy);
  d["dx"] = py::cast(dx);
  return d;
}

}  // namespace xcorr::python
