// xcorr.dic: the DIC session `xcorr dic` runs (core/dic/session.hpp) on arrays in memory, frame
// after frame, with the frame registrar the options' device asks for (engine::make_dic_registrar,
// as the CLI's batch runner makes it).
#include <pybind11/stl.h>

#include <memory>

#include "core/dic/options.hpp"
#include "core/dic/session.hpp"
#include "core/engine/engine.hpp"
#include "core/io/scale.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {
namespace {

// The fields of every point and frame, frame-major (frames x grid points).
struct Fields {
  std::vector<double> u, v, ux, uy, vx, vy, exx, eyy, exy, zncc, sigma_u, sigma_v;
  std::vector<std::int32_t> iterations;
  std::vector<std::uint8_t> status;
  void add(const dic::PointResult& p) {
    u.push_back(p.u), v.push_back(p.v), ux.push_back(p.ux), uy.push_back(p.uy);
    vx.push_back(p.vx), vy.push_back(p.vy), exx.push_back(p.exx), eyy.push_back(p.eyy);
    exy.push_back(p.exy), zncc.push_back(p.zncc), sigma_u.push_back(p.sigma_u);
    sigma_v.push_back(p.sigma_v), iterations.push_back(p.iterations);
    status.push_back(static_cast<std::uint8_t>(p.status));
  }
};

template <typename T>
py::array_t<T> shaped(const std::vector<T>& values, std::vector<py::ssize_t> shape) {
  py::array_t<T> a(shape);
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

}  // namespace

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
  if (reference_in.ndim() != 2)
    throw py::value_error("reference: expected a 2-D (rows, cols) array, got " +
                          std::to_string(reference_in.ndim()) + "-D");
  const Stack<float> reference = to_stack(reference_in, "reference");
  const Stack<float> frames = to_stack(frames_in, "frames");
  if (frames.shape() != reference.shape())
    throw py::value_error("the frames are " + image_size(frames.shape()) +
                          " but the reference is " + image_size(reference.shape()));
  Monitor monitor(std::move(progress), std::move(cancel));
  const Index n = frames.count();
  dic::Grid grid;
  Fields fields;
  std::string device, guess;
  std::vector<Index> numbers;
  Status failed = Status::ok();
  {
    py::gil_scoped_release released;
    failed = [&]() -> Status {
      auto registrar = engine::make_dic_registrar(o);
      if (!registrar.is_ok()) return registrar.status();
      auto session = dic::DicSession::create(*registrar.value(), reference[0], roi, o);
      if (!session.is_ok()) return session.status();
      dic::DicSession& s = session.value();
      grid = s.grid();
      device = s.device();
      for (Index f = 0; f < n; ++f) {
        const dic::PointProgress inside = [&](Index done, Index total) {
          return monitor(
              static_cast<double>(f) +
                  (total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0),
              static_cast<double>(n));
        };
        auto fr = s.next(frames[f], f + 1, inside);
        if (!fr.is_ok()) return fr.status();
        for (const dic::PointResult& p : fr.value().points) fields.add(p);
        numbers.push_back(fr.value().frame);
        guess = s.state().guess_variant;
        if (!monitor(static_cast<double>(f + 1), static_cast<double>(n)))
          return Status{ErrorCode::cancelled, "DIC cancelled after frame " + std::to_string(f + 1)};
      }
      return Status::ok();
    }();
  }
  if (!failed.is_ok()) monitor.value(Result<int>(failed));
  const auto frames_n = static_cast<py::ssize_t>(numbers.size());
  const std::vector<py::ssize_t> field_shape = {frames_n, grid.rows, grid.cols};
  std::vector<double> x, y;
  std::vector<std::uint8_t> inside;
  for (const dic::GridPoint& p : grid.points)
    x.push_back(p.x), y.push_back(p.y), inside.push_back(p.valid ? 1 : 0);
  py::dict d;
  d["x"] = shaped(x, {grid.rows, grid.cols});
  d["y"] = shaped(y, {grid.rows, grid.cols});
  d["in_roi"] = shaped(inside, {grid.rows, grid.cols});
  d["frame"] = shaped(std::vector<std::int64_t>(numbers.begin(), numbers.end()), {frames_n});
  const std::pair<const char*, const std::vector<double>*> reals[] = {{"u", &fields.u},
                                                                      {"v", &fields.v},
                                                                      {"ux", &fields.ux},
                                                                      {"uy", &fields.uy},
                                                                      {"vx", &fields.vx},
                                                                      {"vy", &fields.vy},
                                                                      {"exx", &fields.exx},
                                                                      {"eyy", &fields.eyy},
                                                                      {"exy", &fields.exy},
                                                                      {"zncc", &fields.zncc},
                                                                      {"sigma_u", &fields.sigma_u},
                                                                      {"sigma_v", &fields.sigma_v}};
  for (const auto& [name, values] : reals) d[name] = shaped(*values, field_shape);
  d["iterations"] = shaped(fields.iterations, field_shape);
  d["status"] = shaped(fields.status, field_shape);
  // status codes are the enum's values: labels[code] names each.
  std::vector<std::string> labels;
  for (const auto& [code, label] : EnumLabels<dic::PointStatus>::table) {
    const auto k = static_cast<std::size_t>(code);
    if (labels.size() <= k) labels.resize(k + 1);
    labels[k] = label;
  }
  d["status_labels"] = labels;
  py::dict settings;
  for (const OptionField<dic::DicOptions>& f : dic::dic_option_table())
    settings[f.key.c_str()] = f.get(o);
  d["settings"] = settings;
  d["roi"] = roi_text;
  d["device"] = device;
  d["guess_variant"] = guess;
  const io::ImageScale& sc = scale.value();
  d["pixel_size"] =
      sc.has_length() ? py::object(py::make_tuple(sc.pixel_x, sc.pixel_y)) : py::none();
  d["unit"] = sc.unit;
  d["frame_interval_s"] = sc.has_time() ? py::object(py::float_(sc.frame_interval_s)) : py::none();
  return d;
}

}  // namespace xcorr::python
