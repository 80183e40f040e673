// xcorr._core: the engine facade (core/engine/engine.hpp) on numpy arrays, as the CLI runs it:
// the GPU backend installed at import (engine::install_gpu), the same registry, the same choice
// of variant and the same parsers for every option, so a bad value raises ValueError with the
// CLI's message. python/xcorr/__init__.py gives these their documented Python signatures.
// Arrays: inputs of any real dtype are read as float32 (the engine's type, as the CLI reads its
// files); outputs are float32. Long calls release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/correlation.hpp"
#include "core/engine/engine.hpp"
#include "core/enum_labels.hpp"
#include "core/peak.hpp"
#include "core/registry.hpp"

namespace py = pybind11;

namespace xcorr::python {
namespace {

// A Status as the Python exception of its kind, with the CLI's message.
[[noreturn]] void raise(const Status& s) {
  PyObject* kind = PyExc_RuntimeError;
  switch (s.code()) {
    case ErrorCode::invalid_argument:
    case ErrorCode::size_mismatch:
    case ErrorCode::parse_error:
      kind = PyExc_ValueError;
      break;
    case ErrorCode::not_found:
      kind = PyExc_FileNotFoundError;
      break;
    case ErrorCode::out_of_memory:
      kind = PyExc_MemoryError;
      break;
    case ErrorCode::unsupported:
      kind = PyExc_TypeError;
      break;
    case ErrorCode::cancelled:
      kind = PyExc_KeyboardInterrupt;
      break;
    default:
      break;
  }
  PyErr_SetString(kind, s.message().c_str());
  throw py::error_already_set();
}

template <typename T>
T value(Result<T> r) {
  if (!r.is_ok()) raise(r.status());
  return std::move(r).value();
}

// An option's text as its enum, through the parser the CLI uses; ValueError naming the choices.
template <typename E>
E parse_enum(const std::string& name, const std::string& text) {
  const std::optional<E> parsed = parse_label<E>(text);
  if (!parsed)
    throw py::value_error(name + "='" + text + "': expected one of " + label_choices<E>());
  return *parsed;
}

// A 2-D (rows, cols) or 3-D (count, rows, cols) array of real numbers as a float32 stack.
Stack<float> to_stack(const py::array& a, const char* name) {
  if (a.ndim() != 2 && a.ndim() != 3)
    throw py::value_error(std::string(name) +
                          ": expected a 2-D (rows, cols) or 3-D (count, rows, " +
                          "cols) array, got " + std::to_string(a.ndim()) + "-D");
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw py::type_error(std::string(name) + ": expected real numbers, got dtype " +
                         std::string(py::str(a.dtype())));
  const auto f = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!f) throw py::type_error(std::string(name) + ": cannot be read as float32");
  const Index count = a.ndim() == 3 ? f.shape(0) : 1;
  const Index rows = f.shape(a.ndim() - 2), cols = f.shape(a.ndim() - 1);
  if (count < 1 || rows < 1 || cols < 1) throw py::value_error(std::string(name) + ": is empty");
  Stack<float> s(rows, cols, count);
  std::memcpy(s.data(), f.data(), sizeof(float) * static_cast<std::size_t>(count * rows * cols));
  return s;
}

py::array_t<float> to_array(const Stack<float>& s, bool squeeze) {
  std::vector<py::ssize_t> shape = {s.count(), s.rows(), s.cols()};
  if (squeeze) shape.erase(shape.begin());
  py::array_t<float> a(shape);
  std::memcpy(a.mutable_data(), s.data(),
              sizeof(float) * static_cast<std::size_t>(s.count() * s.rows() * s.cols()));
  return a;
}

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
  const Stack<float> left = to_stack(left_in, "left"), right = to_stack(right_in, "right");
  p.left = left.view();
  p.right = right.view();
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
    d["surface"] = to_array(out.result, left_in.ndim() == 2 && right_in.ndim() == 2);
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

py::list devices() {
  py::list out;
  auto found = engine::devices();
  if (!found.is_ok()) return out;
  for (const engine::DeviceInfo& d : found.value()) {
    py::dict e;
    e["index"] = d.index;
    e["name"] = d.name;
    e["compute_capability"] = py::make_tuple(d.compute_major, d.compute_minor);
    e["multiprocessors"] = d.multiprocessors;
    e["memory_bytes"] = d.global_memory_bytes;
    out.append(e);
  }
  return out;
}

py::list variants() {
  py::list out;
  for (const auto& c : engine::registry().all()) {
    const VariantInfo& i = c->info();
    py::dict e;
    e["name"] = i.name, e["family"] = i.family, e["device"] = i.device, e["summary"] = i.summary;
    e["auto"] = i.auto_eligible;
    out.append(e);
  }
  return out;
}

}  // namespace
}  // namespace xcorr::python

PYBIND11_MODULE(_core, m) {
  using namespace xcorr;
  m.doc() = "XCorr Studio's engine on numpy arrays (use the xcorr package, not this module)";
  engine::install_gpu();
  m.def("correlate", &python::correlate, py::arg("left"), py::arg("right"), py::arg("form"),
        py::arg("mode"), py::arg("norm"), py::arg("output"), py::arg("method"), py::arg("accuracy"),
        py::arg("subpixel"));
  m.def("devices", &python::devices);
  m.def("gpu_note", [] {
    const Status s = engine::gpu_usable();
    return s.is_ok() ? std::string() : s.message();
  });
  m.def("variants", &python::variants);
  m.attr("version") = XCORR_VERSION;
}
