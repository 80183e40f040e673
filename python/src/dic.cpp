// xcorr.dic: the DIC session `xcorr dic` runs (core/dic/session.hpp) on arrays in memory, frame
// after frame, with the frame registrar the options' device asks for (engine::make_dic_registrar,
// as the CLI's batch runner makes it).
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>

#include "core/dic/options.hpp"
#include "core/dic/session.hpp"
#include "core/engine/engine.hpp"
#include "core/io/scale.hpp"
#include "core/parallel.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {

py::dict dic(const py::array& reference_in, const py::array& frames_in,
             const std::vector<std::string>& roi_text, const py::dict& options, py::object progress,
             py::object cancel) {
  dic::DicOptions o;
  const std::string file_only =
      "applies to image files; pass the plane's arrays (xcorr.read_stack reads one)";
  set_options(dic::dic_option_table(), o, options, "dic",
              {{"channel", file_only}, {"z", file_only}});
  auto scale = io::apply_user_scale({}, o.pixel_size, o.frame_interval);
  if (!scale.is_ok()) raise(scale.status());
  dic::Roi roi;
  for (const std::string& s : roi_text) roi.shapes.push_back(value(dic::parse_roi_shape(s)));
  // The arrays' own memory when they are float32 in C order (a converted copy otherwise).
  const auto reference_array = as_float32(reference_in, "reference", {2});
  const auto frames_array = as_float32(frames_in, "frames", {2, 3});
  const StackView<const float> reference = view_of(reference_array);
  const StackView<const float> frames = view_of(frames_array);
  if (frames.shape() != reference.shape())
    throw py::value_error("the frames are " + image_size(frames.shape()) +
                          " but the reference is " + image_size(reference.shape()));
  Monitor monitor(std::move(progress), std::move(cancel));
  const Index n = frames.count;
  dic::Grid grid;
  std::vector<dic::FrameResult> results;
  std::string device, guess;
  Status failed = Status::ok();
  // The engine's own time: the registrar, the session and every frame's registration (what
  // xcorr.dic adds to it, converting inputs and results, is outside).
  double seconds = 0;
  {
    py::gil_scoped_release released;
    const auto t0 = std::chrono::steady_clock::now();
    failed = [&]() -> Status {
      auto registrar = engine::make_dic_registrar(o);
      if (!registrar.is_ok()) return registrar.status();
      auto session = dic::DicSession::create(*registrar.value(), reference[0], roi, o);
      if (!session.is_ok()) return session.status();
      dic::DicSession& s = session.value();
      grid = s.grid();
      device = s.device();
      results.reserve(static_cast<std::size_t>(n));
      // A stack pipeline: frame f's results finish while frame f + 1 registers.
      std::optional<dic::PendingFrame> pending;
      for (Index f = 0; f < n; ++f) {
        const dic::PointProgress inside = [&](Index done, Index total) {
          return monitor(
              static_cast<double>(f) +
                  (total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0),
              static_cast<double>(n));
        };
        auto started = s.start(frames[f], f + 1, inside);
        if (!started.is_ok()) return started.status();
        if (pending) results.push_back(pending->get());
        pending = std::move(started).value();
        guess = s.state().guess_variant;
        if (!monitor(static_cast<double>(f + 1), static_cast<double>(n)))
          return Status{ErrorCode::cancelled, "DIC cancelled after frame " + std::to_string(f + 1)};
      }
      if (pending) results.push_back(pending->get());
      return Status::ok();
    }();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (!failed.is_ok()) monitor.value(Result<int>(failed));
  // Every field as an array (frames, grid rows, grid cols), filled in one pass per frame.
  const auto frames_n = static_cast<py::ssize_t>(results.size());
  const std::vector<py::ssize_t> field_shape = {frames_n, grid.rows, grid.cols};
  const char* names[] = {"u",   "v",   "ux",  "uy",   "vx",      "vy",
                         "exx", "eyy", "exy", "zncc", "sigma_u", "sigma_v"};
  constexpr std::size_t kReals = 12;
  std::vector<py::array_t<double>> reals;
  std::vector<double*> to;
  for (std::size_t i = 0; i < kReals; ++i) {
    reals.emplace_back(field_shape);
    to.push_back(reals.back().mutable_data());
  }
  py::array_t<std::int32_t> iterations(field_shape);
  py::array_t<std::uint8_t> status(field_shape);
  py::array_t<std::int64_t> frame(std::vector<py::ssize_t>{frames_n});
  std::int32_t* to_iterations = iterations.mutable_data();
  std::uint8_t* to_status = status.mutable_data();
  std::int64_t* to_frame = frame.mutable_data();
  {
    py::gil_scoped_release released;
    const auto points = static_cast<Index>(grid.points.size());
    for (std::size_t f = 0; f < results.size(); ++f) {
      to_frame[f] = results[f].frame;
      const dic::PointResult* from = results[f].points.data();
      const auto first = static_cast<std::size_t>(f) * static_cast<std::size_t>(points);
      parallel_for(points, 4096, [&](Index b, Index e) {
        for (Index i = b; i < e; ++i) {
          const dic::PointResult& p = from[i];
          const std::size_t k = first + static_cast<std::size_t>(i);
          const double values[kReals] = {p.u,   p.v,   p.ux,  p.uy,   p.vx,      p.vy,
                                         p.exx, p.eyy, p.exy, p.zncc, p.sigma_u, p.sigma_v};
          for (std::size_t j = 0; j < kReals; ++j) to[j][k] = values[j];
          to_iterations[k] = p.iterations;
          to_status[k] = static_cast<std::uint8_t>(p.status);
        }
      });
    }
  }
  const std::vector<py::ssize_t> grid_shape = {grid.rows, grid.cols};
  py::array_t<double> x(grid_shape), y(grid_shape);
  py::array_t<std::uint8_t> inside(grid_shape);
  for (std::size_t i = 0; i < grid.points.size(); ++i) {
    x.mutable_data()[i] = grid.points[i].x, y.mutable_data()[i] = grid.points[i].y;
    inside.mutable_data()[i] = grid.points[i].valid ? 1 : 0;
  }
  py::dict d;
  d["x"] = x;
  d["y"] = y;
  d["in_roi"] = inside;
  d["frame"] = frame;
  for (std::size_t i = 0; i < kReals; ++i) d[names[i]] = reals[i];
  d["iterations"] = iterations;
  d["status"] = status;
  // status codes are the enum's values: labels[code] names each.
  std::vector<std::string> labels;
  for (const auto& [code, label] : EnumLabels<dic::PointStatus>::table) {
    const auto c = static_cast<std::size_t>(code);
    if (labels.size() <= c) labels.resize(c + 1);
    labels[c] = label;
  }
  d["status_labels"] = labels;
  d["settings"] = settings_of(dic::dic_option_table(), o);
  d["roi"] = roi_text;
  d["device"] = device;
  d["guess_variant"] = guess;
  d["seconds"] = seconds;
  put_scale(d, scale.value());
  return d;
}

}  // namespace xcorr::python
