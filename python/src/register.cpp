// xcorr.register: the registration `xcorr register` runs (core/register/register_stack.hpp) on a
// stack in memory: the array's pages in ImageJ's order (c fastest, then z, then t), with the
// hyperstack layout a file of those pages would declare, so that channel, z, z_projection and
// every other option act as on the file; the corrected pages come back in memory.
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <memory>

#include "core/engine/engine.hpp"
#include "core/register/options.hpp"
#include "core/register/register_stack.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {

py::dict register_stack(const py::array& stack_in, const std::string& pixel_type,
                        const py::dict& options, bool corrected, py::object progress,
                        py::object cancel) {
  reg::RegisterOptions o;
  set_options(reg::register_option_table(), o, options, "register");
  const auto a = as_float32(stack_in, "stack", {5});
  const long T = a.shape(0), Z = a.shape(1), C = a.shape(2);
  const Index rows = a.shape(3), cols = a.shape(4);
  reg::MemoryStack m;
  m.name = "stack";
  m.type = pixel_type == "u8"    ? io::PixelType::u8
           : pixel_type == "u16" ? io::PixelType::u16
                                 : io::PixelType::f32;
  m.metadata.layout.channels = C;
  m.metadata.layout.slices = Z;
  m.metadata.layout.frames = T;
  m.metadata.layout.order = "CZT";
  auto pages = std::make_shared<std::vector<Stack<float>>>();
  pages->reserve(static_cast<std::size_t>(T * Z * C));
  const float* src = a.data();
  for (long p = 0; p < T * Z * C; ++p, src += rows * cols) {
    // Ctrl-C while a large array is copied (about 0.3 s per GB) ends the call at once.
    if (p % 8 == 7 && PyErr_CheckSignals() != 0) throw py::error_already_set();
    pages->emplace_back(rows, cols, 1);
    std::memcpy(pages->back().data(), src, sizeof(float) * static_cast<std::size_t>(rows * cols));
  }
  m.pages = std::move(pages);
  Monitor monitor(std::move(progress), std::move(cancel));
  Stack<float> moved;
  std::optional<Result<reg::RegisterReport>> result;
  double seconds = 0;  // the engine's own time
  {
    py::gil_scoped_release released;
    const auto t0 = std::chrono::steady_clock::now();
    const reg::RegisterProgress tick = [&monitor](double done, double total) {
      return monitor(done, total);
    };
    result.emplace(
        reg::register_memory(m, o, engine::register_engines(), corrected ? &moved : nullptr, tick));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const reg::RegisterReport r = monitor.value(std::move(*result));
  std::vector<long> frame;
  std::vector<double> dx, dy, dz, peak, angle, scale;
  std::vector<std::array<double, 6>> matrix;  // reference -> frame, px (affine.hpp)
  std::vector<std::string> failed;
  for (const reg::DriftRow& d : r.drift) {
    const bool ok = d.failed.empty();
    frame.push_back(d.frame);
    dx.push_back(ok ? d.dx : NAN), dy.push_back(ok ? d.dy : NAN), peak.push_back(ok ? d.peak : NAN);
    dz.push_back(ok ? d.dz : NAN);
    const reg::Affine map = reg::drift_map(d, r.frame);
    angle.push_back(ok ? map.angle_degrees() : NAN), scale.push_back(ok ? map.scale() : NAN);
    std::array<double, 6> entries = map.m;
    if (!ok) entries.fill(NAN);
    matrix.push_back(entries);
    failed.push_back(d.failed);
  }
  py::dict d;
  d["frame"] = frame;
  d["dx"] = dx;
  d["dy"] = dy;
  d["dz"] = dz;
  d["volumes"] = r.volumes;
  d["peak"] = peak;
  d["angle"] = angle;
  d["scale"] = scale;
  d["matrix"] = matrix;
  d["failed"] = failed;
  d["device"] = r.device;
  d["seconds"] = seconds;
  d["area"] = py::make_tuple(r.crop_x, r.crop_y, r.width, r.height);
  put_scale(d, r.scale);
  d["settings"] = settings_of(reg::register_option_table(), o);
  if (corrected) d["corrected"] = to_array(std::move(moved), false);
  return d;
}

}  // namespace xcorr::python
