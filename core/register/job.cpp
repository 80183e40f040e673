#include "core/register/job.hpp"

#include "core/io/atomic_write.hpp"
#include "core/io/extension.hpp"
#include "core/io/json_options.hpp"
#include "core/io/json_parse.hpp"

namespace xcorr::reg {
namespace {

using nlohmann::json;

Status bad(const std::string& m) {
  return {ErrorCode::invalid_argument, m};
}

std::string resolve(const std::string& p, const std::filesystem::path& base) {
  const std::filesystem::path path(p);
  return (p.empty() || path.is_absolute() || base.empty()) ? p : (base / path).string();
}

}  // namespace

Status RegisterJob::check() const {
  if (stack.empty()) return bad("the job names no stack to register");
  if (!apply.empty() && out.empty())
    return bad("applying the drift table '" + apply + "' needs the corrected stack (out)");
  if (!apply.empty() && !drift.empty())
    return bad("the drift comes from the table '" + apply +
               "' (apply): no drift table (drift) is written");
  if (out.empty() && drift.empty())
    return bad("the job writes nothing: give the corrected stack (out) or the drift table (drift)");
  if (!out.empty()) {
    const std::string ext = io::lowercase_extension(out);
    if (ext != ".tif" && ext != ".tiff")
      return bad("corrected stack '" + out + "' must end in .tif or .tiff (a multi-page TIFF)");
  }
  XCORR_RETURN_IF_ERROR(io::check_outputs(run_paths(*this)));
  if (!drift.empty()) XCORR_RETURN_IF_ERROR(io::check_output_target(drift));
  if (!out.empty()) XCORR_RETURN_IF_ERROR(io::check_output_target(out));
  return options.check();
}

std::string partial_folder(const RegisterJob& job) {
  return (job.drift.empty() ? job.out : job.drift) + ".partial";
}

std::string job_identity(const RegisterJob& job) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(job.stack, ec);
  const auto time = std::filesystem::last_write_time(job.stack, ec);
  return to_json(job) + "# input: " + job.stack + " " + std::to_string(ec ? 0 : size) +
         " bytes, modified " + std::to_string(time.time_since_epoch().count()) + "\n";
}

io::RunPaths run_paths(const RegisterJob& job, const std::string& label) {
  const std::string p = label.empty() ? "" : label + ": ";
  return {{{p + "the stack", job.stack}, {p + "the drift table applied (apply)", job.apply}},
          {{p + "the corrected stack (out)", job.out}, {p + "the drift table (drift)", job.drift}},
          {{p + "the resume folder", partial_folder(job)}}};
}

Result<RegisterJob> parse_register_job(const std::string& text, const std::filesystem::path& base) {
  auto parsed = io::parse_json(text, "the job");
  if (!parsed.is_ok()) return bad(parsed.status().message());
  const json j = std::move(parsed).value();
  if (!j.is_object()) return bad("a register job must be one JSON object");
  RegisterJob job;
  if (j.contains("type") && j["type"] != "register")
    return bad(
        "job key 'type': expected \"register\" or \"dic\" (a DIC job may leave it out), "
        "found " +
        j["type"].dump());
  for (const auto& [key, value] : j.items()) {
    const bool known = key == "type" || key == "name" || key == "stack" || key == "out" ||
                       key == "drift" || key == "apply" ||
                       find_field(register_option_table(), key) != nullptr;
    if (!known) return bad("the register job has an unknown key '" + key + "'");
    if ((key == "name" || key == "stack" || key == "out" || key == "drift" || key == "apply") &&
        !value.is_string())
      return bad("job key '" + key + "': expected a string");
  }
  const auto text_of = [&j](const char* key) {
    return j.contains(key) ? j[key].get<std::string>() : std::string();
  };
  job.name = text_of("name");
  job.stack = resolve(text_of("stack"), base);
  job.out = resolve(text_of("out"), base);
  job.drift = resolve(text_of("drift"), base);
  job.apply = resolve(text_of("apply"), base);
  XCORR_RETURN_IF_ERROR(io::read_options(j, register_option_table(), job.options));
  XCORR_RETURN_IF_ERROR(job.check());
  return job;
}

std::string to_json(const RegisterJob& job) {
  json j;
  j["type"] = "register";
  if (!job.name.empty()) j["name"] = job.name;
  j["stack"] = job.stack;
  if (!job.out.empty()) j["out"] = job.out;
  if (!job.drift.empty()) j["drift"] = job.drift;
  if (!job.apply.empty()) j["apply"] = job.apply;
  io::write_options(j, register_option_table(), job.options);
  return j.dump(2) + "\n";
}

}  // namespace xcorr::reg
