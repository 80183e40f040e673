// The functions of xcorr._core (module.cpp binds them; python/xcorr/__init__.py gives them their
// documented Python signatures). Arrays in any real dtype are read as float32, the engine's type.
// Long calls release the GIL and report to a Monitor (common.hpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace xcorr::python {

namespace py = pybind11;

// correlate.cpp: `xcorr correlate` on arrays.
py::dict correlate(const py::array& left, const py::array& right, const std::string& form,
                   const std::string& mode, const std::string& norm, const std::string& output,
                   const std::string& method, const std::string& accuracy,
                   const std::string& subpixel);

// dic.cpp: DIC of `frames` (2-D or 3-D) against `reference` (2-D) over the ROI shapes (`xcorr
// dic --roi` text; none: the whole image), options by dic_option_table() key.
py::dict dic(const py::array& reference, const py::array& frames,
             const std::vector<std::string>& roi, const py::dict& options, py::object progress,
             py::object cancel);

// register.cpp: registration of a (T, Z, C, Y, X) stack, options by register_option_table() key;
// pixel_type "u8", "u16" or "f32" (the values the corrected pages hold, as a TIFF of that type).
py::dict register_stack(const py::array& stack, const std::string& pixel_type,
                        const py::dict& options, bool corrected, py::object progress,
                        py::object cancel);

// track.cpp: template tracking through `frames` (the first is the reference).
py::dict track(const py::array& frames, const std::vector<std::vector<long>>& templates,
               const std::string& subpixel, const std::string& method, const std::string& accuracy,
               py::object progress, py::object cancel);

// read.cpp: a stack file's pages in (T, Z, C, Y, X) and its metadata.
py::dict read_stack(const std::string& path, const std::string& channel);

}  // namespace xcorr::python
