// What every function of xcorr._core shares: Status -> Python exception, numpy <-> Stack, options
// from keyword arguments through an options table, and the progress/cancel monitor of a long call
// made with the GIL released.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/enum_labels.hpp"
#include "core/io/scale.hpp"
#include "core/matrix.hpp"
#include "core/options_table.hpp"
#include "core/status.hpp"

namespace xcorr::python {

namespace py = pybind11;

// The exception xcorr.Cancelled (a cancel token was set, or the progress callback returned
// False); made at import (module.cpp).
extern PyObject* cancelled_error;

// A Status as the Python exception of its kind, with the CLI's message: ValueError (bad value,
// sizes, parse), FileNotFoundError, MemoryError, TypeError (unsupported), RuntimeError (others).
[[noreturn]] void raise(const Status& s);

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

// A keyword argument's value as the text an option table reads (numbers as Python writes them,
// which read back exactly; text as it is). TypeError for anything else (bool included: no option
// is a Python bool).
std::string option_text(const std::string& key, const py::handle& value);

// Sets `target`'s fields from keyword arguments by key, each parsed and checked by its table
// entry as the CLI's flag is (ValueError with the CLI's message); an unknown key is a ValueError
// that lists the keys `what` takes. Keys in `refused` are ValueErrors with the given reason.
template <class S>
void set_options(const std::vector<OptionField<S>>& table, S& target, const py::dict& options,
                 const std::string& what,
                 const std::vector<std::pair<std::string, std::string>>& refused = {}) {
  for (const auto& [k, v] : options) {
    const std::string key = py::cast<std::string>(k);
    for (const auto& [name, why] : refused)
      if (key == name) throw py::value_error(what + ": " + key + ": " + why);
    const OptionField<S>* field = nullptr;
    for (const OptionField<S>& f : table)
      if (f.key == key) field = &f;
    if (field == nullptr) {
      std::string keys;
      for (const OptionField<S>& f : table) {
        bool skip = false;
        for (const auto& r : refused) skip = skip || r.first == f.key;
        if (!skip) keys += (keys.empty() ? "" : ", ") + f.key;
      }
      throw py::value_error(what + ": unknown option '" + key + "' (options: " + keys + ")");
    }
    const Status s = set_field(*field, target, option_text(key, v));
    if (!s.is_ok()) throw py::value_error(s.message());
  }
  const Status s = check_fields(table, target);
  if (!s.is_ok()) throw py::value_error(s.message());
}

// A scale's keys of every result: pixel_size ((x, y) in unit, or None), unit, frame_interval_s
// (or None).
void put_scale(py::dict& d, const io::ImageScale& scale);

// Every field of an options table as the text the CLI's CSV header states.
template <class S>
py::dict settings_of(const std::vector<OptionField<S>>& table, const S& s) {
  py::dict d;
  for (const OptionField<S>& f : table) d[f.key.c_str()] = f.get(s);
  return d;
}

// An array of real numbers (bool, integer or float dtype) as float32, C order; TypeError for other
// dtypes, ValueError for an empty one or one of another number of dimensions than `ndims` lists.
py::array_t<float, py::array::c_style> as_float32(const py::array& a, const std::string& name,
                                                  std::initializer_list<int> ndims);

// A float32 C-order array (as_float32's) of 2 or 3 dimensions as a stack view of its memory (no
// copy; valid while the array lives).
StackView<const float> view_of(const py::array_t<float, py::array::c_style>& a);

// A stack as a float32 array (count, rows, cols), or (rows, cols) when `squeeze`: the array takes
// the stack's memory (no copy).
py::array_t<float> to_array(Stack<float>&& s, bool squeeze);

// Progress and cancel of a long call that runs with the GIL released. operator() is the engine's
// progress callback: from the calling thread it takes the GIL at most every 0.1 s (and at the
// end) to call Python's progress(done, total) and to run pending signal handlers; the call
// stops when the callback returns False or raises, when cancel.is_set() is true, or when a
// handler raises (Ctrl+C: KeyboardInterrupt). From other threads it only reports a stop already
// seen. The engine checks it at least every block of work (a fraction of a second).
class Monitor {
 public:
  Monitor(py::object progress, py::object cancel);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;
  bool operator()(double done, double total);
  // The engine's result: its value, or the Python error that stopped it (the callback's own
  // exception, KeyboardInterrupt, xcorr.Cancelled), or the Status as raise() maps it.
  template <typename T>
  T value(Result<T> r) {
    if (r.is_ok()) return std::move(r).value();
    stopped(r.status());
  }

 private:
  [[noreturn]] void stopped(const Status& s);
  py::object progress_, cancel_;
  std::thread::id caller_;
  std::chrono::steady_clock::time_point last_{};
  std::atomic<bool> stop_{false};
  PyObject *type_ = nullptr, *value_ = nullptr, *trace_ = nullptr;  // the stopping error
  bool by_token_ = false;
};

}  // namespace xcorr::python
