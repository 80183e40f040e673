// xcorr._core: the engine facade (core/engine/engine.hpp) on numpy arrays, as the CLI runs it:
// the GPU backend installed at import (engine::install_gpu), the same registry, the same choice
// of variant and the same parsers for every option, so a bad value raises ValueError with the
// CLI's message. python/xcorr/__init__.py gives these their documented Python signatures; the
// functions are in functions.hpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/dic/options.hpp"
#include "core/engine/engine.hpp"
#include "core/register/options.hpp"
#include "core/registry.hpp"
#include "core/version.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {
namespace {

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

// An options table as Python dicts: key, label, unit, doc, kind, default (the text a fresh
// struct holds), lo, hi (numbers), choices (choice and closed text fields).
template <class S>
py::list table(const std::vector<OptionField<S>>& fields) {
  py::list out;
  const S defaults;
  for (const OptionField<S>& f : fields) {
    py::dict e;
    e["key"] = f.key, e["label"] = f.label, e["unit"] = f.unit, e["doc"] = f.doc;
    const char* kinds[] = {"integer", "real", "choice", "text"};
    e["kind"] = kinds[static_cast<int>(f.kind)];
    e["default"] = f.get(defaults);
    if (f.kind == OptionKind::integer || f.kind == OptionKind::real) e["lo"] = f.lo, e["hi"] = f.hi;
    e["choices"] = f.choices;
    out.append(e);
  }
  return out;
}

py::list options(const std::string& command) {
  if (command == "dic") return table(dic::dic_option_table());
  if (command == "register") return table(reg::register_option_table());
  throw py::value_error("options('" + command + "'): expected 'dic' or 'register'");
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
  namespace py = pybind11;
  m.doc() = "XCorr Studio's engine on numpy arrays (use the xcorr package, not this module)";
  engine::install_gpu();
  m.def("correlate", &python::correlate, py::arg("left"), py::arg("right"), py::arg("form"),
        py::arg("mode"), py::arg("norm"), py::arg("output"), py::arg("method"), py::arg("accuracy"),
        py::arg("subpixel"));
  py::object none = py::none();
  m.def("dic", &python::dic, py::arg("reference"), py::arg("frames"), py::arg("roi"),
        py::arg("options"), py::arg("progress") = none, py::arg("cancel") = none);
  m.def("register_stack", &python::register_stack, py::arg("stack"), py::arg("pixel_type"),
        py::arg("options"), py::arg("corrected"), py::arg("progress") = none,
        py::arg("cancel") = none);
  m.def("track", &python::track, py::arg("stack"), py::arg("templates"), py::arg("subpixel"),
        py::arg("method"), py::arg("accuracy"), py::arg("progress") = none,
        py::arg("cancel") = none);
  m.def("read_stack", &python::read_stack, py::arg("path"), py::arg("channel"));
  python::cancelled_error = PyErr_NewException("xcorr.Cancelled", PyExc_Exception, nullptr);
  m.attr("Cancelled") = py::handle(python::cancelled_error);
  m.def("devices", &python::devices);
  m.def("gpu_note", [] {
    const Status s = engine::gpu_usable();
    return s.is_ok() ? std::string() : s.message();
  });
  m.def("variants", &python::variants);
  m.def("options", &python::options, py::arg("command"));
  m.attr("version") = XCORR_VERSION;
}
