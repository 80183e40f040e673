#include "core/dic/job.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "core/io/read_file.hpp"

namespace xcorr::dic {
namespace {

using nlohmann::json;

Status bad(const std::string& m) {
  return {ErrorCode::invalid_argument, m};
}

template <class T>
Status read(const json& j, const char* key, T& out) {
  if (!j.contains(key)) return Status::ok();
  const json& v = j.at(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return bad(std::string("job key '") + key + "': expected true or false");
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer())
      return bad(std::string("job key '") + key + "': expected an integer");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) return bad(std::string("job key '") + key + "': expected a number");
  } else {
    if (!v.is_string()) return bad(std::string("job key '") + key + "': expected a string");
  }
  out = v.get<T>();
  return Status::ok();
}

template <class E, class Parse>
Status read_enum(const json& j, const char* key, E& out, Parse parse, const char* choices) {
  if (!j.contains(key)) return Status::ok();
  std::string s;
  XCORR_RETURN_IF_ERROR(read(j, key, s));
  const auto v = parse(s);
  if (!v) return bad(std::string("job key '") + key + "': '" + s + "' is not one of " + choices);
  out = *v;
  return Status::ok();
}

std::string resolve(const std::string& p, const std::filesystem::path& base) {
  const std::filesystem::path path(p);
  return (path.is_absolute() || base.empty()) ? p : (base / path).string();
}

}  // namespace

Status DicJob::check() const {
  if (reference.empty()) return bad("the job names no reference image");
  if (out.empty()) return bad("the job names no output CSV ('out')");
  XCORR_RETURN_IF_ERROR(roi.check());
  return options.check();
}

Result<DicJob> parse_dic_job(const std::string& text, const std::filesystem::path& base) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return bad(std::string("the job file is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return bad("the job file must hold one JSON object");
  static const std::set<std::string> known = {
      "name",           "reference",   "frames",     "roi",        "out",
      "per_frame",      "subset",      "step",       "search_radius",
      "max_iterations", "convergence", "min_zncc",   "min_texture",
      "shape",          "propagation", "stack_mode", "reference_update",
      "strain_window",  "strain",      "method",     "device",
      "templates"};
  for (const auto& [key, value] : j.items()) {
    if (!known.count(key)) return bad("the job file has an unknown key '" + key + "'");
  }
  DicJob job;
  DicOptions& o = job.options;
  XCORR_RETURN_IF_ERROR(read(j, "name", job.name));
  XCORR_RETURN_IF_ERROR(read(j, "reference", job.reference));
  XCORR_RETURN_IF_ERROR(read(j, "out", job.out));
  XCORR_RETURN_IF_ERROR(read(j, "per_frame", job.per_frame));
  if (j.contains("frames")) {
    if (!j["frames"].is_array()) return bad("job key 'frames': expected a list of paths");
    for (const json& f : j["frames"]) {
      if (!f.is_string()) return bad("job key 'frames': expected a list of paths");
      job.frames.push_back(resolve(f.get<std::string>(), base));
    }
  }
  if (j.contains("templates")) {
    if (!j["templates"].is_array())
      return bad("job key 'templates': expected a list of \"x,y,w,h\"");
    for (const json& t : j["templates"]) {
      if (!t.is_string()) return bad("job key 'templates': expected a list of \"x,y,w,h\"");
      job.templates.push_back(t.get<std::string>());
    }
  }
  if (j.contains("roi")) {
    if (!j["roi"].is_array()) return bad("job key 'roi': expected a list of shapes");
    for (const json& s : j["roi"]) {
      if (!s.is_string()) return bad("job key 'roi': expected shapes like \"rect:x,y,w,h\"");
      auto shape = parse_roi_shape(s.get<std::string>());
      if (!shape.is_ok()) return shape.status();
      job.roi.shapes.push_back(shape.value());
    }
  }
  XCORR_RETURN_IF_ERROR(read(j, "subset", o.subset));
  XCORR_RETURN_IF_ERROR(read(j, "step", o.step));
  XCORR_RETURN_IF_ERROR(read(j, "search_radius", o.search_radius));
  XCORR_RETURN_IF_ERROR(read(j, "max_iterations", o.max_iterations));
  XCORR_RETURN_IF_ERROR(read(j, "convergence", o.convergence));
  XCORR_RETURN_IF_ERROR(read(j, "min_zncc", o.min_zncc));
  XCORR_RETURN_IF_ERROR(read(j, "min_texture", o.min_texture));
  XCORR_RETURN_IF_ERROR(read(j, "reference_update", o.reference_update));
  XCORR_RETURN_IF_ERROR(read(j, "strain_window", o.strain_window));
  XCORR_RETURN_IF_ERROR(read(j, "method", o.method));
  XCORR_RETURN_IF_ERROR(read(j, "device", o.device));
  XCORR_RETURN_IF_ERROR(read_enum(j, "shape", o.shape, parse_shape_function, "first, second"));
  XCORR_RETURN_IF_ERROR(
      read_enum(j, "propagation", o.propagation, parse_propagation, "independent, reliability"));
  XCORR_RETURN_IF_ERROR(
      read_enum(j, "stack_mode", o.stack_mode, parse_stack_mode, "reference, incremental"));
  XCORR_RETURN_IF_ERROR(
      read_enum(j, "strain", o.strain, parse_strain_kind, "green_lagrange, engineering"));
  if (!job.reference.empty()) job.reference = resolve(job.reference, base);
  if (!job.out.empty()) job.out = resolve(job.out, base);
  XCORR_RETURN_IF_ERROR(job.check());
  return job;
}

Result<DicJob> read_dic_job(const std::filesystem::path& path) {
  auto text = io::read_file(path);
  if (!text.is_ok())
    return Status{ErrorCode::not_found, "cannot open job file '" + path.string() + "'"};
  auto job = parse_dic_job(text.value(), path.parent_path());
  if (!job.is_ok())
    return Status{job.status().code(), path.string() + ": " + job.status().message()};
  return job;
}

std::string to_json(const DicJob& job) {
  const DicOptions& o = job.options;
  json j;
  if (!job.name.empty()) j["name"] = job.name;
  j["reference"] = job.reference;
  j["frames"] = job.frames;
  json roi = json::array();
  for (const RoiShape& s : job.roi.shapes) roi.push_back(to_string(s));
  j["roi"] = roi;
  j["out"] = job.out;
  j["per_frame"] = job.per_frame;
  j["subset"] = o.subset;
  j["step"] = o.step;
  j["search_radius"] = o.search_radius;
  j["max_iterations"] = o.max_iterations;
  j["convergence"] = o.convergence;
  j["min_zncc"] = o.min_zncc;
  j["min_texture"] = o.min_texture;
  j["shape"] = to_string(o.shape);
  j["propagation"] = to_string(o.propagation);
  j["stack_mode"] = to_string(o.stack_mode);
  j["reference_update"] = o.reference_update;
  j["strain_window"] = o.strain_window;
  j["strain"] = to_string(o.strain);
  j["method"] = o.method;
  if (!job.templates.empty()) j["templates"] = job.templates;
  j["device"] = o.device;
  return j.dump(2) + "\n";
}

}  // namespace xcorr::dic
