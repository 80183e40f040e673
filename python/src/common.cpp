#include "python/src/common.hpp"

namespace xcorr::python {

PyObject* cancelled_error = nullptr;

void raise(const Status& s) {
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

void put_scale(py::dict& d, const io::ImageScale& scale) {
  d["pixel_size"] =
      scale.has_length() ? py::object(py::make_tuple(scale.pixel_x, scale.pixel_y)) : py::none();
  d["unit"] = scale.unit;
  d["frame_interval_s"] =
      scale.has_time() ? py::object(py::float_(scale.frame_interval_s)) : py::none();
}

std::string option_text(const std::string& key, const py::handle& value) {
  if (py::isinstance<py::bool_>(value))
    throw py::type_error(key + "=" + std::string(py::repr(value)) +
                         ": expected a number or text, not a bool");
  if (py::isinstance<py::str>(value)) return py::cast<std::string>(value);
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value))
    return py::cast<std::string>(py::repr(value));
  const py::module_ numbers = py::module_::import("numbers");
  if (py::isinstance(value, numbers.attr("Integral")))
    return py::cast<std::string>(py::repr(py::int_(py::reinterpret_borrow<py::object>(value))));
  if (py::isinstance(value, numbers.attr("Real")))
    return py::cast<std::string>(py::repr(py::float_(py::reinterpret_borrow<py::object>(value))));
  throw py::type_error(key + "=" + std::string(py::repr(value)) +
                       ": expected a number or text, got " +
                       std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

py::array_t<float, py::array::c_style> as_float32(const py::array& a, const std::string& name,
                                                  std::initializer_list<int> ndims) {
  bool dims_ok = false;
  std::string expected;
  for (int n : ndims) {
    dims_ok = dims_ok || a.ndim() == n;
    expected += (expected.empty() ? "" : " or ") + std::to_string(n) + "-D";
  }
  if (!dims_ok)
    throw py::value_error(name + ": expected a " + expected + " array, got " +
                          std::to_string(a.ndim()) + "-D");
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw py::type_error(name + ": expected real numbers, got dtype " +
                         std::string(py::str(a.dtype())));
  if (a.size() == 0) throw py::value_error(name + ": is empty");
  auto f = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!f) throw py::type_error(name + ": cannot be read as float32");
  return f;
}

StackView<const float> view_of(const py::array_t<float, py::array::c_style>& a) {
  const Index count = a.ndim() == 3 ? a.shape(0) : 1;
  const Index rows = a.shape(a.ndim() - 2), cols = a.shape(a.ndim() - 1);
  return {a.data(), rows, cols, count, cols, rows * cols};
}

py::array_t<float> to_array(Stack<float>&& s, bool squeeze) {
  std::vector<py::ssize_t> shape = {s.count(), s.rows(), s.cols()};
  if (squeeze) shape.erase(shape.begin());
  auto* owned = new Stack<float>(std::move(s));
  const py::capsule owner(owned, [](void* p) { delete static_cast<Stack<float>*>(p); });
  return py::array_t<float>(shape, owned->data(), owner);
}

Monitor::Monitor(py::object progress, py::object cancel)
    : progress_(std::move(progress)),
      cancel_(std::move(cancel)),
      caller_(std::this_thread::get_id()) {}

Monitor::~Monitor() {
  Py_XDECREF(type_);
  Py_XDECREF(value_);
  Py_XDECREF(trace_);
}

bool Monitor::operator()(double done, double total) {
  if (stop_.load()) return false;
  if (std::this_thread::get_id() != caller_) return true;
  const auto now = std::chrono::steady_clock::now();
  if (done < total && now - last_ < std::chrono::milliseconds(100)) return true;
  last_ = now;
  py::gil_scoped_acquire gil;
  bool go = true;
  try {  // no C++ exception may leave into the engine
    if (PyErr_CheckSignals() != 0) {
      go = false;
    } else if (!cancel_.is_none() && py::cast<bool>(cancel_.attr("is_set")())) {
      go = false, by_token_ = true;
    } else if (!progress_.is_none()) {
      const py::object r = progress_(done, total);
      go = !(r.ptr() == Py_False);
      by_token_ = !go;
    }
  } catch (py::error_already_set& e) {
    e.restore();
    go = false;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    go = false;
  }
  if (PyErr_Occurred() != nullptr) PyErr_Fetch(&type_, &value_, &trace_);
  if (!go) stop_ = true;
  return go;
}

void Monitor::stopped(const Status& s) {
  if (s.code() == ErrorCode::cancelled && type_ != nullptr) {
    PyErr_Restore(type_, value_, trace_);
    type_ = value_ = trace_ = nullptr;
    throw py::error_already_set();
  }
  if (s.code() == ErrorCode::cancelled && by_token_) {
    PyErr_SetString(cancelled_error, s.message().c_str());
    throw py::error_already_set();
  }
  raise(s);
}

}  // namespace xcorr::python
