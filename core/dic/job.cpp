#include "core/dic/job.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "core/io/json_options.hpp"
#include "core/io/json_parse.hpp"
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

std::string resolve(const std::string& p, const std::filesystem::path& base) {
  const std::filesystem::path path(p);
  return (path.is_absolute() || base.empty()) ? p : (base / path).string();
}

}  // namespace

Status DicJob::check() const {
  if (reference.empty()) return bad("the job names no reference image");
  if (reference_page < 0)
    return bad("job key 'reference_page': pages are numbered from 0, not " +
               std::to_string(reference_page));
  if (out.empty()) return bad("the job names no output CSV ('out')");
  XCORR_RETURN_IF_ERROR(roi.check());
  return options.check();
}

Result<DicJob> parse_dic_job(const std::string& text, const std::filesystem::path& base) {
  auto parsed = io::parse_json(text, "the job file");
  if (!parsed.is_ok()) return bad(parsed.status().message());
  const json j = std::move(parsed).value();
  if (!j.is_object()) return bad("the job file must hold one JSON object");
  static const std::set<std::string> job_keys = {
      "name", "reference", "reference_page", "frames",  "roi",
      "out",  "per_frame", "templates",      "display", "rois"};
  for (const auto& [key, value] : j.items()) {
    if (!job_keys.count(key) && find_field(dic_option_table(), key) == nullptr)
      return bad("the job file has an unknown key '" + key + "'");
  }
  DicJob job;
  DicOptions& o = job.options;
  XCORR_RETURN_IF_ERROR(read(j, "name", job.name));
  XCORR_RETURN_IF_ERROR(read(j, "reference", job.reference));
  XCORR_RETURN_IF_ERROR(read(j, "reference_page", job.reference_page));
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
      auto rect = parse_template_rect(t.get<std::string>());
      if (!rect.is_ok()) return bad("job key 'templates': " + rect.status().message());
      job.templates.push_back(rect.value());
    }
  }
  if (j.contains("rois")) {
    const char* expected =
        "job key 'rois': expected a list of {\"name\": text, \"shape\": \"rect:x,y,w,h\"}";
    if (!j["rois"].is_array()) return bad(expected);
    for (const json& r : j["rois"]) {
      if (!r.is_object() || r.size() != 2 || !r.contains("name") || !r["name"].is_string() ||
          !r.contains("shape") || !r["shape"].is_string())
        return bad(expected);
      auto shape = parse_roi_shape(r["shape"].get<std::string>());
      if (!shape.is_ok()) return bad("job key 'rois': " + shape.status().message());
      if (shape.value().subtract)
        return bad("job key 'rois': a named shape is a region; '-' (subtract) belongs in 'roi'");
      job.rois.push_back({r["name"].get<std::string>(), shape.value()});
    }
  }
  if (j.contains("display")) {
    if (!j["display"].is_object())
      return bad("job key 'display': expected an object (the desktop app's display settings)");
    job.display = j["display"].dump();
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
  XCORR_RETURN_IF_ERROR(io::read_options(j, dic_option_table(), o));
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
  if (job.reference_page != 0) j["reference_page"] = job.reference_page;
  j["frames"] = job.frames;
  json roi = json::array();
  for (const RoiShape& s : job.roi.shapes) roi.push_back(to_string(s));
  j["roi"] = roi;
  j["out"] = job.out;
  j["per_frame"] = job.per_frame;
  if (!job.templates.empty()) {
    j["templates"] = json::array();
    for (const TemplateRect& t : job.templates) j["templates"].push_back(to_string(t));
  }
  if (!job.rois.empty()) {
    j["rois"] = json::array();
    for (const NamedRoi& r : job.rois)
      j["rois"].push_back({{"name", r.name}, {"shape", to_string(r.shape)}});
  }
  if (!job.display.empty()) j["display"] = json::parse(job.display);
  io::write_options(j, dic_option_table(), o);
  return j.dump(2) + "\n";
}

}  // namespace xcorr::dic
