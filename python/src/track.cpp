// xcorr.track: template tracking (core/tracking/tracking.hpp) through a stack in memory, as the
// desktop app's Track runs it: frame 0 is the reference the templates are cut from.
#include <pybind11/stl.h>

#include <chrono>

#include "core/engine/engine.hpp"
#include "core/tracking/tracking.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {

py::dict track(const py::array& frames_in, const std::vector<std::vector<long>>& templates,
               const std::string& subpixel, const std::string& method, const std::string& accuracy,
               py::object progress, py::object cancel) {
  TrackingOptions o;
  o.subpixel = parse_enum<SubpixelMethod>("subpixel", subpixel);
  o.accuracy = parse_enum<Accuracy>("accuracy", accuracy);
  o.method = method;
  std::vector<TemplateRect> rects;
  for (const std::vector<long>& t : templates) {
    if (t.size() != 4)
      throw py::value_error("templates: each is (x, y, width, height) in px, got " +
                            std::to_string(t.size()) + " numbers");
    rects.push_back({t[0], t[1], t[2], t[3]});
  }
  if (frames_in.ndim() != 3)
    throw py::value_error("stack: expected a 3-D (frames, rows, cols) array, got " +
                          std::to_string(frames_in.ndim()) + "-D");
  // The array's own memory when it is float32 in C order (a converted copy otherwise).
  const auto array = as_float32(frames_in, "stack", {3});
  const StackView<const float> all = view_of(array);
  if (all.count < 2) throw py::value_error("stack: holds one frame: tracking needs at least two");
  Monitor monitor(std::move(progress), std::move(cancel));
  std::optional<Result<std::vector<Track>>> result;
  double seconds = 0;  // the engine's own time
  {
    py::gil_scoped_release released;
    const auto t0 = std::chrono::steady_clock::now();
    StackView<const float> frames = all;
    frames.data += frames.matrix_stride;
    frames.count -= 1;
    result.emplace(track_templates(
        engine::registry(), all[0], frames, rects, o, [&monitor](Index done, Index total) {
          return monitor(static_cast<double>(done), static_cast<double>(total));
        }));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const std::vector<Track> tracks = monitor.value(std::move(*result));
  const auto n = static_cast<py::ssize_t>(tracks.size());
  const py::ssize_t t_count = all.count;
  py::array_t<double> x({n, t_count}), y({n, t_count}), zncc({n, t_count});
  for (py::ssize_t i = 0; i < n; ++i) {
    const Track& tr = tracks[static_cast<std::size_t>(i)];
    std::copy(tr.x.begin(), tr.x.end(), x.mutable_data(i, 0));
    std::copy(tr.y.begin(), tr.y.end(), y.mutable_data(i, 0));
    std::copy(tr.zncc.begin(), tr.zncc.end(), zncc.mutable_data(i, 0));
  }
  py::dict d;
  d["x"] = x;
  d["y"] = y;
  d["zncc"] = zncc;
  d["templates"] = templates;
  d["seconds"] = seconds;
  return d;
}

}  // namespace xcorr::python
