#include "core/batch/batch_file.hpp"

#include <nlohmann/json.hpp>

#include "core/io/json_parse.hpp"
#include "core/io/read_file.hpp"

namespace xcorr::dic {

using json = nlohmann::json;

std::string job_label(const Batch& b, std::size_t index) {
  const std::string& name = b.jobs.at(index).name;
  return "job " + std::to_string(index + 1) + (name.empty() ? "" : " ('" + name + "')");
}

Result<Batch> parse_batch(const std::string& text, const std::filesystem::path& base) {
  auto parsed = io::parse_json(text, "the file");
  if (!parsed.is_ok()) return parsed.status();
  const json j = std::move(parsed).value();
  Batch b;
  if (!j.is_object() || !j.contains("jobs")) {  // a single job
    auto job = parse_dic_job(text, base);
    if (!job.is_ok()) return job.status();
    b.jobs.push_back(std::move(job).value());
    return b;
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "jobs")
      return Status{ErrorCode::parse_error, "the batch file has an unknown key '" + key +
                                                "' (a batch holds only \"jobs\")"};
  }
  if (!j["jobs"].is_array() || j["jobs"].empty())
    return Status{ErrorCode::parse_error, "batch key 'jobs': expected a non-empty list of jobs"};
  for (std::size_t k = 0; k < j["jobs"].size(); ++k) {
    const json& e = j["jobs"][k];
    const std::string label = "job " + std::to_string(k + 1) +
                              (e.is_object() && e.contains("name") && e["name"].is_string()
                                   ? " ('" + e["name"].get<std::string>() + "')"
                                   : "");
    if (!e.is_object()) return Status{ErrorCode::parse_error, label + ": expected a JSON object"};
    auto job = parse_dic_job(e.dump(), base);
    if (!job.is_ok()) return Status{job.status().code(), label + ": " + job.status().message()};
    b.jobs.push_back(std::move(job).value());
  }
  return b;
}

Result<Batch> read_batch(const std::filesystem::path& path) {
  auto text = io::read_file(path);
  if (!text.is_ok())
    return Status{ErrorCode::not_found, "cannot open job file '" + path.string() + "'"};
  auto b = parse_batch(text.value(), path.parent_path());
  if (!b.is_ok()) return Status{b.status().code(), path.string() + ": " + b.status().message()};
  return b;
}

std::string to_json(const Batch& batch) {
  json jobs = json::array();
  for (const DicJob& job : batch.jobs) jobs.push_back(json::parse(to_json(job)));
  return json{{"jobs", jobs}}.dump(2) + "\n";
}

}  // namespace xcorr::dic
