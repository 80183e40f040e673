#include "core/batch/batch_file.hpp"

#include <nlohmann/json.hpp>

#include "core/io/json_parse.hpp"
#include "core/io/read_file.hpp"

namespace xcorr::dic {

using json = nlohmann::json;

std::string job_label(const Batch& b, std::size_t index) {
  const std::size_t place = b.positions.size() == b.size() ? b.positions.at(index) : index + 1;
  if (index >= b.jobs.size()) {
    const std::string& name = b.registrations.at(index - b.jobs.size()).name;
    return "register job " + std::to_string(place) + (name.empty() ? "" : " ('" + name + "')");
  }
  const std::string& name = b.jobs.at(index).name;
  return "job " + std::to_string(place) + (name.empty() ? "" : " ('" + name + "')");
}

Result<Batch> parse_batch(const std::string& text, const std::filesystem::path& base) {
  auto parsed = io::parse_json(text, "the file");
  if (!parsed.is_ok()) return parsed.status();
  const json j = std::move(parsed).value();
  Batch b;
  if (j.is_object() && j.contains("type")) {  // a single registration job
    auto job = reg::parse_register_job(text, base);
    if (!job.is_ok()) return job.status();
    b.registrations.push_back(std::move(job).value());
    return b;
  }
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
  std::vector<std::size_t> dic_places, register_places;
  for (std::size_t k = 0; k < j["jobs"].size(); ++k) {
    const json& e = j["jobs"][k];
    const std::string label = "job " + std::to_string(k + 1) +
                              (e.is_object() && e.contains("name") && e["name"].is_string()
                                   ? " ('" + e["name"].get<std::string>() + "')"
                                   : "");
    if (!e.is_object()) return Status{ErrorCode::parse_error, label + ": expected a JSON object"};
    if (e.contains("type") && e["type"] == "dic") {  // a DIC job may name its type
      json dic = e;
      dic.erase("type");
      auto job = parse_dic_job(dic.dump(), base);
      if (!job.is_ok()) return Status{job.status().code(), label + ": " + job.status().message()};
      b.jobs.push_back(std::move(job).value());
      dic_places.push_back(k + 1);
      continue;
    }
    if (e.contains("type")) {
      auto r = reg::parse_register_job(e.dump(), base);
      if (!r.is_ok()) return Status{r.status().code(), label + ": " + r.status().message()};
      b.registrations.push_back(std::move(r).value());
      register_places.push_back(k + 1);
      continue;
    }
    auto job = parse_dic_job(e.dump(), base);
    if (!job.is_ok()) return Status{job.status().code(), label + ": " + job.status().message()};
    b.jobs.push_back(std::move(job).value());
    dic_places.push_back(k + 1);
  }
  b.positions = dic_places;
  b.positions.insert(b.positions.end(), register_places.begin(), register_places.end());
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
  for (const reg::RegisterJob& r : batch.registrations)
    jobs.push_back(json::parse(reg::to_json(r)));
  return json{{"jobs", jobs}}.dump(2) + "\n";
}

}  // namespace xcorr::dic
